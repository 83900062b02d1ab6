"""``kep-sync init``: a first config written from the KEP tables of a wiki (bot/commands/init.py), offline."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.cli.main import main
from bot.commands.init import guess_role
from bot.config import load_config

EN = """# Matrix

## P1 Foundation

| KEP | Status | GA release | Notes |
|---|---|---|---|
| 4671-gang-scheduling | implementable / beta | v1.39 | first |
| 5710-workload-aware-preemption | implementable / alpha | - | |
"""
CJK = """# 矩阵

| 编号 | 状态 | 里程碑 (Alpha / Beta / GA) |
|---|---|---|
| KEP-4671 | implementable / beta | v1.35 / v1.37 / - |
| 5710 | implementable / alpha | v1.36 / - / - |
"""
PROSE = "# Notes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


pytestmark = pytest.mark.usefixtures("_reset_structlog")


def written(path: Path) -> dict:
    """The settings as the file writes them (paths not yet read from its directory)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture
def wiki(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "my-wiki"
    (root / "sub").mkdir(parents=True)
    (root / "en.md").write_text(EN, encoding="utf-8")
    (root / "sub" / "cjk.md").write_text(CJK, encoding="utf-8")
    (root / "notes.md").write_text(PROSE, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "x.md").write_text(EN, encoding="utf-8")  # never read: under a dot directory
    return root


def test_init_writes_a_config_with_the_pages_and_the_guessed_column_aliases(wiki, tmp_path, capsys):
    assert main(["init", "--wiki", "my-wiki"]) == 0
    out = capsys.readouterr().out
    config = load_config(tmp_path / "kep-sync.yaml")
    assert (config.wiki.dir, config.wiki.pages, config.publish) == (
        str(tmp_path / "my-wiki"),  # the file says my-wiki, read from the file's directory
        ["en.md", "sub/cjk.md"],
        "none",
    )
    assert written(tmp_path / "kep-sync.yaml")["wiki"]["dir"] == "my-wiki"
    assert config.columns.kep == ["KEP", "编号"]
    assert config.columns.milestones == ["Alpha / Beta / GA", "Alpha / Beta / Stable", "里程碑 (Alpha / Beta / GA)"]
    assert config.columns.stable == ["GA", "Stable", "GA release"]
    assert config.columns.status == ["状态", "Status"]  # known headers keep the defaults
    assert out.splitlines()[0] == "Wrote kep-sync.yaml: 2 page(s), 2 KEP table(s), 4 KEP rows."
    assert (
        "Guessed (check them in the config): 'GA release' -> columns.stable; '编号' -> columns.kep; "
        "'里程碑 (Alpha / Beta / GA)' -> columns.milestones"
    ) in out.splitlines()
    assert "Pages without a KEP table, left out: notes.md (no KEP table)" in out.splitlines()
    assert out.splitlines()[-5:] == [
        "Next, a dry run (prints the changelog, writes nothing):",
        "  kep-sync sync --config kep-sync.yaml",
        "It reads the KEPs from github:kubernetes/enhancements@master. Offline, add --enhancements PATH:",
        "a clone of kubernetes/enhancements, a git bundle or a snapshot tarball:",
        "  kep-sync sync --config kep-sync.yaml --enhancements PATH",
    ]
    assert main(["validate", "--config", "kep-sync.yaml"]) == 0


def test_the_written_config_syncs_both_tables_offline(wiki, tmp_path, capsys):
    from tests.syncutil import kep, write_keps

    write_keps(
        tmp_path / "enh",
        kep(4671, "gang-scheduling", stage="stable", alpha="v1.35", beta="v1.37", stable="v1.39", status="implemented"),
        kep(5710, "workload-aware-preemption", alpha="v1.36"),
    )
    assert main(["init", "--wiki", "my-wiki", "--enhancements", "enh", "--output", "conf/k.yaml"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-2:] == [
        "Next, a dry run (prints the changelog, writes nothing):",
        "  kep-sync sync --config conf/k.yaml",
    ]
    assert main(["sync", "--config", "conf/k.yaml", "--publish", "files"]) == 0
    capsys.readouterr()
    cjk = (wiki / "sub" / "cjk.md").read_text(encoding="utf-8")
    assert "| KEP-4671 | implemented / stable | v1.35 / v1.37 / v1.39 |" in cjk  # the guessed columns are synced
    assert "| 4671-gang-scheduling | implemented / stable | v1.39 | first |" in (wiki / "en.md").read_text()


def test_init_refuses_to_overwrite_a_config(wiki, tmp_path, capsys):
    (tmp_path / "kep-sync.yaml").write_text("publish: none\n")
    assert main(["init", "--wiki", "my-wiki"]) == 2
    assert capsys.readouterr().err == (
        "kep-sync: error: kep-sync.yaml: exists; kep-sync init never overwrites a "
        "config (remove it, or write another with --output PATH)\n"
    )
    assert (tmp_path / "kep-sync.yaml").read_text() == "publish: none\n"


def test_a_wiki_without_a_kep_table_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "notes.md").write_text(PROSE)
    assert main(["init", "--wiki", "w"]) == 2
    assert capsys.readouterr().err == (
        "kep-sync: error: w: no KEP table found in 1 page(s) read: notes.md (no KEP table) (notes.md line 3: 'a' "
        "holds row numbers); a KEP table is a markdown table with a column named 'KEP' or one where most cells "
        "name KEPs (4671, 4671-gang-scheduling, KEP-4671, #4671, a kep.k8s.io or enhancements issue link)\n"
    )
    assert not (tmp_path / "kep-sync.yaml").exists()


def test_pages_named_as_files_make_their_directory_the_wiki(wiki, tmp_path, capsys):
    assert main(["init", "--page", "my-wiki/sub/cjk.md", "--output", "c.yaml"]) == 0
    config = load_config(tmp_path / "c.yaml")
    assert (config.wiki.dir, config.wiki.pages) == (str(tmp_path / "my-wiki" / "sub"), ["cjk.md"])
    assert written(tmp_path / "c.yaml")["wiki"]["dir"] == "my-wiki/sub"
    assert written(tmp_path / "c.yaml")["columns"] == {
        "kep": ["KEP", "编号"],
        "milestones": ["Alpha / Beta / GA", "Alpha / Beta / Stable", "里程碑 (Alpha / Beta / GA)"],
    }


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ([], "name the wiki: --wiki DIR (every *.md page under it) or --page FILE (repeatable)"),
        (["--wiki", "nowhere"], "--wiki 'nowhere': no such directory (relative to {cwd})"),
        (["--wiki", "my-wiki", "--page", "gone.md"], "--page 'gone.md': no such file (relative to {cwd}/my-wiki)"),
    ],
)
def test_usage_errors_exit_2(wiki, tmp_path, capsys, args, error):
    assert main(["init", *args]) == 2
    assert capsys.readouterr().err == f"kep-sync: error: {error.format(cwd=tmp_path)}\n"


@pytest.mark.parametrize(
    ("header", "role"),
    [
        ("里程碑 (Alpha / Beta / GA)", "milestones"),
        ("GA release", "stable"),
        ("Alpha milestone", "alpha"),
        ("Target Beta release", "beta"),
        ("Feature gates in k8s", "feature_gates"),
        ("Notes", ""),
        ("GA owner", ""),
        ("Release", ""),
        ("KEP", ""),
        ("Beta testers", ""),
    ],
)
def test_only_plain_role_names_are_guessed(header, role):
    assert guess_role(header) == role


def test_page_names_and_the_directory_stay_inside_their_comment_lines(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    for name in ("a\nfeature_gates: owned #.md", "a\npublish: files #.md"):
        (tmp_path / "w" / name).write_text(EN, encoding="utf-8")
    assert main(["init", "--wiki", "w", "--output", "c.yaml"]) == 0
    text = (tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line.startswith("#") and "#.md" in line] == [
        "#   a\\nfeature_gates: owned #.md line 5 (under 'P1 Foundation'): 2 of 2 KEP cells readable, taken",
        "#   a\\npublish: files #.md line 5 (under 'P1 Foundation'): 2 of 2 KEP cells readable, taken",
    ]
    config = load_config(tmp_path / "c.yaml")
    assert (config.feature_gates, config.publish, config.wiki.pages) == (
        "report",
        "none",
        ["a\nfeature_gates: owned #.md", "a\npublish: files #.md"],
    )
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if "KEP rows" in line or "readable" in line] == [  # never a line of its own
        "Wrote c.yaml: 2 page(s), 2 KEP table(s), 4 KEP rows.",
        "a\\nfeature_gates: owned #.md line 5 (under 'P1 Foundation'): 2 of 2 KEP cells readable, taken",
        "a\\npublish: files #.md line 5 (under 'P1 Foundation'): 2 of 2 KEP cells readable, taken",
    ]


def test_a_table_after_front_matter_is_not_named_by_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "m.md").write_text(
        "---\ntitle: x\n---\n\n" + EN.split("## P1 Foundation\n\n")[1], encoding="utf-8"
    )
    assert main(["init", "--wiki", "w"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "m.md line 5: 2 of 2 KEP cells readable, taken"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--wiki", ""], "--wiki '': empty; name the wiki directory"),
        (["--wiki", "my-wiki", "--output", ""], "--output '': empty; name the config file to write"),
        (["--page", "my-wiki"], "--page 'my-wiki': a directory; name a page file, or the directory with --wiki"),
        (
            ["--wiki", "my-wiki", "--output", "my-wiki/en.md/c.yaml"],
            "my-wiki/en.md/c.yaml: cannot write: my-wiki/en.md is not a directory",
        ),
    ],
)
def test_init_says_what_is_wrong_with_an_argument(wiki, tmp_path, capsys, args, error):
    assert main(["init", *args]) == 2
    assert capsys.readouterr().err == f"kep-sync: error: {error}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my-wiki"]


def test_init_with_stdout_closed_writes_nothing_and_says_why(wiki, tmp_path):
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m bot.cli init --wiki my-wiki >&-",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert (done.returncode, done.stderr) == (
        1,
        "kep-sync: error: cannot write the summary to standard output: it is closed\n",
    )
    assert not (tmp_path / "kep-sync.yaml").exists()


def _script(directory, name="kep-sync"):
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def test_the_next_command_names_kep_sync_as_invoked_when_it_is_not_on_path(tmp_path):
    from bot.commands.init import invoked_as

    venv = _script(tmp_path / "venv" / "bin")
    other = _script(tmp_path / "other")
    assert invoked_as(venv, search_path=str(tmp_path / "venv" / "bin")) == "kep-sync"
    assert invoked_as(venv, search_path=str(tmp_path / "nowhere")) == shlex.quote(venv)
    assert invoked_as(venv, search_path=other.rsplit("/", 1)[0]) == shlex.quote(venv)  # another one first on PATH
    assert invoked_as(".venv/bin/kep-sync", search_path=str(tmp_path / "nowhere")) == ".venv/bin/kep-sync"
    assert invoked_as("/a b/kep-sync", search_path=str(tmp_path / "nowhere")) == "'/a b/kep-sync'"
    assert invoked_as("/x/bot/__main__.py", search_path=str(tmp_path / "nowhere")) == "kep-sync"


def test_init_prints_the_next_command_with_the_program_path(wiki, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", [".venv/bin/kep-sync"])
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert main(["init", "--wiki", "my-wiki"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-4] == "  .venv/bin/kep-sync sync --config kep-sync.yaml"
    assert out[-1] == "  .venv/bin/kep-sync sync --config kep-sync.yaml --enhancements PATH"


def test_the_config_header_points_at_the_configuration_reference(wiki, tmp_path, capsys):
    assert main(["init", "--wiki", "my-wiki"]) == 0
    assert (tmp_path / "kep-sync.yaml").read_text(encoding="utf-8").splitlines()[0] == (
        "# kep-sync configuration written by `kep-sync init`; every key: docs/configuration.md in kep-sync."
    )


def test_the_config_init_writes_in_a_checkout_is_ignored_by_git():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert "/kep-sync.yaml" in (root / ".gitignore").read_text(encoding="utf-8").splitlines()
