"""The audit of pages already in sync: every check on every row, whether or not the row changes; nothing written.

Pure: the snapshot, the page bytes and the release notes (every release the
source has) in; an :class:`AuditPlan` (markdown, JSON report) out. The run
reads them (:func:`bot.commands.sync.run_audit`); ``kep-sync audit`` prints the markdown.

The checks are the sync's (the changes a sync would propose, with their
evidence; report-only findings; page and kep.yaml problems), the release-note
review of every row's KEP (not only of the changed ones), and the tracking rule
"implementable + stable does not mean implemented; check the KEP's history and
the release notes" (:func:`stable_verdicts`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from bot.config import Config
from bot.model import consistency
from bot.model.finding import Finding
from bot.model.gates import Lifecycle
from bot.model.history.declared import GateOrigins
from bot.model.history.provenance import History
from bot.model.history.renames import Rename
from bot.model.kep import Kep, Problem, normalize_milestone
from bot.model.notes import ReleaseNotes
from bot.model.release_calendar import Records
from bot.model.snapshot import Snapshot
from bot.plan.changelog.markdown import details, inline, kep_link, note_link, table_cell
from bot.plan.changelog.rows import review_row, source_name
from bot.plan.diff import Change, kep_id
from bot.plan.evidence import Evidence, NotesIndex, build_index, release_order
from bot.plan.evidence.stage_state import STATES, PlannedStage
from bot.plan.planner import PageResult, plan_sync

#: ``StableVerdict.shipped`` values.
SHIPPED, IN_PROGRESS, PLANNED, UNKNOWN = "shipped", "in progress", "planned", "unknown"
#: Released minor versions the Kubernetes project still maintains besides the one in progress (the three newest,
#: https://kubernetes.io/releases/version-skew-policy/): an audit's "Needs review" shows their findings first.
MAINTAINED = 3
#: The table head of an audit's "Needs review" (the sync's, :func:`bot.plan.changelog.body.render`).
_REVIEW_HEAD = ["| KEP | Release | Finding | Release note |", "|---|---|---|---|"]


class StableVerdict(NamedTuple):
    """One row whose kep.yaml says status ``implementable`` with stage ``stable``.

    - ``kep``: KEP id; ``kep_path``; ``stable``: ``milestone.stable`` as written;
    - ``shipped``: ``shipped`` (release notes exist for that release and it is not the
      newest), ``in progress`` (it is the newest: the release being made), ``planned``
      (later than every release with notes) or ``unknown`` (no stable milestone, no
      notes for that release, or no release notes at all);
    - ``confirmed``: True when a release note surely about the KEP announces GA in that release;
    - ``evidence``: those notes (at most 3); ``verdict``: one line for the reader.
    """

    kep: str
    kep_path: str
    stable: str
    shipped: str
    confirmed: bool
    evidence: tuple[Evidence, ...]
    verdict: str


class AuditPlan(NamedTuple):
    """What one audit found: ``pages`` (as a sync would rewrite them; never written), every ``change`` a sync
    would propose (with evidence), ``problems``, ``discrepancies`` of every row's KEP, the ``stable``
    verdicts, ``rows`` (number of KEP rows audited), the ``markdown``, the JSON ``report``, the
    kep.yaml ``consistency`` findings of every row and the ``states`` of every row's planned stages
    (:mod:`bot.plan.evidence.stage_state`; empty without release notes and a gate list)."""

    snapshot: Snapshot
    pages: list[PageResult]
    changes: list[Change]
    problems: list[Problem]
    discrepancies: tuple[Finding, ...]
    stable: tuple[StableVerdict, ...]
    rows: int
    markdown: str
    report: dict
    consistency: tuple[Finding, ...] = ()
    states: tuple[PlannedStage, ...] = ()


def log_fields(audit: AuditPlan) -> dict:
    """The figures of an audit for its ``audit finished`` log line (``kep-sync audit`` and ``serve``):
    ``revision``, ``rows``, ``changes`` (a sync would propose), ``discrepancies`` and
    ``shipped_not_implemented`` (implementable + stable with the GA milestone shipped), ``rows_with_problems``
    (rows left as is, listed in the audit's Problems section: :func:`bot.commands.next_steps.rows_with_problems`)."""
    from bot.commands.next_steps import rows_with_problems

    return {
        "revision": audit.snapshot.revision,
        "rows": audit.rows,
        "changes": sum(c.applied for c in audit.changes),
        "discrepancies": len(audit.discrepancies),
        "shipped_not_implemented": sum(v.shipped == SHIPPED for v in audit.stable),
        "rows_with_problems": rows_with_problems(audit.problems),
    }


def stable_verdicts(
    keps: Sequence[Kep], index: NotesIndex | None, available: Sequence[str], ids: dict[str, str]
) -> list[StableVerdict]:
    """The tracking rule for every KEP of ``keps`` with status ``implementable`` and stage ``stable``.

    ``index``: the release notes of every release the source has (``None``: no
    release notes, every verdict ``unknown``); ``available``: those releases
    (the newest is the one being made). See :class:`StableVerdict`.
    """
    ordered = sorted(available, key=release_order)
    newest = ordered[-1] if ordered else ""
    indexed = set(index.releases) if index else set()
    out = []
    for kep in keps:
        if kep.status != "implementable" or kep.stage != "stable":
            continue
        target = normalize_milestone(kep.milestone("stable")) or ""
        ident = ids.get(kep.path, str(kep.number))
        first: dict[tuple[str, int], object] = {}
        if index is not None and target:
            for m in index.for_kep(kep.path):  # one per pull request, its first GA sentence
                if m.stage == "stable" and m.when == target and kep.path in m.links:
                    first.setdefault((m.release, m.pr), m)
        hits: list = list(first.values())
        evidence = tuple(Evidence(m.release, m.pr, m.url, m.excerpt, m.stage, False) for m in hits[:3])
        if not target or index is None:
            shipped = UNKNOWN
        elif target == newest:
            shipped = IN_PROGRESS
        elif release_order(target) > release_order(newest):
            shipped = PLANNED
        else:
            shipped = SHIPPED if target in indexed else UNKNOWN
        out.append(
            StableVerdict(
                ident,
                kep.path,
                kep.milestone("stable"),
                shipped,
                bool(hits),
                evidence,
                _verdict(target, shipped, bool(hits), index is not None),
            )
        )
    return out


def _verdict(target: str, shipped: str, confirmed: bool, notes: bool) -> str:
    if not notes:
        return "unknown: no release notes (--release-notes) to tell whether GA shipped"
    if not target:
        return "no stable milestone in kep.yaml: cannot tell when GA ships"
    if shipped == IN_PROGRESS:
        return f"{target} is the release being made: GA in progress" + (
            " (its draft notes announce GA)" if confirmed else ""
        )
    if shipped == PLANNED:
        return f"{target} is not out yet: GA planned"
    if shipped == UNKNOWN:
        return f"no release notes for {target}: cannot tell whether GA shipped"
    if confirmed:
        return (
            f"GA shipped in {target} (the release notes confirm it); still implementable upstream: "
            "done in practice, not marked implemented"
        )
    return (
        f"GA milestone {target} shipped, but no release note announces GA for this KEP (check the notes' "
        "prose and the KEP's history); still implementable upstream: likely done, not marked implemented"
    )


def plan_audit(
    config: Config,
    snapshot: Snapshot,
    pages: dict[str, bytes],
    notes: ReleaseNotes | None,
    *,
    only: Collection[int] | None = None,
    history: History | Callable[[Mapping[str, Collection[str]], Collection[str]], History] | None = None,
    renames: Mapping[tuple[int, str], Rename] | None = None,
    gates: Lifecycle | Callable[[Collection[str]], Lifecycle] | None = None,
    gate_history: GateOrigins | Callable[[Collection[str]], GateOrigins] | None = None,
    records: Records | None = None,
) -> AuditPlan:
    """Every check on every row of ``pages`` (``{relative path: bytes}``) against ``snapshot``; pure.

    The sync's plan (:func:`bot.plan.planner.plan_sync`, with the release-note review of
    every row's KEP, ``review_rows=True``) plus the stable verdicts. ``notes``: the
    release notes of every release the source has (``None``: no release notes;
    the stable verdicts are then ``unknown``). ``only``: KEP numbers to audit. ``history`` and
    ``renames`` go to :func:`bot.plan.planner.plan_sync` (upstream provenance of each change, as a sync's), and so does
    ``gates`` (the feature-gate lifecycle: its findings on every row's KEP join the body and the report) and
    ``gate_history`` (who owns a shared gate, from the kep.yaml history) and ``records`` (the release team's freeze
    exceptions, which explain a released milestone rewritten).
    The report is the plan's (:func:`bot.commands.sync.run_report` adds what a run adds) with an ``audit`` object added:
    ``{"rows", "implementable_stable": [{kep, kep_path, stable, shipped, confirmed, verdict, evidence}]}``.
    """
    plan = plan_sync(
        config,
        snapshot,
        pages,
        only=only,
        release_notes=notes,
        max_chars=10**9,
        review_rows=True,
        history=history,
        renames=renames,
        gates=gates,
        gate_history=gate_history,
        records=records,
    )
    wanted = None if only is None else set(only)
    on_pages = {k.path: k for r in plan.pages for k in r.diff.keps if wanted is None or k.number in wanted}
    ids = {p: kep_id(snapshot, k) for p, k in on_pages.items()}
    index = build_index(notes.notes, snapshot.all_keps()) if notes is not None else None
    stable = stable_verdicts(list(on_pages.values()), index, notes.available if notes else (), ids)
    rows = sum(len(r.diff.keps) for r in plan.pages)
    checks = [f._replace(kep_id=ids[k.path]) for k in on_pages.values() for f in consistency.check(k)]
    report = dict(plan.report)
    report["audit"] = {
        "rows": rows,
        "implementable_stable": [
            {
                "kep": v.kep,
                "kep_path": v.kep_path,
                "stable": v.stable,
                "shipped": v.shipped,
                "confirmed": v.confirmed,
                "verdict": v.verdict,
                "evidence": [e._asdict() for e in v.evidence],
            }
            for v in stable
        ],
        "consistency": [
            {"kep": c.kep_id, "kep_path": c.kep_path, "fields": list(c.fields), "message": c.message} for c in checks
        ],
    }
    markdown = render_audit(
        snapshot,
        plan.pages,
        rows,
        stable,
        notes,
        plan.changelog.body,
        checks,
        plan.states,
        plan.gate_list,
        plan.discrepancies,
    )
    return AuditPlan(
        snapshot,
        plan.pages,
        plan.changes,
        plan.problems,
        plan.discrepancies,
        tuple(stable),
        rows,
        markdown,
        report,
        tuple(checks),
        plan.states,
    )


def _stage_lines(states: Sequence[PlannedStage]) -> list[str]:
    """The "Planned stages" section: how many of each state, then every planned stage, collapsed."""
    if not states:
        return []
    counts = ", ".join(f"{sum(s.state == k for s in states)} {k}" for k in STATES if any(s.state == k for s in states))
    return [
        f"### Planned stages: {counts}",
        "",
        f"<details><summary>Every planned stage ({len(states)})</summary>",
        "",
        "| KEP | Stage | Release | State | Why | Source |",
        "|---|---|---|---|---|---|",
        *(
            f"| {kep_link(s.kep)} | {s.stage} | {s.release} | {s.state} | {table_cell(s.reason, [n.pr for n in s.notes])} | {s.source} |"
            for s in states
        ),
        "",
        "</details>",
        "",
    ]


def render_audit(
    snapshot: Snapshot,
    pages: Sequence[PageResult],
    rows: int,
    stable: Sequence[StableVerdict],
    notes: ReleaseNotes | None,
    body: str,
    checks: Sequence[Finding] = (),
    states: Sequence[PlannedStage] = (),
    gate_list: str = "",
    discrepancies: Sequence[Finding] = (),
) -> str:
    """The audit as markdown: a title, what was read (the gate list named once), the implementable + stable
    table, the kep.yaml consistency findings of every row, the planned stages of every row
    (:mod:`bot.plan.evidence.stage_state`: the count of each state, then every one in a collapsed table;
    with release notes or a gate list only), then ``body`` (the sync's changelog body: Needs a look, changes
    a sync would propose, Needs review, report-only findings, problems), its collapsed "Needs review" of the
    ``discrepancies`` replaced by :func:`review_lines` (recent releases first, the rest folded by kind)."""
    done = sum(v.shipped == SHIPPED for v in stable)
    confirmed = sum(v.shipped == SHIPPED and v.confirmed for v in stable)
    rev = snapshot.revision[:12] if snapshot.revision else "working tree"
    ordered = sorted(notes.available, key=release_order) if notes else []
    read = (
        f"release notes {ordered[0]}..{ordered[-1]} ({ordered[-1]} taken as the release being made)"
        if ordered
        else "no release notes"
    )
    out = [
        f"# KEP audit: {rows} rows, {done} implementable with their GA milestone shipped "
        f"({confirmed} confirmed by the release notes)",
        "",
        f"**kep-sync audit** of {', '.join(inline(p.path) for p in pages) or 'no page'} against "
        f"{source_name(snapshot.source)} at `{rev}` and {read}"
        + (f" and the gate list {gate_list}" if gate_list else "")
        + ". Nothing was written.",
        "",
    ]
    if stable:
        out += [
            "### Implementable + stable: implemented in practice?",
            "",
            "kep.yaml says `implementable` with stage `stable`; that does not mean implemented.",
            "",
            "| KEP | GA milestone | Shipped | Notes confirm GA | Verdict |",
            "|---|---|---|---|---|",
        ]
        for v in stable:
            notes_cell = (
                "<br>".join(f"{e.release} {note_link(e.pr, e.url)}: {table_cell(e.excerpt)}" for e in v.evidence)
                or "no"
            )
            out.append(
                f"| {kep_link(v.kep)} | {table_cell(v.stable) or '-'} | {v.shipped} | {notes_cell} | "
                f"{table_cell(v.verdict)} |"
            )
        out.append("")
    if checks:
        out += ["### kep.yaml contradicts itself (every row)", "", "| KEP | Fields | Finding |", "|---|---|---|"]
        out += [f"| {kep_link(c.kep_id)} | {', '.join(c.fields)} | {table_cell(c.message)} |" for c in checks]
        out.append("")
    out += _stage_lines(states)
    rest = "".join(body.split("\n", 2)[2:]) if body.startswith("**kep-sync**") else body
    out.append(_with_review(rest, discrepancies, notes.available if notes else ()))
    return "\n".join(out).rstrip("\n") + "\n"


def _with_review(body: str, findings: Sequence[Finding], available: Sequence[str]) -> str:
    """``body`` with its collapsed "Needs review" block (``<details><summary>Needs review (N)</summary>`` to
    its ``</details>``, N the number of ``findings``) replaced by :func:`review_lines`; as is without one."""
    lines = body.split("\n")
    opening = details("Needs review", len(findings), [])[0]
    if not findings or opening not in lines:
        return body
    start = lines.index(opening)
    end = lines.index("</details>", start)
    return "\n".join([*lines[:start], *review_lines(findings, available), *lines[end + 1 :]])


def recent_releases(available: Sequence[str]) -> list[str]:
    """The release in progress (the newest of ``available``, the releases with notes) and the
    :data:`MAINTAINED` releases before it, newest first."""
    return sorted(available, key=release_order, reverse=True)[: MAINTAINED + 1]


def review_lines(findings: Sequence[Finding], available: Sequence[str]) -> list[str]:
    """An audit's "Needs review" of the release-note ``findings`` (every row's KEP): a heading with the count,
    then the findings on a recent release (:func:`recent_releases` of ``available``; or on no release) in one
    table, newest release first; then those on older releases, folded, one table per kind (the kinds in order
    of their first finding, each newest release first); its last line is a blank one or ``</details>``, as the sync's
    block ends. The audit keeps no memory of its last run, so "recent" is what it can tell: the release in progress and the releases still maintained."""
    recent = recent_releases(available)
    newest_first = sorted(findings, key=lambda f: release_order(f.release) if f.release else (10**6, 0), reverse=True)
    first = [f for f in newest_first if not f.release or f.release in recent]
    older = [f for f in newest_first if f.release and f.release not in recent]
    kept = recent[1:]
    span = f"{kept[-1]}-{kept[0]}" if len(kept) > 1 else "".join(kept)
    where = f"{recent[0]} (in progress)" + (f" and {span}" if span else "") if recent else "no release"
    out = [
        f"### Needs review ({len(findings)}): {len(first)} on {where}"
        + (f"; {len(older)} on older releases, folded" if older else ""),
        "",
        "Release notes and kep.yaml disagree; nothing here was applied."
        + (
            " The release in progress and the releases still maintained come first; older releases are folded "
            "below, by kind."
            if older
            else ""
        ),
        "",
    ]
    if first:
        out += [*_REVIEW_HEAD, *(review_row(f) for f in first), ""]
    if older:
        kinds = list(dict.fromkeys(f.kind for f in older))
        counts = ", ".join(f"{k} {sum(f.kind == k for f in older)}" for k in kinds)
        out += details(f"Older releases ({len(older)}): {counts}", None, [])
        for kind in kinds:
            same = [f for f in older if f.kind == kind]
            out += [f"**{kind}** ({len(same)})", "", *_REVIEW_HEAD, *(review_row(f) for f in same), ""]
        out.append("</details>")
    return out
