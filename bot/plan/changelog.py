"""The changelog: pull request title, markdown body, commit message and the JSON report.

Pure and deterministic: the same changes and problems give the same bytes.
Nothing from upstream is emitted raw: ``@handles`` are wrapped in code
spans (no one is pinged) and ``|`` is escaped inside table cells. KEPs link to ``https://kep.k8s.io/N`` and each
kep.yaml to its blob at the exact revision.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import quote

from bot.model.finding import NOTE_KEYS, Finding
from bot.model.history.provenance import Provenance, Upstream
from bot.model.kep import Kep, Problem
from bot.model.snapshot import Snapshot
from bot.plan.diff import KINDS, RELEASED_FLAG, Change, ChangeEvidence
from bot.plan.evidence.index import pr_url
from bot.wiki.vocabulary import stage_word

#: GitHub rejects pull request bodies over 65,536 characters; stay well below.
DEFAULT_MAX_BODY_CHARS = 60_000
DEFAULT_WEB_URL = "https://github.com/kubernetes/enhancements"
#: A handle: ``@login`` or ``@org/team``; dots inside count (``@jane.doe`` is one token, so its code span covers it
#: whole), a dot at the end does not (``thanks @jane.``).
_HANDLE_RE = re.compile(
    r"(?<![\w/`])@([A-Za-z0-9](?:[A-Za-z0-9-]|\.(?=[A-Za-z0-9]))*"
    r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?)"
)
_TICKS_RE = re.compile(r"`+")
#: Characters that end a line in some renderer or are invisible controls: never written raw into a cell.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: Zero-width space, the fallback where a code span cannot be opened safely (Renovate does the same).
_ZWSP = "\u200b"
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
    """The sections a run with release notes or a gate list shows (:mod:`bot.plan.changelog_signals`): ``lead``
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


def safe(text: str) -> str:
    """Upstream text made safe for markdown: ``@handle`` -> ```@handle``` (a code span) so nobody is pinged,
    and ``<!--`` / ``-->`` broken with a zero-width space so no marker can be forged.

    Handles already inside a code span are left alone (GitHub does not link
    mentions in code). Where the text has a stray backtick that a new code
    span could pair with, the handle gets a zero-width space after ``@``
    instead. CommonMark code spans: https://spec.commonmark.org/0.31.2/#code-spans
    """
    # An HTML comment opener/closer from upstream could forge or close kep-sync's own markers.
    text = text.replace("<!--", "<!-\u200b-").replace("-->", "-\u200b->")
    if "@" not in text:
        return text
    out, pos = [], 0
    for start, end in _code_spans(text):
        out.append(_wrap_handles(text[pos:start]))
        out.append(text[start:end])
        pos = end
    out.append(_wrap_handles(text[pos:]))
    return "".join(out)


#: The brackets of a markdown link or image (``[text](url)``, ``![alt](src)``, ``[ref]``): escaped, no link or
#: image is left (``!\[`` opens none); one a backslash precedes is already escaped.
_LINK_MARK_RE = re.compile(r"(?<!\\)[\[\]]")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each code span: a backtick run closed by the next run of the same length."""
    spans, runs = [], list(_TICKS_RE.finditer(text))
    i = 0
    while i < len(runs):
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == len(runs[i].group())), None)
        if close is None:
            i += 1
            continue
        spans.append((runs[i].start(), runs[close].end()))
        i = close + 1
    return spans


def _wrap_handles(segment: str) -> str:
    """Wrap handles outside code spans; a segment with a stray backtick gets the zero-width space instead."""
    if "`" in segment:
        return _HANDLE_RE.sub(lambda m: "@" + _ZWSP + m.group(1), segment)
    return _HANDLE_RE.sub(lambda m: f"`@{m.group(1)}`", segment)


def table_cell(text: str) -> str:
    r"""Upstream text for one table cell (or one list line), inert: every line break and control character
    (``\n``, a lone ``\r``, ``\t``, C0/C1 controls, U+2028/U+2029) becomes a space, handles are wrapped
    (:func:`safe`), ``<``/``>``/``&`` become entities outside code spans (no HTML), ``[`` and ``]``
    are backslash-escaped outside code spans (no link or image: ``![i](http://x/p.png)`` shows as text),
    ``|`` is escaped (``\|``, also inside code spans, as GFM tables need). ``""`` -> ``-``. The one cell
    escaping of the changelog, the pull request body and the digest section (:mod:`bot.plan.digest`)."""
    if not text:
        return "-"
    text = safe(_CONTROL_RE.sub(" ", text))
    out, pos = [], 0
    for start, end in _code_spans(text):
        out += [_inert(text[pos:start]), text[start:end]]
        pos = end
    out.append(_inert(text[pos:]))
    return "".join(out).replace("|", "\\|")


def _inert(text: str) -> str:
    r"""Markdown text outside code spans with no HTML, link or image: entities for ``<>&``, ``\[`` and ``\]``."""
    return _LINK_MARK_RE.sub(r"\\\g<0>", html.escape(text, quote=False))


def kep_link(ident: str) -> str:
    """``[4671](https://kep.k8s.io/4671)``; KEPs numbered 0000 have no tracking issue, so no link."""
    digits = re.match(r"\d+", ident)
    if not digits or int(digits.group()) == 0:
        return table_cell(ident)
    return f"[{table_cell(ident)}](https://kep.k8s.io/{int(digits.group())})"


def kep_yaml_url(web_url: str, revision: str, path: str) -> str:
    """Link to a kep.yaml at ``revision`` (a commit SHA); ``""`` when there is no revision or path. Both are
    percent-encoded (``/`` kept), so an upstream directory name holding ``|``, a space or ``)`` cannot break
    the link or the table it sits in."""
    return f"{web_url.rstrip('/')}/blob/{quote(revision, safe='')}/{quote(path)}" if revision and path else ""


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
    release notes were not used, else the "Needs review" list (and each change gets an Evidence cell from
    ``Change.evidence``); ``gate_findings``: ``None`` without a feature-gate lifecycle, else its findings,
    listed under "Needs review: feature-gate lifecycle" (the Shipped column is the layout's,
    :mod:`bot.plan.changelog_signals`); ``callouts``: sections placed first, ``extra``: sections placed before "Problems"
    (see :mod:`bot.plan.tracking.render`); ``front_matter``: ``(page, key, old, new)`` of each
    ``front_matter.date_key`` update; ``generated``: the pages whose digest section is rewritten, named in the
    title (:func:`_title`), a "Digest" list and the commit message; ``controls``: lines of the collapsed
    "Controls" footer; ``watch``: the folded watch of the release in progress (:func:`bot.plan.watch_render.pr_sections`),
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
    links = Links(inputs.web_url, snapshot.revision, inputs.page_url)
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
        sections.append(layout.changes or _changes_section(snapshot, applied, links, inputs))
    sections += layout.after
    sections += _written_sections(applied, links, inputs)
    sections += _review_sections(changes, links, inputs)
    sections += layout.folded
    sections += list(inputs.watch)
    shown = _pr_problems(problems, inputs.involved_problems)
    if shown:
        rows = [f"| {table_cell(p.path)} | {table_cell(p.key)} | {table_cell(p.message)} |" for p in shown]
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
        title, _fit(head, sections, inputs.max_chars), safe(_commit_message(title, snapshot, applied, inputs.generated))
    )


def _changes_section(snapshot: Snapshot, applied: list[Change], links: Links, inputs: ChangelogInputs) -> Section:
    """The "Changes" table of the plain layout: one row per page row, with Upstream and Evidence columns when
    the run has that data (a run with release notes or a gate list shows :mod:`bot.plan.changelog_signals`'s)."""
    keps = {k.path: k for k in snapshot.all_keps()}
    shipped = notes_can_exist(snapshot)
    notes = inputs.discrepancies is not None
    origin = any(c.upstream is not None for c in applied)
    rows = [_row_line(group, keps, links, origin, notes, shipped) for group in by_row(applied)]
    return (
        [
            "### Changes",
            "| KEP | Page | Change | kep.yaml |" + (" Upstream |" if origin else "") + (" Evidence |" if notes else ""),
            "|---|---|---|---|" + ("---|" if origin else "") + ("---|" if notes else ""),
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
            f"- {table_cell(page)}: `{key}: {old or '-'}` → `{key}: {new}`"
            for page, key, old, new in inputs.front_matter
        ]
        out.append((["### Front matter"], rows, "front matter updates"))
    if inputs.generated:
        out.append(
            (
                ["### Digest"],
                [f"- {table_cell(page)}: digest section regenerated from kep.yaml" for page in inputs.generated],
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
                f"- KEP {kep_link(c.kep_id)} {c.field}: {table_cell(c.old)} → **{table_cell(c.new)}** "
                f"({links.page(c.page, c.line)}){_history_text(c, inputs.web_url)}"
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
                [_review_row(d) for d in inputs.discrepancies],
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
                [_gate_row(d) for d in inputs.gate_findings],
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
                        "| KEP | Page | Field | Page → kep.yaml | Rule |",
                        "|---|---|---|---|---|",
                    ],
                ),
                [_ignored_row(c, links) for c in ignored],
                "ignored",
            )
        )
    report_only = [c for c in changes if not c.applied and not c.ignored]
    if report_only:
        rows = [_finding_row(c, inputs.web_url) for c in report_only]
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


def source_name(source: str, *, code: bool = True) -> str:
    """How the changelog names ``Snapshot.source``: ``OWNER/REPO`` for ``github:OWNER/REPO@REF``, else the
    path or URL as given (a local clone, tarball or directory), in a code span when ``code``."""
    m = re.fullmatch(r"github:([^/@]+/[^/@]+)(?:@.*)?", source, re.DOTALL)
    if m:
        return m.group(1)
    text = source.replace("\n", " ")
    return f"`{text.replace('`', '')}`" if code else text


#: Longest KEP title shown in the Changes table, characters (longer ones end with "…").
MAX_TITLE_CHARS = 60


def _flags(c: Change) -> str:
    """The change's report-only flags for a table cell: ``<br>⚠ flag`` each, ``""`` when none."""
    return "".join(f"<br>⚠ {table_cell(f)}" for f in c.flags)


def upstream_cell(upstream: Upstream | None, web_url: str = DEFAULT_WEB_URL) -> str:
    """The Upstream cell of a change: ``[#6182 SUBJECT](WEB/pull/6182)`` (the subject without a trailing
    ``(#N)``, cut at :data:`MAX_SUBJECT_CHARS`; or the commit, ``[0123456789ab](WEB/commit/SHA)``,
    when the subject names no pull request) and the date; ``-`` when unknown. ``upstream`` is a
    :class:`bot.model.history.provenance.Upstream`; an inexact one (the last commit touching the kep.yaml) says so."""
    if upstream is None:
        return "-"
    base = web_url.rstrip("/")
    subject = short(
        re.sub(r"\s*\(#\d+\)\s*$|^Merge pull request #\d+ from \S+$", "", upstream.subject or ""), MAX_SUBJECT_CHARS
    )
    text = f"#{upstream.pr} {subject}".rstrip() if subject else f"#{upstream.pr}"
    link = (
        f"[{table_cell(text)}]({base}/pull/{upstream.pr})"
        if upstream.pr
        else f"[{table_cell(upstream.commit[:12])}]({base}/commit/{table_cell(upstream.commit)})"
    )
    return f"{link} {table_cell(upstream.date[:10])}" + ("" if upstream.exact else " (last kep.yaml commit)")


def note_link(pr: int, url: str) -> str:
    """``[#N](url)`` for a release note's pull request, the url checked again by
    :func:`bot.plan.evidence.index.pr_url` (``github.com/OWNER/REPO/pull/N`` or the kubernetes/kubernetes one)."""
    return f"[#{pr}]({pr_url(url, pr)})" if pr else ""


def _gate_row(d: Finding) -> str:
    return f"| {kep_link(d.kep_id)} | {d.release or '-'} | {d.kind}: {table_cell(d.message)} |"


def _review_row(d: Finding) -> str:
    kep = kep_link(d.kep_id) if d.kep_id else "-"
    note = f"{note_link(d.pr, d.url)}: {table_cell(d.excerpt)}" if d.pr else "-"
    return f"| {kep} | {d.release or '-'} | {d.kind}: {table_cell(d.message)} | {note} |"


#: Public names for other changelog sections (``bot.plan.tracking.render``).


def _finding_row(c: Change, web_url: str = DEFAULT_WEB_URL) -> str:
    if c.kind == "pending":
        what = (
            f"{c.field}: page shows {table_cell(c.old)}, kep.yaml says {table_cell(c.new)}: pending {c.pending} "
            f"(written once {c.pending} has shipped; `promote_when: released`)"
        )
    elif c.kind == "missing-upstream":
        what = f"no kep.yaml upstream has this number (row shows status {table_cell(c.old)}); row kept"
    elif c.kind == "renamed":  # the pull request that renamed it (the rename's commit, from the history)
        by = f" in {upstream_cell(c.upstream, web_url)}" if c.upstream is not None else ""
        why = "; ".join(table_cell(f) for f in c.flags) or "`renames: apply` rewrites the KEP cell"
        what = f"upstream renamed {table_cell(c.old)} to **{table_cell(c.new)}**{by}; row left as is ({why})"
    else:
        what = f"{c.field}: page shows {table_cell(c.old)}, kep.yaml says {table_cell(c.new)}{_flags(c)}"
    return f"| {kep_link(c.kep_id)} | {table_cell(c.page)}:{c.line} | {what} |"


def _fit(head: list[str], sections: list[tuple[list[str], list[str], str]], max_chars: int) -> str:
    """Join the body, keeping whole rows in order while it stays within ``max_chars`` characters.

    ``sections``: ``(header lines, rows, noun)``. From the first row that does
    not fit on, every row is left out and each cut section ends with a line
    saying how many. Room for those lines is reserved up front, so the body
    never exceeds ``max_chars`` unless the head and section headers alone do.
    """

    def note(left: int, noun: str) -> str:
        return f"_{left} more {noun} left out to keep this text short enough for a pull request; see the JSON report._"

    def lines(block: list[str]) -> int:  # characters of ``block`` joined by and ending with "\n"
        return sum(len(x) + 1 for x in block)

    # Worst case per section: header, "", the note, then the blank line after the section.
    worst = [lines(h) + len(note(len(r), n)) + 3 + len("\n</details>\n") for h, r, n in sections]
    out, size, cut = list(head), lines(head), False
    for i, (header, rows, noun) in enumerate(sections):
        block = list(header)
        room = max_chars - size - sum(worst[i:])
        kept = 0
        while not cut and kept < len(rows) and lines(block[len(header) :]) + len(rows[kept]) + 1 <= room:
            block.append(rows[kept])
            kept += 1
        if kept < len(rows):
            cut = True
            block = block + ["", note(len(rows) - kept, noun)] if kept else [note(len(rows) - kept, noun)]
        if header and header[0].startswith("<details>"):  # no blank line after: the next block starts at once
            out += ([] if block[0] == header[0] else [header[0], ""]) + block + ["", "</details>"]
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

    Each change: ``kep, page, line, field, old, new, kind, applied, kep_path``;
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
            "new": c.new,
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


# ---------------------------------------------------------------- the approver's layout
class Links(NamedTuple):
    """Where links land: ``web_url`` of the enhancements repository, its ``revision`` (commit SHA) and
    ``page_url`` (the wiki's web address of the pages at the base revision, ending in ``/``; ``""``
    when the wiki is not on GitHub)."""

    web_url: str
    revision: str
    page_url: str = ""

    def page(self, page: str, line: int) -> str:
        """``[page:line](PAGE_URL/page#Lline)``, or ``page:line`` as text without a ``page_url``."""
        spot = f"{table_cell(page)}:{line}"
        return f"[{spot}]({self.page_url}{quote(page)}#L{line})" if self.page_url else spot

    def kep_yaml(self, kep_path: str, line: int = 0) -> str:
        """The kep.yaml at the revision, ending in ``#L<line>`` when ``line``; ``""`` without revision or path."""
        url = kep_yaml_url(self.web_url, self.revision, kep_path)
        return f"{url}#L{line}" if url and line else url


def details(title: str, count: int | None, header: list[str]) -> list[str]:
    """Section header lines for a collapsed block: ``<details><summary>TITLE (COUNT)</summary>`` then
    ``header``; :func:`_fit` closes it with ``</details>``."""
    shown = f"{title} ({count})" if count is not None else title
    return [f"<details><summary>{html.escape(shown, quote=False)}</summary>", "", *header]


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


def grouped_graduations(changes: Sequence[Change]) -> list[str]:
    """One line per stage move, its KEPs listed: ``- alpha → **beta**: [4671](...), [5710](...)``.
    ``changes``: promoted or demoted stage changes, in changelog order."""
    moves: dict[tuple[str, str], list[str]] = {}
    for c in changes:
        keps = moves.setdefault((stage_word(c.old), stage_word(c.new)), [])
        if c.kep_id not in keps:
            keps.append(c.kep_id)
    return [
        f"- {table_cell(old)} → **{table_cell(new)}**: {', '.join(kep_link(k) for k in keps)}"
        for (old, new), keps in moves.items()
    ]


def by_row(changes: Sequence[Change]) -> list[list[Change]]:
    """``changes`` grouped by page row (page, line), in order of first appearance."""
    groups: dict[tuple[str, int], list[Change]] = {}
    for c in changes:
        groups.setdefault((c.page, c.line), []).append(c)
    return list(groups.values())


def notes_can_exist(snapshot: Snapshot) -> Callable[[str], bool]:
    """``release -> bool``: True for a milestone no newer than the release in progress (its release notes
    can exist), False for a later one (nothing can be said of a release that has not shipped)."""
    from bot.model.consistency import release_in_progress
    from bot.model.kep import milestone_key

    in_progress = release_in_progress(snapshot.all_keps())

    def shipped(value: str) -> bool:
        key = milestone_key(value)
        return key is None or in_progress is None or key <= in_progress

    return shipped


#: Longest upstream pull request subject shown in a link, characters.
MAX_SUBJECT_CHARS = 50


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _row_line(
    group: list[Change],
    keps: Mapping[str, Kep],
    links: Links,
    origin: bool,
    notes: bool,
    shipped: Callable[[str], bool],
) -> str:
    """One Changes table row for the changes of one page row."""
    fields = "<br>".join(f"{c.field}: {table_cell(c.old)} → **{table_cell(c.new)}**{_flags(c)}" for c in group)
    cells = lead_cells(group, keps.get(group[0].kep_path), links, fields, MAX_TITLE_CHARS)
    if origin:
        ups = list({(u.commit if u is not None else ""): u for u in (c.upstream for c in group)}.values())
        cells.append("<br>".join(upstream_cell(u, links.web_url) for u in ups))
    if notes:
        cells.append(_row_evidence(group, shipped))
    return "| " + " | ".join(cells) + " |"


def lead_cells(group: Sequence[Change], kep: Kep | None, links: Links, fields: str, title_chars: int) -> list[str]:
    """The first cells of a Changes row: the KEP with its title (cut at ``title_chars``), the page line, the
    ``fields`` cell as given and the kep.yaml cell (:func:`kep_yaml_cell`)."""
    first = group[0]
    title = short(kep.title, title_chars) if kep is not None else ""
    return [
        f"{kep_link(first.kep_id)} {table_cell(title)}" if title else kep_link(first.kep_id),
        links.page(first.page, first.line),
        fields,
        kep_yaml_cell(group, kep, links),
    ]


def kep_yaml_cell(group: Sequence[Change], kep: Kep | None, links: Links) -> str:
    """The kep.yaml cell of one page row: the file at the revision and the line of each changed key
    (``[kep.yaml](URL) [L34](URL#L34)``); the path as text without a revision."""
    where = dict(kep.key_lines) if kep is not None else {}
    lines = " ".join(
        f"[L{where[c.field]}]({links.kep_yaml(c.kep_path, where[c.field])})"
        for c in group
        if c.field in where and links.kep_yaml(c.kep_path)
    )
    url = links.kep_yaml(group[0].kep_path)
    return (f"[kep.yaml]({url})" + (f" {lines}" if lines else "")) if url else table_cell(group[0].kep_path)


def _row_evidence(group: list[Change], shipped: Callable[[str], bool]) -> str:
    """Evidence for one page row: each release note once, counter-evidence marked ``⚠``; ``none found``
    only when some change is about a release that has shipped, else ``-`` (no notes can exist yet)."""
    seen: set[tuple[str, int]] = set()
    sure: list[str] = []
    maybe: list[str] = []
    counter: list[str] = []
    for c in group:
        for e in c.evidence:
            if (e.release, e.pr) in seen:
                continue
            seen.add((e.release, e.pr))
            text = f"{e.release} {note_link(e.pr, e.url)}: {table_cell(e.excerpt)}"
            (counter if getattr(e, "counter", False) else maybe if e.ambiguous else sure).append(text)
    out = sure or (
        ["none found"]
        if any(shipped(c.new) for c in group if c.new)
        else ["- (" + ", ".join(sorted({c.new for c in group if c.new})) + " not released yet)"]
    )
    if maybe:
        out.append("ambiguous, not evidence (a feature gate several KEPs declare): " + "<br>".join(maybe))
    out += [f"⚠ counter-evidence: {t}" for t in counter]
    return "<br>".join(out)


def _history_text(c: Change, web_url: str) -> str:
    """``; kep.yaml said v1.36 until [#6125 subject](...) 2026-06-05`` from the change's upstream, ``""``
    when unknown."""
    up = c.upstream
    if up is None:
        return ""
    before = getattr(up, "before", None)
    said = f"kep.yaml said {table_cell(before) if before else 'nothing'} until " if before is not None else "set in "
    return f"; {said}{upstream_cell(up, web_url)}"


def _ignored_row(c: Change, links: Links) -> str:
    rule = "row marker" if c.ignored == "page" else "config `ignore`"
    return (
        f"| {kep_link(c.kep_id)} | {links.page(c.page, c.line)} | {c.field} | {table_cell(c.old)} → {table_cell(c.new)} "
        f"| {rule} |"
    )


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
