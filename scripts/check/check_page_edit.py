#!/usr/bin/env python3
"""A second, independent reading of a page edit: did kep-sync keep every byte and word it should?

    scripts/check/check_page_edit.py BEFORE.md AFTER.md [--alias ROLE=HEADER]...

Its own rules, sharing no code with bot/wiki (so a fault in the bot's reading is not repeated
here): a table row is a line whose first non-space character (after any ``>``) is ``|``; cells
split on unescaped ``|``; composite parts on `` / ``-like separators (``/``, ``／``, ``\\|``,
``｜``); words compare after NFKC, lower case, emphasis stripped, ``ga`` = ``stable``, ``v``
dropped from milestones and blanks (``-``, ``—``, ``n/a``) as nothing. It checks that:

1. the page has the same number of lines and only table rows changed;
2. a changed row keeps its cell count, every cell outside the owned columns byte for byte,
   and every owned cell its number of parts, none of them emptied; a rewritten part changes its
   word, not only its spelling, and keeps its emphasis and letter case;
3. a row that shows one field in two cells (a composite status cell and a Stage column, the
   milestones cell and an Alpha/Beta/GA column) says the same in both after the edit;
4. a table whose pipes lined up (East Asian Wide/Fullwidth characters two columns) still does,
   except for a changed row whose new text is wider than its column.

Prints one line per finding and a summary; exit 1 when there is a finding.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata

OWNED = {
    "status": ["status", "状态"],
    "stage": ["stage"],
    "milestones": ["alpha / beta / ga", "alpha / beta / stable"],
    "alpha": ["alpha"],
    "beta": ["beta"],
    "stable": ["ga", "stable"],
}
SEP = re.compile(r"\s*(?:/|／|\\\||｜)\s*")
DELIM = re.compile(r"^\s*>?\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
BLANK = {"", "-", "—", "–", "n/a", "na", "none"}


def split_parts(text: str) -> list[str]:
    """A composite cell's parts; the blank ``n/a`` is one part, not two."""
    hidden = re.sub(r"(?i)(?<![\w.])(n)/(a)(?![\w.])", "\\1\0\\2", text.strip())
    return [p.replace("\0", "/") for p in SEP.split(hidden)]


def cells(line: str) -> list[str]:
    body = line.rstrip("\r").split("|", 1)[1] if "|" in line else line
    parts = re.split(r"(?<!\\)\|", body)
    return parts[:-1] if parts and not parts[-1].strip() else parts


def is_row(line: str) -> bool:
    return line.lstrip(" >").startswith("|")


def word(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().strip("*_`~").strip().lower()
    text = "" if text in BLANK else text
    text = "stable" if text == "ga" else text
    return text[1:] if re.fullmatch(r"v\d+\.\d+", text) else text


def style_changes(old: str, new: str) -> list[str]:
    """Why rewriting part ``old`` as ``new`` changed more than the value: the same word respelled,
    emphasis dropped, or another letter case."""
    if word(old) == word(new):
        return ["only the spelling changed"]
    why = []
    marks = re.match(r"^[*_`~]*", old).group(0)
    if marks and not new.startswith(marks):
        why.append("emphasis lost")
    core_old, core_new = old.strip("*_`~"), new.strip("*_`~")
    if (
        word(old)
        and word(new)
        and core_old.isalpha()
        and core_new.isalpha()
        and "ga" not in (core_old.lower(), core_new.lower())
    ):
        case = [
            ("upper" if t.isupper() else "title" if t.istitle() else "lower" if t.islower() else "mixed")
            for t in (core_old, core_new)
        ]
        if case[0] != case[1]:
            why.append(f"letter case {case[0]} -> {case[1]}")
    return why


def width(text: str) -> int:
    return sum(
        0
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in text
    )


def pipes(line: str) -> list[int]:
    out, col, i, text = [], 0, 0, line.rstrip("\r")
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            col += width(text[i : i + 2])
            i += 2
            continue
        if text[i] == "|":
            out.append(col)
        col += width(text[i])
        i += 1
    return out


def tables(lines: list[str]) -> list[tuple[list[str], list[int]]]:
    """``(header cell names, line indices of header, delimiter and body)`` per table."""
    out = []
    for i in range(1, len(lines)):
        if DELIM.match(lines[i]) and is_row(lines[i - 1]) and "-" in lines[i]:
            body = [i - 1, i]
            j = i + 1
            while j < len(lines) and is_row(lines[j]):
                body.append(j)
                j += 1
            out.append(([c.strip().replace("*", "").lower() for c in cells(lines[i - 1])], body))
    return out


def roles(header: list[str], aliases: dict[str, list[str]]) -> dict[int, str]:
    names = {" ".join(a.lower().split()): role for role, al in aliases.items() for a in al}
    return {i: names[" ".join(h.split())] for i, h in enumerate(header) if " ".join(h.split()) in names}


def fields(row: list[str], role_of: dict[int, str]) -> dict[str, list[str]]:
    shown: dict[str, list[str]] = {}
    for i, role in role_of.items():
        if i >= len(row):
            continue
        parts = split_parts(row[i]) if word(row[i]) else [row[i]]
        names = {"status": ["status", "stage"], "milestones": ["alpha", "beta", "stable"]}.get(role, [role])
        for name, part in zip(names, parts, strict=False):
            shown.setdefault(name, []).append(word(part))
    return shown


def check(before: list[str], after: list[str], aliases: dict[str, list[str]]) -> list[str]:
    found = []
    if len(before) != len(after):
        return [f"line count {len(before)} -> {len(after)}"]
    changed = {i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b}
    in_tables = {}
    for header, idx in tables(before):
        for i in idx:
            in_tables[i] = (header, idx)
    for i in sorted(changed):
        if i not in in_tables or i in in_tables[i][1][:2]:
            found.append(f"line {i + 1}: not a table body row, but changed")
            continue
        header, _ = in_tables[i]
        role_of = roles(header, aliases)
        old, new = cells(before[i]), cells(after[i])
        if len(old) != len(new):
            found.append(f"line {i + 1}: {len(old)} cells -> {len(new)}")
            continue
        for c, (a, b) in enumerate(zip(old, new, strict=False)):
            if c not in role_of and a != b:
                found.append(
                    f"line {i + 1}: cell {c + 1} ({header[c] if c < len(header) else '?'}) is not owned, "
                    f"but changed: {a.strip()!r} -> {b.strip()!r}"
                )
            elif c in role_of and a != b:
                pa, pb = (split_parts(x) if word(x) else [x] for x in (a, b))
                if len(pa) != len(pb) or any(not p.strip() for p in pb):
                    found.append(f"line {i + 1}: {header[c]} cell {a.strip()!r} -> {b.strip()!r} lost a part")
                    continue
                found.extend(
                    f"line {i + 1}: {header[c]} part {x!r} -> {y!r}: {why}"
                    for x, y in zip(pa, pb, strict=False)
                    if x != y
                    for why in style_changes(x.strip(), y.strip())
                )
        for name, values in fields(new, role_of).items():
            if len(set(values)) > 1:
                found.append(f"line {i + 1}: {name} shown as {sorted(set(values))} in one row")
    for _header, idx in tables(before):
        if len({tuple(pipes(before[i])) for i in idx}) != 1:
            continue
        target = pipes(before[idx[0]])
        for i in idx:
            if pipes(after[i]) == target:
                continue
            if i not in changed:
                found.append(f"line {i + 1}: an unchanged row of an aligned table lost its alignment")
                continue
            cols = [target[k + 1] - target[k] - 1 for k in range(len(target) - 1)]
            new = cells(after[i])
            if all(width(c.strip()) + 2 <= w for c, w in zip(new, cols, strict=False)):
                found.append(f"line {i + 1}: the new text fits its columns, but the row is no longer aligned")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--alias", action="append", default=[], help="ROLE=HEADER, an extra owned column header")
    args = ap.parse_args(argv)
    aliases = {k: list(v) for k, v in OWNED.items()}
    for item in args.alias:
        role, _, header = item.partition("=")
        aliases.setdefault(role, []).append(header)
    with open(args.before, encoding="utf-8", newline="") as a, open(args.after, encoding="utf-8", newline="") as b:
        before, after = a.read().split("\n"), b.read().split("\n")
    found = check(before, after, aliases)
    for line in found:
        print(line)
    changed = sum(1 for x, y in zip(before, after, strict=False) if x != y)
    print(f"{args.after}: {changed} changed lines, {len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
