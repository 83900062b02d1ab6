#!/usr/bin/env python3
"""A second, independent reading of design-group coverage: which matrix rows no group lists, which group
KEPs have no row, which KEPs several groups list; optionally compared with a kep-sync report.

    scripts/check/check_coverage.py COVERAGE.md MATRIX.md [MATRIX.md ...] [--column HEADER]... [--report FILE]

Its own rules, sharing no code with bot/ (so a fault in the bot's reading is not repeated here):
lines inside ``` / ~~~ fences are skipped; a table is a run of lines starting with ``|``; a
matrix row is a table line whose first cell is a KEP (``4671-slug``, ``[4671-slug](url)``,
``KEP-4671`` or a bare number) in a table whose first header cell is ``KEP``; a design group
is a row of a coverage table one of whose header cells is ``--column`` (default ``代表 KEP``
and ``Representative KEPs``), its name the first cell, its KEPs every run of 1-5 digits in that
cell that is not part of a version (``v1.30``) or a longer word.

Prints the three lists. With ``--report``, compares them with the report's ``coverage`` object
and prints each disagreement; exit 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

_ROW_KEP = re.compile(r"^\[?(?:KEP-)?(\d{1,9})(?:-[\w.-]+)?(?:\]\(.*\))?$", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,5})(?![\w.])")


def tables(text: str) -> list[list[list[str]]]:
    """Every table as a list of rows (header first, delimiter dropped), each a list of stripped cells."""
    out: list[list[list[str]]] = []
    current: list[list[str]] = []
    fence = False
    for line in text.replace("\r", "").split("\n") + [""]:
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and line.strip().startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
            continue
        if current:
            out.append(current)
            current = []
    return out


def matrix_numbers(text: str) -> set[int]:
    """KEP numbers of the rows of every table whose first header cell is ``KEP``."""
    found = set()
    for table in tables(text):
        if table[0] and table[0][0].strip("* ").upper() == "KEP":
            for row in table[1:]:
                m = _ROW_KEP.match(row[0].strip("*`_ "))
                if m:
                    found.add(int(m.group(1)))
    return found


def groups(text: str, columns: list[str]) -> list[tuple[str, list[int]]]:
    """``(group name, KEP numbers in page order)`` for every row of a table with one of ``columns``."""
    wanted = {c.casefold() for c in columns}
    out = []
    for table in tables(text):
        header = [c.casefold() for c in table[0]]
        index = next((i for i, c in enumerate(header) if c in wanted), None)
        if index is None:
            continue
        for row in table[1:]:
            if index < len(row):
                numbers: list[int] = []
                for n in (int(x) for x in _NUMBER.findall(row[index])):
                    if n not in numbers:
                        numbers.append(n)
                out.append((row[0].replace("\\|", "|"), numbers))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("coverage")
    parser.add_argument("matrix", nargs="+")
    parser.add_argument("--column", action="append", help="header of the KEPs column (repeatable)")
    parser.add_argument("--report", help="a kep-sync --report JSON file to compare with")
    args = parser.parse_args(argv)
    rows = set().union(*(matrix_numbers(open(p, encoding="utf-8").read()) for p in args.matrix))
    found = groups(open(args.coverage, encoding="utf-8").read(), args.column or ["代表 KEP", "Representative KEPs"])
    listed: dict[int, list[str]] = {}
    for name, numbers in found:
        for n in numbers:
            listed.setdefault(n, []).append(name)
    mine = {
        "not_in_any_group": sorted(rows - set(listed)),
        "not_on_matrix": sorted(set(listed) - rows),
        "in_several_groups": [{"kep": n, "groups": g} for n, g in sorted(listed.items()) if len(g) > 1],
        "groups": [{"name": name, "keps": numbers} for name, numbers in found],
    }
    print(f"{len(rows)} matrix rows, {len(found)} design groups")
    for key in ("not_in_any_group", "not_on_matrix"):
        print(f"{key} ({len(mine[key])}): {', '.join(map(str, mine[key])) or 'none'}")
    print(
        "in_several_groups: "
        + ("; ".join(f"{x['kep']} ({', '.join(x['groups'])})" for x in mine["in_several_groups"]) or "none")
    )
    if not args.report:
        return 0
    theirs = json.load(open(args.report, encoding="utf-8")).get("coverage")
    if theirs is None:
        print("report: no coverage object (coverage.page not set?)")
        return 1
    disagreements = [
        f"{key}: this reading {mine[key]!r}, the report {theirs.get(key)!r}"
        for key in mine
        if mine[key] != theirs.get(key)
    ]
    for line in disagreements:
        print(line)
    print(f"{len(disagreements)} disagreements with {args.report}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
