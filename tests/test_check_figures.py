"""``scripts/check/check_figures.py``: every measured figure in README.md and docs/*.md names the command that
printed it or the day it was measured; the checker's own rules are pinned on a small hand-written page."""

from __future__ import annotations

import re

try:
    from tests.scriptutil import ROOT, load_script
except ImportError:  # pragma: no cover
    from scriptutil import ROOT, load_script

check_figures = load_script(ROOT / "scripts" / "check" / "check_figures.py")

README = """# Demo

A sync took 0.52 s and 41 MB on a busy machine; later runs get 304s.

Measured on 2026-12-02: the run took 1.2 s.

`scripts/bench/bench_x.py` prints 3.4 s and x1.45 the floor.

A run more than 15 minutes late is dropped; writes are paced (1 s apart), and
the stop waits 330 s (`SHUTDOWN_TIMEOUT_SECONDS`).

The 2026-03-01 page syncs in 0.8 s (`stop_grace_period: 330s` is a value).

    .venv/bin/kep-sync sync   # 9 s: code, not judged

- a 7 MB list is read in 2 s;
- `scripts/check/x.py` prints 3 s.

Sizes as seen:

| file | cap | size |
|---|---|---|
| page | 16 MiB | 30 KB |
"""

DOC = """# Bench

## Measured

Printed by `scripts/bench/benchmark.py` on 2026-12-02 on a 2-core machine.

The floor is 0.1 s, so x3.2 of it.

## Guessed

Nothing here is dated.

It takes 0.5 s.
"""


def test_a_page_with_undated_figures_gets_exactly_these_findings(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs" / "bench.md").write_text(DOC)
    assert check_figures.main(["--root", str(tmp_path)]) == 1
    assert capsys.readouterr().out == (
        "README.md:3: 0.52 s: A sync took 0.52 s and 41 MB on a busy machine; later runs get 304s.\n"
        "README.md:3: 41 MB: A sync took 0.52 s and 41 MB on a busy machine; later runs get 304s.\n"
        "README.md:12: 0.8 s: The 2026-03-01 page syncs in 0.8 s (`stop_grace_period: 330s` is a value).\n"
        "README.md:16: 7 MB: - a 7 MB list is read in 2 s;\n"
        "README.md:16: 2 s: - a 7 MB list is read in 2 s;\n"
        "README.md:23: 30 KB: | page | 16 MiB | 30 KB |\n"
        "docs/bench.md:13: 0.5 s: It takes 0.5 s.\n"
        "17 figures, 7 findings\n"
    )


def test_verbose_says_why_each_other_figure_passes(tmp_path, capsys):
    (tmp_path / "README.md").write_text(README)
    assert check_figures.main(["--root", str(tmp_path), "--verbose", str(tmp_path / "README.md")]) == 1
    passed = [line for line in capsys.readouterr().out.splitlines() if line.endswith("]")]
    assert passed == [
        "README.md:5: 1.2 s: Measured on 2026-12-02: the run took 1.2 s. [sourced]",
        "README.md:7: 3.4 s: `scripts/bench/bench_x.py` prints 3.4 s and x1.45 the floor. [sourced]",
        "README.md:7: x1.45: `scripts/bench/bench_x.py` prints 3.4 s and x1.45 the floor. [sourced]",
        "README.md:9: 15 minutes: A run more than 15 minutes late is dropped; writes are paced (1 s apart), and "
        "[a bound before it]",
        "README.md:9: 1 s: A run more than 15 minutes late is dropped; writes are paced (1 s apart), and "
        "[its sentence names a setting]",
        "README.md:10: 330 s: the stop waits 330 s (`SHUTDOWN_TIMEOUT_SECONDS`). [its sentence names a setting]",
        "README.md:17: 3 s: - `scripts/check/x.py` prints 3 s. [sourced]",
        "README.md:23: 16 MiB: | page | 16 MiB | 30 KB | [column 'cap' is a setting]",
    ]


def test_the_docs_figures_each_name_their_command_or_date(capsys):
    assert check_figures.main([]) == 0
    out = capsys.readouterr().out
    summary = re.fullmatch(r"(\d+) figures, 0 findings\n", out)
    assert summary is not None, out
    assert int(summary.group(1)) >= 100  # it read the docs' figures, not an empty set


def findings_of(tmp_path, capsys, text: str) -> str:
    """The checker's output on a page ``text`` written to ``page.md`` under ``tmp_path``."""
    (tmp_path / "page.md").write_text(text)
    check_figures.main(["--root", str(tmp_path), str(tmp_path / "page.md")])
    return capsys.readouterr().out


def test_a_fence_closes_only_on_its_own_character_at_least_as_long(tmp_path, capsys):
    page = "# A\n\n~~~\n```\n~~~\n\nThe suite took 33 s.\n\n````\n```\n9 s\n````\n\nThen 2 s.\n"
    assert findings_of(tmp_path, capsys, page) == (
        "page.md:7: 33 s: The suite took 33 s.\npage.md:14: 2 s: Then 2 s.\n2 figures, 2 findings\n"
    )


def test_a_table_caption_does_not_cross_a_heading(tmp_path, capsys):
    page = "# A\n\nMeasured on 2026-12-02.\n## B\n| step | wall |\n|---|---|\n| sync | 0.9 s |\n"
    assert findings_of(tmp_path, capsys, page) == "page.md:7: 0.9 s: | sync | 0.9 s |\n1 figures, 1 findings\n"


def test_a_list_items_indented_paragraph_is_prose_and_its_code_is_not(tmp_path, capsys):
    page = "# A\n\n- The suite:\n\n    it took 45 s on my laptop.\n\n        9 s in its code\n\n"
    page += "Some text.\n\n    8 s in code\n"
    assert findings_of(tmp_path, capsys, page) == (
        "page.md:5: 45 s: it took 45 s on my laptop.\n1 figures, 1 findings\n"
    )


def test_a_page_date_wrapped_over_two_lines_still_names_a_page(tmp_path, capsys):
    page = "# A\n\nWe read the 2026-03-01\npage and the suite took 50 s.\n"
    assert findings_of(tmp_path, capsys, page) == (
        "page.md:4: 50 s: page and the suite took 50 s.\n1 figures, 1 findings\n"
    )


def test_a_negative_figure_counts_as_a_positive_one_does(tmp_path, capsys):
    page = "# A\n\nThe dry run got -30% slower; the sync took -0.2 s less, \u22121.5 s, +0.26 s; 0.12-0.31 s.\n"
    line = page.split("\n")[2]
    assert findings_of(tmp_path, capsys, page) == (
        f"page.md:3: -30%: {line}\npage.md:3: -0.2 s: {line}\npage.md:3: \u22121.5 s: {line}\n"
        f"page.md:3: +0.26 s: {line}\npage.md:3: 0.12-0.31 s: {line}\n5 figures, 5 findings\n"
    )
