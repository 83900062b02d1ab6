"""``--report`` never names a file the run reads (bot/cli/output.py ``report_path``): the config file, the gate
list, the release notes, the enhancements source, the cache, a token file, by name or through a symbolic or hard
link; refused with both named before anything is read or written (exit 2), in sync, audit and watch alike."""

from __future__ import annotations

import os
import tarfile

import pytest

from bot.cli.main import main
from tests.cliutil import SYNC, error_line
from tests.syncutil import tree

pytestmark = pytest.mark.usefixtures("_reset_structlog")

CONFIG = "# hand-written, with comments\nrelease_notes: {review: page}\n"
GATES = '- name: GenericWorkload\n  versionedSpecs:\n  - {version: "1.36", preRelease: Alpha}\n'


@pytest.fixture
def inputs(work, monkeypatch):
    """``work`` plus the config ``c.yaml``, a gate list, a release notes directory, a snapshot tarball of
    ``enh``, a token file and links to some of them from elsewhere."""
    (work / "c.yaml").write_text(CONFIG)
    (work / "gates.yaml").write_text(GATES)
    (work / "notes").mkdir()
    (work / "notes" / "release-notes-1.37.json").write_text("{}\n")
    with tarfile.open(work / "enh.tar.gz", "w:gz") as tar:
        tar.add(work / "enh", arcname="enhancements-master")
    (work / "token").write_text("not-a-real-token\n")
    (work / "cache").mkdir()
    (work / "wiki" / ".git").mkdir()
    (work / "wiki" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (work / "config-link.yaml").symlink_to("c.yaml")
    os.link(work / "c.yaml", work / "config-hard.yaml")
    os.link(work / "notes" / "release-notes-1.37.json", work / "notes-hard.json")
    records = work / "sr" / "releases" / "release-1.37"
    records.mkdir(parents=True)
    (records / "README.md").write_text("# 1.37\n")
    (records / "exceptions.yaml").write_text("enhancementFreeze: []\n")
    os.link(records / "exceptions.yaml", work / "exceptions-hard.yaml")
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(work / "token"))
    return work


KEP_YAML = "enh/keps/sig-scheduling/4671-gang-scheduling/kep.yaml"


@pytest.mark.parametrize(
    ("extra", "report", "named"),
    [
        ([], "c.yaml", "the config file 'c.yaml'"),
        ([], "./config-link.yaml", "the config file 'c.yaml'"),
        ([], "config-hard.yaml", "the config file 'c.yaml'"),
        (["--gate-lifecycle", "gates.yaml"], "gates.yaml", "the gate list (gate_lifecycle.source) 'gates.yaml'"),
        (["--release-notes", "notes"], "notes/new.json", "inside the release notes (release_notes.source) 'notes'"),
        (
            ["--release-notes", "notes"],
            "notes-hard.json",
            "the release notes (release_notes.source) 'notes/release-notes-1.37.json'",
        ),
        ([], KEP_YAML, "inside the KEPs of enhancements 'enh/keps'"),
        (["--sig-release", "sr"], "sr/new.json", "inside the release team's records (release.sig_release) 'sr'"),
        (
            ["--sig-release", "sr"],
            "sr/releases/release-1.37/README.md",
            "inside the release team's records (release.sig_release) 'sr'",
        ),
        (
            ["--sig-release", "sr/releases"],
            "exceptions-hard.yaml",
            "the release team's records (release.sig_release) 'sr/releases/release-1.37/exceptions.yaml'",
        ),
        (["--enhancements", "enh.tar.gz"], "enh.tar.gz", "the enhancements source 'enh.tar.gz'"),
        ([], "token", "$GITHUB_TOKEN_FILE '{work}/token'"),
        ([], "cache/r.json", "inside the cache directory (cache_dir) '{work}/cache'"),
        ([], "wiki/.git/HEAD", "inside the git directory of the wiki 'wiki/.git'"),
    ],
)
def test_a_report_path_that_is_an_input_of_the_run_is_refused_naming_both(inputs, capsys, extra, report, named):
    before = tree(inputs)
    for command in ("sync", "audit", "watch"):
        args = [command, *SYNC[1:], "--config", "c.yaml", "--publish", "none", *extra, "--report", report]
        assert main(args) == 2, command
        assert error_line(capsys) == (
            f"kep-sync: error: --report {report!r} is {named.format(work=inputs)}, an input of this run; the report "
            "would overwrite it (choose another file)"
        )
    assert tree(inputs) == before


def test_the_config_found_through_the_variable_is_an_input_too(inputs, capsys, monkeypatch):
    monkeypatch.setenv("KEP_SYNC_CONFIG", "c.yaml")
    assert main([*SYNC, "--publish", "none", "--report", "config-hard.yaml"]) == 2
    assert "is the config file 'c.yaml', an input of this run" in error_line(capsys)
    assert (inputs / "c.yaml").read_text() == CONFIG


def test_a_report_beside_the_inputs_is_written(inputs, capsys):
    args = ["--config", "c.yaml", "--gate-lifecycle", "gates.yaml", "--release-notes", "notes"]
    assert main([*SYNC, *args, "--publish", "files", "--report", "r.json"]) == 0
    capsys.readouterr()
    assert (inputs / "r.json").read_text().startswith("{")
    assert ((inputs / "c.yaml").read_text(), (inputs / "gates.yaml").read_text()) == (CONFIG, GATES)


def test_the_records_named_by_the_config_are_an_input_too(inputs, capsys):
    (inputs / "c.yaml").write_text(CONFIG + "release: {sig_release: sr}\n")
    report = "sr/releases/release-1.37/exceptions.yaml"
    assert main([*SYNC, "--config", "c.yaml", "--publish", "none", "--report", report]) == 2
    assert error_line(capsys) == (
        f"kep-sync: error: --report {report!r} is inside the release team's records (release.sig_release) 'sr', an "
        "input of this run; the report would overwrite it (choose another file)"
    )
    assert (inputs / report).read_text() == "enhancementFreeze: []\n"


def test_publish_files_refuses_a_page_that_links_into_the_records(inputs, capsys):
    page = inputs / "sr" / "releases" / "release-1.37" / "README.md"
    (inputs / "wiki" / "r.md").symlink_to(page)
    args = ["sync", *SYNC[1:5], "--page", "r.md", "--sig-release", "sr", "--publish", "files"]
    assert main(args) == 2
    assert error_line(capsys) == (
        "kep-sync: error: wiki page 'r.md' is inside the release team's records (release.sig_release) 'sr' (through "
        "a link), an input of this run; --publish files would overwrite it"
    )
    assert page.read_text() == "# 1.37\n"
    assert main([*args[:-1], "none"]) == 2  # a dry run goes on: the page holds no KEP table
    assert "wiki.pages[0] 'r.md': no table with a KEP column" in error_line(capsys)


def test_a_report_path_that_is_a_directory_is_a_usage_error(inputs, capsys):
    before = tree(inputs)
    (inputs / "out").mkdir()
    for command in ("sync", "audit", "watch"):
        assert main([command, *SYNC[1:], "--config", "c.yaml", "--report", "out"]) == 2, command
        assert error_line(capsys) == "kep-sync: error: --report 'out' is a directory; name a file"
    assert tree(inputs) == before and list((inputs / "out").iterdir()) == []
