"""GFM tables by line map and byte-exact cell spans (bot/wiki/tables.py)."""

from __future__ import annotations

import pytest

from bot.wiki.tables import Cell, Table, escape_cell, find_tables, replace_cell, split_row, unescape_cell


def test_two_tables_and_their_rows():
    text = "# t\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\npara\n\n| x |\n|---|\n| y |\n"
    assert find_tables(text) == [Table(2, 3, (4, 5)), Table(9, 10, (11,))]


def test_header_only_table_has_no_body():
    assert find_tables("| a | b |\n|---|---|\n") == [Table(0, 1, ())]


@pytest.mark.parametrize("fence", ["```", "~~~", "```markdown"])
def test_tables_inside_code_fences_are_ignored(fence):
    text = f"{fence}\n| a | b |\n|---|---|\n| 1 | 2 |\n{fence.rstrip('markdown')}\n\n| c |\n|---|\n| 3 |\n"
    assert find_tables(text) == [Table(6, 7, (8,))]


def test_indented_code_block_and_html_block_are_ignored():
    text = "    | a | b |\n    |---|---|\n    | 1 | 2 |\n\n<div>\n| a | b |\n|---|---|\n</div>\n"
    assert find_tables(text) == []


def test_text_without_delimiter_row_is_no_table():
    assert find_tables("说明 | 这不是表格\n\n| a | b |\n| 1 | 2 |\n") == []


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_line_indices_match_split_on_newline(newline):
    text = newline.join(["---", "t: 1", "---", "", "| a |", "|---|", "| 1 |"])  # no trailing newline
    assert find_tables(text) == [Table(4, 5, (6,))]
    assert text.split("\n")[6].rstrip("\r") == "| 1 |"


def test_lone_carriage_return_does_not_shift_lines():
    # markdown-it treats a lone \r as a line break; text.split("\n") does not.
    text = "a\rb\n\n| a |\n|---|\n| 1 |\n"
    assert find_tables(text) == [Table(2, 3, (4,))]


def test_table_in_blockquote_and_list_item_keeps_page_line_numbers():
    text = "intro\n\n> | a | b |\n> |---|---|\n> | 1 | 2 |\n\n- item\n\n  | c |\n  |---|\n  | 3 |\n"
    assert find_tables(text) == [Table(2, 3, (4,)), Table(8, 9, (10,))]


def test_split_row_spans_point_at_the_trimmed_text():
    line = "|  a  | bb |c|"
    cells = split_row(line)
    assert cells == [Cell("a", 3, 4, 1, 6), Cell("bb", 8, 10, 7, 11), Cell("c", 12, 13, 12, 13)]
    assert [line[c.start : c.end] for c in cells] == ["a", "bb", "c"]
    assert [line[c.lo : c.hi] for c in cells] == ["  a  ", " bb ", "c"]


def test_split_row_escaped_pipe_stays_in_the_cell():
    line = r"| a \| b | `x \| y` | c |"
    assert [c.text for c in split_row(line)] == [r"a \| b", r"`x \| y`", "c"]


def test_split_row_without_outer_pipes():
    assert [c.text for c in split_row("a | b | c")] == ["a", "b", "c"]
    assert [c.text for c in split_row("| a | b")] == ["a", "b"]


def test_split_row_crlf_and_blockquote_prefix_are_not_cells():
    assert split_row("| a | b |\r") == [Cell("a", 2, 3, 1, 4), Cell("b", 6, 7, 5, 8)]
    assert [c.text for c in split_row("> | a | b |")] == ["a", "b"]


def test_empty_cells_have_an_insertion_point():
    line = "| a |  | c |"
    empty = split_row(line)[1]
    assert empty.text == ""
    assert replace_cell(line, empty, "X") == "| a | X | c |"
    assert replace_cell("|a||c|", split_row("|a||c|")[1], "X") == "|a|X|c|"


def test_replace_cell_keeps_every_other_byte():
    line = "| 4671 |   implementable / alpha   | 组调度 \\| x |\r"
    cell = split_row(line)[1]
    assert replace_cell(line, cell, "implemented / stable") == "| 4671 |   implemented / stable   | 组调度 \\| x |\r"


def test_escape_and_unescape_cell():
    assert escape_cell("a|b\r\nc") == "a\\|b  c"
    assert unescape_cell("a \\| b") == "a | b"
    assert unescape_cell(escape_cell("x | y")) == "x | y"


def test_many_tables_each_get_only_their_own_rows():
    text = "".join(f"| KEP | S |\n|---|---|\n| {i} | x |\n| {i}0 | y |\n\npara\n\n" for i in range(300))
    tables = find_tables(text)
    assert len(tables) == 300
    assert tables[0] == Table(0, 1, (2, 3)) and tables[-1] == Table(2093, 2094, (2095, 2096))


def test_table_inside_front_matter_is_no_table():
    # Front matter is YAML (here a block scalar that looks like a table): its bytes are not page rows.
    text = "---\ndoc: |\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n---\n\n| x | y |\n|---|---|\n| 3 | 4 |\n"
    assert find_tables(text) == [Table(7, 8, (9,))]
    assert find_tables("\ufeff" + text.replace("\n", "\r\n")) == [Table(7, 8, (9,))]
    assert find_tables("---\n| a | b |\n|---|---|\n| 1 | 2 |\n") == [Table(1, 2, (3,))]  # no closing line


def test_a_right_aligned_first_cell_without_a_leading_pipe_is_never_padded_into_a_code_block():
    from bot.wiki.tables import fill_cell, keep_edge_cells

    row = "KEP-5710                     | beta"
    cell = split_row(row)[0]
    # right-aligned, the padding would go first: 20 spaces there make the line an indented code block
    assert fill_cell(row, cell, "4671", 28, "right") == "4671".ljust(28) + "| beta"
    piped = "| KEP-5710 | beta |"  # behind a pipe the padding may go first
    assert fill_cell(piped, split_row(piped)[0], "4671", 10, "right") == "|     4671 | beta |"
    # an emptied first or last cell keeps its pipe, so the cells after it stay in their columns
    assert keep_edge_cells(" | 4671 | beta | ", 4, 0) == "| | 4671 | beta | |"
    assert keep_edge_cells("      | 4671 | beta\r", 3, 0) == "|     | 4671 | beta\r"
    assert keep_edge_cells("x | 4671 | beta", 3, 0) == "x | 4671 | beta"
