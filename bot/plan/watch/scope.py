"""Which KEPs a watch is about: the page rows (their KEPs, their lines, the numbers no kep.yaml has now) or the
whole release (``watch --all``, ``--sig NAME``). Pure: a snapshot and page texts in, KEPs and row places out."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from bot.model.kep import Kep
from bot.model.snapshot import Snapshot, resolve, slug_matches
from bot.wiki.matrix import MatrixPage


class Places(NamedTuple):
    """Where the page rows are: ``rows``, ``{kep.yaml path: ((page path, 1-based line), ...)}`` of the rows that
    name one KEP whose slug, if written, matches it (as a sync reads rows), and ``gone``: the KEP numbers
    rows name that no kep.yaml of the snapshot has (deleted upstream, or never there), once each, in page order."""

    rows: dict[str, tuple[tuple[str, int], ...]]
    gone: tuple[int, ...]


def places(snapshot: Snapshot, parsed: Sequence[MatrixPage], only: Collection[int] | None = None) -> Places:
    """The :class:`Places` of the rows of ``parsed`` (:func:`bot.wiki.matrix.parse_page`); ``only``: KEP numbers."""
    rows: dict[str, list[tuple[str, int]]] = {}
    gone: dict[int, None] = {}
    for page in parsed:
        for row in page.rows:
            if only is not None and row.number not in only:
                continue
            found = resolve(snapshot, row.number, row.slug)
            if not found:
                gone.setdefault(row.number)
            elif len(found) == 1 and (not row.slug or slug_matches(found[0].slug, row.slug)):
                rows.setdefault(found[0].path, []).append((page.path, row.line + 1))
    return Places({p: tuple(v) for p, v in rows.items()}, tuple(gone))


def page_keps(snapshot: Snapshot, where: Places) -> list[Kep]:
    """The KEPs the page rows of ``where`` (:func:`places`) name, once each, in page order."""
    by_path = {k.path: k for k in snapshot.all_keps()}
    return [by_path[path] for path in where.rows]


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
