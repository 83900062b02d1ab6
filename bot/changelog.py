"""The changelog: pull request title, markdown body, commit message and the JSON report.

Pure and deterministic: the same changes and problems give the same bytes.
Nothing from upstream is emitted raw: ``@handles`` are wrapped in code spans
(no one is pinged) and ``|`` is escaped inside table cells. KEPs link to
``https://kep.k8s.io/N`` and each kep.yaml to its blob at the exact revision.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from bot.diff import KINDS, Change
from bot.kep import Problem
from bot.snapshot import Snapshot

#: GitHub rejects pull request bodies over 65,536 characters; stay well below.
DEFAULT_MAX_BODY_CHARS = 60_000
DEFAULT_WEB_URL = "https://github.com/kubernetes/enhancements"
_HANDLE_RE = re.compile(r"(?<![\w`/])@([A-Za-z0-9][A-Za-z0-9-]*)")
_NOUNS = {"promoted": "promoted", "demoted": "demoted", "stage": "stage changes", "status": "status changes",
          "retargeted": "retargeted", "gates": "feature gate drifts", "missing-upstream": "missing upstream"}


class Changelog(NamedTuple):
    """``title`` (one line), ``body`` (markdown, at most ``max_chars``), ``commit_message``."""

    title: str
    body: str
    commit_message: str


def safe(text: str) -> str:
    """Upstream text made safe for markdown: ``@handle`` -> ```@handle``` so nobody is pinged."""
    return _HANDLE_RE.sub(lambda m: f"`@{m.group(1)}`", text)


def _cell(text: str) -> str:
    return safe(text).replace("|", "\\|").replace("\n", " ") if text else "-"


def kep_yaml_url(web_url: str, revision: str, path: str) -> str:
    """Link to a kep.yaml at ``revision`` (a commit SHA); ``""`` when there is no revision or path."""
    return f"{web_url.rstrip('/')}/blob/{revision}/{path}" if revision and path else ""


def summary(changes: Sequence[Change]) -> str:
    """``"34 changes in 24 KEPs (13 promoted, 15 retargeted, ...)"``: applied changes only, kinds in order."""
    applied = [c for c in changes if c.applied]
    kinds = Counter(c.kind for c in applied)
    parts = ", ".join(f"{kinds[k]} {_NOUNS[k]}" for k in KINDS if kinds[k])
    keps = len({c.kep for c in applied})
    noun = "change" if len(applied) == 1 else "changes"
    return f"{len(applied)} {noun} in {keps} KEP{'s' if keps != 1 else ''}" + (f" ({parts})" if parts else "")


def render(snapshot: Snapshot, changes: Sequence[Change], problems: Sequence[Problem], *,
           involved_problems: Sequence[Problem] = (), web_url: str = DEFAULT_WEB_URL,
           max_chars: int = DEFAULT_MAX_BODY_CHARS) -> Changelog:
    """Build the changelog for one run.

    ``changes``: every Change (applied and report-only); ``problems``: rows
    left as is and untrusted values; ``involved_problems``: kep.yaml problems
    of the KEPs on the pages. The body is cut at a table row boundary so it
    stays within ``max_chars`` characters, with a line saying how many rows
    were left out.
    """
    rev = snapshot.revision[:12] if snapshot.revision else "working tree"
    applied = [c for c in changes if c.applied]
    graduations = [c for c in applied if c.kind in ("promoted", "demoted")]
    title = f"Update KEP matrix: {summary(changes)}" if applied else "KEP matrix: no changes"
    head = [f"**kep-sync**: {summary(changes)}, from kubernetes/enhancements at `{rev}`.", ""]
    if graduations:
        head += ["### Graduations", ""]
        head += [f"- [KEP-{c.kep}](https://kep.k8s.io/{c.kep.split('-')[0]}): {_cell(c.old)} → **{_cell(c.new)}**"
                 f" ({c.page})" for c in graduations]
        head.append("")
    sections: list[tuple[list[str], list[str], str]] = []
    if applied:
        rows = [_change_row(c, snapshot.revision, web_url) for c in applied]
        sections.append((["### Changes", "", "| KEP | Page | Field | Old → New | kep.yaml |", "|---|---|---|---|---|"],
                         rows, "changes"))
    report_only = [c for c in changes if not c.applied]
    if report_only:
        rows = [_finding_row(c) for c in report_only]
        sections.append((["### Report only (not applied)", "", "| KEP | Page | Finding |", "|---|---|---|"],
                         rows, "findings"))
    all_problems = list(problems) + list(involved_problems)
    if all_problems:
        rows = [f"| {_cell(p.path)} | {_cell(p.key)} | {_cell(p.message)} |" for p in all_problems]
        sections.append((["### Problems", "", "| Where | Key | Problem |", "|---|---|---|"], rows, "problems"))
    body = _fit(head, sections, max_chars)
    message = title + "\n\n" + "\n".join(
        f"- KEP-{c.kep} {c.field}: {c.old or '-'} -> {c.new or '-'}" for c in applied) + (
        f"\n\nSource: kubernetes/enhancements@{snapshot.revision}\n" if snapshot.revision else "\n")
    return Changelog(title, body, safe(message))


def _change_row(c: Change, revision: str, web_url: str) -> str:
    url = kep_yaml_url(web_url, revision, c.kep_path)
    link = f"[kep.yaml]({url})" if url else _cell(c.kep_path)
    number = c.kep.split("-")[0]
    return (f"| [{c.kep}](https://kep.k8s.io/{number}) | {_cell(c.page)}:{c.line} | {c.field} | "
            f"{_cell(c.old)} → {_cell(c.new)} | {link} |")


def _finding_row(c: Change) -> str:
    if c.kind == "missing-upstream":
        what = f"no kep.yaml upstream has this number (row shows status {_cell(c.old)}); row kept"
    else:
        what = f"{c.field}: page shows {_cell(c.old)}, kep.yaml says {_cell(c.new)}"
    return f"| {_cell(c.kep)} | {_cell(c.page)}:{c.line} | {what} |"


def _fit(head: list[str], sections: list[tuple[list[str], list[str], str]], max_chars: int) -> str:
    """Join the body, dropping trailing rows of the last sections first until it fits ``max_chars``."""
    out = list(head)
    size = sum(len(x) + 1 for x in out)
    for header, rows, noun in sections:
        block = list(header)
        size += sum(len(x) + 1 for x in block)
        kept = 0
        for row in rows:
            reserve = 200  # room for the "left out" lines of this and later sections
            if size + len(row) + 1 + reserve > max_chars:
                break
            block.append(row)
            size += len(row) + 1
            kept += 1
        if kept < len(rows):
            note = f"\n_{len(rows) - kept} more {noun} left out to keep this text under {max_chars} characters; " \
                   "see the JSON report._"
            block.append(note)
            size += len(note) + 1
        out += block + [""]
        size += 1
    return "\n".join(out).rstrip("\n") + "\n"


def report(snapshot: Snapshot, changes: Sequence[Change], problems: Sequence[Problem]) -> dict:
    """The ``--report`` JSON object: ``{"revision", "source", "changes": [...], "problems": [...]}``.

    Each change: ``kep, page, line, field, old, new, kind, applied, kep_path``;
    each problem: ``path, message`` (the key is folded into the message).
    """
    return {
        "revision": snapshot.revision,
        "source": snapshot.source,
        "changes": [{"kep": c.kep, "page": c.page, "line": c.line, "field": c.field, "old": c.old, "new": c.new,
                     "kind": c.kind, "applied": c.applied, "kep_path": c.kep_path} for c in changes],
        "problems": [{"path": p.path, "message": f"{p.key}: {p.message}" if p.key else p.message} for p in problems],
    }
