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
from typing import TYPE_CHECKING, NamedTuple

from bot.commands.inputs import Inputs
from bot.config import Config
from bot.model import consistency
from bot.model.history.declared import former_gates
from bot.model.history.log import utc_day
from bot.model.kep import STAGES, Kep, Problem, normalize_milestone
from bot.model.note_text import release_order
from bot.plan.changelog.rows import source_name
from bot.plan.diff import kep_id
from bot.plan.evidence import build_index, gate_owners
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence.index import Evidence
from bot.plan.evidence.ownership import owners_with
from bot.plan.evidence.prose import Prepared, distinctive_words, named_evidence, possible_evidence, titles
from bot.plan.signals import OriginsLoader, Owners, gate_ownership
from bot.plan.watch.calendar import follow_calendar
from bot.plan.watch.judge import Watch, cycle_start, release_in_progress, watch
from bot.plan.watch.scope import Places, sig_keps

if TYPE_CHECKING:
    from bot.model.gates import Lifecycle
    from bot.model.notes import ReleaseNotes
    from bot.model.release_calendar import Records
    from bot.model.snapshot import Snapshot
    from bot.sources.history import GitHistory


class WatchRead(NamedTuple):
    """What a watch is judged from: the ``snapshot``, the release ``notes``, the gate ``lifecycle`` and the kep.yaml
    ``history`` (each ``None`` when not read), and ``origins``: when each kep.yaml first declared its gates, read
    from that history on demand (:meth:`bot.commands.inputs.Inputs.gate_origins`; ``None`` without history);
    ``records``: the release team's key dates and freeze exceptions (``None``: ``release.sig_release`` off)."""

    snapshot: Snapshot
    notes: ReleaseNotes | None
    lifecycle: Lifecycle | None
    history: GitHistory | None
    origins: OriginsLoader | None = None
    records: Records | None = None


def watch_read(inputs: Inputs) -> WatchRead:
    """What the watch reads of the run's ``inputs``: the release notes of the newest two releases and of
    ``release.current`` (the files a sync's review read already are not read again), the newest gate list
    (:meth:`~bot.commands.inputs.Inputs.newest_gate_list`) and the history of the source at the snapshot's
    revision, and the release team's records. Raises the :class:`~bot.errors.KepSyncError` of a source that cannot be read."""
    config = inputs.config
    notes = (
        inputs.release_notes({config.release.current} if config.release.current else set()) if inputs.notes_on else None
    )
    lc = inputs.newest_gate_list()
    history = inputs.git_history
    origins = inputs.gate_origins() if history is not None else None
    return WatchRead(inputs.snapshot(), notes, lc, history, origins, inputs.records())


def judge(
    config: Config,
    inputs: WatchRead,
    keps: Sequence[Kep],
    where: Places | None = None,
    sig: str | None = None,
) -> Watch:
    """The watch of ``keps`` (the page KEPs) from ``inputs``; the release and the cycle's first day from
    ``config.release`` or, unset, from the notes / gate list and the history (:mod:`bot.plan.watch.judge`);
    ``where``: the page rows of each KEP and the KEP numbers of rows with no kep.yaml now
    (:func:`bot.plan.watch.scope.places`), read from the history as deleted kep.yaml files; ``sig``: not ``None`` for the whole release (``watch --all``:
    every kep.yaml naming it, :func:`bot.plan.watch.scope.release_keps`), of that owning SIG when not ``""``."""
    snapshot, notes, lc, history = inputs.snapshot, inputs.notes, inputs.lifecycle, inputs.history
    all_keps = snapshot.all_keps()
    usable = [r for r in notes.available if r in notes.notes or r not in notes.skipped] if notes else []
    cycle = release_in_progress(config.release.current, usable, lc, consistency.release_in_progress(all_keps))
    lost = unusable_newer(inputs, cycle.release) if not config.release.current else []
    if lost:
        cycle = cycle._replace(release_why=f"{cycle.release_why}; {'; '.join(lost)}")
    whole = history is not None and (not config.release.started or sig is not None)
    wanted = [k.path for k in (all_keps if whole else keps)]
    timelines = history.timelines(wanted) if history is not None and cycle.release else None
    calendar = inputs.records.calendars.get(cycle.release) if inputs.records is not None else None
    if inputs.records is not None:
        cycle = cycle._replace(calendar=calendar, as_of=config.release.today or as_of(inputs))
        newest = as_of(inputs) if inputs.history is not None and inputs.history.log() else ""
        cycle = cycle._replace(data_until=newest if newest > cycle.as_of else "")
    if config.release.started:
        cycle = cycle._replace(started=config.release.started, started_from="config", started_why="release.started")
    elif calendar is not None and calendar.day("started"):
        why = f"the release team's schedule, line {calendar.dates['started'].line}"
        cycle = cycle._replace(started=calendar.day("started"), started_from=calendar.where, started_why=why)
    elif timelines is not None:
        day, why = cycle_start(cycle.release, timelines.values())
        cycle = cycle._replace(started=day, started_from="history" if day else "", started_why=why)
    gone = where.gone if where is not None and history is None else ()
    if sig is not None:  # the whole release: every KEP, as the watch keeps those planning a stage or slipped
        keps = sig_keps(snapshot, sig)
    owners = _owners(inputs, keps) if notes is not None or lc is not None else None
    current = {k.path: k for k in all_keps}
    former = {
        p: gates
        for p, t in (timelines or {}).items()
        if p in current and (gates := former_gates(t, current[p].gates()))
    }
    joins = gates_mod.joins(keps, all_keps, lc, owners.listed if owners else None) if lc is not None else None
    found = watch(
        keps,
        cycle,
        ids={k.path: kep_id(snapshot, k) for k in keps},
        index=build_index(
            notes.notes,
            all_keps,
            _with_former(owners_with(all_keps, owners.notes) if owners else gate_owners(all_keps), former),
        )
        if notes is not None
        else None,
        lifecycle=lc,
        joins=joins,
        timelines=timelines,
        unseen=unseen(config, inputs, cycle.release, bool(cycle.started))
        + [f"KEP {n}: a page row, but no kep.yaml at this revision and no history to tell when it went" for n in gone],
        possible=possible_notes(notes.notes, keps, all_keps, cycle.release) if notes is not None else None,
        deleted=_deleted(history, snapshot, where.gone) if where and history is not None and cycle.release else None,
        former=former,
        rows=where.rows if where else None,
        whole=sig is not None,
    )
    exceptions = inputs.records.exceptions.get(cycle.release, ()) if inputs.records is not None else ()
    return follow_calendar(found, exceptions, lc, joins)


def as_of(inputs: WatchRead) -> str:
    """The day (``YYYY-MM-DD``, UTC) the watch stands on: the newest commit of the kep.yaml history (the data
    knows nothing later), else today in UTC."""
    if inputs.history is not None and inputs.history.log():
        return utc_day(inputs.history.log()[0].date)
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _with_former(owners: dict[str, tuple[str, ...]], former: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """``owners`` (``{gate: kep.yaml paths}``) with each gate a kep.yaml once declared and no kep.yaml declares now
    (``former``: ``{path: gates}``), owned by the files that declared it."""
    out = dict(owners)
    for path, gates in sorted(former.items()):
        for gate in gates:
            if gate not in owners:
                out[gate] = tuple(sorted({*out.get(gate, ()), path}))
    return out


def _deleted(history: GitHistory, snapshot: Snapshot, numbers: Collection[int]) -> dict[str, list]:
    """``{kep.yaml path: timeline}`` of the last kep.yaml of each KEP of ``numbers`` that the history shows
    deleted (:func:`bot.model.history.log.paths_of`)."""
    from bot.model.history.log import paths_of

    have = {k.path for k in snapshot.all_keps()}
    paths = [p for n in numbers for p in paths_of(history.log(), n) if p not in have]
    return history.timelines(paths) if paths else {}


def unusable_newer(inputs: WatchRead, release: str) -> list[str]:
    """One clause per release newer than ``release`` whose notes file the source has but could not be used (cut
    short, not JSON, unreadable): the watch would have been of that release, so the reader is told why it is not
    (``release notes for v1.37 unusable (FILE: why), so not taken as the release in progress``)."""
    notes = inputs.notes
    if notes is None or not release:
        return []
    out = []
    for skipped in sorted(notes.skipped, key=release_order):
        if (
            skipped in notes.available
            and skipped not in notes.notes
            and release_order(skipped) > release_order(release)
        ):
            why = next((f"{p.path}: {p.message.split('; ')[0]}" for p in notes.problems if _about(p.path, skipped)), "")
            out.append(f"release notes for {skipped} unusable ({why}), so not taken as the release in progress")
    return out


def problems(inputs: WatchRead) -> list[Problem]:
    """The problems of the inputs the watch read: of the release notes (a file cut short or not JSON, entries
    skipped, a stale cache) and of the gate list (an entry whose version is not MAJOR.MINOR, skipped), as
    ``kep-sync sync`` and ``validate`` report them."""
    return [*(inputs.notes.problems if inputs.notes else ()), *(inputs.lifecycle.problems if inputs.lifecycle else ())]


def _owners(inputs: WatchRead, keps: Sequence[Kep]) -> Owners | None:
    """The owners of the shared gates of ``keps`` from the kep.yaml history (:mod:`bot.plan.evidence.ownership`):
    an owner's notes and list entries count for it, a borrower's do not; ``None`` without history."""
    if inputs.history is None or inputs.origins is None:
        return None
    return gate_ownership(inputs.snapshot, keps, inputs.origins, inputs.lifecycle)


def possible_notes(
    notes: Mapping[str, Mapping[str, object]], keps: Sequence[Kep], all_keps: Sequence[Kep], release: str
) -> dict[str, tuple[Evidence, ...]]:
    """``{kep.yaml path: evidence in prose}`` for each of ``keps`` with a stage planned in ``release``: the notes
    of ``release`` that name it by its title (:func:`bot.plan.evidence.prose.named_evidence`, ``possible`` False),
    then those that describe it by its distinctive title words and announce that stage
    (:func:`bot.plan.evidence.prose.possible_evidence`); ``notes``: ``{release: {pr: entry}}``."""
    words = distinctive_words(all_keps, notes)
    declared = {g for k in all_keps for g in k.gates()}
    prepared: Prepared = {}  # the release's notes read for prose once, not once per KEP
    known = titles(all_keps)
    out = {}
    for kep in keps:
        stages = [s for s in STAGES if normalize_milestone(kep.milestone(s)) == release]
        named = [e for s in stages for e in named_evidence(notes, kep, s, declared, known, prepared)]
        found = named + [
            e
            for s in stages
            if kep.path in words
            for e in possible_evidence(notes, kep, s, words[kep.path], declared, prepared)
            if e.pr not in {n.pr for n in named}
        ]
        if found:
            out[kep.path] = tuple(found)
    return out


def unseen(config: Config, inputs: WatchRead, release: str, started: bool) -> list[str]:
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


def sync_watch(inputs: Inputs) -> Callable[[Sequence[Kep], Places], Watch] | None:
    """For :func:`bot.plan.planner.plan_sync`: page KEPs and their rows (:func:`bot.plan.watch.scope.places`) ->
    their watch, as ``kep-sync watch`` judges it (:func:`judge`), read from ``inputs`` on the first call
    (:func:`watch_read`); ``None`` unless ``release.watch`` is on."""
    if not inputs.config.release.watch:
        return None
    read: dict[str, WatchRead] = {}

    def of(keps: Sequence[Kep], where: Places | None = None) -> Watch:
        if "read" not in read:
            read["read"] = watch_read(inputs)
        return judge(inputs.config, read["read"], keps, where)

    return of
