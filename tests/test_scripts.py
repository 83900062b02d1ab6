"""Every script under ``scripts/`` still runs: a benchmark or check broken by a change in ``bot/`` fails here.

``bench_history.py`` once crashed with ``TypeError: 'frozenset' object is not callable`` after the
history loader's signature changed, and no test ran it. Here each script is imported (its
module-level imports of ``bot`` run), and the benchmark and check scripts whose inputs can be
given on the command line run their ``main`` on a tiny git repository written by hand
(``--runs 1``): ``bench/bench_history.py``, ``bench/bench_release_notes.py``, ``check/check_digest.py``,
``check/check_coverage.py``, ``check/body_size.py``, ``check/check_calendar.py``; ``bench/bench_suite.py`` only with ``--dry-run`` and on a
pytest output written here (it runs the whole suite). The rest have their own tests (``gen/make_snapshot.py``: test_offline,
``check/check_page_edit.py``: test_page_fidelity, ``check/check_figures.py``: test_check_figures,
``gen/gen_config_reference.py``: test_docs,
``gen/refresh_github_openapi.py``: test_github_conformance) or only run on
the real data in ../shared as many new processes (``benchmark.py``, ``bench_evidence.py``,
``eval_evidence.py``, ``bench_publish.py``, ``check/replay_watch.py``): those are imported here, and skipped
beyond that.
Timing figures are printed by the scripts, never asserted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.plan.changelog.body import visible_lines
from bot.plan.changelog.signals import visible_text

try:
    from tests.scriptutil import ROOT, load_script
    from tests.syncutil import kep_yaml
except ImportError:  # pragma: no cover
    from scriptutil import ROOT, load_script
    from syncutil import kep_yaml

SCRIPTS = sorted(p for p in (ROOT / "scripts").rglob("*.py") if not p.name.startswith("_"))  # bench/_bench.py: a helper
KEP = "keps/sig-node/100-widgets/kep.yaml"
PAGE = (
    "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
    "| [100](https://kep.k8s.io/100) | implementable / alpha | v1.33 | - | - |\n"
)


def _run(monkeypatch, capsys, name: str, *args: str) -> tuple[int, str]:
    module = load_script(ROOT / "scripts" / name)  # name: GROUP/SCRIPT.py
    monkeypatch.setattr(sys, "argv", [name, *args])
    rc = module.main()
    return rc, capsys.readouterr().out


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """A bundle of a tiny enhancements history: KEP 100 (sig-node) added alpha v1.33 (#1, 2025-06-01), promoted
    to beta v1.34 (#2, 2025-09-01); dated before 2026-01-01, the date bench_history's digest asks for."""
    root = tmp_path_factory.mktemp("scripts")
    repo = root / "enh"
    (repo / KEP).parent.mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }

    def git(*args: str, date: str = "") -> None:
        subprocess.run(
            ["git", "-C", str(repo), *args],
            check=True,
            capture_output=True,
            env={**env, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else env,
        )

    git("init", "-q", "-b", "main")
    for pr, date, text in (
        (1, "2025-06-01T00:00:00Z", kep_yaml(100, "widgets", sig="sig-node", alpha="v1.33")),
        (
            2,
            "2025-09-01T00:00:00Z",
            kep_yaml(100, "widgets", sig="sig-node", stage="beta", alpha="v1.33", beta="v1.34", gates=("Widgets",)),
        ),
    ):
        (repo / KEP).write_text(text)
        git("add", "-A")
        git("commit", "-q", "-m", f"Merge pull request #{pr} from a/b", date=date)
    git("bundle", "create", str(root / "enh.bundle"), "HEAD", "main")
    (root / "page.md").write_text(PAGE)
    notes = root / "notes"
    notes.mkdir()
    (notes / "release-notes-1.34.json").write_text(
        '{"2": {"pr_number": 2, "text": "Promoted the `Widgets` feature gate to beta.", "sigs": ["node"]}}'
    )
    return root


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.relative_to(ROOT / "scripts").as_posix() for p in SCRIPTS])
def test_every_script_imports_and_has_a_main(path):
    assert callable(getattr(load_script(path), "main", None))


def test_docs_contributing_lists_every_script_in_its_group():
    table = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8").split("## Scripts", 1)[1]
    listed = set(re.findall(r"(?m)^\| `((?:bench|check|gen)/\w+\.py)", table))
    on_disk = {p.relative_to(ROOT / "scripts").as_posix() for p in (ROOT / "scripts").rglob("*.py")}
    assert on_disk - listed == set()
    assert listed - on_disk == set()


def test_bench_history_runs(bundle, monkeypatch, capsys):
    rc, out = _run(
        monkeypatch,
        capsys,
        "bench/bench_history.py",
        "--runs",
        "1",
        "--bundle",
        str(bundle / "enh.bundle"),
        "--page",
        str(bundle / "page.md"),
    )
    assert rc in (0, 1)  # 1 only when a timing misses its target: not asserted (a busy machine)
    assert out.splitlines()[0] == (
        "stale rows=1 applied changes=2 with upstream=2 ({'source': 'git', 'requests': 0, "
        "'proposed': 2, 'with_upstream': 2}) plain plan changes=2"
    )
    assert [line.split(":")[0] for line in out.splitlines()[1:]] == [
        "plan without history (for scale)",
        "provenance added, first run",
        "provenance added, later runs",
        "digest as a new process, cold cache",
        "digest as a new process, warm cache",
    ]


def test_body_size_runs(bundle, monkeypatch, capsys, tmp_path):
    rc, out = _run(
        monkeypatch,
        capsys,
        "check/body_size.py",
        "--bundle",
        str(bundle / "enh.bundle"),
        "--page",
        str(bundle / "page.md"),
        "--notes",
        str(bundle / "notes"),
        "--gates",
        "",
        "--body",
        str(tmp_path / "body.md"),
    )
    body = (tmp_path / "body.md").read_text()
    assert rc == 0 and body.startswith("**kep-sync**: 2 changes in 1 KEP (1 promoted, 1 retargeted), from `")
    seen = visible_text(body)  # the bot's reading agrees with the script's own
    clone = body.split("from `", 1)[1].split("`", 1)[0]  # the script's clone, in TMPDIR: its spaces split words
    words = 53 + len(clone.split()) - 1
    assert "### Changes" in body and len(seen.split()) == words
    assert out == (
        f"visible_chars={len(seen)} visible_words={words} visible_lines={visible_lines(body)} gate_list_named=0 "
        f"body_chars={len(body)}\n"
    )


def test_bench_release_notes_runs(bundle, monkeypatch, capsys):
    rc, out = _run(
        monkeypatch,
        capsys,
        "bench/bench_release_notes.py",
        "--runs",
        "1",
        "--notes",
        str(bundle / "notes"),
        "--bundle",
        str(bundle / "enh.bundle"),
    )
    assert rc in (0, 1)
    assert out.splitlines()[0] == "releases=1 json_bytes=97 keps=1 mentions=1 runs=1"


def test_check_digest_runs(bundle, monkeypatch, capsys, tmp_path):
    repo = tmp_path / "enh"
    subprocess.run(["git", "clone", "-q", str(bundle / "enh.bundle"), str(repo)], check=True)
    rc, out = _run(
        monkeypatch,
        capsys,
        "check/check_digest.py",
        str(repo),
        "--sig",
        "node",
        "--from",
        "v1.33",
        "--to",
        "v1.35",
        "--at",
        "2025-07-01",
    )
    assert rc == 0
    assert out.splitlines()[1:] == ["stable: 0 []", "beta: 0 []", "alpha: 1 [100]"]


def test_check_coverage_runs(tmp_path, capsys):
    (tmp_path / "cov.md").write_text("| Group | Representative KEPs |\n|---|---|\n| Widgets | 100, 200 |\n")
    (tmp_path / "m.md").write_text(PAGE + "| [300](https://kep.k8s.io/300) | implementable / alpha | v1.33 | - | - |\n")
    module = load_script(ROOT / "scripts" / "check" / "check_coverage.py")
    rc = module.main([str(tmp_path / "cov.md"), str(tmp_path / "m.md")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "300" in out and "200" in out


def test_bench_suite_runs_the_readme_command_and_reads_pytest_output(monkeypatch, capsys):
    module = load_script(ROOT / "scripts" / "bench" / "bench_suite.py")
    assert "\n    " + " ".join(module.COMMAND) + "\n" in (ROOT / "README.md").read_text(encoding="utf-8")
    rc, out = _run(monkeypatch, capsys, "bench/bench_suite.py", "--runs", "2", "--dry-run", "--", "--dist=worksteal")
    assert (rc, out) == (
        0,
        f"would run 2 times in {ROOT}: .venv/bin/python -m pytest -q --durations=10 --dist=worksteal\n",
    )
    output = (
        "....  [100%]\n============================= slowest 10 durations ==============================\n"
        "9.31s call     tests/harness/test_properties.py::test_publish_git_holds_every_invariant\n"
        "1.29s setup    tests/acceptance/test_acceptance_watch.py::test_every_v1_37_row\n"
        "0.20s teardown tests/a.py::t[x y]\n\n(2 durations < 0.005s hidden.  Use -vv to show these durations.)\n"
        "2087 passed, 2 skipped in 41.20s\nfake GitHub: 3 answers checked against tests/github-openapi/subset.json\n"
    )
    assert module.closing_line(output) == "2087 passed, 2 skipped in 41.20s"
    assert module.closing_line("= 1 failed, 2088 passed in 50.01s =\n") == "1 failed, 2088 passed in 50.01s"
    assert module.closing_line("== no tests ran in 0.82s ==\n") == "no tests ran in 0.82s"
    assert module.closing_line("== 3 deselected in 0.80s ==\n") == "3 deselected in 0.80s"
    assert (
        module.passed("2087 passed, 2 skipped in 41.20s"),
        module.passed("1 failed in 2s"),
        module.closing_line(""),
    ) == (
        2087,
        0,
        "",
    )
    assert module.slowest(output) == [
        "9.31s call     tests/harness/test_properties.py::test_publish_git_holds_every_invariant",
        "1.29s setup    tests/acceptance/test_acceptance_watch.py::test_every_v1_37_row",
        "0.20s teardown tests/a.py::t[x y]",
    ]
    runs = iter([(40.0, 66.0, output, 0), (1.5, 2.0, "== no tests ran in 0.82s ==\n", 5)])
    monkeypatch.setattr(module, "run_once", lambda extra: next(runs))
    monkeypatch.setattr(sys, "argv", ["bench_suite.py", "--runs", "2"])
    assert module.main() == 1
    assert capsys.readouterr().out.splitlines()[-1] == "not a measurement: run 2 exited 5 with no tests ran in 0.82s"


def test_check_calendar_reads_a_tiny_copy_both_ways(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "releases" / "release-1.37"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(
        "The v1.37 release cycle is proposed as follows:\n\n"
        "- **Monday 18th May 2026**: Week 1 — Release cycle begins\n"
        "- **Wednesday 22nd July 2026 (AoE) / Thursday 23rd July 2026, 12:00 UTC**: Week 10 — [Code Freeze][x]\n\n"
        "## Timeline\n\n| What | Who | When | Week |\n|---|---|---|---|\n"
        "| Start of Release Cycle | Lead | Monday 18th May 2026 | week 1 |\n"
        "| **Begin [Code Freeze]** | BM | Wednesday 22nd July 2026 (AoE) / Thursday 23rd July 2026, 12:00 UTC | 10 |\n"
        "| **v1.37.0 released** | BM | Wednesday 26th August 2026 | week 15 |\n"
    )
    rc, out = _run(monkeypatch, capsys, "check/check_calendar.py", "--sig-release", str(tmp_path))
    assert rc == 0
    assert [line.split() for line in out.splitlines() if "DISAGREE" in line] == [
        ["release_day", "summary", "-", "timeline", "2026-08-26", "DISAGREE"]
    ]
    assert out.splitlines()[-1] == "5 key dates agree, 1 disagree"
