"""The changelog of a run with release notes or a gate list: what needs a look first, one sign per meaning.

Pure. :func:`layout` gives the sections :func:`bot.plan.changelog.body.render` shows in place of the plain layout
(:class:`bot.plan.changelog.body.Layout`); without release notes and a gate list the plain layout is kept, byte for
byte. The reviewer reads, in this order:

- **Needs a look** (before Graduations and Changes; absent when nothing needs judgment): each planned stage a
  source contradicts (:data:`CONTRADICTED_MARK`; KEP 5732: kep.yaml beta v1.37, the 1.37 note #138274 calls its
  gate alpha), a default turned off before release (:data:`OFF_MARK`), the released milestones rewritten,
  grouped with their count (:data:`REWRITTEN_MARK`; each with the freeze exception of its KEP in that release when
  the release team's records hold one: 2033's beta v1.36, whose Enhancements Freeze exception v1.36 rejected), and a count of the other findings on this pull request's
  rows, folded under "Needs review" (not a ``not-in-notes`` finding on a stage the gate list confirms: it
  needs no judgment); then the **legend** line naming each sign once and the gate list once (path and blob),
  so every mark is explained where it is first used (after the table when nothing needs a look);
- the **Changes** table, one row per page row and one message per row: the Change column marks a released
  milestone rewritten with :data:`REWRITTEN_MARK` alone; Evidence lists the notes by release and pull request
  (``possible:`` a note matched by title words only, never a confirmation; :data:`COUNTER_MARK` a note of that
  release announcing another stage; :data:`OFF_MARK` a note of that release turning the stage off by default;
  ``no v1.37 note announces beta`` when no note is sure and the release is in progress: ``pending`` is the
  Shipped column's alone); Shipped gives the state of each planned stage the row touches
  (:mod:`bot.plan.evidence.stage_state`: ``✓`` confirmed, ``pending``, ``✗`` contradicted, ``unknown``);
- collapsed after the other sections: the **release notes cited**, with their excerpts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from html.parser import HTMLParser
from typing import NamedTuple

from markdown_it import MarkdownIt

from bot.model.consistency import release_in_progress
from bot.model.finding import Finding
from bot.model.gates import Lifecycle
from bot.model.history.provenance import Upstream
from bot.model.kep import STAGES, Kep, milestone_key, normalize_milestone
from bot.model.release_calendar import FreezeException
from bot.model.snapshot import Snapshot
from bot.plan.changelog.body import Layout, Section
from bot.plan.changelog.markdown import code, details, inline, kep_link, note_link, table_cell
from bot.plan.changelog.rows import Links, by_row, lead_cells, notes_can_exist, upstream_cell, written_cell
from bot.plan.diff import RELEASED_FLAG, Change
from bot.plan.evidence.index import change_stage
from bot.plan.evidence.stage_state import (
    CONFIRMED,
    CONTRADICTED,
    PENDING,
    TURNED_OFF,
    UNKNOWN,
    PlannedStage,
    word,
)

#: One sign per meaning, each explained once in the legend.
REWRITTEN_MARK, COUNTER_MARK, CONTRADICTED_MARK, OFF_MARK = "↺", "≠", "✗", "off"
#: How the Shipped column writes each state.
STATE_WORDS = {CONFIRMED: "✓", PENDING: "pending", CONTRADICTED: "✗", UNKNOWN: "unknown"}
#: Longest KEP title in the Changes table of this layout, characters.
MAX_TITLE_CHARS = 40
#: The header lines of the Needs a look section.
_LOOK_HEAD = ["### Needs a look"]
#: Most KEPs "Needs a look" names in its line of other findings; beyond, it gives counts by kind.
MAX_KEPS_LISTED = 10


class Signals(NamedTuple):
    """What the layout shows besides the changes: the ``states`` of the planned stages of the KEPs in scope,
    the gate lists as named once (``gate_list``: ``"`PATH` (blob 92f09bc2f438)"``; ``""`` without a list),
    whether release notes were read (``notes``) and the Needs review findings (``findings``: release notes'
    and the gate list's, for the count of the other findings on these rows), the released milestones rewritten a
    source proves ``slips`` (:func:`bot.plan.signals.slips`) and the upstream commit that set each contradicted
    milestone no change writes (``moves``, by ``(kep_path, stage)``); ``every_row``: the states cover every row
    (``kep-sync audit``), so each contradicted one needs a look, changed or not; ``held``: why cells of changed
    rows were kept (:func:`bot.plan.changelog.rows.held_cells`); ``exceptions``: the release team's freeze
    exceptions (:mod:`bot.model.release_calendar`), which explain a released milestone rewritten."""

    states: Sequence[PlannedStage]
    gate_list: str
    notes: bool
    findings: Sequence[Finding] = ()
    exceptions: Sequence[FreezeException] = ()
    slips: Mapping[tuple[str, str], str] = {}
    moves: Mapping[tuple[str, str], Upstream] = {}
    every_row: bool = False
    held: Mapping[tuple[str, int], Sequence[str]] = {}


def layout(snapshot: Snapshot, changes: Sequence[Change], links: Links, signals: Signals) -> Layout:
    """The :class:`bot.plan.changelog.body.Layout` of this run. ``links``: where links land."""
    applied = [c for c in changes if c.applied]
    shipped = notes_can_exist(snapshot)
    keps = {k.path: k for k in snapshot.all_keps()}
    states = {(s.kep_path, s.stage): s for s in signals.states}
    origin = any(c.upstream is not None for c in applied)
    current = release_in_progress(snapshot.all_keps())
    in_progress = f"v{current[0]}.{current[1]}" if current else ""
    rows = [_row(group, keps, links, signals, states, (shipped, in_progress), origin) for group in by_row(applied)]
    head = (
        f"| KEP | {links.header()} | Change | kep.yaml |"
        + (" Upstream |" if origin else "")
        + (" Evidence |" if signals.notes else "")
        + (" Shipped |" if signals.gate_list else "")
    )
    table: Section = (["### Changes", head, "|---" * (head.count("|") - 1) + "|"], rows, "changes")
    lead = _needs_a_look(applied, keps, signals, links)
    settled = _settled(applied, keps, signals, links)
    line = _legend(applied, signals) if applied else ""
    legend: list[Section] = [([line], [], "legend")] if line else []
    cited = _cited(applied, signals.states)
    first = [x for x in (lead, settled) if x[1]]
    return Layout(
        lead=[*first[:1], *legend, *first[1:]] if lead[1] else first,
        changes=table,
        after=[] if lead[1] else legend,
        folded=[cited] if cited[1] else [],
    )


def _rewritten(c: Change) -> bool:
    return any(f.startswith(RELEASED_FLAG) for f in c.flags)


def _row(
    group: list[Change],
    keps: Mapping[str, Kep],
    links: Links,
    signals: Signals,
    states: Mapping[tuple[str, str], PlannedStage],
    shipped: tuple[Callable[[str], bool], str],
    origin: bool,
) -> str:
    """One Changes row: KEP, page line, the fields (``↺`` for a released milestone rewritten; other flags
    ``⚠`` in words), kep.yaml lines, Upstream, Evidence, Shipped. ``shipped``: whether a release can have
    notes (:func:`bot.plan.changelog.body.notes_can_exist`) and the release in progress (``""`` when unknown)."""
    first = group[0]
    kep = keps.get(first.kep_path)
    fields = "<br>".join(
        f"{c.field}: {table_cell(c.old)} → **{written_cell(c)}**"
        + (f" {REWRITTEN_MARK}" if _rewritten(c) else "")
        + "".join(f"<br>⚠ {table_cell(f)}" for f in c.flags if not f.startswith(RELEASED_FLAG))
        for c in group
    )
    cells = lead_cells(group, kep, links, fields, MAX_TITLE_CHARS, signals.held)
    if origin:
        ups = list({(u.commit if u is not None else ""): u for u in (c.upstream for c in group)}.values())
        cells.append("<br>".join(upstream_cell(u, links.web_url, subject=False) for u in ups))
    if signals.notes:
        cells.append(_evidence(group, _row_states(group, keps, states), *shipped))
    if signals.gate_list:
        cells.append(_shipped(group, keps, states))
    return "| " + " | ".join(cells) + " |"


def _row_states(
    group: list[Change], keps: Mapping[str, Kep], states: Mapping[tuple[str, str], PlannedStage]
) -> list[PlannedStage]:
    """The planned stages a row touches, each once, in the order of its changes."""
    out: list[PlannedStage] = []
    for c in group:
        kep = keps.get(c.kep_path)
        stage = change_stage(c, kep) if kep is not None else ""
        state = states.get((c.kep_path, stage)) if stage in STAGES else None
        if state is not None and state not in out:
            out.append(state)
    return out


def _evidence(
    group: list[Change], touched: list[PlannedStage], shipped: Callable[[str], bool], in_progress: str
) -> str:
    """The notes of one row, each once: ``v1.37 [#N](url)``; ``possible:``, ``ambiguous:``, ``≠ ... says
    alpha`` and ``off v1.37 [#141209](url)`` (a note turning off by default a stage the row touches) apart.
    When no note is sure, by the releases the row names (its new milestones and those of the planned stages it
    touches, ``touched``): ``none found`` when one is out, ``no v1.37 note announces beta`` (the stages planned
    in the release in progress the row touches; notes of its draft may name the KEP without announcing one)
    when the newest is the release in progress, nothing when a ``possible:`` note is shown (it may announce it),
    else ``v1.38 not released yet``. ``shipped``:
    :func:`bot.plan.changelog.body.notes_can_exist`; ``in_progress``: the release in progress (``""`` when
    unknown)."""
    seen: set[tuple[str, int]] = set()
    sure, maybe, possible, counter = [], [], [], []
    for c in group:
        for e in c.evidence:
            if (e.release, e.pr) in seen:
                continue
            seen.add((e.release, e.pr))
            link = f"{e.release} {note_link(e.pr, e.url)}"
            if e.counter:
                counter.append(f"{COUNTER_MARK} {link} says {word(e.stage)}")
            elif e.possible:
                possible.append(f"possible: {link}")
            elif e.ambiguous:
                maybe.append(f"ambiguous: {link}")
            else:
                sure.append(link)
    offs = [n for s in touched for n in s.notes if n.role == TURNED_OFF]
    off = list(dict.fromkeys(f"{OFF_MARK} {n.release} {note_link(n.pr, n.url)}" for n in offs))
    named = [c.new for c in group if milestone_key(c.new)] + [s.release for s in touched]
    news = list(dict.fromkeys(named)) or [c.new for c in group if c.new]
    now = milestone_key(in_progress) if in_progress else None
    planned = list(dict.fromkeys(word(s.stage) for s in touched if s.release == in_progress)) or ["it"]
    shown = sure or (
        ["none found"]
        if any(shipped(n) and (now is None or milestone_key(n) != now) for n in news)
        else ([] if possible else [f"no {in_progress} note announces {' or '.join(planned)}"])
        if any(shipped(n) for n in news)
        else [", ".join(sorted(set(news))) + " not released yet"]
    )
    return "<br>".join(shown + possible + maybe + counter + off)


def _shipped(group: list[Change], keps: Mapping[str, Kep], states: Mapping[tuple[str, str], PlannedStage]) -> str:
    """The states of the planned stages a row touches, grouped by state: ``✓ v1.36``, ``pending v1.37, v1.38``;
    ``·`` when the row touches no planned stage."""
    picked: dict[str, list[str]] = {}
    for c in group:
        kep = keps.get(c.kep_path)
        stage = change_stage(c, kep) if kep is not None else ""
        state = states.get((c.kep_path, stage)) if stage in STAGES else None
        if state is not None and state.release not in picked.setdefault(state.state, []):
            picked[state.state].append(state.release)
    parts = [f"{STATE_WORDS[s]} {', '.join(picked[s])}" for s in STATE_WORDS if picked.get(s)]
    return "; ".join(parts) or "·"


def _linked(text: str, state: PlannedStage) -> str:
    """``text`` (a state's reason) made inert, each ``#N`` of a note it names linked to that note."""
    urls = {n.pr: n.url for n in state.notes}
    parts = re.split(r"#(\d+)", text)
    return "".join(note_link(int(p), urls.get(int(p), "")) if i % 2 else inline(p) for i, p in enumerate(parts))


def needs_a_look(layout: Layout) -> list[str]:
    """The items of the Needs a look section of a :func:`layout` (markdown lines, ``[]`` when nothing needs
    judgment): the one list the changelog shows and automerge reads (:mod:`bot.plan.automerge`)."""
    return next((list(rows) for head, rows, _ in layout.lead if head == _LOOK_HEAD), [])


def _needs_a_look(applied: list[Change], keps: Mapping[str, Kep], signals: Signals, links: Links) -> Section:
    """What needs judgment, first: contradicted plans this pull request is about (the newest release first),
    defaults turned off before release, the released milestones rewritten no source proves slipped (grouped), and
    the count of the other findings on the planned stages these rows change."""
    rows = []
    said: set[tuple[str, str]] = set()
    cited: set[tuple[str, int]] = set()
    about = _about(applied, keps)
    for s in _newest_first(signals.states):
        if s.state == CONTRADICTED and ((s.kep_path, s.stage) in about or signals.every_row):
            rows.append(f"- {CONTRADICTED_MARK} {kep_link(s.kep)} {word(s.stage)} {s.release}: {_linked(s.reason, s)}")
            said.add((s.kep_path, s.release))
            cited |= {(s.kep_path, n.pr) for n in s.notes}
    for s in signals.states:
        off = [n for n in s.notes if n.role == TURNED_OFF]
        if off and s.state != CONTRADICTED:
            notes = ", ".join(note_link(n.pr, n.url) for n in off)
            rows.append(
                f"- {OFF_MARK} {kep_link(s.kep)} {word(s.stage)} {s.release}: the {s.release} note {notes} turned "
                "it off by default before release"
            )
    rewritten = [c for c in applied if _rewritten(c) and (c.kep_path, c.field) not in signals.slips]
    if rewritten:
        by_kep: dict[str, list[str]] = {}
        for c in rewritten:
            by_kep.setdefault(c.kep_id, []).append(
                f"{word(c.field)} {table_cell(c.old)}{explained(c, signals.exceptions)}"
            )
        listed = "; ".join(f"{kep_link(k)} {', '.join(v)}" for k, v in by_kep.items())
        noun = "milestone" if len(rewritten) == 1 else "milestones"
        rows.append(
            f"- {REWRITTEN_MARK} {len(rewritten)} released {noun} rewritten in {len(by_kep)} KEP"
            f"{'s' if len(by_kep) != 1 else ''}, no source shows the slip: {listed} (kep.yaml history below)"
        )
    here = {(s.kep_path, s.release) for s in signals.states if (s.kep_path, s.stage) in about or signals.every_row}
    others = [
        f
        for f in signals.findings
        if (f.kep_path, f.release) not in said and (f.kep_path, f.pr) not in cited and (f.kep_path, f.release) in here
    ]
    if others:
        rows.append(f"- {_findings_line(others, 'on these rows')} (under Needs review)")
    return (list(_LOOK_HEAD), rows, "items")


def explained(c: Change, exceptions: Sequence[FreezeException]) -> str:
    """`` (v1.36 rejected its Enhancements Freeze exception, release-1.36/exceptions.yaml)``: the freeze
    exceptions of the KEP of ``c`` in the release its rewritten milestone named (``c.old``); ``""`` when none.
    Every field is the release team's text, made inert (:func:`bot.plan.changelog.markdown.inline`)."""
    number = c.kep_id.split("-", 1)[0]
    release = normalize_milestone(c.old) or ""
    found = [e for e in exceptions if str(e.kep) == number and e.release == release] if release else []
    kinds = {"enhancementFreeze": "Enhancements Freeze", "codeFreeze": "Code Freeze", "docsFreeze": "Docs Freeze"}
    said = [
        f"{inline(e.release)} {inline(e.status) or 'was asked for'} its {kinds.get(e.kind) or inline(e.kind)} "
        f"exception, {inline(e.where)}"
        for e in found
    ]
    return f" ({'; '.join(said)})" if said else ""


def _about(applied: list[Change], keps: Mapping[str, Kep]) -> set[tuple[str, str]]:
    """``(kep_path, stage)`` of each planned stage the applied changes are about."""
    return {(c.kep_path, change_stage(c, keps[c.kep_path])) for c in applied if c.kep_path in keps}


def _newest_first(states: Sequence[PlannedStage]) -> list[PlannedStage]:
    return sorted(states, key=lambda s: milestone_key(s.release) or (0, 0), reverse=True)


def _findings_line(found: Sequence[Finding], where: str, *, more: bool = True) -> str:
    """``2 more findings on these rows: stage-mismatch [127](...); gate-typo [3695](...)`` (``where``: ``on these
    rows``), by kind (counts beyond :data:`MAX_KEPS_LISTED` KEPs)."""
    kinds: dict[str, list[str]] = {}
    for f in found:
        if f.kep_id and f.kep_id not in kinds.setdefault(f.kind, []):
            kinds[f.kind].append(f.kep_id)
    if sum(len(ids) for ids in kinds.values()) <= MAX_KEPS_LISTED:
        what = "; ".join(f"{k} {', '.join(kep_link(i) for i in ids)}" for k, ids in kinds.items())
    else:
        what = ", ".join(f"{k} {sum(f.kind == k for f in found)}" for k in kinds)
    return f"{len(found)}{' more' if more else ''} finding{'s' if len(found) != 1 else ''} {where}: {what}"


def _settled(applied: list[Change], keps: Mapping[str, Kep], signals: Signals, links: Links) -> Section:
    """What a source already settles, folded under Needs a look: the released milestones rewritten a source
    proves slipped, the contradicted plans of cells this pull request does not change (with the upstream pull
    request that set the milestone, from the kep.yaml history) and the findings on the stages it does not
    change."""
    rows = []
    planned = {(s.kep_path, s.stage): s for s in signals.states}
    for c in applied:
        why = signals.slips.get((c.kep_path, c.field)) if _rewritten(c) else None
        if why:
            state = planned.get((c.kep_path, c.field))
            rows.append(
                f"- {REWRITTEN_MARK} {kep_link(c.kep_id)} {word(c.field)} {table_cell(c.old)} → "
                f"{table_cell(c.new)}{explained(c, signals.exceptions)}: slip confirmed, {_linked(why, state) if state else table_cell(why)}"
            )
    about = _about(applied, keps)
    for s in _newest_first(signals.states):
        if s.state == CONTRADICTED and (s.kep_path, s.stage) not in about and not signals.every_row:
            up = signals.moves.get((s.kep_path, s.stage))
            by = f"; kep.yaml set {s.release} in {upstream_cell(up, links.web_url, subject=False)}" if up else ""
            rows.append(
                f"- {CONTRADICTED_MARK} {kep_link(s.kep)} {word(s.stage)} {s.release}, unchanged here: "
                f"{_linked(s.reason, s)}{by}"
            )
    here = {(s.kep_path, s.release) for s in signals.states if (s.kep_path, s.stage) in about}
    flagged = {(s.kep_path, s.release) for s in signals.states if s.state == CONTRADICTED}
    rest = [f for f in signals.findings if (f.kep_path, f.release) not in here | flagged and not signals.every_row]
    if rest:
        where = "on stages this pull request does not change"
        rows.append(f"- {_findings_line(rest, where, more=False)} (under Needs review)")
    return (details("Settled by the sources or unchanged here", len(rows), []), rows, "items")


def _legend(applied: list[Change], signals: Signals) -> str:
    """One line naming each sign "Needs a look" and the table use, once, and the gate list once."""
    parts = []
    if any(_rewritten(c) for c in applied):
        parts.append(f"{REWRITTEN_MARK} a released milestone rewritten")
    if any(n.role == TURNED_OFF for s in signals.states for n in s.notes):
        parts.append(f"{OFF_MARK} a default turned off before release")
    if not signals.gate_list and any(s.state == CONTRADICTED for s in signals.states):
        parts.append(f"{CONTRADICTED_MARK} a planned stage a note contradicts")
    evidence = [e for c in applied for e in c.evidence]
    if any(e.possible for e in evidence):
        parts.append("possible: matched by title words only, never a confirmation")
    if any(e.counter for e in evidence):
        parts.append(f"{COUNTER_MARK} a note of that release names another stage")
    if signals.gate_list:
        sources = f"the gate list {signals.gate_list}" + (" and the notes" if signals.notes else "")
        parts.append(
            f"Shipped, per {sources}: ✓ confirmed, pending (release not closed), {CONTRADICTED_MARK} contradicted, "
            "unknown"
        )
    return ("Signs: " + "; ".join(parts) + ".") if parts else ""


def _cited(applied: list[Change], states: Sequence[PlannedStage]) -> Section:
    """The notes the Evidence column links, each once with its excerpt, and the notes it marks :data:`OFF_MARK`
    (a default turned off before release), collapsed."""
    rows, seen = [], set()
    for c in applied:
        for e in c.evidence:
            if (c.kep_id, e.release, e.pr) in seen:
                continue
            seen.add((c.kep_id, e.release, e.pr))
            kind = (
                f"{COUNTER_MARK} "
                if e.counter
                else "possible: "
                if e.possible
                else "ambiguous: "
                if e.ambiguous
                else ""
            )
            rows.append(f"- {kep_link(c.kep_id)} {kind}{e.release} {note_link(e.pr, e.url)}: {table_cell(e.excerpt)}")
    paths = {c.kep_path for c in applied}
    for s in states:
        for n in s.notes:
            if s.kep_path in paths and n.role == TURNED_OFF and (s.kep, n.release, n.pr) not in seen:
                seen.add((s.kep, n.release, n.pr))
                rows.append(
                    f"- {kep_link(s.kep)} {OFF_MARK} {n.release} {note_link(n.pr, n.url)}: {table_cell(n.excerpt)}"
                )
    return (details("Release notes cited", len(rows), []), rows, "notes")


def gate_list_name(lifecycle: Lifecycle | None) -> str:
    """The gate list as the legend names it, once: ``"`PATH` (blob 92f09bc2f438)"`` for one list, the source
    and the number of lists for several (the report's ``gate_lifecycle.lists`` names each); ``""`` for none."""
    if lifecycle is None:
        return ""
    if len(lifecycle.lists) == 1:
        gl = lifecycle.lists[0]
        return f"{code(gl.where)} (blob {inline(gl.revision[:12])})"
    return f"{code(lifecycle.source)} ({len(lifecycle.lists)} lists)"


class _Text(HTMLParser):
    """The text of rendered HTML, a space for each cell, line break and block."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "td", "th", "li", "p", "tr", "h3", "summary"):
            self.parts.append(" ")


def visible_text(body: str) -> str:
    """The text a reader sees of a pull request ``body`` with every ``<details>`` block collapsed: the markdown
    outside the blocks plus each block's ``<summary>`` line, rendered (CommonMark with GFM tables, as
    markdown-it-py reads it), tags and link targets dropped, every run of white space one space. Its length is
    the figure "visible characters" of docs/reviewers.md (``scripts/check/body_size.py`` prints it)."""
    shown, depth = [], 0
    for line in body.split("\n"):
        opening = line.startswith("<details>")
        if depth == 0:
            shown.append(line.split("</summary>")[0] + "</summary>" if opening else line)
        depth += opening - (line.strip() == "</details>")
    reader = _Text()
    reader.feed(MarkdownIt("commonmark").enable("table").render("\n".join(shown)))
    return " ".join("".join(reader.parts).split())
