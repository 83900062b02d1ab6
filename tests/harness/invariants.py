"""The invariants every writer of kep-sync is held to, checked on the bytes before and after a run.

    check_written(before, after, report, digest_page="d.md", date_key="date")   # raises AssertionError
    check_tables(before[p], after[p], added_lines, changed_lines)
    check_no_secret([stdout, stderr, *files], CANARY)

``before`` / ``after``: ``{page: bytes}``; ``report``: the JSON report of the run (its ``pages_written``
and the ``changes`` it calls ``applied``, with their ``line``: the line in the page as read for a row
change, the line in the new page for an added row).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from markdown_it import MarkdownIt

__all__ = [
    "accounted_lines",
    "check_foreign_rows",
    "check_no_secret",
    "check_tables",
    "check_written",
    "md_tables",
    "proposed",
]

_MD = MarkdownIt("commonmark").enable("table")


def proposed(report: dict) -> list[dict]:
    """The changes the plan would write (``proposed``: true)."""
    return [c for c in report["changes"] if c.get("proposed")]


def _front_matter_date_line(lines: list[str], key: str) -> int | None:
    """0-based index of ``key:`` inside a real front matter block (first line ``---``, closed by ``---`` or
    ``...``), else ``None``."""
    if not lines or lines[0].lstrip("\ufeff").rstrip("\r") != "---":
        return None
    for i, line in enumerate(lines[1:], 1):
        bare = line.rstrip("\r")
        if bare in ("---", "..."):
            return next((j for j in range(1, i) if lines[j].startswith(f"{key}:")), None)
    return None


def accounted_lines(report: dict, page: str) -> tuple[set[int], set[int]]:
    """``(old lines, new lines)`` (0-based) the report says this run wrote on ``page``: the lines of its
    applied row changes (in the page as read) and of its added rows (in the new page)."""
    old, new = set(), set()
    for c in report["changes"]:
        if c.get("applied") and c["page"] == page:
            (new if c["kind"] == "added" else old).add(int(c["line"]) - 1)
    return old, new


def _digest_span(lines: list[str]) -> tuple[int, int]:
    from bot.plan import digest

    begin = next(i for i, line in enumerate(lines) if line.rstrip("\r").startswith(digest.BEGIN[:25]))
    end = next(i for i, line in enumerate(lines) if line.rstrip("\r") == digest.END)
    return begin, end


def check_digest(before: bytes, after: bytes) -> None:
    """Only the text between the digest markers changed."""
    old, new = before.decode().split("\n"), after.decode().split("\n")
    ob, oe = _digest_span(old)
    nb, ne = _digest_span(new)
    assert old[: ob + 1] == new[: nb + 1], "bytes before the digest section changed"
    assert old[oe:] == new[ne:], "bytes after the digest section changed"


def check_written(
    before: Mapping[str, bytes],
    after: Mapping[str, bytes],
    report: dict,
    *,
    digest_page: str | None = None,
    date_key: str | None = None,
) -> dict[str, tuple[set, set]]:
    """Every byte outside what the report lists as written is unchanged, and every change it calls applied
    is in the written bytes. Returns ``{page: (changed old lines, added new lines)}`` for the table check."""
    written = set(report["pages_written"])
    applied_pages = {c["page"] for c in report["changes"] if c.get("applied")}
    assert applied_pages <= written, f"applied changes on pages not written: {applied_pages - written}"
    out = {}
    for page, old in before.items():
        new = after[page]
        if page not in written:
            assert new == old, f"{page}: not in pages_written but changed"
            continue
        if page == digest_page:
            check_digest(old, new)
            continue
        assert new != old or not applied_pages & {page}, f"{page}: listed as written with applied changes, unchanged"
        out[page] = _check_lines(page, old, new, report, date_key)
    return out


def _check_lines(page: str, before: bytes, after: bytes, report: dict, date_key: str | None) -> tuple[set, set]:
    old, new = before.decode("utf-8").split("\n"), after.decode("utf-8").split("\n")
    changed, added = accounted_lines(report, page)
    assert all(0 <= i < len(new) for i in added), f"{page}: added row line outside the page: {sorted(added)}"
    kept = [line for i, line in enumerate(new) if i not in added]
    # An added row ends as the table's lines do; a table that ended the page with no final newline
    # gets one before the row: that last line's ending is the row's, not a changed byte.
    assert len(kept) == len(old), f"{page}: {len(new) - len(old)} lines added, report lists {len(added)} rows"
    allowed = set(changed)
    if date_key:
        for idx in (_front_matter_date_line(old, date_key),):
            if idx is not None:
                allowed.add(idx)
    diff = {i for i, (a, b) in enumerate(zip(old, kept, strict=False)) if a != b}
    if added and old and kept[-1] == old[-1] + "\r" and len(old) - 1 in diff:
        diff.discard(len(old) - 1)  # a CRLF table that ended the page: the added row brings the line end
    extra = sorted(diff - allowed)
    assert not extra, f"{page}: lines changed that no applied change names: " + "; ".join(
        f"{i + 1}: {old[i]!r} -> {kept[i]!r}" for i in extra[:3]
    )
    for c in report["changes"]:
        if c.get("applied") and c["page"] == page and c["kind"] != "added":
            i = int(c["line"]) - 1
            assert old[i] != kept[i], f"{page}:{i + 1}: change {c['kind']} {c['field']} applied but line unchanged"
    for i in added:
        text = new[i]
        cell = next(
            c["new"]
            for c in report["changes"]
            if c.get("applied") and c["kind"] == "added" and c["page"] == page and int(c["line"]) - 1 == i
        )
        assert cell in text, f"{page}:{i + 1}: added row does not hold its KEP cell {cell!r}: {text!r}"
    return diff, added


def check_foreign_rows(before: Mapping[str, bytes], after: Mapping[str, bytes], report: dict, marker: str) -> None:
    """Every line holding ``marker`` (a row keyed by a link to another project's KEP) is kept byte for byte, and
    no change the report lists is on one: such a row names no KEP of kubernetes/enhancements."""
    for page, old in before.items():
        lines = old.decode("utf-8").split("\n")
        foreign = [line for line in lines if marker in line]
        kept = [line for line in after[page].decode("utf-8").split("\n") if marker in line]
        assert kept == foreign, f"{page}: a row keyed by a link to {marker} changed: {foreign} -> {kept}"
        on = [c for c in report["changes"] if c["page"] == page and c["kind"] != "added"]
        assert not [c for c in on if marker in lines[int(c["line"]) - 1]], f"{page}: a change on a {marker} row"


def md_tables(text: str) -> list[list[tuple[int, list[str]]]]:
    """markdown-it's reading of ``text``: per table, its rows as ``(0-based source line, [cell inline text])``."""
    tables: list[list[tuple[int, list[str]]]] = []
    row: list[str] | None = None
    line = 0
    cell = False
    for tok in _MD.parse(text):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row, line = [], tok.map[0] if tok.map else -1
        elif tok.type in ("th_open", "td_open"):
            cell = True
        elif tok.type == "inline" and cell and row is not None:
            row.append(tok.content)
            cell = False
        elif tok.type in ("th_close", "td_close") and cell:
            row.append("")
            cell = False
        elif tok.type == "tr_close" and row is not None:
            tables[-1].append((line, row))
            row = None
    return tables


def check_tables(
    page: str,
    before: bytes,
    after: bytes,
    changed: set[int],
    added: set[int],
    kep_cells: Mapping[int, str] | None = None,
) -> None:
    """markdown-it reads the same tables with the same rows (plus the added ones), the same number of
    cells, and the same text in every row no applied change names; an added row (``kep_cells``: its 0-based
    line -> the KEP cell the report gives) has that cell in the table's ``KEP`` column, whatever the table's
    style (outer pipes or none, empty cells at the edges)."""
    old_text, new_text = before.decode("utf-8").lstrip("\ufeff"), after.decode("utf-8").lstrip("\ufeff")
    old, new = md_tables(old_text), md_tables(new_text)
    assert len(old) == len(new), f"{page}: markdown-it reads {len(old)} tables before, {len(new)} after"
    shift = _line_map(len(old_text.split("\n")) + len(added), added)
    for t, (ot, nt) in enumerate(zip(old, new, strict=False)):
        new_rows = {line: cells for line, cells in nt}
        plus = [line for line, _ in nt if line in added]
        assert len(nt) == len(ot) + len(plus), (
            f"{page}: table {t + 1} has {len(ot)} rows before, {len(nt)} after, {len(plus)} added"
        )
        width = len(ot[0][1])
        for line, cells in ot:
            got = new_rows.get(shift[line])
            assert got is not None, f"{page}: row at line {line + 1} of table {t + 1} is gone"
            assert len(got) == width, f"{page}:{line + 1}: {len(got)} cells, header has {width}"
            if line not in changed:
                assert got == cells, f"{page}:{line + 1}: row reads {got!r}, was {cells!r}"
        kep = next((i for i, h in enumerate(ot[0][1]) if h == "KEP"), None)
        for line in plus:
            cells = new_rows[line]
            raw = new_text.split("\n")[line]
            assert raw.count("|") - raw.count("\\|") >= width - 1, f"{page}:{line + 1}: too few cells: {raw!r}"
            if kep is not None and kep_cells and line in kep_cells:
                assert cells[kep] == kep_cells[line], f"{page}:{line + 1}: KEP column reads {cells[kep]!r}: {raw!r}"


def _line_map(new_count: int, added: set[int]) -> dict[int, int]:
    """Old 0-based line -> new 0-based line, the added lines skipped."""
    out, old = {}, 0
    for i in range(new_count):
        if i in added:
            continue
        out[old] = i
        old += 1
    return out


def check_no_secret(texts: Iterable[str | bytes], secret: str, where: Iterable[str] = ()) -> None:
    """``secret`` appears in none of ``texts`` (named by ``where`` in the message)."""
    names = list(where)
    for i, text in enumerate(texts):
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
        assert secret.encode() not in data, f"secret leaked into {names[i] if i < len(names) else f'output {i}'}"


def files_under(root: Path, skip: Iterable[Path] = ()) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every file under ``root``, except under ``skip``."""
    skipped = [s.resolve() for s in skip]
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(p.resolve().is_relative_to(s) for s in skipped)
    }
