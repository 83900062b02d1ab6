"""The changelog: pull request title, markdown body, commit message and the JSON report.

Pure and deterministic: the same changes and problems give the same bytes.
Nothing from upstream is emitted raw: ``@handles`` are wrapped in code
spans (no one is pinged) and ``|`` is escaped inside table cells. KEPs link to ``https://kep.k8s.io/N`` and each
kep.yaml to its blob at the exact revision. The escaping and links are :mod:`bot.plan.changelog.markdown`'s, the table
rows :mod:`bot.plan.changelog.rows`'; this module lays out the sections, fits them in the body and builds the report.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.model.finding import NOTE_KEYS, Finding
from bot.model.history.provenance import Provenance
from bot.model.kep import Problem
from bot.model.snapshot import Snapshot
from bot.plan.changelog.markdown import code, details, kep_link, line_start, safe, table_cell
from bot.plan.changelog.rows import (
    DEFAULT_WEB_URL,
    Links,
    by_row,
    finding_row,
    gate_row,
    grouped_graduations,
    held_cells,
    history_text,
    ignored_row,
    one_page,
    review_row,
    row_line,
    source_name,
    written_cell,
)
from bot.plan.diff import KINDS, RELEASED_FLAG, Change, ChangeEvidence

#: GitHub rejects pull request bodies over 65,536 characters; stay well below.
DEFAULT_MAX_BODY_CHARS = 60_000
#: ``kind: (singular, plural)`` for the summary line.
_NOUNS = {
    "promoted": ("promoted", "promoted"),
    "demoted": ("demoted", "demoted"),
    "stage": ("stage change", "stage changes"),
    "status": ("status change", "status changes"),
    "retargeted": ("retargeted", "retargeted"),
    "target-removed": ("target removed", "targets removed"),
    "added": ("new row", "new rows"),
    "gates": ("feature gate drift", "feature gate drifts"),
    "renamed": ("renamed", "renamed"),
    "missing-upstream": ("missing upstream", "missing upstream"),
    "shipped": ("shipped cell", "shipped cells"),
    "pending": ("pending", "pending"),
}


#: A body section: ``(header lines, rows, noun for the "N more ... left out" line)``.
Section = tuple[list[str], list[str], str]


class Layout(NamedTuple):
    """The sections a run with release notes or a gate list shows (:mod:`bot.plan.changelog.signals`): ``lead``
    first, before the callouts and Graduations ("Needs a look"); ``changes`` in place of the plain Changes table;
    ``after`` right after it (the legend); ``folded``, collapsed, before Problems (the notes cited)."""

    lead: Sequence[Section] = ()
    changes: Section | None = None
    after: Sequence[Section] = ()
    folded: Sequence[Section] = ()


class Changelog(NamedTuple):
    """``title`` (one line), ``body`` (markdown, at most ``max_chars``), ``commit_message``."""

    title: str
    body: str
    commit_message: str


def summary(changes: Sequence[Change]) -> str:
    """``"34 changes in 24 KEPs (13 promoted, 15 retargeted, ...)"``: applied changes only, kinds in order."""
    applied = [c for c in changes if c.applied]
    kinds = Counter(c.kind for c in applied)
    parts = ", ".join(f"{kinds[k]} {_NOUNS[k][kinds[k] != 1]}" for k in KINDS if kinds[k])
    keps = len({c.kep_id for c in applied})
    noun = "change" if len(applied) == 1 else "changes"
    return f"{len(applied)} {noun} in {keps} KEP{'s' if keps != 1 else ''}" + (f" ({parts})" if parts else "")


class ChangelogInputs(NamedTuple):
    """What :func:`render` shows besides the changes and problems; every field is optional.

    ``involved_problems``: kep.yaml problems of the KEPs on the pages; ``discrepancies``: ``None`` when
    release notes were not used, else the "Needs review" list; ``gate_findings``: ``None`` without a feature-gate lifecycle, else its findings,
    listed under "Needs review: feature-gate lifecycle" (the Shipped column is the layout's,
    :mod:`bot.plan.changelog.signals`); ``callouts``: sections placed first, ``extra``: sections placed before "Problems"
    (see :mod:`bot.plan.tracking.render`); ``front_matter``: ``(page, key, old, new)`` of each
    ``front_matter.date_key`` update; ``generated``: the pages whose digest section is rewritten, named in the
    title (:func:`_title`), a "Digest" list and the commit message; ``controls``: lines of the collapsed
    "Controls" footer; ``watch``: the folded watch of the release in progress (:func:`bot.plan.watch.render.pr_sections`),
    placed before "Problems". ``web_url``: the enhancements repository; ``page_url``: the page's web address at the
    base revision (``https://github.com/O/R/blob/SHA/``), so page locations link to their line, ``""`` for
    none; ``max_chars``: the body's budget in characters; ``layout``: the sections of a run with release notes
    or a gate list (:class:`Layout`), ``None`` for the plain layout.
    """

    involved_problems: Sequence[Problem] = ()
    discrepancies: Sequence[Finding] | None = None
    gate_findings: Sequence[Finding] | None = None
    callouts: Sequence[Section] = ()
    extra: Sequence[Section] = ()
    front_matter: Sequence[tuple[str, str, str, str]] = ()
    generated: Sequence[str] = ()
    controls: Sequence[str] = ()
    watch: Sequence[Section] = ()
    web_url: str = DEFAULT_WEB_URL
    page_url: str = ""
    max_chars: int = DEFAULT_MAX_BODY_CHARS
    layout: Layout | None = None


def render(
    snapshot: Snapshot,
    changes: Sequence[Change],
    problems: Sequence[Problem],
    inputs: ChangelogInputs | None = None,
) -> Changelog:
    """Build the changelog for one run.

    ``changes``: every Change (applied and report-only); ``problems``: rows left as is and untrusted values;
    ``inputs``: everything else shown (:class:`ChangelogInputs`). The body is cut at a table row boundary so
    it stays within ``inputs.max_chars`` characters, with a line saying how many rows were left out. The
    header names the source as it is (:func:`source_name`); each row of the Changes table names the KEP's
    title (from its kep.yaml). Problems are listed once each, sorted.

    Layout for the approver: the summary line, Graduations and the Changes table (one row per page row:
    each field linked to its line in the kep.yaml, the upstream pull request with its subject, release-note
    evidence and counter-evidence marked ⚠) come first; every other section is a collapsed ``<details>``
    block with its count in the summary line (:func:`details`). Problems shown are those about the
    rows, the pages and the inputs of this run (:func:`_pr_problems`).
    """
    inputs = ChangelogInputs() if inputs is None else inputs
    rev = snapshot.revision[:12] if snapshot.revision else "working tree"
    applied = [c for c in changes if c.applied]
    links = Links(inputs.web_url, snapshot.revision, inputs.page_url, one_page(changes))
    head = [f"**kep-sync**: {summary(changes)}, from {source_name(snapshot.source)} at `{rev}`.", ""]
    layout = inputs.layout or Layout()
    sections: list[Section] = [*layout.lead, *inputs.callouts]
    for heading, kind, noun in (
        ("### Graduations", "promoted", "graduations"),
        ("### Demotions", "demoted", "demotions"),
    ):
        picked = [c for c in applied if c.kind == kind]
        if picked:
            sections.append(([heading], grouped_graduations(picked), noun))
    if applied:
        sections.append(layout.changes or _changes_section(snapshot, applied, links, held_cells(problems)))
    sections += layout.after
    sections += _written_sections(applied, links, inputs)
    sections += _review_sections(changes, links, inputs)
    sections += layout.folded
    sections += list(inputs.watch)
    shown = _pr_problems(problems, inputs.involved_problems)
    kept: set[str] = set()
    if shown:
        rows = [f"| {table_cell(p.path)} | {table_cell(p.key)} | {table_cell(p.message)} |" for p in shown]
        kept = {r for p, r in zip(shown, rows, strict=True) if re.fullmatch(r"line \d+", p.key)}
        about = [
            "Every row left as is and every value not written, with why, and the problems of this run's inputs; "
            "the run's JSON report lists every problem of the source.",
            "",
        ]
        sections.append(
            (details("Problems", len(shown), [*about, "| Where | Key | Problem |", "|---|---|---|"]), rows, "problems")
        )
    if inputs.controls:
        sections.append((details("Controls", None, []), list(inputs.controls), "controls"))
    title = _title(changes, inputs.generated)
    return Changelog(
        title,
        _fit(head, sections, inputs.max_chars, frozenset(kept)),
        safe(_commit_message(title, snapshot, applied, inputs.generated)),
    )


def _changes_section(
    snapshot: Snapshot, applied: list[Change], links: Links, held: Mapping[tuple[str, int], Sequence[str]]
) -> Section:
    """The "Changes" table of the plain layout (a run without release notes or a gate list; one with them shows
    :mod:`bot.plan.changelog.signals`'s): one row per page row, with an Upstream column when the run has
    provenance; ``held``: :func:`bot.plan.changelog.rows.held_cells`."""
    keps = {k.path: k for k in snapshot.all_keps()}
    origin = any(c.upstream is not None for c in applied)
    rows = [row_line(group, keps, links, origin, held) for group in by_row(applied)]
    return (
        [
            "### Changes",
            f"| KEP | {links.header()} | Change | kep.yaml |" + (" Upstream |" if origin else ""),
            "|---|---|---|---|" + ("---|" if origin else ""),
        ],
        rows,
        "changes",
    )


def _written_sections(applied: list[Change], links: Links, inputs: ChangelogInputs) -> list[Section]:
    """Every other byte the run writes, shown unfolded (a reviewer approves all of it): front matter
    updates and digest pages; then the collapsed removed targets and rewritten released milestones."""
    out: list[Section] = []
    if inputs.front_matter:
        rows = [
            f"- {line_start(page)}: {code(key + ': ' + (old or '-'))} → {code(key + ': ' + new)}"
            for page, key, old, new in inputs.front_matter
        ]
        out.append((["### Front matter"], rows, "front matter updates"))
    if inputs.generated:
        out.append(
            (
                ["### Digest"],
                [f"- {line_start(page)}: digest section regenerated from kep.yaml" for page in inputs.generated],
                "digest pages",
            )
        )
    removed = [c for c in applied if c.kind == "target-removed"]
    released = [c for c in applied if any(f.startswith(RELEASED_FLAG) for f in c.flags)]
    for heading, intro, picked, noun in (
        (
            "Targets removed upstream",
            "kep.yaml no longer names a milestone for these stages; the cell is cleared.",
            removed,
            "removed targets",
        ),
        (
            "Released milestones rewritten",
            "The page showed a milestone that is already released; kep.yaml "
            "now names another. The history of the kep.yaml value is given; check that the page was wrong.",
            released,
            "rewrites",
        ),
    ):
        if picked:
            rows = [
                f"- KEP {kep_link(c.kep_id)} {c.field}: {table_cell(c.old)} → **{written_cell(c)}** "
                f"({links.page(c.page, c.line)}){history_text(c, inputs.web_url)}"
                for c in picked
            ]
            out.append((details(heading, len(picked), [intro, ""]), rows, noun))
    return out


def _review_sections(changes: Sequence[Change], links: Links, inputs: ChangelogInputs) -> list[Section]:
    """The collapsed sections of what was not applied: "Needs review" (release notes, feature-gate lifecycle),
    "Ignored", "Report only", then ``inputs.extra``."""
    out: list[Section] = []
    if inputs.discrepancies:
        out.append(
            (
                details(
                    "Needs review",
                    len(inputs.discrepancies),
                    [
                        "Release notes and kep.yaml disagree; nothing here was applied.",
                        "",
                        "| KEP | Release | Finding | Release note |",
                        "|---|---|---|---|",
                    ],
                ),
                [review_row(d) for d in inputs.discrepancies],
                "discrepancies",
            )
        )
    if inputs.gate_findings:
        out.append(
            (
                details(
                    "Needs review: feature-gate lifecycle",
                    len(inputs.gate_findings),
                    [
                        "The feature-gate list and kep.yaml disagree; nothing here was applied.",
                        "",
                        "| KEP | Release | Finding |",
                        "|---|---|---|",
                    ],
                ),
                [gate_row(d) for d in inputs.gate_findings],
                "gate findings",
            )
        )
    ignored = [c for c in changes if c.ignored]
    if ignored:
        out.append(
            (
                details(
                    "Ignored",
                    len(ignored),
                    [
                        "Kept by an ignore rule (a `<!-- kep-sync: ignore -->` marker in the row, or `ignore:` in the "
                        "config); still compared, not applied.",
                        "",
                        f"| KEP | {links.header()} | Field | Page → kep.yaml | Rule |",
                        "|---|---|---|---|---|",
                    ],
                ),
                [ignored_row(c, links) for c in ignored],
                "ignored",
            )
        )
    report_only = [c for c in changes if not c.applied and not c.ignored]
    if report_only:
        rows = [finding_row(c, inputs.web_url) for c in report_only]
        out.append(
            (
                details("Report only (not applied)", len(report_only), ["| KEP | Page | Finding |", "|---|---|---|"]),
                rows,
                "findings",
            )
        )
    return out + [_collapsed(x) for x in inputs.extra]


def _commit_message(title: str, snapshot: Snapshot, applied: list[Change], generated: Sequence[str]) -> str:
    """The commit message: ``title``, one line per applied change and digest page, then the source and
    revision (when there is one)."""
    return (
        title
        + "\n\n"
        + "\n".join(
            [f"- KEP-{c.kep_id} {c.field}: {c.old or '-'} -> {c.new or '-'}" for c in applied]
            + [f"- {page}: digest section regenerated" for page in generated]
        )
        + (
            f"\n\nSource: {source_name(snapshot.source, code=False)}@{snapshot.revision}\n"
            if snapshot.revision
            else "\n"
        )
    )


def _title(changes: Sequence[Change], generated: Sequence[str]) -> str:
    """The pull request and commit title: the applied changes (:func:`summary`) and the digest when its
    section is rewritten (``KEP matrix: update digest``); ``KEP matrix: no changes`` only when neither."""
    digest = "update digest" if generated else ""
    if any(c.applied for c in changes):
        return f"Update KEP matrix: {summary(changes)}" + (f"; {digest}" if digest else "")
    return f"KEP matrix: {digest or 'no changes'}"


#: Public names for other changelog sections (``bot.plan.tracking.render``).


def _fit(
    head: list[str],
    sections: list[tuple[list[str], list[str], str]],
    max_chars: int,
    keep: frozenset[str] = frozenset(),
) -> str:
    """Join the body, keeping whole rows in order while it stays within ``max_chars`` characters.

    ``sections``: ``(header lines, rows, noun)``. From the first row that does
    not fit on, every row is left out and each cut section ends with a line
    saying how many, except the rows in ``keep`` (the rows left as is: a row the
    bot could not write is never cut), whose room is reserved first. Room for
    those lines is reserved up front, so the body never exceeds ``max_chars``
    unless the head, section headers and kept rows alone do.
    """

    def note(left: int, noun: str) -> str:
        return f"_{left} more {noun} left out to keep this text short enough for a pull request; see the JSON report._"

    def lines(block: list[str]) -> int:  # characters of ``block`` joined by and ending with "\n"
        return sum(len(x) + 1 for x in block)

    # Worst case per section: header, "", the note, then the blank line after the section.
    worst = [lines(h) + len(note(len(r), n)) + 3 + len("\n</details>\n") for h, r, n in sections]
    must = [lines([r for r in rows if r in keep]) for _, rows, _ in sections]
    out, size, cut = list(head), lines(head), False
    for i, (header, rows, noun) in enumerate(sections):
        block = list(header)
        room = max_chars - size - sum(worst[i:]) - sum(must[i:])
        kept = 0
        while (
            not cut
            and kept < len(rows)
            and (rows[kept] in keep or lines(block[len(header) :]) + len(rows[kept]) + 1 <= room)
        ):
            block.append(rows[kept])
            room += len(rows[kept]) + 1 if rows[kept] in keep else 0  # its room was reserved
            kept += 1
        if kept < len(rows):
            cut = True
            forced = [r for r in rows[kept:] if r in keep]
            left = len(rows) - kept - len(forced)
            block += forced
            if left:
                block = block + ["", note(left, noun)] if len(block) > len(header) else [note(left, noun)]
        if header and header[0].startswith("<details>"):  # no blank line after: the next block starts at once
            out += ([] if block[0] == header[0] else [header[0], ""]) + block + ["", "</details>"]
            later = sections[i + 1][0] if i + 1 < len(sections) else []
            if later and later[0].startswith("#"):  # a heading right after `</details>` would stay in its HTML block
                out.append("")
        else:
            out += block + [""]
        size += lines(block) + 1
    return "\n".join(out).rstrip("\n") + "\n"


def _note_json(e: ChangeEvidence) -> dict[str, object]:
    """An :class:`~bot.plan.evidence.Evidence` for the report: ``{release, pr, url, excerpt, stage, ambiguous}``."""
    out: dict[str, object] = e._asdict()
    out.pop("counter", None)
    out.pop("possible", None)
    return out


def report(
    snapshot: Snapshot,
    changes: Sequence[Change],
    problems: Sequence[Problem],
    *,
    discrepancies: Sequence[Finding] | None = None,
    provenance: Provenance | None = None,
) -> dict[str, object]:
    """The ``--report`` JSON object: ``{"revision", "changes": [...], "problems": [...]}``.

    Each change: ``kep, page, line, field, old, new, kind, applied, kep_path`` (``new`` as the page gets it:
    :attr:`bot.plan.diff.Change.written` for a change written, ``GA`` or ``-`` in the page's words);
    each problem: ``path, message`` (the key is folded into the message). A change's
    flags (``Change.flags``) come first among the problems, one each, with ``path``
    ``page:line`` and a message naming the KEP, field and values.
    With release notes (``discrepancies`` not ``None``) each change also has
    ``evidence: [{release, pr, url, excerpt, stage, ambiguous}]`` (notes surely about the KEP,
    ``ambiguous`` always false) and ``ambiguous_evidence`` (the same shape, ``ambiguous`` true: a gate
    several KEPs declare and nothing in the note picks this one), ``counter_evidence`` (the same shape, only
    when some note announces another stage for the change's release), ``possible_evidence`` (the same shape,
    only when a note naming no gate and no KEP matches the KEP's title words: never a confirmation), and the object a
    top-level ``discrepancies: [{kind, kep, kep_path, release, message, pr, url, excerpt}]``.
    With provenance (``provenance`` not ``None``: the source has history) each change also has
    ``upstream: {commit, date, pr, subject}`` (``null`` when unknown; ``"exact": false`` when only the last
    commit touching the kep.yaml is known) and the object a top-level ``provenance`` (the dict given).
    """
    items: list[dict[str, object]] = [
        {
            "kep": c.kep_id,
            "page": c.page,
            "line": c.line,
            "field": c.field,
            "old": c.old,
            "new": c.new if c.written is None else c.written,
            "kind": c.kind,
            "applied": c.applied,
            "kep_path": c.kep_path,
        }
        for c in changes
    ]
    out: dict[str, object] = {
        "revision": snapshot.revision,
        "changes": items,
        "problems": [
            {
                "path": f"{c.page}:{c.line}",
                "message": f"KEP {c.kep_id} {c.field} {c.old or '-'} -> {c.new or '-'}: {flag}",
            }
            for c in changes
            for flag in c.flags
        ]
        + [{"path": p.path, "message": f"{p.key}: {p.message}" if p.key else p.message} for p in problems],
    }
    if discrepancies is not None:
        for item, c in zip(items, changes, strict=True):
            item["evidence"] = [_note_json(e) for e in c.evidence if not (e.ambiguous or e.counter or e.possible)]
            item["ambiguous_evidence"] = [_note_json(e) for e in c.evidence if e.ambiguous and not e.counter]
            if any(e.counter for e in c.evidence):
                item["counter_evidence"] = [_note_json(e) for e in c.evidence if e.counter]
            if any(e.possible for e in c.evidence):
                item["possible_evidence"] = [_note_json(e) for e in c.evidence if e.possible]
        out["discrepancies"] = [d.as_report(NOTE_KEYS) for d in discrepancies]
    if any(c.shipped is not None for c in changes):
        for item, c in zip(items, changes, strict=True):
            item["shipped"] = c.shipped._asdict() if c.shipped is not None else None
    for item, c in zip(items, changes, strict=True):
        if c.pending:
            item["pending"] = c.pending
    if provenance is not None:
        for item, c in zip(items, changes, strict=True):
            item["upstream"] = c.upstream.as_json() if c.upstream is not None else None
        out["provenance"] = provenance
    return out


def _collapsed(section: Section) -> Section:
    """An extra section (``### Title``, intro, rows) as a collapsed block; its count is the number its intro
    starts with (``36 KEPs upstream ...``), else its rows."""
    header, rows, noun = section
    heading = bool(header) and header[0].startswith("#")
    title = header[0].lstrip("#").strip() if heading else noun.capitalize()
    rest = list(header[1:] if heading else header)
    while rest and not rest[0]:
        rest.pop(0)
    first = re.match(r"(\d+) ", rest[0]) if rest else None
    count = int(first.group(1)) if first else sum(1 for r in rows if r.startswith(("|", "-")))
    return details(title, count, rest), rows, noun


def _pr_problems(problems: Sequence[Problem], involved: Sequence[Problem]) -> list[Problem]:
    """The problems a reviewer of this pull request can act on: every row left as is and every value
    kep-sync would not write (``line N`` of a page: no row is left out silently), the problems of a page
    or an input as a whole (no line), and the kep.yaml problems of changed KEPs."""
    return sorted(set((*problems, *involved)), key=problem_order)


def problem_order(p: Problem) -> tuple[str, int, str, str]:
    """Sort key of a problem: by path, then by line number (``line 9`` before ``line 10``; a problem
    without a line first), then key and message."""
    m = re.fullmatch(r"line (\d+)", p.key)
    return p.path, int(m.group(1)) if m else -1, p.key, p.message


def visible_lines(body: str) -> int:
    """Lines of ``body`` a reader sees with every ``<details>`` block collapsed: lines outside the blocks,
    plus each block's opening ``<details><summary>`` line."""
    count, depth = 0, 0
    for line in body.split("\n"):
        opening = line.startswith("<details>")
        if depth == 0:
            count += 1
        depth += opening - (line.strip() == "</details>")
    return count - (body.endswith("\n"))
