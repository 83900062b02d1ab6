"""``kep-sync digest``: the KEPs of a SIG that reached alpha, beta or stable within releases vA..vB. Pure.

Read from kep.yaml as of one revision (a :class:`~bot.model.snapshot.Snapshot`).
Each KEP is listed once, under the highest stage whose milestone
(``milestone.alpha`` / ``beta`` / ``stable``) falls within the range, both
ends included: the method SIG annual reports use. A KEP's SIG is its
``owning-sig``, else the SIG directory it lives in. The opt-in digest page
keeps the markdown between :data:`BEGIN` and :data:`END` (:func:`rewrite_section`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.model.kep import STAGES, Kep, milestone_key, normalize_milestone
from bot.model.snapshot import Snapshot

BEGIN = "<!-- kep-sync:digest:begin (rewritten by kep-sync; write outside it) -->"
END = "<!-- kep-sync:digest:end -->"
_BEGIN_RE = re.compile(r"^<!-- kep-sync:digest:begin\b[^>\n]*-->[ \t\r]*$", re.M)
_END_RE = re.compile(r"^<!-- kep-sync:digest:end -->[ \t\r]*$", re.M)
_SIG_RE = re.compile(r"^(?:sig-)?([a-z0-9]+(?:-[a-z0-9]+)*)$")
DEFAULT_WEB_URL = "https://github.com/kubernetes/enhancements"


class DigestEntry(NamedTuple):
    """One KEP in a digest: ``kep`` number, ``title``, the ``milestone`` of its stage (``v1.35``),
    real feature ``gates``, its kep.yaml ``path`` and its ``status``/``stage`` as of the revision."""

    kep: int
    title: str
    milestone: str
    gates: tuple[str, ...]
    path: str
    status: str
    stage: str

    def reached(self, listed: str) -> bool:
        """True when kep.yaml's ``stage`` (as of the revision) is ``listed`` or past it; False when the
        milestone of ``listed`` was a plan (stage still ``alpha`` under ``stable``, or no stage)."""
        if self.stage in STAGES:
            return STAGES.index(self.stage) >= STAGES.index(listed)
        return self.stage != ""  # deprecated / disabled / removed: past every stage


def sig_name(value: str) -> str:
    """``node`` / ``sig-node`` / ``SIG Node`` -> ``sig-node``; raises ``ValueError`` for anything else."""
    m = _SIG_RE.match(value.strip().casefold().replace(" ", "-"))
    if not m or m.group(1) == "sig":
        raise ValueError(f"{value!r}: expected a SIG name such as node or sig-node")
    return "sig-" + m.group(1)


def kep_sig(kep: Kep) -> str:
    """The KEP's SIG: ``owning-sig`` (lower case), else the ``keps/<sig>/`` directory of its path."""
    if kep.sig:
        return kep.sig.strip().casefold()
    parts = kep.path.split("/")
    return parts[1].casefold() if len(parts) > 2 else ""


def digest(snapshot: Snapshot, sig: str, first: str, last: str) -> dict[str, list[DigestEntry]]:
    """``{"alpha": [...], "beta": [...], "stable": [...]}`` for ``sig`` (``sig-node``) and releases
    ``first``..``last`` (``v1.33``, ``1.35``; both included), each list sorted by KEP number.

    Raises ``ValueError`` when ``first`` or ``last`` is not a release milestone or ``first`` > ``last``.
    """
    lo, hi = digest_range(first, last)
    out: dict[str, list[DigestEntry]] = {s: [] for s in STAGES}
    for kep in snapshot.all_keps():
        if kep_sig(kep) != sig:
            continue
        for stage in reversed(STAGES):
            key = milestone_key(kep.milestone(stage))
            if key is not None and lo <= key <= hi:
                out[stage].append(
                    DigestEntry(
                        kep.number,
                        kep.title,
                        normalize_milestone(kep.milestone(stage)) or "",
                        kep.gates(),
                        kep.path,
                        kep.status,
                        kep.stage,
                    )
                )
                break
    return out


def digest_range(first: str, last: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``((major, minor), (major, minor))`` of a release range; raises ``ValueError`` for a value that is not
    a release (``v1.33``, ``1.33``) or a range whose start is after its end."""
    lo, hi = milestone_key(first), milestone_key(last)
    if lo is None or hi is None:
        raise ValueError(f"{first if lo is None else last!r}: expected a release such as v1.33")
    if lo > hi:
        raise ValueError(f"the range starts after it ends ({first} > {last})")
    return lo, hi


def as_json(result: dict[str, list[DigestEntry]]) -> dict[str, list[dict[str, object]]]:
    """``{"alpha": [{"kep", "title", "milestone", "gates", "path", "status", "stage", "reached"}], "beta": ...,
    "stable": ...}``: ``stage`` is kep.yaml's as of the revision, ``reached`` :meth:`DigestEntry.reached` of the
    stage the entry is listed under (False: its milestone was a plan)."""
    return {
        stage: [{**e._asdict(), "gates": list(e.gates), "reached": e.reached(stage)} for e in entries]
        for stage, entries in result.items()
    }


def _planned(entries: list[DigestEntry], stage: str) -> str:
    """``", of which 8 planned: kep.yaml stage still alpha/beta at that revision"`` for the entries of ``stage``
    whose kep.yaml stage is below it (the stages named are theirs, ``none`` for no stage); ``""`` for none."""
    below = [e.stage or "none" for e in entries if not e.reached(stage)]
    if not below:
        return ""
    order = [s for s in ("none", *STAGES) if s in below] + sorted(set(below) - {"none", *STAGES})
    return f", of which {len(below)} planned: kep.yaml stage still {'/'.join(order)} at that revision"


def render_markdown(
    result: dict[str, list[DigestEntry]],
    sig: str,
    first: str,
    last: str,
    revision: str,
    web_url: str = DEFAULT_WEB_URL,
    source: str = "",
) -> str:
    """Markdown like a SIG annual report: a heading, then per stage (stable first) a table
    KEP | Title | Milestone | Feature gates; the note under the heading names ``source`` (``Snapshot.source``,
    as the sync changelog names it: :func:`bot.plan.changelog.rows.source_name`; without one, ``web_url``) and
    ``revision`` (a commit SHA). A KEP whose kep.yaml stage is still below the stage it is listed under (the
    milestone was a plan) gets ``(kep.yaml stage: beta)`` after its milestone, and the counts say how many
    are planned: ``### Stable (25, of which 8 planned: kep.yaml stage still alpha/beta at that revision)``."""
    from bot.plan.changelog.markdown import code, inline
    from bot.plan.changelog.markdown import table_cell as cell
    from bot.plan.changelog.rows import source_name

    def planned(stage: str) -> int:
        return sum(not e.reached(stage) for e in result[stage])

    counts = ", ".join(
        f"{len(result[s])} {s}" + (f" ({planned(s)} planned)" if planned(s) else "") for s in reversed(STAGES)
    )
    rev = f" at {code(revision[:12])}" if revision else ""
    where = source_name(source) if source else f"[kubernetes/enhancements]({web_url})"
    lines = [
        f"## {inline(sig)}: KEPs by stage reached in {normalize_milestone(first)}..{normalize_milestone(last)}",
        "",
        f"{counts}; from kep.yaml in {where}{rev}.",
        "",
    ]
    for stage in reversed(STAGES):
        entries = result[stage]
        lines += [f"### {stage.capitalize()} ({len(entries)}{_planned(entries, stage)})", ""]
        if not entries:
            lines += ["None.", ""]
            continue
        lines += ["| KEP | Title | Milestone | Feature gates |", "|---|---|---|---|"]
        for e in entries:
            gates = ", ".join(code(g, cell=True) for g in e.gates) or "-"
            link = f"[{e.kep}](https://kep.k8s.io/{e.kep})" if e.kep else str(e.kep)
            note = "" if e.reached(stage) else f" (kep.yaml stage: {cell(e.stage) if e.stage else 'none'})"
            lines.append(f"| {link} | {cell(e.title)} | {cell(e.milestone)}{note} | {gates} |")
        lines.append("")
    return "\n".join(lines)


def section_span(text: str) -> tuple[int, int] | str:
    """``(start of the begin marker line, start of the end marker line)`` of the digest section of ``text``,
    or why there is none: no begin marker followed by an end marker, or more than one of either.

    Markers are looked for outside code only (:func:`bot.wiki.sections.code_lines`: a marker
    shown in a fenced or indented code block is the user's text, not the section).
    """
    from bot.wiki.sections import code_lines

    code = code_lines(text)

    def found(pattern: re.Pattern[str]) -> list[re.Match[str]]:
        return [m for m in pattern.finditer(text) if text.count("\n", 0, m.start()) not in code]

    begins, ends = found(_BEGIN_RE), found(_END_RE)
    if len(begins) > 1 or len(ends) > 1:
        lines = [text.count("\n", 0, m.start()) + 1 for m in sorted(begins + ends, key=lambda m: m.start())]
        return (
            f"{len(begins)} begin and {len(ends)} end digest markers outside code (lines "
            f"{', '.join(map(str, lines))}); expected one pair, page left as is"
        )
    if not begins or not ends or ends[0].start() < begins[0].end():
        return f"no {BEGIN!r} ... {END!r} section outside code; page left as is"
    return begins[0].start(), ends[0].start()


def rewrite_section(text: str, block: str) -> str | None:
    """``text`` with the lines between the digest marker lines replaced by ``block`` (markers kept, the page's
    ``\r\n`` style kept); ``None`` when :func:`section_span` finds no single section."""
    span = section_span(text)
    if isinstance(span, str):
        return None
    begin, end = span
    head_end = text.find("\n", begin)
    nl = "\r\n" if text[head_end - 1 : head_end] == "\r" else "\n"
    inner = "".join(line + nl for line in block.strip("\n").split("\n"))
    return text[: head_end + 1] + inner + text[end:]


def matrix_page_why(why: str) -> str:
    """``why`` (a :func:`section_span` reason) for a ``wiki.pages`` entry that is the digest page: its rows are
    synced all the same, only the digest is not written."""
    return why.removesuffix("page left as is") + "digest not written, rows synced"


def blank_section(text: str) -> str:
    """``text`` with every line between the digest marker lines emptied (the line count kept, so line numbers
    still match ``text``); ``text`` itself when :func:`section_span` finds no single section. A matrix page
    that is also the digest page is parsed this way: the generated tables are no matrix rows."""
    span = section_span(text)
    if isinstance(span, str):
        return text
    begin, end = span
    head_end = text.find("\n", begin)
    return text[: head_end + 1] + "\n" * text.count("\n", head_end + 1, end) + text[end:]


def section_text(text: str) -> str:
    """The lines between the digest marker lines of ``text`` (``""`` when :func:`section_span` finds no single
    section): the bytes kep-sync generates on a digest page."""
    span = section_span(text)
    if isinstance(span, str):
        return ""
    return text[text.find("\n", span[0]) + 1 : span[1]]
