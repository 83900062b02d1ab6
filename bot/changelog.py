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
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import quote

from bot.diff import KINDS, RELEASED_FLAG, Change
from bot.evidence import Discrepancy
from bot.evidence.index import pr_url
from bot.model.kep import Problem
from bot.model.snapshot import Snapshot
from bot.wiki.vocabulary import stage_word

#: GitHub rejects pull request bodies over 65,536 characters; stay well below.
DEFAULT_MAX_BODY_CHARS = 60_000
DEFAULT_WEB_URL = "https://github.com/kubernetes/enhancements"
#: A handle: ``@login`` or ``@org/team``; dots inside count (``@jane.doe`` is one token, so its code span covers it
#: whole), a dot at the end does not (``thanks @jane.``).
_HANDLE_RE = re.compile(r"(?<![\w/`])@([A-Za-z0-9](?:[A-Za-z0-9-]|\.(?=[A-Za-z0-9]))*"
                        r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?)")
_TICKS_RE = re.compile(r"`+")
#: Characters that end a line in some renderer or are invisible controls: never written raw into a cell.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: Zero-width space, the fallback where a code span cannot be opened safely (Renovate does the same).
_ZWSP = "\u200b"
#: ``kind: (singular, plural)`` for the summary line.
_NOUNS = {"promoted": ("promoted", "promoted"), "demoted": ("demoted", "demoted"),
          "stage": ("stage change", "stage changes"), "status": ("status change", "status changes"),
          "retargeted": ("retargeted", "retargeted"), "target-removed": ("target removed", "targets removed"),
          "added": ("new row", "new rows"),
          "gates": ("feature gate drift", "feature gate drifts"), "renamed": ("renamed", "renamed"),
          "missing-upstream": ("missing upstream", "missing upstream"),
          "shipped": ("shipped cell", "shipped cells"), "pending": ("pending", "pending")}


#: A body section: ``(header lines, rows, noun for the "N more ... left out" line)``.
Section = tuple[list[str], list[str], str]


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


def _cell(text: str) -> str:
    r"""Upstream text for one table cell (or one list line), inert: every line break and control character
    (``\n``, a lone ``\r``, ``\t``, C0/C1 controls, U+2028/U+2029) becomes a space, handles are wrapped
    (:func:`safe`), ``<``/``>``/``&`` become entities outside code spans (no HTML), ``|`` is escaped
    (``\|``, also inside code spans, as GFM tables need). ``""`` -> ``-``. The one cell escaping of the
    changelog, the pull request body and the digest section (:mod:`bot.history.digest`)."""
    if not text:
        return "-"
    text = safe(_CONTROL_RE.sub(" ", text))
    out, pos = [], 0
    for start, end in _code_spans(text):
        out += [html.escape(text[pos:start], quote=False), text[start:end]]
        pos = end
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out).replace("|", "\\|")


def _kep_link(ident: str) -> str:
    """``[4671](https://kep.k8s.io/4671)``; KEPs numbered 0000 have no tracking issue, so no link."""
    digits = re.match(r"\d+", ident)
    if not digits or int(digits.group()) == 0:
        return _cell(ident)
    return f"[{_cell(ident)}](https://kep.k8s.io/{int(digits.group())})"


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
    keps = len({c.kep for c in applied})
    noun = "change" if len(applied) == 1 else "changes"
    return f"{len(applied)} {noun} in {keps} KEP{'s' if keps != 1 else ''}" + (f" ({parts})" if parts else "")


def render(snapshot: Snapshot, changes: Sequence[Change], problems: Sequence[Problem], *,
           involved_problems: Sequence[Problem] = (), web_url: str = DEFAULT_WEB_URL,
           max_chars: int = DEFAULT_MAX_BODY_CHARS, discrepancies: Sequence[Discrepancy] | None = None,
           callouts: Sequence[Section] = (), extra: Sequence[Section] = (), report_problems: int | None = None,
           front_matter: Sequence[tuple[str, str, str, str]] = (), generated: Sequence[str] = (),
           gate_findings: Sequence[Discrepancy] | None = None) -> Changelog:
    """Build the changelog for one run.

    ``changes``: every Change (applied and report-only); ``problems``: rows
    left as is and untrusted values; ``involved_problems``: kep.yaml problems
    of the KEPs on the pages; ``discrepancies``: ``None`` when release notes
    were not used, else the "Needs review" list (and each change gets an
    Evidence cell from ``Change.evidence``); ``callouts``: sections placed
    first, ``extra``: sections placed before "Problems" (see
    :mod:`bot.tracking.render`). The body is cut at a table row boundary so it
    stays within ``max_chars`` characters, with a line saying how many rows
    were left out. The header names the source as it is (:func:`source_name`); each
    row of the Changes table names the KEP's title (from its kep.yaml). Problems are
    listed once each, sorted, with a line saying how many the JSON report holds
    (``report_problems``, when given), how many the table shows, how many are flags shown next to their
    changes and how many are in the report only (:func:`problems_intro`). ``front_matter``:
    ``(page, key, old, new)`` of each ``front_matter.date_key`` update, listed. ``generated``: the pages whose
    digest section is rewritten, named in the title (:func:`title`), a "Digest" list and the commit message.
    ``gate_findings``: ``None`` without a feature-gate lifecycle, else its findings, listed under "Needs
    review", and each change gets a Shipped cell (:func:`shipped_cell`).
    """
    rev = snapshot.revision[:12] if snapshot.revision else "working tree"
    titles = {k.path: k.title for k in snapshot.all_keps()}
    applied = [c for c in changes if c.applied]
    promoted = [c for c in applied if c.kind == "promoted"]
    demoted = [c for c in applied if c.kind == "demoted"]
    title = _title(changes, generated)
    head = [f"**kep-sync**: {summary(changes)}, from {source_name(snapshot.source)} at `{rev}`.", ""]
    sections: list[Section] = list(callouts)
    for heading, picked, noun in (("### Graduations", promoted, "graduations"), ("### Demotions", demoted, "demotions")):
        if picked:
            sections.append(([heading, ""], graduation_lines(picked), noun))
    removed = [c for c in applied if c.kind == "target-removed"]
    released = [c for c in applied if any(f.startswith(RELEASED_FLAG) for f in c.flags)]
    for heading, intro, picked, noun in (
            ("### Targets removed upstream", "kep.yaml no longer names a milestone for these stages; the cell is "
             "cleared.", removed, "removed targets"),
            ("### Released milestones rewritten", "The page showed a milestone that is already released; kep.yaml "
             "now names another. Check that the page was wrong, not the kep.yaml.", released, "rewrites")):
        if picked:
            rows = [f"- KEP {_kep_link(c.kep)} {c.field}: {_cell(c.old)} → **{_cell(c.new)}** "
                    f"({_cell(c.page)}:{c.line})" for c in picked]
            sections.append(([heading, "", intro, ""], rows, noun))
    if applied:
        notes = discrepancies is not None
        origin = any(c.upstream is not None for c in applied)
        rows = [_change_row(c, snapshot.revision, web_url, titles.get(c.kep_path, ""))
                + (f" {upstream_cell(c.upstream, web_url)} |" if origin else "")
                + (f" {_evidence_cell(c, prev)} |" if notes else "")
                + (f" {shipped_cell(c)} |" if gate_findings is not None else "")
                for prev, c in zip([None, *applied], applied)]
        shipped = gate_findings is not None
        sections.append((["### Changes", "", "| KEP | Page | Field | Old → New | kep.yaml |" + (" Upstream |" if origin
                          else "") + (" Evidence |" if notes else "") + (" Shipped |" if shipped else ""),
                          "|---|---|---|---|---|" + ("---|" if origin else "") + ("---|" if notes else "")
                          + ("---|" if shipped else "")],
                         rows, "changes"))
    if discrepancies:
        sections.append((["### Needs review", "", "Release notes and kep.yaml disagree; nothing here was applied.", "",
                          "| KEP | Release | Finding | Release note |", "|---|---|---|---|"],
                         [_review_row(d) for d in discrepancies], "discrepancies"))
    if gate_findings:
        sections.append((["### Needs review: feature-gate lifecycle", "",
                          "The feature-gate list and kep.yaml disagree; nothing here was applied.", "",
                          "| KEP | Release | Finding |", "|---|---|---|"],
                         [_gate_row(d) for d in gate_findings], "gate findings"))
    report_only = [c for c in changes if not c.applied]
    if report_only:
        rows = [_finding_row(c, web_url) for c in report_only]
        sections.append((["### Report only (not applied)", "", "| KEP | Page | Finding |", "|---|---|---|"],
                         rows, "findings"))
    if front_matter:
        rows = [f"- {_cell(page)}: `{key}: {old or '-'}` → `{key}: {new}`" for page, key, old, new in front_matter]
        sections.append((["### Front matter", ""], rows, "front matter updates"))
    if generated:
        sections.append((["### Digest", ""], [f"- {_cell(page)}: digest section regenerated from kep.yaml"
                                              for page in generated], "digest pages"))
    sections += extra
    shown = sorted(set(problems) | set(involved_problems), key=lambda p: (p.path, p.key, p.message))
    if shown:
        intro = []
        if report_problems is not None:
            intro = [problems_intro(report_problems, len(shown), sum(len(c.flags) for c in changes)), ""]
        rows = [f"| {_cell(p.path)} | {_cell(p.key)} | {_cell(p.message)} |" for p in shown]
        sections.append((["### Problems", "", *intro, "| Where | Key | Problem |", "|---|---|---|"], rows, "problems"))
    body = _fit(head, sections, max_chars)
    message = title + "\n\n" + "\n".join(
        [f"- KEP-{c.kep} {c.field}: {c.old or '-'} -> {c.new or '-'}" for c in applied]
        + [f"- {page}: digest section regenerated" for page in generated]) + (
        f"\n\nSource: {source_name(snapshot.source, code=False)}@{snapshot.revision}\n" if snapshot.revision
        else "\n")
    return Changelog(title, body, safe(message))


def _title(changes: Sequence[Change], generated: Sequence[str]) -> str:
    """The pull request and commit title: the applied changes (:func:`summary`) and the digest when its
    section is rewritten (``KEP matrix: update digest``); ``KEP matrix: no changes`` only when neither."""
    digest = "update digest" if generated else ""
    if any(c.applied for c in changes):
        return f"Update KEP matrix: {summary(changes)}" + (f"; {digest}" if digest else "")
    return f"KEP matrix: {digest or 'no changes'}"


def problems_intro(total: int, shown: int, flags: int) -> str:
    """The line opening the Problems section: how the report's ``total`` problems split into the ``shown`` rows
    of the table, the ``flags`` shown next to their changes (they come first in the report) and the rest,
    listed in the report only (kep.yaml problems of KEPs with no change or finding). The parts add up to
    ``total``."""
    def count(n: int) -> str:
        return f"{n} problem" if n == 1 else f"{n} problems"

    parts = [f"{shown} in the table below (these pages and their rows, the inputs of this run, and the kep.yaml "
             "files of the KEPs with a change or finding)"]
    if flags:
        parts.append(f"{flags} flagged on the changes above, next to each")
    rest = max(total - shown - flags, 0)
    if rest:
        parts.append(f"{rest} about the rest of the source (kep.yaml files of other KEPs), in the report only")
    return f"The JSON report holds {count(total)}: " + "; ".join(parts) + "."


def graduation_lines(changes: Sequence[Change]) -> list[str]:
    """One line per KEP and stage move, in kep.yaml's words on both sides (``GA``, ``BETA``, ``ＧＡ`` read as
    ``stable``, ``beta``), with every row it moved listed once: ``- KEP [1010](...): alpha → **beta**
    (p.md:5, p.md:11)``. ``changes``: promoted or demoted stage changes, in changelog order."""
    where: dict[tuple[str, str, str], list[str]] = {}
    for c in changes:
        spot = f"{c.page}:{c.line}"
        spots = where.setdefault((c.kep, stage_word(c.old), stage_word(c.new)), [])
        if spot not in spots:
            spots.append(spot)
    return [f"- KEP {_kep_link(kep)}: {_cell(old)} → **{_cell(new)}** ({', '.join(_cell(s) for s in spots)})"
            for (kep, old, new), spots in where.items()]


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


def _change_row(c: Change, revision: str, web_url: str, title: str = "") -> str:
    url = kep_yaml_url(web_url, revision, c.kep_path)
    link = f"[kep.yaml]({url})" if url else _cell(c.kep_path)
    title = title if len(title) <= MAX_TITLE_CHARS else title[:MAX_TITLE_CHARS - 1].rstrip() + "…"
    kep = f"{_kep_link(c.kep)} {_cell(title)}" if title else _kep_link(c.kep)
    return (f"| {kep} | {_cell(c.page)}:{c.line} | {c.field} | "
            f"{_cell(c.old)} → {_cell(c.new)}{_flags(c)} | {link} |")


def _flags(c: Change) -> str:
    """The change's report-only flags for a table cell: ``<br>⚠ flag`` each, ``""`` when none."""
    return "".join(f"<br>⚠ {_cell(f)}" for f in c.flags)


def upstream_cell(upstream, web_url: str = DEFAULT_WEB_URL) -> str:
    """The Upstream cell of a change: ``[#6182](WEB/pull/6182)`` (or the commit, ``[0123456789ab](WEB/commit/SHA)``,
    when the subject names no pull request) and the date; ``-`` when unknown. ``upstream`` is a
    :class:`bot.history.provenance.Upstream`; an inexact one (the last commit touching the kep.yaml) says so."""
    if upstream is None:
        return "-"
    base = web_url.rstrip("/")
    link = (f"[#{upstream.pr}]({base}/pull/{upstream.pr})" if upstream.pr
            else f"[{_cell(upstream.commit[:12])}]({base}/commit/{_cell(upstream.commit)})")
    return f"{link} {_cell(upstream.date[:10])}" + ("" if upstream.exact else " (last kep.yaml commit)")


def _note_link(pr: int, url: str) -> str:
    """``[#N](url)`` for a release note's pull request, the url checked again by
    :func:`bot.evidence.index.pr_url` (``github.com/OWNER/REPO/pull/N`` or the kubernetes/kubernetes one)."""
    return f"[#{pr}]({pr_url(url, pr)})" if pr else ""


def _evidence_cell(c: Change, prev: Change | None = None) -> str:
    """``v1.36 [#123](url): excerpt`` per release note (``<br>``-joined); ``none found`` when no note is
    surely about the KEP; ambiguous notes (a gate several KEPs declare) follow apart, after
    ``ambiguous, not evidence:``; ``same as above`` when the previous row is the same KEP row with the same
    evidence."""
    if prev is not None and c.evidence and (prev.kep, prev.page, prev.line, prev.evidence) == (
            c.kep, c.page, c.line, c.evidence):
        return "same as above"
    sure = [f"{e.release} {_note_link(e.pr, e.url)}: {_cell(e.excerpt)}" for e in c.evidence if not e.ambiguous]
    maybe = [f"{e.release} {_note_link(e.pr, e.url)}: {_cell(e.excerpt)}" for e in c.evidence if e.ambiguous]
    cell = "<br>".join(sure) or "none found"
    if maybe:
        cell += "<br>ambiguous, not evidence (a feature gate several KEPs declare): " + "<br>".join(maybe)
    return cell


def shipped_cell(c: Change) -> str:
    """The Shipped cell of a change: its mark (``✓``, ``⚠``, ``·``), the gate in a code span and what the list
    shows (:class:`bot.evidence.gates.Mark`); ``·`` alone when the change has none."""
    m = c.shipped
    if m is None:
        return "·"
    gate = f" `{m.gate}`" if m.gate else ""
    return f"{m.mark}{gate}: {_cell(m.detail)}" if m.detail else f"{m.mark}{gate}"


def _gate_row(d: Discrepancy) -> str:
    return f"| {_kep_link(d.kep)} | {d.release or '-'} | {d.kind}: {_cell(d.message)} |"


def _review_row(d: Discrepancy) -> str:
    kep = _kep_link(d.kep) if d.kep else "-"
    note = f"{_note_link(d.pr, d.url)}: {_cell(d.excerpt)}" if d.pr else "-"
    return f"| {kep} | {d.release or '-'} | {d.kind}: {_cell(d.message)} | {note} |"


#: Public names for other changelog sections (``bot.tracking.render``).
table_cell, kep_link = _cell, _kep_link


def _finding_row(c: Change, web_url: str = DEFAULT_WEB_URL) -> str:
    if c.kind == "pending":
        what = (f"{c.field}: page shows {_cell(c.old)}, kep.yaml says {_cell(c.new)}: pending {c.pending} "
                f"(written once {c.pending} has shipped; `promote_when: released`)")
    elif c.kind == "missing-upstream":
        what = f"no kep.yaml upstream has this number (row shows status {_cell(c.old)}); row kept"
    elif c.kind == "renamed":  # the pull request that renamed it (the rename's commit, from the history)
        by = f" in {upstream_cell(c.upstream, web_url)}" if c.upstream is not None else ""
        why = "; ".join(_cell(f) for f in c.flags) or "`renames: apply` rewrites the KEP cell"
        what = f"upstream renamed {_cell(c.old)} to **{_cell(c.new)}**{by}; row left as is ({why})"
    else:
        what = f"{c.field}: page shows {_cell(c.old)}, kep.yaml says {_cell(c.new)}{_flags(c)}"
    return f"| {_kep_link(c.kep)} | {_cell(c.page)}:{c.line} | {what} |"


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
    worst = [lines(h) + len(note(len(r), n)) + 3 for h, r, n in sections]
    out, size, cut = list(head), lines(head), False
    for i, (header, rows, noun) in enumerate(sections):
        block = list(header)
        room = max_chars - size - sum(worst[i:])
        kept = 0
        while not cut and kept < len(rows) and lines(block[len(header):]) + len(rows[kept]) + 1 <= room:
            block.append(rows[kept])
            kept += 1
        if kept < len(rows):
            cut = True
            block = block + ["", note(len(rows) - kept, noun)] if kept else [note(len(rows) - kept, noun)]
        out += block + [""]
        size += lines(block) + 1
    return "\n".join(out).rstrip("\n") + "\n"


def report(snapshot: Snapshot, changes: Sequence[Change], problems: Sequence[Problem], *,
           discrepancies: Sequence[Discrepancy] | None = None, provenance: dict | None = None) -> dict:
    """The ``--report`` JSON object: ``{"revision", "changes": [...], "problems": [...]}``.

    Each change: ``kep, page, line, field, old, new, kind, applied, kep_path``;
    each problem: ``path, message`` (the key is folded into the message). A change's
    flags (``Change.flags``) come first among the problems, one each, with ``path``
    ``page:line`` and a message naming the KEP, field and values.
    With release notes (``discrepancies`` not ``None``) each change also has
    ``evidence: [{release, pr, url, excerpt, stage, ambiguous}]`` (notes surely about the KEP,
    ``ambiguous`` always false) and ``ambiguous_evidence`` (the same shape, ``ambiguous`` true: a gate
    several KEPs declare and nothing in the note picks this one), and the object a
    top-level ``discrepancies: [{kind, kep, kep_path, release, message, pr, url, excerpt}]``.
    With provenance (``provenance`` not ``None``: the source has history) each change also has
    ``upstream: {commit, date, pr, subject}`` (``null`` when unknown; ``"exact": false`` when only the last
    commit touching the kep.yaml is known) and the object a top-level ``provenance`` (the dict given).
    """
    out = {
        "revision": snapshot.revision,
        "changes": [{"kep": c.kep, "page": c.page, "line": c.line, "field": c.field, "old": c.old, "new": c.new,
                     "kind": c.kind, "applied": c.applied, "kep_path": c.kep_path} for c in changes],
        "problems": [{"path": f"{c.page}:{c.line}", "message": f"KEP {c.kep} {c.field} {c.old or '-'} -> "
                      f"{c.new or '-'}: {flag}"} for c in changes for flag in c.flags]
        + [{"path": p.path, "message": f"{p.key}: {p.message}" if p.key else p.message} for p in problems],
    }
    if discrepancies is not None:
        for item, c in zip(out["changes"], changes):
            item["evidence"] = [e._asdict() for e in c.evidence if not e.ambiguous]
            item["ambiguous_evidence"] = [e._asdict() for e in c.evidence if e.ambiguous]
        out["discrepancies"] = [d._asdict() for d in discrepancies]
    if any(c.shipped is not None for c in changes):
        for item, c in zip(out["changes"], changes):
            item["shipped"] = c.shipped._asdict() if c.shipped is not None else None
    for item, c in zip(out["changes"], changes):
        if c.pending:
            item["pending"] = c.pending
    if provenance is not None:
        for item, c in zip(out["changes"], changes):
            item["upstream"] = c.upstream.as_json() if c.upstream is not None else None
        out["provenance"] = provenance
    return out
