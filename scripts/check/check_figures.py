"""Figures that stay true: each measured figure in README.md and docs/*.md names the command that printed it or
the day it was measured.

    .venv/bin/python scripts/check/check_figures.py [--verbose] [--root DIR] [FILE.md ...]

Reads README.md and docs/*.md under ``--root`` (default: this checkout), or the FILEs given, with rules of its
own (no code shared with ``bot/``; lines and regular expressions, no markdown parser):

- **A figure** is a number, signed or not (``-30%``, ``+0.26 s``, ``~2 s``), with a unit of time, size or
  share: ``ms``, ``s``, ``min``, ``minutes``, ``seconds``, ``hours`` and ``bytes`` after a space (``0.5 s``;
  ``304s`` is a plural, not a time), ``KB``, ``MB``, ``GB``, ``KiB``, ``MiB``, ``GiB`` and ``%`` with or without
  one; a range or list of them (``0.12-0.31 s``, ``1.0 / 2.0 s``, ``1 min 33 s``) is one figure; or a ratio
  written ``xN`` (``x1.45``, ``x2.6-x3.4``).
- **Blocks**: a paragraph runs to the next blank line; a list item (``-``, ``*``, ``1.``) starts a paragraph of
  its own, and so does each later paragraph indented at least as far as the item's text; a table (lines starting
  with ``|``) goes with its caption, the paragraph just above it in its section; fenced code (```` ``` ```` or
  ``~~~``, closed only by a line of the same character at least as long) and indented code (a block whose first
  line starts four spaces further in than the text of the list item it is in, or than the margin outside a list)
  are skipped; a section runs from a heading to the next heading.
- **Sourced**: a figure is sourced when its paragraph (for a table: the table and its caption) names a command,
  a code span starting ``scripts/``, ``tests/``, ``kep-sync``, ``.venv/bin/``, ``python``, ``pytest``,
  ``.ci/run``, ``hyperfine`` or ``git ``, or holds a date ``YYYY-MM-DD`` in prose (not in code, not "the
  YYYY-MM-DD page", which names an input, even wrapped over two lines); or when the first paragraph of its
  section has both: that section is one dated measurement (the dry-run benchmark in docs/contributing.md).
- **Not a measurement** (counted, never a finding), by these rules only:
  1. the figure is in a code span or a link target (a value or a name: ``stop_grace_period: 330s``);
  2. a bound comes right before it (``up to``, ``at most``, ``at least``, ``more than``, ``less than``,
     ``over``, ``under``, ``within``, ``below``, ``above``, then at most ``the``, ``a`` or ``about``): a
     threshold, such as "a run more than 15 minutes late is dropped";
  3. its sentence names a setting: the words ``default``, ``timeout``, ``cap``, ``limit``, ``paced``,
     ``pause``, or a constant in a code span (``MAX_ATTEMPTS``);
  4. in a table, its column's header names a setting (``cap``, ``limit``, ``default``, ``maximum``).

Not judged: counts without such a unit (requests, rows, KEPs, characters); ratios written ``Nx`` ("10x KEPs" is
a scale); whether a figure is still what its command prints (run the command); whether the date is recent.

Prints each finding as ``FILE:LINE: FIGURE: TEXT`` (FILE relative to the root, TEXT the line stripped), then
``N figures, M findings``; ``--verbose`` also prints each figure that is no finding, with the rule that let it
pass. Exit 1 when there is a finding, 2 for a file that cannot be read.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]

_NUM = r"[~+\-\u2212]?\d[\d,]*(?:\.\d+)?"
_RANGE = rf"{_NUM}(?:\s?(?:-|–|to|/)\s?{_NUM})*"
FIGURE = re.compile(
    r"(?<![\w.,/+~\-\u2212])(?:"
    r"[~+\-\u2212]?\d+ min(?: \d+ s)?(?![\w])"
    rf"|{_RANGE}(?: (?:ms|s|min|minutes|seconds|hours|bytes)| ?(?:KB|MB|GB|KiB|MiB|GiB|%))(?![\w])"
    r"|x\d+(?:\.\d+)?(?:-x\d+(?:\.\d+)?)?(?![\w])"
    r")"
)
COMMAND = re.compile(r"^(?:scripts/|tests/|kep-sync\b|\.venv/bin/|python|pytest|\.ci/run|hyperfine|git )")
DATE = re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])(?! page)")
BOUND = re.compile(
    r"(?:\bup to|\bat most|\bat least|\bmore than|\bless than|\bover|\bunder|\bwithin|\bbelow|\babove)"
    r"(?:\s+(?:the|a|about))?\s+$",
    re.IGNORECASE,
)
SETTING = re.compile(r"\b(?:default|timeout|cap|limit|paced|pause)\b", re.IGNORECASE)
SETTING_COLUMN = re.compile(r"\b(?:cap|limit|default|maximum)\b", re.IGNORECASE)
CONSTANT = re.compile(r"`[A-Z][A-Z0-9]*_[A-Z0-9_]+`")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?]\s+(?=[A-Z`*(\"])")
LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s")
FENCE = re.compile(r"(`{3,}|~{3,})")


class Block(NamedTuple):
    """Consecutive lines of one file: ``kind`` ``"prose"`` or ``"table"``, ``start`` the 1-based line number of
    ``lines[0]``, ``section`` the index of the heading above it (0 before the first)."""

    kind: str
    start: int
    lines: list[str]
    section: int

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def blocks(text: str) -> list[Block]:
    """The prose and table blocks of a markdown ``text`` (code and headings left out; see the module docstring)."""
    found: list[Block] = []
    current: Block | None = None
    fence, code, section = "", False, 0
    item = 0  # the column where the text of the list item being read starts (0: none)
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            continue
        opening = FENCE.match(stripped)
        if opening:
            fence, current = opening.group(1), None
            continue
        if not stripped:
            current, code = None, False
            continue
        if current is None:
            indent = len(line) - len(line.lstrip(" "))
            marker = LIST_ITEM.match(line)
            if marker:
                item = len(marker.group(0))
            elif indent < item:
                item = 0
            code = not marker and indent >= item + 4
        if code:
            continue
        if re.match(r"#{1,6} ", line):
            section, current = section + 1, None
            continue
        kind = "table" if stripped.startswith("|") else "prose"
        if current is None or current.kind != kind or (kind == "prose" and LIST_ITEM.match(line)):
            current = Block(kind, number, [], section)
            found.append(current)
        current.lines.append(line)
    return found


def masked(text: str) -> str:
    """``text`` with code spans and link targets blanked (newlines kept), so offsets still point into it."""

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return LINK_TARGET.sub(blank, CODE_SPAN.sub(blank, text))


def names_command(text: str) -> bool:
    """Whether a code span of ``text`` starts with a command (:data:`COMMAND`)."""
    return any(COMMAND.match(m.group(2).strip()) for m in CODE_SPAN.finditer(text))


def dated(text: str) -> bool:
    """Whether ``text`` holds a date ``YYYY-MM-DD`` outside code spans and link targets, not naming a page; its
    lines are joined first, so a date wrapped away from its ``page`` still names a page."""
    return bool(DATE.search(" ".join(masked(text).split())))


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` holding ``text[start:end]``."""
    first = 0
    for match in SENTENCE_END.finditer(text):
        if match.end() <= start:
            first = match.end()
        elif match.start() >= end:
            return text[first : match.start() + 1]
    return text[first:]


def column_header(header: str, row: str, offset: int) -> str:
    """The header cell above the cell of ``row`` holding character ``offset``."""
    column = row[:offset].replace("\\|", "").count("|") - 1
    cells = header.replace("\\|", "").strip().strip("|").split("|")
    return cells[column] if 0 <= column < len(cells) else ""


class Figure(NamedTuple):
    """One figure: where (``line``, 1-based), what (``figure``), the line's ``text`` and why it passed
    (``why``: ``""`` for a finding)."""

    line: int
    figure: str
    text: str
    why: str


def judge(text: str) -> list[Figure]:
    """Every figure of a markdown ``text``, each with why it passed or ``""`` (see the module docstring)."""
    figures: list[Figure] = []
    found = blocks(text)
    source_lines = text.split("\n")
    leads: dict[int, bool] = {}
    for block in found:
        if block.kind == "prose" and block.section not in leads:
            leads[block.section] = names_command(block.text) and dated(block.text)
    for index, block in enumerate(found):
        context = block.text
        if block.kind == "table" and index and found[index - 1].kind == "prose":
            above = found[index - 1]
            if above.section == block.section and above.start + len(above.lines) >= block.start - 1:
                context = above.text + "\n" + block.text
        plain = masked(block.text)
        for match in FIGURE.finditer(plain):
            line = block.start + plain.count("\n", 0, match.start())
            row = block.lines[line - block.start]
            if block.kind == "table":
                sentence = row
                header = column_header(block.lines[0], row, match.start() - plain.rfind("\n", 0, match.start()) - 1)
            else:
                sentence, header = sentence_around(block.text, match.start(), match.end()), ""
            if names_command(context) or dated(context):
                why = "sourced"
            elif leads.get(block.section):
                why = "its section's first paragraph is sourced and dated"
            elif BOUND.search(plain[max(0, match.start() - 30) : match.start()]):
                why = "a bound before it"
            elif SETTING.search(masked(sentence)) or CONSTANT.search(sentence):
                why = "its sentence names a setting"
            elif header and SETTING_COLUMN.search(header):
                why = f"column {header.strip()!r} is a setting"
            else:
                why = ""
            figures.append(Figure(line, " ".join(match.group(0).split()), source_lines[line - 1].strip(), why))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="markdown files (default: README.md and docs/*.md)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose docs to read")
    parser.add_argument("--verbose", action="store_true", help="also print the figures that pass, and why")
    args = parser.parse_args(argv)
    root = args.root
    files = args.files or [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    total = findings = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"check_figures.py: error: {path}: {exc}", file=sys.stderr)
            return 2
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        for figure in judge(text):
            total += 1
            findings += not figure.why
            if not figure.why or args.verbose:
                note = f" [{figure.why}]" if figure.why else ""
                print(f"{name}:{figure.line}: {figure.figure}: {figure.text}{note}")
    print(f"{total} figures, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
