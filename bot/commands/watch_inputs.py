"""What the watch of the release in progress is judged from, for ``kep-sync watch`` (:mod:`bot.commands.watch`)
and for the watch a sync adds to its pull request body (``release.watch``, :func:`sync_watch`). The judgement is
:mod:`bot.plan.watch.judge`.

Read: the release notes of the newest two releases (or of ``release.current``), the newest feature-gate list
(:func:`bot.sources.gate_head.newest_gate_list`: for ``github:kubernetes/kubernetes`` the default branch) and the
kep.yaml history of a git source (the timelines of the page KEPs; of every kep.yaml when the cycle's first day
comes from the history).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot.config import Config
from bot.model import consistency
from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.plan.changelog.rows import source_name
from bot.plan.diff import kep_id
from bot.plan.evidence import build_index
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence.index import Evidence
from bot.plan.evidence.ownership import owners_with
from bot.plan.evidence.prose import Prepared, distinctive_words, possible_evidence
from bot.plan.signals import OriginsLoader, Owners, gate_ownership
from bot.plan.watch.calendar import follow_calendar
from bot.plan.watch.judge import Watch, cycle_start, release_in_progress, utc_day, watch

if TYPE_CHECKING:
    from bot.http import RequestCounter
    from bot.model.gates import Lifecycle
    from bot.model.notes import ReleaseNotes
    from bot.model.release_calendar import Records
    from bot.model.snapshot import Snapshot
    from bot.sources.history import GitHistory


class Inputs(NamedTuple):
    """What a watch is judged from: the ``snapshot``, the release ``notes``, the gate ``lifecycle`` and the kep.yaml
    ``history`` (each ``None`` when not read), and ``origins``: when each kep.yaml first declared its gates, read
    from that history on demand (:func:`bot.sources.history.gate_origins_loader`; ``None`` without history);
    ``records``: the release team's key dates and freeze exceptions (``None``: ``release.sig_release`` off)."""

    snapshot: Snapshot
    notes: ReleaseNotes | None
    lifecycle: Lifecycle | None
    history: GitHistory | None
    origins: OriginsLoader | None = None
    records: Records | None = None


def judge(config: Config, inputs: Inputs, keps: Sequence[Kep]) -> Watch:
    """The watch of ``keps`` (the page KEPs) from ``inputs``; the release and the cycle's first day from
    ``config.release`` or, unset, from the notes / gate list and the history (:mod:`bot.plan.watch.judge`)."""
    snapshot, notes, lc, history = inputs.snapshot, inputs.notes, inputs.lifecycle, inputs.history
    all_keps = snapshot.all_keps()
    usable = [r for r in notes.available if r in notes.notes or r not in notes.skipped] if notes else []
    cycle = release_in_progress(config.release.current, usable, lc, consistency.release_in_progress(all_keps))
    wanted = [k.path for k in (all_keps if history is not None and not config.release.started else keps)]
    timelines = history.timelines(wanted) if history is not None and cycle.release else None
    calendar = inputs.records.calendars.get(cycle.release) if inputs.records is not None else None
    if inputs.records is not None:
        cycle = cycle._replace(calendar=calendar, as_of=config.release.today or as_of(inputs))
    if config.release.started:
        cycle = cycle._replace(started=config.release.started, started_from="config", started_why="release.started")
    elif calendar is not None and calendar.day("started"):
        why = f"the release team's schedule, line {calendar.dates['started'].line}"
        cycle = cycle._replace(started=calendar.day("started"), started_from=calendar.where, started_why=why)
    elif timelines is not None:
        day, why = cycle_start(cycle.release, timelines.values())
        cycle = cycle._replace(started=day, started_from="history" if day else "", started_why=why)
    owners = _owners(inputs, keps) if notes is not None or lc is not None else None
    joins = gates_mod.joins(keps, all_keps, lc, owners.listed if owners else None) if lc is not None else None
    found = watch(
        keps,
        cycle,
        ids={k.path: kep_id(snapshot, k) for k in keps},
        index=build_index(notes.notes, all_keps, owners_with(all_keps, owners.notes) if owners else None)
        if notes is not None
        else None,
        lifecycle=lc,
        joins=joins,
        timelines=timelines,
        unseen=unseen(config, inputs, cycle.release, bool(cycle.started)),
        possible=possible_notes(notes.notes, keps, all_keps, cycle.release) if notes is not None else None,
    )
    exceptions = inputs.records.exceptions.get(cycle.release, ()) if inputs.records is not None else ()
    return follow_calendar(found, exceptions, lc, joins)


def as_of(inputs: Inputs) -> str:
    """The day (``YYYY-MM-DD``, UTC) the watch stands on: the newest commit of the kep.yaml history (the data
    knows nothing later), else today in UTC."""
    if inputs.history is not None and inputs.history.log():
        return utc_day(inputs.history.log()[0].date)
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _owners(inputs: Inputs, keps: Sequence[Kep]) -> Owners | None:
    """The owners of the shared gates of ``keps`` from the kep.yaml history (:mod:`bot.plan.evidence.ownership`):
    an owner's notes and list entries count for it, a borrower's do not; ``None`` without history."""
    if inputs.history is None or inputs.origins is None:
        return None
    return gate_ownership(inputs.snapshot, keps, inputs.origins, inputs.lifecycle)


def possible_notes(
    notes: Mapping[str, Mapping[str, object]], keps: Sequence[Kep], all_keps: Sequence[Kep], release: str
) -> dict[str, tuple[Evidence, ...]]:
    """``{kep.yaml path: possible evidence}`` for each of ``keps`` with a stage planned in ``release``: the notes
    of ``release`` that describe it by its distinctive title words and announce that stage
    (:func:`bot.plan.evidence.prose.possible_evidence`; ``notes``: ``{release: {pr: entry}}``)."""
    words = distinctive_words(all_keps, notes)
    declared = {g for k in all_keps for g in k.gates()}
    prepared: Prepared = {}  # the release's notes read for prose once, not once per KEP
    out = {}
    for kep in keps:
        if kep.path not in words:
            continue
        found = tuple(
            e
            for stage in STAGES
            if normalize_milestone(kep.milestone(stage)) == release
            for e in possible_evidence(notes, kep, stage, words[kep.path], declared, prepared)
        )
        if found:
            out[kep.path] = found
    return out


def unseen(config: Config, inputs: Inputs, release: str, started: bool) -> list[str]:
    """One line per input the watch lacks and what that leaves out."""
    out = []
    if not release:
        out.append("the release in progress: no release notes, gate list or kep.yaml names one (set release.current)")
    if inputs.notes is None:
        out.append("release notes: none read (--release-notes); no note can say landed or contradicted")
    elif release and release not in inputs.notes.notes:
        why = next(
            (f"{p.path}: {p.message.split('; ')[0]}" for p in inputs.notes.problems if _about(p.path, release)),
            f"none in {inputs.notes.source}",
        )
        out.append(f"release notes for {release}: {why}; no note can say landed or contradicted")
    if inputs.lifecycle is None:
        out.append("feature-gate list: none read (--gate-lifecycle); no gate entry can say landed or contradicted")
    if inputs.history is None:
        out.append(
            f"history: {source_name(config.enhancements, code=False)} has no git history (a github: source, a "
            "tarball or a plain directory); no slips, no dates"
        )
    elif not started and release:
        out.append("the day the cycle began: unknown (set release.started); no slips")
    elif config.release.started and inputs.history.log():
        newest = inputs.history.log()[0].date[:10]
        if config.release.started > newest:
            out.append(
                f"changes since release.started {config.release.started}: it is after the newest commit of "
                f"{source_name(config.enhancements, code=False)} ({newest}), so no slip or late addition can show "
                "(is it the day the next cycle begins?)"
            )
    return out + _records_unseen(inputs.records, release)


def _records_unseen(records: Records | None, release: str) -> list[str]:
    """What the release team's records leave unseen: none read, or the release's key dates absent or unread."""
    if records is None:
        return [
            "the release team's records: none read (--sig-release); no freeze dates, so no planned, at risk, "
            "shipped or missed"
        ]
    calendar = records.calendars.get(release)
    folder = f"release-{release.removeprefix('v')}/"
    why = "; ".join(f"{p.key}: {p.message}" for p in records.problems if p.path.startswith(folder))
    if release and (calendar is None or not calendar.day("code_freeze")):
        return [f"the release team's schedule of {release}: {why or 'no Code Freeze in ' + records.source}"]
    return []


def _about(path: str, release: str) -> bool:
    """True when a release-notes problem's ``path`` is the notes file of ``release`` (``v1.37``:
    ``.../release-notes-1.37.json``)."""
    return os.path.basename(path) == f"release-notes-{release.removeprefix('v')}.json"


def read_inputs(
    config: Config,
    snapshot: Snapshot,
    notes_loader: Callable[[Collection[str] | None], ReleaseNotes] | None,
    counter: RequestCounter | None = None,
    records: Records | None = None,
) -> Inputs:
    """The release notes (``notes_loader``: :func:`bot.commands.sync.release_notes_loader`), the newest gate list,
    the history of ``config``'s sources for ``snapshot`` and the release team's ``records`` (read here when
    ``None`` and ``release.sig_release`` is set)."""
    from bot.sources.enhancements import parse_source
    from bot.sources.gate_head import newest_gate_list
    from bot.sources.history import gate_origins_loader, read_history

    cache = Path(config.cache_dir).expanduser()
    loader = notes_loader
    notes = loader({config.release.current} if config.release.current else set()) if loader else None
    lc = None
    if config.gate_lifecycle.source:
        token = os.environ.get("GITHUB_TOKEN") or None
        lc = newest_gate_list(
            config.gate_lifecycle.source, cache, api_url=config.github.api_url, token=token, counter=counter
        )
    source = parse_source(config.enhancements)
    history = read_history(source.kind, source.location, cache, snapshot.revision)
    origins = (
        gate_origins_loader(source.kind, source.location, cache, snapshot.revision) if history is not None else None
    )
    if records is None and config.release.sig_release:
        from bot.sources.sig_release import load_records

        token = os.environ.get("GITHUB_TOKEN") or None
        records = load_records(
            config.release.sig_release, cache, api_url=config.github.api_url, token=token, counter=counter
        )
    return Inputs(snapshot, notes, lc, history, origins, records)


def sync_watch(
    config: Config,
    snapshot: Snapshot,
    notes_loader: Callable[[Collection[str] | None], ReleaseNotes] | None,
    counter: RequestCounter | None = None,
    records: Records | None = None,
) -> Callable[[Sequence[Kep]], Watch] | None:
    """For :func:`bot.plan.planner.plan_sync`: page KEPs -> their watch, the inputs read on the first call only
    (:func:`read_inputs`, with ``records`` when already read); ``None`` unless ``release.watch`` is on."""
    if not config.release.watch:
        return None
    read: dict[str, Inputs] = {}

    def of(keps: Sequence[Kep]) -> Watch:
        if "inputs" not in read:
            read["inputs"] = read_inputs(config, snapshot, notes_loader, counter, records)
        return judge(config, read["inputs"], keps)

    return of
