"""The watch of the release in progress: each page KEP with a stage planned in that release, the signs so far
and one state. Pure: KEPs, release notes, the gate lifecycle and kep.yaml timelines in, a :class:`Watch` out.

For the release in progress ``R`` (:class:`Cycle`), a page KEP *plans* a graduation stage in R when its
kep.yaml names R as that stage's milestone (``alpha``/``beta``/``stable``; several: all of them). Its signs
(:class:`Sign`), each with its source and, where the source has one, its date:

- ``release note``: a sentence of R's notes surely about the KEP (:mod:`bot.plan.evidence.index`): it announces
  a planned stage (``landed``), another graduation stage (``contradicts``, unless another note announces the
  planned one) or no stage (work merged this cycle: ``on track``); one naming a gate other KEPs declare too is
  shown, never counted; a note linked to the KEP that introduces its feature by title, or that adds something to
  a KEP with no stage yet whose first stage is alpha (:func:`bot.plan.evidence.prose.adds_first`), announces the
  first stage kep.yaml plans; a gate an earlier kep.yaml declared links a note
  too, and the sign says it was renamed; a note naming neither the KEP nor a gate that names it by its title
  (:func:`bot.plan.evidence.prose.named_evidence`) and announces a planned stage is ``landed``; one describing it
  by its distinctive title words only (:func:`bot.plan.evidence.prose.possible_evidence`) is a ``possible`` sign,
  shown with its pull request, never counted; no note hides another;
- ``gate list``: the gate that speaks for the KEP (:func:`bot.plan.evidence.gates.join`) in the newest list
  holding it: it reaches the planned stage in R (``landed``), sits at another stage in R or reached the
  planned stage before R (``contradicts``), else what the list shows so far; a gate other KEPs declare too
  speaks only for its owner (:mod:`bot.plan.evidence.ownership`, from the kep.yaml history), and a stage it
  reached before its owner took it (:attr:`bot.plan.evidence.gates.Join.since`) is shown, not counted;
- ``kep.yaml``: status implementable or implemented, stage the highest planned stage and latest-milestone R
  (``on track``), with the date the stage took its value;
- ``history``: what changed in the kep.yaml since the cycle began (``Cycle.started``): a planned stage moved
  to a later release or removed, the KEP withdrawn or its kep.yaml deleted (``slip``), a stage planned in R after
  the cycle began (added late), stage and status moves; else when the plan was made.

States (:data:`STATES`): ``slipped`` (no stage planned in R any more, but one was at some version since the
cycle began), ``contradicted`` (a sign says another stage), ``landed`` (a note or the list says the planned
stage), ``on track`` (kep.yaml set for R and no contrary sign), ``no sign yet`` (also notes naming no stage while
kep.yaml never set the stage). The whole release (``watch --all``) adds the KEPs naming R as latest-milestone with
no stage planned there (:data:`NO_NEW_STAGE`, :attr:`Watch.targeting`).
Release notes and gate lists carry no dates: their signs name the note's pull request and the list.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from bot.model.gates import Lifecycle, release_key, shipped_text
from bot.model.history.log import NO_BLOB, Version, kep_number, utc_day
from bot.model.history.provenance import field_origin
from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.model.note_text import default_off
from bot.model.release_calendar import Calendar
from bot.plan.evidence.gates import Join
from bot.plan.evidence.index import Evidence, Mention, NotesIndex
from bot.plan.evidence.prose import adds_first, first_stage, gate_in_code, title_words
from bot.wiki.matrix import MatrixPage

#: The states, in the order a reader needs them: what needs a look first.
CONTRADICTED, SLIPPED, NO_SIGN, ON_TRACK, LANDED = "contradicted", "slipped", "no sign yet", "on track", "landed"
STATES = (CONTRADICTED, SLIPPED, NO_SIGN, ON_TRACK, LANDED)
#: The state of a KEP in :attr:`Watch.targeting`: work in the release, no graduation.
NO_NEW_STAGE = "no new stage"
#: The states that follow the release calendar (:mod:`bot.plan.watch.calendar`, with the release team's records
#: only): ``planned`` before the Enhancements Freeze, ``at risk`` from Code Freeze on, ``shipped`` / ``missed``
#: after the release day.
PLANNED, AT_RISK, SHIPPED, MISSED = "planned", "at risk", "shipped", "missed"
#: Every state, in the order a reader needs them.
ALL_STATES = (CONTRADICTED, SLIPPED, MISSED, AT_RISK, NO_SIGN, PLANNED, ON_TRACK, LANDED, SHIPPED)
#: What a sign does to the state (``Sign.says``); ``possible`` (a note matched by title words only,
#: :mod:`bot.plan.evidence.prose`), ``off`` (a note turning the KEP's gate off by default in R,
#: :func:`bot.model.note_text.default_off`: the pull request's ``off``, said in the reason) and ``""``: shown,
#: not counted.
POSSIBLE, OFF = "possible", "off"
SAYS = (LANDED, "contradicts", ON_TRACK, "slip", POSSIBLE, OFF, "")
#: Statuses under which a KEP ships nothing.
DEAD_STATUSES = ("withdrawn", "replaced", "rejected", "deferred")
#: One kep.yaml version and its tracked fields (``None``: unreadable), oldest first.
Timeline = Sequence[tuple[Version, Mapping[str, str] | None]]


class Cycle(NamedTuple):
    """The release in progress and the day its cycle began, each with where it came from.

    ``release``: ``vMAJOR.MINOR`` (``""``: unknown); ``release_from``: ``config``, ``release notes``,
    ``gate list`` or ``kep.yaml``; ``started``: ``YYYY-MM-DD`` (``""``: unknown); ``started_from``:
    ``config``, ``history`` or the release team's file (``release-1.37/README.md``); ``release_why`` /
    ``started_why``: one line each for the reader; ``calendar``: the release's key dates from the release team's
    records (``None``: not read), and ``as_of``: the day (``YYYY-MM-DD``, UTC) the watch stands on;
    ``data_until``: the day of the newest kep.yaml commit read when it is after ``as_of`` (``release.today`` /
    ``--today`` set earlier than the data: the signs read may postdate ``as_of``), else ``""``.
    """

    release: str
    release_from: str
    release_why: str
    started: str = ""
    started_from: str = ""
    started_why: str = ""
    calendar: Calendar | None = None
    as_of: str = ""
    data_until: str = ""


class Sign(NamedTuple):
    """One sign about a KEP's plan: ``source`` (``release note``, ``gate list``, ``kep.yaml``, ``history``),
    ``says`` (one of :data:`SAYS`), the ``stage`` it speaks of (``""``: none), ``date`` (``YYYY-MM-DD`` as the
    commit gives it; ``""`` for notes and lists, which have none), the pull request ``pr`` (0: none) and its
    ``url``, ``text``: one line for the reader, and ``quote``: the release note's sentence (``""`` for others)."""

    source: str
    says: str
    stage: str
    date: str
    pr: int
    url: str
    text: str
    quote: str = ""


class WatchEntry(NamedTuple):
    """One KEP of the watch: ``kep`` id, ``kep_path``, ``title``, the ``planned`` stages (those that slipped, for
    a slipped KEP), the ``state``, a one-line ``reason`` and every ``sign``; from kep.yaml: the owning ``sig``,
    ``status``, ``stage`` and ``gates``; ``target``: where a slipped stage went (``v1.38``; ``""``: nowhere or not
    slipped); ``rows``: the page rows naming the KEP, ``(page path, 1-based line)``."""

    kep: str
    kep_path: str
    title: str
    planned: tuple[str, ...]
    state: str
    reason: str
    signs: tuple[Sign, ...]
    sig: str = ""
    status: str = ""
    stage: str = ""
    gates: tuple[str, ...] = ()
    target: str = ""
    rows: tuple[tuple[str, int], ...] = ()


class Watch(NamedTuple):
    """The watch: the ``cycle``, one entry per KEP (ordered by :data:`STATES`, then KEP), ``unseen``: what it
    could not see (no release notes, no gate list, no history), one line each, and ``targeting``: the KEPs whose
    latest-milestone is the release but that plan no stage in it (state :data:`NO_NEW_STAGE`; only when asked for,
    ``watch --all``)."""

    cycle: Cycle
    entries: tuple[WatchEntry, ...]
    unseen: tuple[str, ...]
    targeting: tuple[WatchEntry, ...] = ()

    def states(self) -> tuple[str, ...]:
        """The states this watch can give: :data:`STATES`, and :data:`ALL_STATES` with a release calendar."""
        return ALL_STATES if self.cycle.calendar is not None else STATES

    def counts(self) -> dict[str, int]:
        """``{state: number of KEPs}`` for every state of :meth:`states`, zeros included."""
        return {s: sum(e.state == s for e in self.entries) for s in self.states()}


def release_in_progress(
    current: str, notes: Sequence[str], lifecycle: Lifecycle | None, kep_yaml: tuple[int, int] | None
) -> Cycle:
    """The release in progress: ``current`` (``release.current``) when set; else the newest of the newest
    release with notes (``notes``: the releases the notes source has) and the release the gate list is making
    (:func:`list_release`); else ``kep_yaml`` (:func:`bot.model.consistency.release_in_progress`: the newest
    latest-milestone many KEPs name); else unknown (``release`` ``""``)."""
    if current:
        return Cycle(current, "config", "release.current")
    said = []
    if notes:
        newest = max(notes, key=release_key)
        said.append((newest, "release notes", f"the newest release with notes is {newest}"))
    made = list_release(lifecycle) if lifecycle is not None else ""
    if made:
        said.append((made, "gate list", f"the newest gate list is making {made}"))
    if said:
        best = max(said, key=lambda s: release_key(s[0]))
        return Cycle(best[0], best[1], "; ".join(s[2] for s in said))
    if kep_yaml is not None:
        release = f"v{kep_yaml[0]}.{kep_yaml[1]}"
        return Cycle(release, "kep.yaml", f"the newest latest-milestone many kep.yaml files name is {release}")
    return Cycle("", "", "no release notes, gate list or kep.yaml latest-milestone names one")


def list_release(lifecycle: Lifecycle) -> str:
    """The release the newest gate list is making: its newest version when not shipped, else the next minor
    release; ``""`` without a list."""
    newest = lifecycle.newest
    if not newest:
        return ""
    if newest not in lifecycle.shipped:
        return newest
    major, minor = release_key(newest)
    return f"v{major}.{minor + 1}"


def cycle_start(release: str, timelines: Iterable[Timeline]) -> tuple[str, str]:
    """``(YYYY-MM-DD, why)`` the cycle of ``release`` began, from the kep.yaml history: the first commit (by its
    time, UTC) that set a kep.yaml's latest-milestone to ``release``, dated as the commit gives it;
    ``("", why)`` when no version ever did."""
    first = None
    for timeline in timelines:
        before = ""
        for version, fields in timeline:
            if fields is None or version.blob == NO_BLOB:
                continue
            now = normalize_milestone(fields.get("latest-milestone", "")) or ""
            if now == release and before != release:
                when = datetime.fromisoformat(version.commit.date)
                if first is None or when < first[0]:
                    first = (when, version)
                break
            before = now
    if first is None:
        return "", f"no kep.yaml in the history names {release} as its latest milestone"
    c = first[1].commit
    pr = f" (#{c.pr})" if c.pr else ""
    return utc_day(c.date), f"the first kep.yaml to name {release} as its latest milestone: {first[1].path}{pr}"


def not_on_pages(parsed: Sequence[MatrixPage], only: Collection[int] | None) -> list[str]:
    """For each KEP number of ``only`` that no row of ``parsed`` (:func:`bot.wiki.matrix.parse_page`) names, rows
    left as is included, the problem a sync and an audit give it (:mod:`bot.plan.reviews`), in number order;
    ``[]`` when ``only`` is ``None``."""
    if only is None:
        return []
    named = {r.number for page in parsed for r in page.rows} | {r.number for page in parsed for r in page.left}
    return [f"KEP {n} is in no matrix row of the pages; nothing to do for it" for n in sorted(set(only) - named)]


def watch(
    keps: Sequence[Kep],
    cycle: Cycle,
    *,
    ids: Mapping[str, str],
    index: NotesIndex | None = None,
    lifecycle: Lifecycle | None = None,
    joins: Mapping[str, Join] | None = None,
    timelines: Mapping[str, Timeline] | None = None,
    unseen: Sequence[str] = (),
    possible: Mapping[str, Sequence[Evidence]] | None = None,
    deleted: Mapping[str, Timeline] | None = None,
    former: Mapping[str, Sequence[str]] | None = None,
    rows: Mapping[str, Sequence[tuple[str, int]]] | None = None,
    whole: bool = False,
) -> Watch:
    """The watch of ``keps`` (the page KEPs) for ``cycle``.

    ``ids``: ``{kep.yaml path: KEP id}``; ``index``: the release notes, R's among them (``None``: none read);
    ``lifecycle`` and ``joins`` (``{kep.yaml path: Join}``, :func:`bot.plan.evidence.gates.joins`): the gate
    lists (``None``: none read); ``timelines``: ``{kep.yaml path: timeline}`` of the kep.yaml history (``None``:
    no history; slips are then not told); ``unseen``: what the caller could not read, kept in the result;
    ``possible``: ``{kep.yaml path: possible evidence}`` (:func:`bot.plan.evidence.prose.possible_evidence`),
    shown as ``possible`` signs for a KEP no note of R surely names; ``deleted``: ``{kep.yaml path: timeline}`` of
    page KEPs whose kep.yaml is gone (:func:`gone_numbers`): one whose last version planned a stage in R and that
    was deleted since the cycle began is ``slipped``, with the commit that deleted it; ``former``: ``{kep.yaml
    path: gates an earlier version declared}`` (:func:`bot.model.history.declared.former_gates`), which the
    ``index`` links to the KEP: a note naming one says so; ``rows``: ``{kep.yaml path: ((page, line), ...)}``;
    ``whole``: ``keps`` is the whole release (``watch --all``): a KEP of a status that ships nothing whose kep.yaml
    still names a stage in R is listed as slipped, and the KEPs whose latest-milestone is R with no stage planned
    there are :attr:`Watch.targeting`.
    """
    release = cycle.release
    out, targeting = [], []
    for kep in keps if release else ():
        planned = tuple(s for s in STAGES if normalize_milestone(kep.milestone(s)) == release)
        timeline = (timelines or {}).get(kep.path, ())
        moved = _history_signs(timeline, release, cycle.started) if cycle.started else []
        slips = [s for s in moved if s.says == "slip"]
        dead = kep.status in DEAD_STATUSES
        if dead and not slips and whole and planned:
            slips = [
                Sign("kep.yaml", "slip", planned[-1], "", 0, "", f"status {kep.status}; kep.yaml still names {release}")
            ]
            moved = [*moved, *slips]
        if (dead and not slips) or (not planned and not slips):
            if whole and not dead and normalize_milestone(kep.latest_milestone) == release:
                targeting.append(_entry(kep, ids, NO_NEW_STAGE, (), _no_new_stage(kep, release), (), rows))
            continue
        if not planned or dead:
            stages = tuple(dict.fromkeys(s.stage for s in slips if s.stage))
            target = (normalize_milestone(kep.milestone(stages[-1])) or "") if stages and not dead else ""
            out.append(_entry(kep, ids, SLIPPED, stages, slips[-1].text, moved, rows, target))
            continue
        signs = _note_signs(index, kep, release, planned, (former or {}).get(kep.path, ())) if index is not None else []
        shown = {s.pr for s in signs}
        signs += [
            _prose_sign(e, kep, release)
            for e in (possible or {}).get(kep.path, ())
            if e.release == release and e.pr not in shown
        ]
        if lifecycle is not None and joins is not None and kep.path in joins:
            signs += _gate_signs(joins[kep.path], lifecycle, release, planned)
        signs.append(_kep_yaml_sign(kep, release, planned, timeline))
        signs += _planned_since(timeline, release, planned, cycle.started) + moved
        state, reason = _state(signs, release, planned)
        out.append(_entry(kep, ids, state, planned, reason, signs, rows))
    for path, timeline in (deleted or {}).items() if release else ():
        found = _deleted_entry(path, timeline, release, cycle.started)
        if found is not None:
            out.append(found)
    out.sort(key=order)
    targeting.sort(key=lambda e: (_number(e.kep), e.kep))
    return Watch(cycle, tuple(out), tuple(unseen), tuple(targeting))


def _entry(
    kep: Kep,
    ids: Mapping[str, str],
    state: str,
    planned: tuple[str, ...],
    reason: str,
    signs: Sequence[Sign],
    rows: Mapping[str, Sequence[tuple[str, int]]] | None,
    target: str = "",
) -> WatchEntry:
    """The :class:`WatchEntry` of ``kep``, its kep.yaml fields and page rows filled in."""
    return WatchEntry(
        ids.get(kep.path, str(kep.number)),
        kep.path,
        kep.title,
        planned,
        state,
        reason,
        tuple(signs),
        kep.sig,
        kep.status,
        kep.stage,
        kep.gates(),
        target,
        tuple((rows or {}).get(kep.path, ())),
    )


def _no_new_stage(kep: Kep, release: str) -> str:
    """``latest-milestone v1.37, stage beta (beta v1.36): no stage planned in v1.37``."""
    at = normalize_milestone(kep.milestone(kep.stage)) if kep.stage in STAGES else None
    stage = f"stage {kep.stage or '-'}" + (f" ({_word(kep.stage)} {at})" if at else "")
    return f"latest-milestone {release}, {stage}: no stage planned in {release}"


def _deleted_entry(path: str, timeline: Timeline, release: str, started: str) -> WatchEntry | None:
    """The ``slipped`` entry of a kep.yaml deleted since ``started`` whose last version planned a stage in
    ``release``; ``None`` otherwise."""
    moved = _history_signs(timeline, release, started)
    slips = [s for s in moved if s.says == "slip"]
    if not timeline or timeline[-1][0].blob != NO_BLOB or not slips:
        return None
    last = next((f for v, f in reversed(timeline) if v.blob != NO_BLOB and f), {})
    stages = tuple(dict.fromkeys(s.stage for s in slips if s.stage))
    ident = str(kep_number(path) or path)
    return WatchEntry(ident, path, last.get("title", ""), stages, SLIPPED, slips[-1].text, tuple(moved))


def order(e: WatchEntry) -> tuple[int, int, str]:
    """Sort key of an entry: its state (:data:`ALL_STATES`), then KEP number."""
    return (ALL_STATES.index(e.state), _number(e.kep), e.kep)


def _number(ident: str) -> int:
    digits = ident.split("-", 1)[0]
    return int(digits) if digits.isdigit() else 0


def _word(stage: str) -> str:
    return "GA" if stage == "stable" else stage


def _state(signs: Sequence[Sign], release: str, planned: tuple[str, ...]) -> tuple[str, str]:
    """The state from the signs, and the reason: the sign that decided it (kep.yaml before a note for
    ``on track``; a note alone says kep.yaml is not set). A note announcing another stage contradicts only when
    no note announces the planned one (an entry about an earlier step of the cycle); the list always speaks."""
    plan = f"{_word(planned[-1])} in {release}"
    said = {says: [s for s in signs if s.says == says] for says in SAYS}
    confirmed = any(s.source == "release note" for s in said[LANDED])
    against = [s for s in said["contradicts"] if s.source != "release note" or not confirmed]
    if against:
        return CONTRADICTED, f"{_reason(against[0])}; kep.yaml plans {plan}"
    if said[LANDED]:
        return LANDED, _reason(said[LANDED][0])
    ready = [s for s in said[ON_TRACK] if s.source == "kep.yaml"]
    if ready:
        return ON_TRACK, _reason(ready[0])
    if said[ON_TRACK]:  # work of the release, but kep.yaml never set the stage: no sign for it
        return NO_SIGN, f"kep.yaml not set for {plan}; {_reason(said[ON_TRACK][0])}"
    return NO_SIGN, f"no note, gate entry or kep.yaml update for {plan} yet"


def _reason(sign: Sign) -> str:
    return sign.text if sign.source in ("release note", "history") else f"{sign.source}: {sign.text}"


def _note_signs(
    index: NotesIndex, kep: Kep, release: str, planned: tuple[str, ...], former: Sequence[str] = ()
) -> list[Sign]:
    """One sign per pull request of ``release``'s notes linked to ``kep``: its most telling sentence (a planned
    stage, then another graduation stage, then any stage, then none; a sure link before a shared gate); a note
    naming a gate of ``former`` (gates kep.yaml no longer declares) says so."""
    best: dict[int, tuple[tuple[int, int], Mention, str]] = {}
    first, words = first_stage(kep), title_words(kep.title)
    inferred: set[int] = set()
    for m in index.for_kep(kep.path):
        if m.release != release:
            continue
        stage = m.stage if m.when == release else ""
        sure = kep.path in m.links
        how = adds_first(first, words, m.excerpt) if sure and not stage and first in planned else ""
        if how:
            stage = first  # "Added support for derived attributes in DRA" for 6080 DRA Derived Attributes (alpha)
            inferred |= {m.pr} if how == "alpha" else set()
        rank = (int(sure), 3 if stage in planned else 2 if stage in STAGES else 1 if stage else 0)
        if m.pr not in best or rank > best[m.pr][0]:
            best[m.pr] = (rank, m, stage)
    out = []
    for pr in sorted(best):
        (linked, _), m, stage = best[pr]
        if not linked:
            shared = f"a gate other KEPs declare too ({', '.join(m.gates)})" if m.gates else "several KEPs"
            says, what = "", f"names {shared}; not counted"
        elif stage in planned and pr in inferred:
            says, what = LANDED, "adds the first work of a KEP with no stage yet: its alpha"
        elif stage in planned:
            says, what = LANDED, f"announces {_word(stage)}"
        elif stage in STAGES:
            says, what = "contradicts", f"says {_word(stage)}"
        elif not stage and m.gates and default_off(m.excerpt):
            says, what = OFF, "turns its default off"
        else:
            says, what = (ON_TRACK, "names no stage") if not stage else ("", f"says {stage}")
        renamed = [g for g in m.gates if g in former]
        if renamed:
            now = ", ".join(kep.gates()) or "none"
            what += f" (names {', '.join(renamed)}, a gate kep.yaml no longer declares; it declares {now})"
        out.append(Sign("release note", says, stage, "", m.pr, m.url, f"the {release} note #{m.pr} {what}", m.excerpt))
    return out


def _prose_sign(e: Evidence, kep: Kep, release: str) -> Sign:
    """The sign of a note that names neither the KEP's number nor its gate: ``landed`` when it names the KEP by its
    title (:func:`bot.plan.evidence.prose.named_evidence`, ``e.possible`` False), else ``possible`` (matched by
    distinctive title words only: shown, never counted)."""
    if not e.possible:
        text = f"the {release} note #{e.pr} announces {_word(e.stage)}, naming the KEP by its title"
        other = gate_in_code(e.excerpt)
        if other and other not in kep.gates():
            text += f" and the gate {other}, which kep.yaml does not declare ({', '.join(kep.gates()) or 'none'})"
        return Sign("release note", LANDED, e.stage, "", e.pr, e.url, text, e.excerpt)
    text = f"possible: the {release} note #{e.pr} may announce {_word(e.stage)} (title words only, not a confirmation)"
    return Sign("release note", POSSIBLE, e.stage, "", e.pr, e.url, text, e.excerpt)


def _gate_signs(j: Join, lc: Lifecycle, release: str, planned: tuple[str, ...]) -> list[Sign]:
    """What the newest list holding the KEP's gate says about ``release`` (see the module docstring)."""
    if not j.gate:
        absent = f"{', '.join(j.declared)}: not in the list yet" if j.declared and not j.listed else j.note
        return [Sign("gate list", "", "", "", 0, "", absent)]
    found = lc.gate(j.gate)
    if found is None:
        return []
    gate, top = found[0], planned[-1]
    reached = gate.reached(top)
    here = [s for s in gate.specs if s.release == release]
    if reached is not None and reached.release == release:
        return [Sign("gate list", LANDED, top, "", 0, "", f"{j.gate} reaches {_word(top)} in {release}")]
    if reached is not None and reached.release and j.since and release_key(reached.release) < release_key(j.since):
        text = f"{j.gate} reached {_word(top)} in {reached.release}, before this KEP took the gate (planning {j.since})"
        return [Sign("gate list", "", top, "", 0, "", text)]
    if reached is not None and reached.release and release_key(reached.release) < release_key(release):
        text = f"{j.gate} reached {_word(top)} in {reached.release}, before {release}"
        return [Sign("gate list", "contradicts", top, "", 0, "", text)]
    if here and here[-1].stage in STAGES and here[-1].stage not in planned:
        text = f"{j.gate} is {_word(here[-1].stage)} in {release}"
        return [Sign("gate list", "contradicts", here[-1].stage, "", 0, "", text)]
    if release in lc.shipped:
        now = gate.at(release)
        text = f"{j.gate} is {_word(now.stage) if now else 'absent'} in {release}, which the list says shipped"
        return [Sign("gate list", "contradicts", now.stage if now else "", "", 0, "", text)]
    return [Sign("gate list", "", "", "", 0, "", f"{j.gate}: {shipped_text(gate)}; nothing for {release} yet")]


def _kep_yaml_sign(kep: Kep, release: str, planned: tuple[str, ...], timeline: Timeline) -> Sign:
    """kep.yaml's status, stage (with the commit that set it) and latest-milestone; ``on track`` when set for
    ``release``."""
    top = planned[-1]
    latest = normalize_milestone(kep.latest_milestone) or kep.latest_milestone or "-"
    ready = kep.status in ("implementable", "implemented") and kep.stage == top and latest == release
    origin = field_origin(timeline, "stage") if timeline and timeline[-1][1] else None
    since = f" since {utc_day(origin.date)}" + (f" (#{origin.pr})" if origin.pr else "") if origin else ""
    text = f"{kep.status or '-'}, stage {kep.stage or '-'}{since}, latest-milestone {latest}"
    if not ready:
        text += f" (not set for {_word(top)} in {release})"
    date, pr = (utc_day(origin.date), origin.pr) if origin else ("", 0)
    return Sign("kep.yaml", ON_TRACK if ready else "", kep.stage, date, pr, "", text)


def _planned_since(timeline: Timeline, release: str, planned: tuple[str, ...], started: str) -> list[Sign]:
    """For each planned stage whose milestone was set before the cycle began: when (the commit that set it)."""
    out = []
    for stage in planned:
        origin = field_origin(timeline, f"milestone.{stage}") if timeline and timeline[-1][1] else None
        if origin is None or (started and utc_day(origin.date) >= started):
            continue  # no history, or set during the cycle: the history signs tell it
        pr = f" (#{origin.pr})" if origin.pr else ""
        text = f"{_word(stage)} {release} set on {utc_day(origin.date)}{pr}" + (
            ", before the cycle began" if started else ""
        )
        out.append(Sign("history", "", stage, utc_day(origin.date), origin.pr, "", text))
    return out


def _history_signs(timeline: Timeline, release: str, started: str) -> list[Sign]:
    """The changes of the kep.yaml committed on or after ``started`` that touch the plan for ``release``:
    slips (a milestone moved from ``release`` to a later one or removed, a status that ships nothing, the file
    deleted), stages
    planned in ``release`` during the cycle (added late), moves of the stage and the status."""
    out: list[Sign] = []
    before: Mapping[str, str] = {}
    for i, (version, fields) in enumerate(timeline):
        if version.blob == NO_BLOB:
            day, pr = utc_day(version.commit.date), version.commit.pr
            named = [s for s in STAGES if normalize_milestone(before.get(f"milestone.{s}", "")) == release]
            if named and day >= started:  # a slip when it stays deleted; a file added again reads on
                text = f"kep.yaml deleted on {day}" + (f" (#{pr})" if pr else "")
                out.append(Sign("history", "slip" if i == len(timeline) - 1 else "", named[-1], day, pr, "", text))
            before = {}
            continue
        if fields is None:
            continue
        c = version.commit
        day = utc_day(c.date)
        if day >= started:
            out += _moves(before, fields, release, day, c.pr)
        before = fields
    return out


def _moves(before: Mapping[str, str], fields: Mapping[str, str], release: str, day: str, pr: int) -> list[Sign]:
    """The signs of one commit: what it changed of the plan for ``release`` (see :func:`_history_signs`)."""
    out = []
    tag = f" on {day}" + (f" (#{pr})" if pr else "")

    def sign(says: str, stage: str, text: str, after: str = "") -> None:
        out.append(Sign("history", says, stage, day, pr, "", text + tag + after))

    for stage in STAGES:
        key = f"milestone.{stage}"
        old, new = before.get(key, ""), fields.get(key, "")
        was, now = normalize_milestone(old) or "", normalize_milestone(new) or ""
        if was == release and now != release:
            later = not now or release_key(now) > release_key(release)
            word = "slip" if later else ""
            sign(word, stage, f"{_word(stage)} moved {release} → {new or '(none)'}")
        elif now == release and was != release:
            text = (
                f"{_word(stage)} {old or '-'} → {release}"
                if before
                else f"new kep.yaml plans {_word(stage)} in {release}"
            )
            sign("", stage, text, ", after the cycle began")
    named = [s for s in STAGES if normalize_milestone(fields.get(f"milestone.{s}", "")) == release]
    if before and before.get("status", "") != fields.get("status", ""):
        dead = fields.get("status", "") in DEAD_STATUSES and bool(named)
        stage = named[-1] if dead else ""
        sign("slip" if dead else "", stage, f"status {before.get('status') or '-'} → {fields.get('status') or '-'}")
    if before and before.get("stage", "") != fields.get("stage", ""):
        new_stage = fields.get("stage", "")
        sign("", new_stage, f"stage {before.get('stage') or '-'} → {new_stage or '-'}")
    return out
