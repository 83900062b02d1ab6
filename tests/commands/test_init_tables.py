"""``kep-sync init`` finds what a person sees: KEP tables by their cells, every header people write, tables in
lists and blockquotes, never a date column; it says why it took or left each table, and the config it writes
gives a right dry run unedited (bot/commands/init_tables.py, bot/wiki/kepcolumn.py)."""

from __future__ import annotations

import json

import pytest
import yaml

from bot.cli.main import main
from bot.commands.init_tables import page_tables
from bot.wiki.kepcolumn import LeftRow, find_kep_column

try:
    from tests.syncutil import kep, write_keps
except ImportError:  # pragma: no cover
    from syncutil import kep, write_keps

pytestmark = pytest.mark.usefixtures("_reset_structlog")

SIG_PAGE = """# SIG Node KEPs

| KEP # | Feature | SIG | Current status | Stage | Alpha in | Beta in | GA in | Notes |
|---|---|---|---|---|---|---|---|---|
| 4381 | DRA structured parameters | node | implementable | beta | v1.30 | v1.32 | | |
| [KEP-2021](https://github.com/kubernetes/enhancements/issues/2021) | Scale from zero | autoscaling | implementable | alpha | v1.16 | | | |
| #1287 | In-place resize | node | implementable | beta | v1.27 | v1.33 | | big one |
| #12x | Typo | node | implementable | alpha | v1.30 | | | |

## Decisions

| Date | Decision | Who |
|---|---|---|
| 2026-01-20 | Track 4381 here | alice |
| 2026-02-03 | Drop the sheet | bob |
"""
LISTS = """# Scheduling

- Gang and friends:

  KEP | Status / Stage | Alpha / Beta / GA
  --- | --- | ---
  kubernetes/enhancements#4671 | implementable / alpha | v1.35 / - / -

> **Quoted**
>
> | KEP | Maturity | Stable |
> |---|---|---|
> | https://kep.k8s.io/2021 | alpha | - |

- | Tracking issue | State |
  |---|---|
  | https://github.com/kubernetes/enhancements/issues/1287 | implementable |
"""
KEPS = (
    kep(4381, "dra-structured-parameters", sig="sig-node", status="implemented", stage="stable", alpha="v1.30",
        beta="v1.32", stable="v1.34"),
    kep(2021, "scale-from-zero", sig="sig-autoscaling", stage="beta", alpha="v1.16", beta="v1.37"),
    kep(1287, "in-place-update-pod-resources", sig="sig-node", status="implemented", stage="stable",
        alpha="v1.27", beta="v1.33", stable="v1.35"),
    kep(4671, "gang-scheduling", stage="beta", alpha="v1.35", beta="v1.37", stable="v1.38"),
)  # fmt: skip


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A wiki of one's own (SIG page, lists page, meetings page) and a directory of kep.yaml files."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    wiki = tmp_path / "mywiki"
    wiki.mkdir()
    (wiki / "sig-node.md").write_text(SIG_PAGE, encoding="utf-8")
    (wiki / "lists.md").write_text(LISTS, encoding="utf-8")
    (wiki / "meetings.md").write_text("# Meetings\n\n- 2026-01-20: kickoff\n", encoding="utf-8")
    write_keps(tmp_path / "enh", *KEPS)
    return tmp_path


def test_init_takes_the_kep_tables_a_person_sees_and_says_why_it_left_the_others(site, capsys):
    assert main(["init", "--wiki", "mywiki", "--enhancements", "enh", "--output", "conf/kep-sync.yaml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:20] == [
        "Wrote conf/kep-sync.yaml: 2 page(s), 4 KEP table(s), 6 KEP rows; 1 row left as is (listed below).",
        "lists.md line 5 (under 'Scheduling'): 1 of 1 KEP cells readable, taken",
        "  'KEP' -> kep",
        "  'Status / Stage' -> status",
        "  'Alpha / Beta / GA' -> milestones",
        "  in step with kep.yaml now: status 1 of 1, stage 0 of 1, alpha 1 of 1, beta 0 of 1, stable 0 of 1 "
        "(a dry run proposes the rest)",
        "lists.md line 11 (under 'Scheduling'): 1 of 1 KEP cells readable, taken",
        "  'KEP' -> kep",
        "  'Maturity' -> stage",
        "  'Stable' -> stable",
        "  in step with kep.yaml now: stage 0 of 1, stable 1 of 1 (a dry run proposes the rest)",
        "lists.md line 15 (under 'Scheduling'): 1 of 1 KEP cells readable, taken",
        "  'Tracking issue' -> kep (its cells)",
        "  'State' -> status",
        "  in step with kep.yaml now: status 0 of 1 (a dry run proposes the rest)",
        "sig-node.md line 3 (under 'SIG Node KEPs'): 3 of 4 KEP cells readable, taken; line 8 '#12x' left as is "
        "(names no KEP)",
        "  'KEP #' -> kep (its cells)",
        "  'Feature' -> not synced",
        "  'SIG' -> not synced",
        "  'Current status' -> status",
    ]
    assert out[20:32] == [
        "  'Stage' -> stage",
        "  'Alpha in' -> alpha",
        "  'Beta in' -> beta",
        "  'GA in' -> stable",
        "  'Notes' -> not synced",
        "  in step with kep.yaml now: status 1 of 3, stage 0 of 3, alpha 3 of 3, beta 2 of 3, stable 1 of 3 "
        "(a dry run proposes the rest)",
        "sig-node.md line 12 (under 'Decisions'): left as is: 'Date' is headed for dates, not KEPs",
        "Guessed (check them in the config): 'Tracking issue' -> columns.kep; 'KEP #' -> columns.kep",
        "Pages without a KEP table, left out: meetings.md (no table)",
        "A row naming a KEP directory upstream renamed is left as is (renames: report); renames: owned-cells "
        "syncs its status, stage and milestone cells and keeps its KEP cell as written, renames: apply rewrites "
        "the KEP cell too.",
        "",
        "Next, a dry run (prints the changelog, writes nothing):",
    ]
    settings = yaml.safe_load((site / "conf" / "kep-sync.yaml").read_text(encoding="utf-8"))
    assert settings == {
        "enhancements": "../enh",
        "wiki": {"dir": "../mywiki", "pages": ["lists.md", "sig-node.md"]},
        "columns": {
            "kep": ["KEP", "Tracking issue", "KEP #"],
            "status": ["状态", "Status", "Status / Stage", "State", "Current status"],
            "stage": ["Stage", "Maturity"],
            "alpha": ["Alpha", "Alpha in"],
            "beta": ["Beta", "Beta in"],
            "stable": ["GA", "Stable", "GA in"],
        },
        "publish": "none",
    }


def test_the_config_init_writes_gives_a_right_dry_run_unedited_from_anywhere(site, capsys, monkeypatch):
    assert main(["init", "--wiki", "mywiki", "--enhancements", "enh", "--output", "conf/kep-sync.yaml"]) == 0
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in (site / "mywiki").iterdir()}
    (site / "elsewhere").mkdir()
    monkeypatch.chdir(site / "elsewhere")  # the paths are the config file's, not the working directory's
    assert main(["sync", "--config", "../conf/kep-sync.yaml", "--report", "r.json"]) == 0
    out, _ = capsys.readouterr()
    report = json.loads((site / "elsewhere" / "r.json").read_text())
    assert sorted({(c["page"], c["line"], c["kep"]) for c in report["changes"] if c["proposed"]}) == [
        ("lists.md", 7, "4671"),
        ("lists.md", 13, "2021"),
        ("lists.md", 17, "1287"),
        ("sig-node.md", 5, "4381"),
        ("sig-node.md", 6, "2021"),
        ("sig-node.md", 7, "1287"),
    ]  # every KEP row, and no row of the Date table
    assert report["rows_with_problems"] == 1
    assert "| sig-node.md | line 8 | KEP cell '#12x' names no KEP; left as is |" in out
    assert {p.name: p.read_bytes() for p in (site / "mywiki").iterdir()} == before  # a dry run
    assert main(["sync", "--config", "../conf/kep-sync.yaml", "--publish", "files"]) == 0
    capsys.readouterr()
    page = (site / "mywiki" / "sig-node.md").read_text(encoding="utf-8")
    assert page.splitlines()[4:8] == [
        "| 4381 | DRA structured parameters | node | implemented | stable | v1.30 | v1.32 | v1.34 | |",
        "| [KEP-2021](https://github.com/kubernetes/enhancements/issues/2021) | Scale from zero | autoscaling "
        "| implementable | beta | v1.16 | v1.37 | | |",
        "| #1287 | In-place resize | node | implemented | stable | v1.27 | v1.33 | v1.35 | big one |",
        "| #12x | Typo | node | implementable | alpha | v1.30 | | | |",
    ]
    assert page.split("## Decisions")[1] == SIG_PAGE.split("## Decisions")[1]
    lists = (site / "mywiki" / "lists.md").read_text(encoding="utf-8").splitlines()
    assert [lists[6], lists[12], lists[16]] == [
        "  kubernetes/enhancements#4671 | implementable / beta | v1.35 / v1.37 / v1.38",
        "> | https://kep.k8s.io/2021 | beta | - |",
        "  | https://github.com/kubernetes/enhancements/issues/1287 | implemented |",
    ]


def test_a_wiki_named_as_the_working_directory_gets_a_path_that_works_from_anywhere(site, capsys, monkeypatch):
    monkeypatch.chdir(site / "mywiki")
    assert main(["init", "--wiki", ".", "--output", "../kep-sync.yaml", "--enhancements", "../enh"]) == 0
    capsys.readouterr()
    settings = yaml.safe_load((site / "kep-sync.yaml").read_text(encoding="utf-8"))
    assert (settings["wiki"]["dir"], settings["enhancements"]) == ("mywiki", "enh")
    monkeypatch.chdir(site)
    assert main(["validate", "--config", "kep-sync.yaml"]) == 0
    assert capsys.readouterr().out == "ok\n"


@pytest.mark.parametrize(
    ("header", "cells", "upstream", "found"),
    [
        (["Date", "Decision"], ["2026-01-20", "2026-02-03"], None, (None, "'Date' is headed for dates, not KEPs")),
        (["Version", "Note"], ["v1.30", "1.31"], None, (None, "'Version' is headed for versions, not KEPs")),
        (["PR", "Note"], ["#4381", "#1287"], {4381, 1287}, (None, "'PR' is headed for pull requests, not KEPs")),
        (["#", "Topic"], ["1", "2", "3"], None, (None, "'#' holds row numbers")),
        (
            ["Ref", "Topic"],
            ["4381", "1287"],
            None,
            (
                None,
                "'Ref' holds bare numbers: taken as KEPs only under a header naming them (KEP, KEP #, #) or with "
                "--enhancements to check them upstream",
            ),
        ),
        (["Ref", "Topic"], ["4381", "1287"], {4381, 1287}, (0, "")),
        (["Ref", "Topic"], ["4381", "9999", "9998"], {4381}, (None, "1 of 3 cells under 'Ref' name a KEP upstream")),
        (["Issue", "Topic"], ["kubernetes/kubernetes#123", "https://github.com/kubernetes/kubernetes/pull/9"], None,
         (None, "no column names KEPs")),
        (["Feature", "Topic"], ["[Gang](https://kep.k8s.io/4671)", "KEP-2021", "#12x"], None, (0, "")),
        (["#", "Topic"], ["#4381", "#1287", "#12x"], None, (0, "")),
    ],
)  # fmt: skip
def test_a_kep_column_is_the_one_most_of_whose_cells_name_keps(header, cells, upstream, found):
    body = [[c, "x"] for c in cells]
    exists = (lambda n: n in upstream) if upstream is not None else None
    column = find_kep_column(header, body, {}, ["KEP"], exists)
    assert (column.column, column.why) == found


def test_one_unreadable_cell_never_drops_a_table_and_its_row_is_listed():
    column = find_kep_column(["KEP #", "Stage"], [["4381", "a"], ["#12x", "b"], ["1287", "c", "d"]], {}, ["KEP"])
    assert column == (0, "cells", 1, 3, (LeftRow(1, "#12x", "names no KEP"), LeftRow(2, "1287", "has 3 cells, "
                      "header has 2")), "", ())  # fmt: skip


def test_a_row_with_fewer_cells_than_the_header_is_read_and_named_apart():
    column = find_kep_column(["KEP #", "Stage", "Beta"], [["4381", "a", "b"], ["3962", "alpha"]], {}, ["KEP"])
    assert column == (0, "cells", 2, 2, (), "", (1,))


def test_a_row_number_column_headed_like_the_kep_column_is_named_as_a_check(site, capsys):
    (site / "mywiki" / "lists.md").unlink()
    with (site / "mywiki" / "sig-node.md").open("a", encoding="utf-8") as page:
        page.write("\n## Agenda\n\n| KEP # | Topic |\n|---|---|\n| 1 | intro |\n| 2 | review |\n")
    assert main(["init", "--wiki", "mywiki"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "sig-node.md line 19 (under 'Agenda'): left as is: 'KEP #' holds row numbers" in out
    assert (
        "Check: sig-node.md line 19: left as is by init, but its column 'KEP #' has a KEP column's name, so "
        "kep-sync reads it as a KEP table: rename that header, or one of columns.kep"
    ) in out


def test_tables_of_a_page_are_found_in_lists_blockquotes_and_without_outer_pipes():
    found = page_tables("lists.md", LISTS)
    assert [(t.line, t.kep.column, t.kep.by, [(c.text, c.role, c.how) for c in t.columns or ()]) for t in found] == [
        (5, 0, "header", [("KEP", "kep", "default"), ("Status / Stage", "status", "recognised"),
                          ("Alpha / Beta / GA", "milestones", "default")]),
        (11, 0, "header", [("KEP", "kep", "default"), ("Maturity", "stage", "recognised"),
                           ("Stable", "stable", "default")]),
        (15, 0, "cells", [("Tracking issue", "kep", "cells"), ("State", "status", "recognised")]),
    ]  # fmt: skip


def test_a_column_found_by_its_cells_never_names_another_tables_column_as_the_kep_column(site, capsys):
    (site / "mywiki" / "lists.md").unlink()
    (site / "mywiki" / "meetings.md").write_text(
        "| Meeting date | Notes |\n|---|---|\n| 2026-01-20 | kubernetes/enhancements#4381 |\n"
        "| 2026-02-20 | kubernetes/enhancements#1287 |\n",
        encoding="utf-8",
    )
    (site / "mywiki" / "sig-node.md").write_text(
        "| Feature | Notes | KEP | Status |\n|---|---|---|---|\n| DRA | see KEP-2021 | 4381 | implementable |\n",
        encoding="utf-8",
    )
    assert main(["init", "--wiki", "mywiki"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "Wrote kep-sync.yaml: 1 page(s), 1 KEP table(s), 1 KEP rows.",
        "meetings.md line 1: left as is: most cells under 'Notes' name KEPs, but sig-node.md line 1 has a 'Notes' "
        "column of another kind, which kep-sync would then read as KEPs too; head this table's KEP column KEP to "
        "have it synced",
        "sig-node.md line 1: 1 of 1 KEP cells readable, taken",
    ]
    assert not [line for line in out if line.startswith("Check:")]
    settings = yaml.safe_load((site / "kep-sync.yaml").read_text(encoding="utf-8"))
    assert (settings["wiki"]["pages"], "columns" in settings) == (["sig-node.md"], False)
    assert main(["sync", "--config", "kep-sync.yaml", "--enhancements", "enh"]) == 0
    assert "| [4381](https://kep.k8s.io/4381) " in capsys.readouterr().out  # keyed by its KEP column, synced


def test_a_short_row_is_counted_readable_and_named_and_a_page_in_step_has_nothing_left(site, capsys):
    for name in ("sig-node.md", "lists.md"):
        (site / "mywiki" / name).unlink()
    (site / "mywiki" / "short.md").write_text(
        "KEP | Feature | Stage | Alpha | Beta | GA | Notes\n"
        "--- | --- | --- | --- | --- | --- | ---\n"
        "4381 | DRA | stable | v1.30 | v1.32 | v1.34 | x\n"
        "1287 | Resize | stable | v1.27 | v1.33 | v1.35 | x\n"
        "2021 | Scale | beta | v1.16 | v1.37 | \n",
        encoding="utf-8",
    )
    assert main(["init", "--wiki", "mywiki", "--enhancements", "enh"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "Wrote kep-sync.yaml: 1 page(s), 1 KEP table(s), 3 KEP rows; 1 row with fewer cells than the header "
        "(listed below).",
        "short.md line 1: 3 of 3 KEP cells readable, taken; 1 row has fewer cells than the header (line 5): read as "
        "GitHub shows them, padded with empty cells; kep-sync writes no cell beyond a row's end and leaves such a "
        "row as is (add the missing `| |` cells to let it write there)",
    ]
    assert out[9] == (
        "  in step with kep.yaml now: stage 3 of 3, alpha 3 of 3, beta 3 of 3, stable 3 of 3 (nothing left to propose)"
    )
    assert main(["sync", "--config", "kep-sync.yaml"]) == 0
    assert "no changes" in capsys.readouterr().out
