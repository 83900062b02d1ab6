"""One truth about the configuration: a configured page without a KEP table is a configuration error for
``sync``, ``audit``, ``validate`` and ``serve``'s run alike; no config file found says so and where it looked;
paths in a config file are read from its directory (bot/configpaths.py, bot/commands/sync.py, bot/cli/main.py)."""

from __future__ import annotations

import json
import os

import pytest
from structlog.testing import capture_logs

from bot.cli.main import main
from bot.config import load_config
from bot.configpaths import anchor_paths, config_relative
from bot.service.job import run_job

try:
    from tests.cliutil import error_line
except ImportError:  # pragma: no cover
    from cliutil import error_line

pytestmark = pytest.mark.usefixtures("_reset_structlog")

DATES = "# Decisions\n\n| Date | Decision |\n|---|---|\n| 2026-01-20 | track 4671 |\n"
WHY = (
    "wiki.pages[1] 'dates.md': no table with a KEP column (a header named 'KEP'); its tables are headed "
    "'Date | Decision': if it holds no KEP matrix, remove it from wiki.pages; else add the KEP column's header to "
    "columns.kep (kep-sync init writes it)"
)


@pytest.fixture
def dated(work):
    (work / "wiki" / "dates.md").write_text(DATES, encoding="utf-8")
    (work / "c.yaml").write_text(
        json.dumps({"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md", "dates.md"]}})
    )
    return work


@pytest.mark.parametrize("command", ["sync", "audit"])
def test_a_configured_page_without_a_kep_table_stops_a_run_with_exit_2(dated, capsys, command):
    before = (dated / "wiki" / "m.md").read_bytes()
    assert main([command, "--config", "c.yaml", "--publish", "files", "--report", "r.json"]) == 2
    assert error_line(capsys) == f"kep-sync: error: {WHY}"
    assert (dated / "wiki" / "m.md").read_bytes() == before  # nothing written, not even the other page
    assert json.loads((dated / "r.json").read_text())["result"] == "failed"


def test_validate_says_the_same(dated, capsys):
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert error_line(capsys) == f"kep-sync: error: c.yaml: {WHY} (under the wiki directory 'wiki')"


def test_a_scheduled_run_fails_with_the_same_error(dated):
    config = load_config(dated / "c.yaml")
    with capture_logs() as logs:
        record = run_job(config, dated / "state", force=True)
    assert (record.result, record.error) == ("failed", WHY)
    (finished,) = [e for e in logs if e["event"] == "run finished"]
    assert (finished["result"], finished["error"]) == ("failed", WHY)


@pytest.mark.parametrize("command", ["sync", "audit", "validate", "serve"])
def test_no_config_file_found_says_so_and_names_the_paths_tried(work, capsys, command):
    assert main([command]) == 2
    assert error_line(capsys) == (
        f"kep-sync: error: no config file found: looked for kep-sync.yaml and config/kep-sync.yaml in {work} "
        "(no --config given, $KEP_SYNC_CONFIG not set); write one with kep-sync init --wiki DIR, or name it "
        "with --config FILE"
    )


def test_the_file_init_writes_is_found_without_config(work, capsys):
    (work / "kep-sync.yaml").write_text(json.dumps({"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md"]}}))
    assert main(["validate"]) == 0
    assert capsys.readouterr().out == "ok\n"


def test_a_run_named_by_its_options_needs_no_config_file(work, capsys):
    assert main(["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md"]) == 0
    assert capsys.readouterr().out.startswith("# Update KEP matrix")


def test_paths_in_a_config_file_are_read_from_its_directory(work, capsys, monkeypatch):
    (work / "conf").mkdir()
    (work / "conf" / "k.yaml").write_text(
        json.dumps({"enhancements": "../enh", "cache_dir": "../cache", "wiki": {"dir": "../wiki", "pages": ["m.md"]}})
    )
    config = load_config(work / "conf" / "k.yaml")
    assert (config.enhancements, config.cache_dir, config.wiki.dir) == (
        str(work / "enh"),
        str(work / "cache"),
        str(work / "wiki"),
    )
    monkeypatch.chdir(work / "wiki")
    assert main(["validate", "--config", "../conf/k.yaml"]) == 0
    assert capsys.readouterr().out == "ok\n"
    assert main(["sync", "--config", "../conf/k.yaml", "--wiki", "."]) == 0  # an option is the working directory's
    assert capsys.readouterr().out.startswith("# Update KEP matrix")


def test_only_relative_local_paths_are_anchored():
    data = {
        "enhancements": "github:kubernetes/enhancements@master",
        "cache_dir": "~/.cache/kep-sync",
        "wiki": {"dir": "/srv/wiki", "pages": ["m.md"]},
        "release_notes": {"source": "https://example.org/notes.git"},
        "gate_lifecycle": {"source": "lists"},
        "targets": [{"name": "a", "wiki": {"dir": "../a"}}, {"name": "b", "wiki": {"repo": "o/b"}}],
    }
    assert anchor_paths(data, "conf/k.yaml") == {
        **data,
        "gate_lifecycle": {"source": "conf/lists"},
        "targets": [{"name": "a", "wiki": {"dir": "a"}}, {"name": "b", "wiki": {"repo": "o/b"}}],
    }
    assert anchor_paths(data, "k.yaml") is data  # in the working directory already
    assert anchor_paths({"wiki": {"dir": 5}}, "conf/k.yaml") == {"wiki": {"dir": 5}}  # left for validation


def test_init_writes_paths_from_the_config_files_directory(tmp_path):
    conf = str(tmp_path / "conf" / "k.yaml")
    assert config_relative(str(tmp_path / "wiki"), conf) == "../wiki"
    assert config_relative(str(tmp_path / "conf"), conf) == "."
    assert config_relative("github:o/r@main", conf) == "github:o/r@main"
    assert config_relative(os.sep + "opt", conf) == os.sep + "opt"  # nothing shared below the root


@pytest.mark.parametrize("command", ["validate", "sync"])
def test_a_path_written_for_the_working_directory_says_where_it_was_read_from(work, capsys, command):
    (work / "conf").mkdir()
    (work / "conf" / "k.yaml").write_text(json.dumps({"enhancements": "enh", "wiki": {"dir": "wiki"}}))
    assert main([command, "--config", "conf/k.yaml"]) == 2
    said = "'conf/enh': not a directory with keps/, a .tar.gz snapshot, a git repository, a bundle, a URL or "
    said += f"github:OWNER/REPO@REF (written 'enh' in conf/k.yaml, read from that file's directory conf; relative to {work})"
    key = "conf/k.yaml: enhancements: " if command == "validate" else "enhancements (--enhancements) "
    out, err = capsys.readouterr()
    assert (out, err.splitlines()[0]) == ("", f"kep-sync: error: {key}{said}")


def test_a_missing_page_names_the_directory_its_wiki_dir_was_read_from(work, capsys):
    (work / "conf").mkdir()
    (work / "conf" / "k.yaml").write_text(
        json.dumps({"enhancements": "../enh", "wiki": {"dir": ".", "pages": ["m.md"]}})
    )
    assert main(["validate", "--config", "conf/k.yaml"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: conf/k.yaml: wiki.pages[0] 'm.md': no such file (under the wiki directory 'conf'; "
        "written '.' in conf/k.yaml, read from that file's directory conf)"
    )


FIRST = {"validate": "ok", "sync": "# Update KEP matrix", "audit": "# ", "watch": "Watch of "}


@pytest.mark.parametrize("command", ["validate", "sync", "audit", "watch"])
def test_a_wiki_dir_under_home_written_with_a_tilde_is_read_by_every_command(work, capsys, monkeypatch, command):
    monkeypatch.setenv("HOME", str(work))
    (work / "k.yaml").write_text(json.dumps({"enhancements": "~/enh", "wiki": {"dir": "~/wiki", "pages": ["m.md"]}}))
    assert main([command, "--config", "k.yaml"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(FIRST[command])
