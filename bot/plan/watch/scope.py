"""Which KEPs a watch is about: the page rows (their KEPs, their lines, the numbers no kep.yaml has now) or the
whole release (``watch --all``, ``--sig NAME``). Pure: a snapshot and page texts in, KEPs and row places out."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.model.kep import Kep
from bot.model.snapshot import Snapshot, resolve, slug_matches
from bot.wiki.matrix import parse_page


def gone_numbers(
    snapshot: Snapshot, pages: Mapping[str, str], aliases: Mapping[str, Sequence[str]], only: Collection[int] | None
) -> list[int]:
    """The KEP numbers page rows name that no kep.yaml of ``snapshot`` has (deleted upstream, or never there),
    once each, in page order; ``only``: KEP numbers."""
    out: dict[int, None] = {}
    for path, text in pages.items():
        for row in parse_page(path, text, aliases).rows:
            if (only is None or row.number in only) and not snapshot.keps.get(row.number):
                out.setdefault(row.number)
    return list(out)


def page_rows(
    snapshot: Snapshot, pages: Mapping[str, str], aliases: Mapping[str, Sequence[str]]
) -> dict[str, tuple[tuple[str, int], ...]]:
    """``{kep.yaml path: ((page path, 1-based line), ...)}`` of the rows of ``pages`` that name one KEP, as
    :func:`bot.plan.watch.judge.page_keps` resolves them."""
    out: dict[str, list[tuple[str, int]]] = {}
    for path, text in pages.items():
        for row in parse_page(path, text, aliases).rows:
            found = resolve(snapshot, row.number, row.slug)
            if len(found) == 1 and (not row.slug or slug_matches(found[0].slug, row.slug)):
                out.setdefault(found[0].path, []).append((path, row.line + 1))
    return {p: tuple(v) for p, v in out.items()}


def sig_name(name: str) -> str:
    """A SIG as kep.yaml's ``owning-sig`` writes it: ``node`` and ``sig-node`` are ``sig-node``."""
    low = name.strip().lower()
    return low if low.startswith("sig-") or not low else f"sig-{low}"


def sig_keps(snapshot: Snapshot, sig: str = "") -> list[Kep]:
    """Every KEP of ``snapshot`` (``watch --all``: the watch keeps those with a stage planned in the release, or
    slipped from it, or naming it as latest-milestone), by path; ``sig``: only those whose owning SIG it is
    (:func:`sig_name`)."""
    want = sig_name(sig)
    return [k for k in snapshot.all_keps() if not want or k.sig.lower() == want]
