"""``kep-sync watch``: the watch of the release in progress for the pages' KEPs, as text and as the ``--report`` JSON.

The snapshot and the pages are read as ``kep-sync audit`` reads them (nothing is written but ``--report``); the
rest as :mod:`bot.commands.watch_inputs` reads it; the judgement is :mod:`bot.plan.watch.judge`, the text
:mod:`bot.plan.watch.render`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot.commands.inputs import Inputs
from bot.commands.watch_inputs import WatchRead, judge, watch_read
from bot.commands.watch_inputs import problems as input_problems
from bot.config import Config
from bot.errors import KepSyncError, UsageError
from bot.plan.changelog.rows import source_name
from bot.plan.evidence import release_order
from bot.plan.watch.judge import Watch, not_on_pages
from bot.plan.watch.render import render_text, report_block
from bot.plan.watch.scope import page_keps, places, sig_name
from bot.wiki.matrix import parse_page

if TYPE_CHECKING:
    from bot.http import RequestCounter
    from bot.model.kep import Problem
    from bot.model.snapshot import Snapshot


class WatchRun(NamedTuple):
    """What ``kep-sync watch`` found: the :class:`~bot.plan.watch.judge.Watch`, its ``text`` and the JSON ``report``."""

    watch: Watch
    text: str
    report: dict


def run_watch(
    config: Config,
    *,
    only: Collection[int] | None = None,
    report_path: Path | None = None,
    counter: RequestCounter | None = None,
    whole: bool = False,
    sig: str = "",
) -> WatchRun:
    """``kep-sync watch``: the watch of the pages' KEPs; nothing is written but ``report_path`` (``{"command":
    "watch", "revision", "result": "ok", "watch": {...}, "problems": [{"path": "--kep", "message"}]}``: a KEP of
    ``only`` in no page row is a problem (path ``--kep``), as in a sync, and so is each problem of the release
    notes and the gate list read (:func:`bot.commands.watch_inputs.problems`), as ``sync`` and ``validate`` report
    them, and a file or date of the release team's records that could not be read; :func:`bot.plan.watch.render.report_block`; a failed
    run writes ``result: failed`` and the ``error``, then raises the :class:`~bot.errors.KepSyncError`).
    ``whole``: every kep.yaml that names the release (``watch --all``), of the owning SIG ``sig`` when given,
    grouped by SIG with the page rows marked."""
    from bot.commands.sync import write_report
    from bot.plan.digest import blank_section
    from bot.plan.planner import decode_page

    config = config.model_copy(update={"publish": "none"})
    inputs = Inputs(config, counter)
    snapshot = None
    try:
        snapshot = inputs.snapshot()
        base = inputs.wiki.read()
        pages = {}
        for path, data in base.pages.items():
            if path in config.wiki.pages:
                text = decode_page(path, data)
                pages[path] = blank_section(text) if path == config.digest.page else text
        if sig and not any(k.sig.lower() == sig_name(sig) for k in snapshot.all_keps()):
            raise UsageError(f"--sig {sig!r}: no kep.yaml names {sig_name(sig)} as its owning-sig")
        read = watch_read(inputs)
        parsed = [parse_page(p, t, config.aliases()) for p, t in pages.items()]
        where = places(snapshot, parsed, only)
        keps = page_keps(snapshot, where)
        found = judge(config, read, keps, where, sig if whole else None)
        seen = input_problems(read)
        missing = not_on_pages(parsed, only) if not whole else []
    except KepSyncError as exc:
        if report_path is not None:
            from bot.redact import redact

            failed = {"command": "watch", "revision": snapshot.revision if snapshot else "", "result": "failed"}
            try:
                write_report(report_path, {**failed, "error": redact(str(exc))})
            except KepSyncError:
                pass
        raise
    report = {
        "command": "watch",
        "revision": snapshot.revision,
        "result": "ok",
        "watch": {
            **(report_block(found, config.links.enhancements) or {}),
            "read": read_block(config, snapshot, list(pages), read, whole, sig),
        },
        "problems": [
            *({"path": "--kep", "message": m} for m in missing),
            *({"path": p.path, "message": p.message} for p in seen),
            *records_problems(read, found.cycle.release),
        ],
    }
    if report_path is not None:
        write_report(report_path, report)
    lines = [
        *read_lines(config, snapshot, list(pages), read, found.cycle.release),
        *(f"Problem: --kep: {m}" for m in missing),
        *(f"Problem: {p.path}: {p.message}" for p in seen),
    ]
    if whole:
        lines.insert(0, f"Scope: {'SIG ' + sig_name(sig) if sig else 'every kep.yaml'} naming {found.cycle.release}")
    return WatchRun(found, render_text(found, lines, by_sig=whole), report)


def read_block(
    config: Config, snapshot: Snapshot, pages: Sequence[str], inputs: WatchRead, whole: bool, sig: str
) -> dict[str, object]:
    """The report's ``watch.read``: what the watch read (as :func:`read_lines` says it): ``scope`` (``pages``,
    ``all`` or ``sig-NAME``), ``pages``, ``source`` and ``revision``, ``release_notes`` (``{source, releases}``
    or ``None``), ``gate_list`` (``{where, revision, newest}`` or ``None``), ``records``: the release team's records
    (``{source, releases, problems}``: the releases whose key dates were read, and how many files or dates were
    not, each in the report's ``problems``; ``None``: not read) and ``history`` (whether the kep.yaml history was
    read)."""
    notes = inputs.notes
    rec = inputs.records
    gl = inputs.lifecycle.lists[-1] if inputs.lifecycle is not None and inputs.lifecycle.lists else None
    return {
        "scope": (sig_name(sig) if sig else "all") if whole else "pages",
        "pages": list(pages),
        "source": source_name(snapshot.source, code=False),
        "revision": snapshot.revision,
        "release_notes": {"source": notes.source, "releases": sorted(notes.notes, key=release_order)}
        if notes is not None
        else None,
        "gate_list": {"where": gl.where, "revision": gl.revision, "newest": gl.newest} if gl is not None else None,
        "records": {
            "source": rec.source,
            "releases": sorted(rec.calendars, key=release_order),
            "problems": len(rec.problems),
        }
        if rec is not None
        else None,
        "history": inputs.history is not None,
    }


def records_problems(inputs: WatchRead, release: str) -> list[dict[str, str]]:
    """The report's problems of the release team's records about ``release``, the one release whose schedule and
    exceptions a watch reads: ``[{"path": "release-1.37/README.md", "message": "line 47: cycle began: no year in
    ...; not read"}]``; ``[]`` without them (``kep-sync validate`` reports the problems of every release)."""
    return [
        {"path": p.path, "message": f"{p.key}: {p.message}" if p.key else p.message} for p in _problems(inputs, release)
    ]


def _problems(inputs: WatchRead, release: str) -> list[Problem]:
    """The problems of the records' files of ``release`` (``v1.37``: ``release-1.37/...``)."""
    folder = f"release-{release.removeprefix('v')}/"
    records = inputs.records
    return [p for p in records.problems if release and p.path.startswith(folder)] if records is not None else []


def read_lines(config: Config, snapshot: Snapshot, pages: Sequence[str], inputs: WatchRead, release: str) -> list[str]:
    """What the watch read, one line each: the pages, the source at its revision, the notes, the release team's
    records (with the number of problems of ``release``'s files) and the gate list."""
    rev = snapshot.revision[:12] if snapshot.revision else "working tree"
    out = [f"Pages: {', '.join(pages) or 'none'}", f"Source: {source_name(snapshot.source, code=False)} at {rev}"]
    if inputs.notes is not None:
        releases = sorted(inputs.notes.notes, key=release_order)
        out.append(f"Release notes: {inputs.notes.source} ({', '.join(releases) or 'none'})")
    if inputs.records is not None:
        n, bad = len(inputs.records.calendars), len(_problems(inputs, release))
        said = (
            f", {bad} file{'s' if bad != 1 else ''} or date{'s' if bad != 1 else ''} not read: see --report"
            if bad
            else ""
        )
        out.append(f"Release team's records: {inputs.records.source} ({n} release{'s' if n != 1 else ''}{said})")
    if inputs.lifecycle is not None and inputs.lifecycle.lists:
        gl = inputs.lifecycle.lists[-1]
        out.append(f"Gate list: {gl.where} (blob {gl.revision[:12]}, newest version {gl.newest or '-'})")
    return out
