"""The page's own typography and vocabulary survive a sync (bot/wiki/matrix.py, vocabulary.py, tables.py).

Separators other than `` / ``, stage words (``GA``, ``Beta``), a field shown in two cells of a row,
padding of empty cells and tables aligned to column width. Every case: the exact lines written, and a
second run over the result proposes nothing.
"""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.plan.diff import diff_page
from bot.wiki.matrix import parse_page
from bot.wiki.tables import display_width, split_row

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import kep, snapshot

HEADER = "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
#: Upstream for every table here: 1 went beta in v1.33; 2 is implemented and stable since v1.22.
KEPS = (
    kep(1, "a", stage="beta", alpha="v1.31", beta="v1.33"),
    kep(2, "b", status="implemented", stage="stable", alpha="v1.20", beta="v1.21", stable="v1.22"),
)


def sync(text: str, *keps):
    """``(PageDiff, {0-based line: new text} of the lines that changed)``; asserts a second run is quiet."""
    keps = keps or KEPS
    page = parse_page("p.md", text)
    diff = diff_page(page, snapshot(*keps))
    again = diff_page(parse_page("p.md", "\n".join(diff.lines)), snapshot(*keps))
    assert [c for c in again.changes if c.applied] == []
    assert "\n".join(again.lines) == "\n".join(diff.lines)
    return diff, {i: line for i, line in enumerate(diff.lines) if line != page.lines[i]}


# -- separators ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sep", ["／", " ／ ", " \\| ", "\\|", " ｜ ", "\u00a0/\u00a0", "\u3000/\u3000", "  /   ", " /\u00a0"]
)
def test_composite_cells_with_other_separators_are_read_and_written_in_their_style(sep):
    row = f"| 1-a | implementable{sep}alpha | v1.31{sep}-{sep}- |\n"
    diff, changed = sync(HEADER + row)
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("stage", "alpha", "beta"), ("beta", "", "v1.33")]
    assert changed == {2: f"| 1-a | implementable{sep}beta | v1.31{sep}v1.33{sep}- |"}
    assert diff.problems == []


def test_a_full_width_separator_is_never_read_as_one_value():
    # Read as one value, "implementable／alpha" would differ from "implementable" and lose its stage half.
    diff, changed = sync(HEADER + "| 1-a | implementable／beta | v1.31／v1.33／- |\n")
    assert diff.changes == [] and changed == {} and diff.problems == []


@pytest.mark.parametrize(
    "cell, column",
    [
        ("implementable (alpha)", "Status"),
        ("implementable, alpha", "Status"),
        ("implementable alpha", "Status"),
        ("implementable / alpha (since v1.31)", "Status"),
    ],
)
def test_a_part_holding_more_than_one_value_is_reported_not_cut(cell, column):
    diff, changed = sync(HEADER + f"| 1-a | {cell} | v1.31 / - / - |\n")
    assert changed == {} and diff.changes == []
    assert diff.problems == [
        Problem("p.md", "line 3", f"KEP cell '1-a': {column} cell {cell!r} is not in the expected format; left as is")
    ]


def test_a_milestone_part_with_a_note_is_reported_not_cut():
    diff, changed = sync(HEADER + "| 1-a | implementable / beta | v1.31 / v1.33 (planned) / - |\n")
    assert changed == {}
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP cell '1-a': Alpha / Beta / GA cell 'v1.31 / v1.33 "
            "(planned) / -' is not in the expected format; left as is",
        )
    ]


def test_a_blank_status_cell_written_n_a_is_one_blank_not_two_parts():
    diff, changed = sync(HEADER + "| 1-a | N/A | v1.31 / v1.33 / - |\n")
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("status", "", "implementable")]
    assert changed == {2: "| 1-a | implementable | v1.31 / v1.33 / - |"}


def test_emphasis_around_a_part_is_kept_and_not_read_as_a_change():
    rows = (
        "| 1-a | implementable / **alpha** | _v1.31_ / - / - |\n"
        "| 2-b | **`implemented`** / **GA** | **1.20** / `v1.21` / ~~1.22~~ |\n"
    )
    diff, changed = sync(HEADER + rows)
    assert changed == {2: "| 1-a | implementable / **beta** | _v1.31_ / v1.33 / - |"}
    assert [(c.kep_id, c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("1", "stage", "alpha", "beta", "promoted"),
        ("1", "beta", "", "v1.33", "retargeted"),
    ]


def test_the_slash_of_n_a_is_not_a_separator():
    diff, changed = sync(
        HEADER + "| 1-a | implementable / n/a | v1.31 / N/A / n/a |\n| 2 | withdrawn/beta | n/a/n/a/n/a |\n"
    )
    assert changed == {
        2: "| 1-a | implementable / beta | v1.31 / v1.33 / n/a |",
        3: "| 2 | implemented/stable | v1.20/v1.21/v1.22 |",
    }
    assert diff.problems == []


def test_headers_in_full_width_or_with_other_separators_are_recognised():
    page = "| KEP | ＳＴＡＴＵＳ | Alpha／Beta／GA | Stage |\n|---|---|---|---|\n| 1 | implementable | v1.31 / - / - | alpha |\n"
    _, changed = sync(page)
    assert changed == {2: "| 1 | implementable | v1.31 / v1.33 / - | beta |"}


# -- stage and milestone vocabulary ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "shown",
    ["implemented / GA", "implemented / ga", "Implemented / Stable", "IMPLEMENTED / STABLE", "implemented / Ga"],
)
def test_only_the_word_differs_no_change(shown):
    diff, changed = sync(HEADER + f"| 2-b | {shown} | v1.20 / v1.21 / v1.22 |\n")
    assert diff.changes == [] and changed == {}


@pytest.mark.parametrize("shown", ["IMPLEMENTED / ＧＡ", "Implemented / Stable", "ｉｍｐｌｅｍｅｎｔｅｄ / stable"])
@pytest.mark.parametrize("milestones", ["V1.20 / V1.21 / V1.22", "１.２０ / v１．２１ / ｖ1.22", "1.20 / 1.21 / 1.22"])
def test_full_width_and_upper_case_forms_are_the_same_words(shown, milestones):
    diff, changed = sync(HEADER + f"| 2-b | {shown} | {milestones} |\n")
    assert diff.changes == [] and changed == {}


@pytest.mark.parametrize(
    "shown, written",
    [
        ("Implementable / Alpha", "Implementable / Beta"),
        ("IMPLEMENTABLE / ALPHA", "IMPLEMENTABLE / BETA"),
        ("implementable / alpha", "implementable / beta"),
    ],
)
def test_a_new_stage_keeps_the_cells_letter_case(shown, written):
    diff, changed = sync(HEADER + f"| 1-a | {shown} | v1.31 / - / - |\n")
    assert changed == {2: f"| 1-a | {written} | v1.31 / v1.33 / - |"}
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes][0] == (
        "stage",
        shown.split(" / ")[1],
        "beta",
        "promoted",
    )


def test_the_stable_stage_is_written_as_the_column_spells_it():
    rows = "| 9-z | implemented / GA | v1.1 / v1.2 / v1.3 |\n| 2-b | Implementable / Beta | v1.20 / v1.21 / - |\n"
    diff, changed = sync(
        HEADER + rows,
        *KEPS,
        kep(9, "z", status="implemented", stage="stable", alpha="v1.1", beta="v1.2", stable="v1.3"),
    )
    assert changed == {3: "| 2-b | Implemented / GA | v1.20 / v1.21 / v1.22 |"}
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("status", "Implementable", "implemented", "status"),
        ("stage", "Beta", "stable", "promoted"),
        ("stable", "", "v1.22", "retargeted"),
    ]


def test_without_a_word_in_its_column_the_page_decides_and_ga_to_beta_is_a_demotion():
    page = (
        "| KEP | Stage |\n|---|---|\n| 9 | GA |\n| 1 | GA |\n\n"
        "| KEP | Status |\n|---|---|\n| 2 | implementable / beta |\n"
    )
    diff, changed = sync(page, *KEPS, kep(9, "z", stage="stable"))
    assert changed == {3: "| 1 | beta |", 7: "| 2 | implemented / GA |"}
    assert [(c.kep_id, c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("1", "stage", "GA", "beta", "demoted"),
        ("2", "status", "implementable", "implemented", "status"),
        ("2", "stage", "beta", "stable", "promoted"),
    ]


def test_a_column_that_writes_stable_gets_it_in_the_cells_case():
    rows = "| 9-z | implemented / Stable | v1.1 / v1.2 / v1.3 |\n| 2-b | implementable / beta | v1.20 / v1.21 / - |\n"
    _, changed = sync(
        HEADER + rows,
        *KEPS,
        kep(9, "z", status="implemented", stage="stable", alpha="v1.1", beta="v1.2", stable="v1.3"),
    )
    assert changed == {3: "| 2-b | implemented / stable | v1.20 / v1.21 / v1.22 |"}


def test_milestones_without_v_in_the_column_are_written_without_v_in_an_empty_row():
    rows = "| 9-z | implementable / alpha | 1.30 / - / - |\n| 1-a | implementable / beta | - / - / - |\n"
    diff, changed = sync(HEADER + rows, *KEPS, kep(9, "z", alpha="1.30"))
    assert changed == {3: "| 1-a | implementable / beta | 1.31 / 1.33 / - |"}
    assert [(c.field, c.new) for c in diff.changes] == [("alpha", "1.31"), ("beta", "1.33")]


def test_a_removed_milestone_is_written_with_the_columns_blank():
    rows = "| 9-z | implementable / alpha | v1.30 / — / — |\n| 1-a | implementable / beta | v1.31 / v1.33 / v1.40 |\n"
    diff, changed = sync(HEADER + rows, *KEPS, kep(9, "z", alpha="v1.30"))
    assert changed == {3: "| 1-a | implementable / beta | v1.31 / v1.33 / — |"}
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("stable", "v1.40", "")]


# -- a field shown in more than one cell -----------------------------------------------------------------

SPLIT = (
    "| KEP | Status | Stage | Alpha / Beta / GA | GA |\n|---|---|---|---|---|\n"
    "| 2-b | implementable / beta | beta | v1.20 / v1.21 / - | - |\n"
    "\n| KEP | GA | Stage |\n|---|---|---|\n| KEP-2 | - | beta |\n"
)


def test_every_cell_showing_a_field_is_written():
    diff, changed = sync(SPLIT)
    assert changed == {
        2: "| 2-b | implemented / stable | stable | v1.20 / v1.21 / v1.22 | v1.22 |",
        6: "| KEP-2 | v1.22 | stable |",
    }
    assert [(c.line, c.field, c.old, c.new) for c in diff.changes] == [
        (3, "status", "implementable", "implemented"),
        (3, "stage", "beta", "stable"),
        (3, "stable", "", "v1.22"),
        (7, "stage", "beta", "stable"),
        (7, "stable", "", "v1.22"),
    ]


def test_cells_that_already_disagree_are_brought_in_line():
    page = (
        "| KEP | Status | Stage | Alpha / Beta / GA | Beta |\n|---|---|---|---|---|\n"
        "| 1-a | implementable / beta | alpha | v1.31 / v1.33 / - | - |\n"
    )
    diff, changed = sync(page)
    assert changed == {2: "| 1-a | implementable / beta | beta | v1.31 / v1.33 / - | v1.33 |"}
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("stage", "alpha", "beta", "promoted"),
        ("beta", "", "v1.33", "retargeted"),
    ]


def test_two_columns_with_one_role_are_both_kept_in_step():
    diff, changed = sync("| KEP | Stage | Notes | stage |\n|---|---|---|---|\n| 1 | alpha | x | Alpha |\n")
    assert changed == {2: "| 1 | beta | x | Beta |"}
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("stage", "alpha", "beta")]


def test_a_split_row_whose_upstream_is_untrusted_is_kept_whole():
    page = "| KEP | Status | Stage |\n|---|---|---|\n| 1 | implementable / alpha | alpha |\n"
    diff, changed = sync(page, kep(1, "a", stage="alpha (deprecated)"))
    assert changed == {} and diff.changes == []
    assert [p.message.split(";")[0] for p in diff.problems] == [
        "kep.yaml stage 'alpha (deprecated)' is not a valid stage"
    ]


def test_cells_that_disagree_and_cannot_be_settled_are_reported():
    page = "| KEP | Status | Stage |\n|---|---|---|\n| 1 | implementable / **beta** | alpha |\n"
    diff, changed = sync(page, kep(1, "a", stage="alpha (deprecated)"))
    assert changed == {} and diff.changes == []
    assert diff.problems[1:] == [
        Problem(
            "p.md",
            "line 3",
            "KEP 1: stage shown as 'beta' and 'alpha' in one row; "
            "kep.yaml gives no value to write, so the row is kept as "
            "it is",
        )
    ]


# -- padding and alignment -------------------------------------------------------------------------------


def test_an_empty_cell_keeps_its_padding():
    page = "| KEP | Stage | Alpha | Beta | GA |\n|---|---|---|---|---|\n| 1 | alpha | v1.31 | | |\n"
    _, changed = sync(page)
    assert changed == {2: "| 1 | beta | v1.31 | v1.33 | |"}
    _, changed = sync(page.replace("| |", "||"))
    assert changed == {2: "| 1 | beta | v1.31 | v1.33 | |"}  # row padded elsewhere: the cell gets its spaces
    _, changed = sync("|KEP|Stage|Beta|\n|-|-|-|\n|1|alpha||\n")
    assert changed == {2: "|1|beta|v1.33|"}  # a row padded nowhere stays so


@pytest.mark.parametrize(
    "cell, written",
    [
        ("v1.31 /  / -", "v1.31 / v1.33 / -"),
        ("v1.31 // -", "v1.31 / v1.33 / -"),
        ("v1.31//-", "v1.31/v1.33/-"),
        ("v1.31\u00a0/\u00a0\u00a0/\u00a0-", "v1.31\u00a0/\u00a0v1.33\u00a0/\u00a0-"),
    ],
)
def test_an_empty_part_of_a_composite_cell_is_filled_spaced_like_its_separators(cell, written):
    _, changed = sync(HEADER + f"| 1-a | implementable / beta | {cell} |\n")
    assert changed == {2: f"| 1-a | implementable / beta | {written} |"}


ALIGNED = """\
| KEP | 状态                  | Alpha / Beta / GA     | 说明       |
| --- | --------------------- | --------------------- | ---------- |
| 1-a | implementable / alpha | v1.31 / -     / -     | 组调度     |
| 2-b | implementable / beta  | v1.20 / v1.21 / -     | 抢占 x     |
| 7-c | implemented / stable  | v1.1  / v1.2  / v1.3  | 不变       |
"""


def _pipe_columns(line: str) -> list[int]:
    """Display columns of a row's pipes."""
    return [display_width(line[: c.hi]) for c in split_row(line)]


def test_an_aligned_table_with_cjk_stays_aligned():
    diff, changed = sync(
        ALIGNED, *KEPS, kep(7, "c", status="implemented", stage="stable", alpha="v1.1", beta="v1.2", stable="v1.3")
    )
    assert changed == {
        2: "| 1-a | implementable / beta  | v1.31 / v1.33 / -     | 组调度     |",
        3: "| 2-b | implemented / stable  | v1.20 / v1.21 / v1.22 | 抢占 x     |",
    }
    assert len({tuple(_pipe_columns(line)) for line in diff.lines if line}) == 1


def test_text_too_wide_for_an_aligned_column_changes_only_its_row():
    page = "| KEP | Stage |\n| --- | ----- |\n| 1   | beta  |\n| 2   | beta  |\n"
    diff, changed = sync(page)
    assert changed == {3: "| 2   | stable |"}


def test_right_and_centre_aligned_columns_are_padded_on_their_side():
    page = "| KEP | Stage | Beta  |\n|-----|------:|:-----:|\n| 1   | alpha |   -   |\n| 7   |  beta | v1.30 |\n"
    diff, changed = sync(page, *KEPS, kep(7, "c", stage="beta", beta="v1.30"))
    assert changed == {2: "| 1   |  beta | v1.33 |"}
    page = "| KEP | Beta    |\n|-----|:-------:|\n| 1   |    -    |\n"
    _, changed = sync(page)
    assert changed == {2: "| 1   |  v1.33  |"}


def test_display_width_counts_wide_characters_double_and_marks_zero():
    assert display_width("abc") == 3
    assert display_width("组调度") == 6
    assert display_width("ｖ１") == 4  # full-width forms
    assert display_width("e\u0301") == 1  # e + combining acute
    assert display_width("a\u200bb") == 2  # zero-width space (format character)


# -- a second, independent reading (scripts/check/check_page_edit.py) ------------------------------------------


def _checker():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "check" / "check_page_edit.py"
    spec = importlib.util.spec_from_file_location("check_page_edit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EVERY_KIND = (
    HEADER.replace("GA |", "GA | Notes |").replace("|---|---|---|", "|---|---|---|---|")
    + "| 1-a | implementable／alpha | v1.31／-／- | 全角 |\n"
    "| 2-b | Implementable \\| Beta | 1.20 \\| 1.21 \\| — | x |\n"
    "| 1 | implementable\u00a0/\u00a0**alpha** | _v1.31_\u3000/\u3000- / - | y |\n"
    "| 2 | IMPLEMENTED / ＧＡ | V1.20 / v1.21 / v1.22 | z |\n\n" + SPLIT + "\n" + ALIGNED
)


def test_the_independent_reading_finds_nothing_wrong_in_the_bots_edit():
    check = _checker()
    diff, changed = sync(
        EVERY_KIND, *KEPS, kep(7, "c", status="implemented", stage="stable", alpha="v1.1", beta="v1.2", stable="v1.3")
    )
    assert sorted(changed) == [2, 3, 4, 9, 13, 17, 18]
    assert check.check(EVERY_KIND.split("\n"), diff.lines, check.OWNED) == []


def test_the_independent_reading_names_each_kind_of_fault():
    check = _checker()
    before = EVERY_KIND.split("\n")
    after = list(before)
    after[2] = "| 1-a | implementable | v1.31／-／- | 全角 |"  # half a cell deleted
    after[5] = "| 2 | IMPLEMENTED / stable | V1.20 / v1.21 / v1.22 | z |"  # only the word
    after[9] = "| 2-b | implemented / stable | beta | v1.20 / v1.21 / v1.22 | - |"  # contradiction
    after[17] = "| 1-a | implementable / beta | v1.31 / v1.33     / -     | 组调度     |"  # alignment lost
    assert check.check(before, after, check.OWNED) == [
        "line 3: status cell 'implementable／alpha' -> 'implementable' lost a part",
        "line 6: status part 'ＧＡ' -> 'stable': only the spelling changed",
        "line 10: stage shown as ['beta', 'stable'] in one row",
        "line 10: stable shown as ['', '1.22'] in one row",
        "line 18: the new text fits its columns, but the row is no longer aligned",
    ]


def _generated_page(rnd, sep: str, kind: str, aligned: bool):
    """A random page of four rows (words in any case, GA, 1.30 or v1.30, blanks -, —, n/a) and its upstream."""

    def word(w):
        return "GA" if w == "stable" and rnd.random() < 0.4 else rnd.choice([str.lower, str.title, str.upper])(w)

    def shown(v):
        return rnd.choice(["-", "—", "n/a"]) if not v else rnd.choice([v, v[1:]])

    keps, table = (
        [],
        [
            {
                "composite": ["KEP", "Status", "Alpha / Beta / GA", "说明"],
                "split": ["KEP", "Status", "Stage", "Alpha", "Beta", "GA"],
                "both": ["KEP", "Status", "Stage", "Alpha / Beta / GA", "Beta"],
            }[kind]
        ],
    )
    table.append(["---"] * len(table[0]))
    for n in range(1, 5):
        stage, status = rnd.choice(["alpha", "beta", "stable"]), rnd.choice(["implementable", "implemented"])
        a = f"v1.{rnd.randint(20, 30)}"
        b = f"v1.{rnd.randint(31, 33)}" if stage != "alpha" else ""
        g = f"v1.{rnd.randint(34, 36)}" if stage == "stable" else ""
        keps.append(kep(n, f"k{n}", status=status, stage=stage, alpha=a, beta=b, stable=g))
        p_stage, p_status = rnd.choice(["alpha", "beta", "stable"]), rnd.choice(["implementable", "implemented"])
        pa, pb, pg = rnd.choice([a, "", "v1.19"]), rnd.choice([b, ""]), rnd.choice([g, ""])
        composite = f"{word(p_status)}{sep}{word(p_stage)}"
        milestones = f"{shown(pa)}{sep}{shown(pb)}{sep}{shown(pg)}"
        table.append(
            {
                "composite": [f"{n}-k{n}", composite, milestones, "组"],
                "split": [f"{n}-k{n}", word(p_status), word(p_stage), shown(pa), shown(pb), shown(pg)],
                "both": [
                    f"{n}-k{n}",
                    composite,
                    word(rnd.choice([p_stage, "beta"])),
                    milestones,
                    shown(rnd.choice([pb, ""])),
                ],
            }[kind]
        )
    if aligned:
        widths = [max(display_width(row[i]) for row in table) for i in range(len(table[0]))]
        table[1] = ["-" * w for w in widths]
        lines = [
            "| " + " | ".join(c + " " * (widths[i] - display_width(c)) for i, c in enumerate(row)) + " |"
            for row in table
        ]
    else:
        lines = ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n", keps


SEPARATORS = ["/", " / ", "／", " ／ ", " \\| ", "\u00a0/\u00a0", "\u3000/\u3000", "  /  ", "｜"]


def test_generated_pages_of_every_kind_pass_the_independent_reading():
    import random

    check, rnd = _checker(), random.Random(8)
    exercised = set()
    combos = [
        (sep, kind, aligned)
        for sep in SEPARATORS
        for kind in ("composite", "split", "both")
        for aligned in (False, True)
    ]
    for sep, kind, aligned in combos * 2:
        text, keps = _generated_page(rnd, sep, kind, aligned)
        diff, changed = sync(text, *keps)  # asserts the second run is quiet
        assert check.check(text.split("\n"), diff.lines, check.OWNED) == [], text
        assert [p for p in diff.problems if "KEP cell" in p.message] == []
        if changed:
            exercised.add((sep, kind, aligned))
    assert exercised == set(combos)  # every combination edited at least once


def test_row_in_front_matter_is_never_rewritten():
    text = "---\nnote: |\n  " + HEADER.replace("\n", "\n  ") + "| 1 | implementable / alpha | v1.31 / - / - |\n---\n\n"
    text += HEADER + "| 1 | implementable / alpha | v1.31 / - / - |\n"
    diff, changed = sync(text)
    assert changed == {9: "| 1 | implementable / beta | v1.31 / v1.33 / - |"}
