"""Design-group coverage: the companion page's design groups against the matrix rows.

Pure. The coverage page (``coverage.page``, read-only for the bot) has a
table whose columns are found by header text like the matrix columns: a
group name column (``设计组`` / ``Design group``) and a column of
representative KEP numbers (``代表 KEP`` / ``Representative KEPs``). Its rule
(the page's own words): every important KEP, i.e. every matrix row, belongs to
one design group. A KEP in several groups is allowed (cross-SIG groups share
KEPs) and only listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.kep import Problem
from bot.wiki.headers import DEFAULT_COVERAGE_ALIASES
from bot.wiki.kepnames import parse_kep_cell
from bot.wiki.matrix import column_roles
from bot.wiki.tables import find_tables, header_row, split_row, unescape_cell

_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TOKEN_SPLIT_RE = re.compile(r"[,，、;；\s]+")


class Group(NamedTuple):
    """One design group: its ``name`` (the group cell), its KEP ``numbers`` in page order, the 1-based ``line``
    and ``keps``: each item as ``(number, slug)`` (slug ``""`` when the item shows none; where upstream uses a
    number twice the slug picks the KEP, :func:`bot.model.snapshot.resolve`)."""

    name: str
    numbers: tuple[int, ...]
    line: int
    keps: tuple[tuple[int, str], ...] = ()


class Coverage(NamedTuple):
    """What the coverage page says about the matrix.

    - ``page``: the coverage page path; ``groups``: its design groups in page order;
    - ``not_in_any_group``: KEP numbers of matrix rows no group lists (sorted);
    - ``not_on_matrix``: KEP numbers a group lists that no matrix row has (sorted);
    - ``in_several_groups``: ``(number, (group name, ...))`` for KEPs listed by more than one group;
    - ``problems``: cells that could not be read (tokens that name no KEP, no group table);
    - ``checked``: ``False`` when the page lists no design group (no group table, or an empty one): then
      coverage was not checked, the three lists are empty for want of evidence, not because all is well.
    """

    page: str
    groups: tuple[Group, ...]
    not_in_any_group: tuple[int, ...]
    not_on_matrix: tuple[int, ...]
    in_several_groups: tuple[tuple[int, tuple[str, ...]], ...]
    problems: tuple[Problem, ...]
    checked: bool = True

    def as_report(self) -> dict[str, object]:
        """The ``coverage`` object of the JSON report: ``{"page", "checked": true, "groups": [{"name", "keps"}],
        "not_in_any_group", "not_on_matrix", "in_several_groups"}``; not checked: ``{"page", "checked": false,
        "groups": []}`` (no lists that would read as full coverage)."""
        if not self.checked:
            return {"page": self.page, "checked": False, "groups": []}
        return {
            "page": self.page,
            "checked": True,
            "groups": [{"name": g.name, "keps": list(g.numbers)} for g in self.groups],
            "not_in_any_group": list(self.not_in_any_group),
            "not_on_matrix": list(self.not_on_matrix),
            "in_several_groups": [{"kep": n, "groups": list(names)} for n, names in self.in_several_groups],
        }


def parse_groups(
    path: str, text: str, aliases: Mapping[str, Sequence[str]] = DEFAULT_COVERAGE_ALIASES
) -> tuple[list[Group], list[Problem]]:
    """The design groups of every table on ``text`` whose header has a KEPs column (role ``keps``).

    A KEPs cell lists numbers separated by commas (``,``, ``，``, ``、``), ``;`` or
    spaces; each item may be written as a KEP cell is (``4671``, ``KEP-4671``,
    ``4671-gang-scheduling``, ``[4671-x](url)``). An item that names no KEP is a
    problem (``key`` ``line N``) and is skipped; a group cell falls back to
    ``group N`` when the table has no group column. No such table, or tables with no
    row: one problem.
    """
    lines = text.split("\n")
    groups: list[Group] = []
    problems: list[Problem] = []
    tables = 0
    for table in find_tables(text):
        header = [c.text for c in header_row(lines, table)]
        roles = column_roles(header, aliases)
        if "keps" not in roles:
            continue
        tables += 1
        for index in table.body:
            cells = split_row(lines[index])
            if roles["keps"] >= len(cells):
                problems.append(Problem(path, f"line {index + 1}", "row has no KEPs cell; skipped"))
                continue
            name = (
                unescape_cell(cells[roles["group"]].text)
                if "group" in roles and roles["group"] < len(cells)
                else f"group {len(groups) + 1}"
            )
            keps: list[tuple[int, str]] = []
            for item in split_items(cells[roles["keps"]].text):
                key = parse_kep_cell(item)
                if key is None:
                    problems.append(
                        Problem(path, f"line {index + 1}", f"{item!r} in group {name!r} names no KEP; skipped")
                    )
                elif key not in keps:
                    keps.append(key)
            numbers = tuple(dict.fromkeys(n for n, _ in keps))
            groups.append(Group(name, numbers, index + 1, tuple(keps)))
    if not tables:
        names = ", ".join(repr(a) for a in aliases.get("keps", ()))
        problems.append(Problem(path, "", f"no design-group table (a column headed {names}); coverage not checked"))
    elif not groups:
        problems.append(Problem(path, "", "the design-group table lists no group; coverage not checked"))
    return groups, problems


def split_items(cell: str) -> list[str]:
    """The items of a KEPs cell: links replaced by their text, split on commas, semicolons and spaces."""
    text = _LINK_RE.sub(lambda m: m.group(1), unescape_cell(cell))
    return [t for t in _TOKEN_SPLIT_RE.split(text) if t.strip()]


def check_coverage(
    path: str, text: str, matrix_numbers: Iterable[int], aliases: Mapping[str, Sequence[str]] = DEFAULT_COVERAGE_ALIASES
) -> Coverage:
    """Compare the design groups on the coverage page (``path``, ``text``) with the KEP numbers of the matrix rows.

    A page with no group (no design-group table, or an empty one) gives ``checked`` ``False``, empty
    lists and its problem, not every row as "in no group"."""
    groups, problems = parse_groups(path, text, aliases)
    if not groups:  # no group table (a problem says so): no row is "in no group" on that evidence
        return Coverage(path, (), (), (), (), tuple(problems), checked=False)
    on_matrix = set(matrix_numbers)
    listed: dict[int, list[str]] = {}
    for g in groups:
        for n in g.numbers:
            listed.setdefault(n, []).append(g.name)
    return Coverage(
        page=path,
        groups=tuple(groups),
        not_in_any_group=tuple(sorted(on_matrix - set(listed))),
        not_on_matrix=tuple(sorted(set(listed) - on_matrix)),
        in_several_groups=tuple((n, tuple(names)) for n, names in sorted(listed.items()) if len(names) > 1),
        problems=tuple(problems),
    )
