"""Unit tests for bot.sources.release_notes: directory and GitHub forms (respx), ETag cache, errors, CLI flag."""

from __future__ import annotations

import json
import os

import pytest

import bot.sources.release_notes as rn
from bot.cli.main import main
from bot.errors import ConfigError, UsageError
from bot.model.kep import Problem
from bot.sources.release_notes import (
    NotesSource,
    ReleaseNotes,
    load_release_notes,
    parse_notes,
    parse_notes_source,
    select_releases,
    with_missing,
)
from tests.notesutil import SKIPPED_37, body, cli_tree, entry, missing, notes_135, notes_136, notes_dir


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


def test_parse_notes_source(tmp_path):
    assert parse_notes_source("github:kubernetes/sig-release@main") == NotesSource(
        "github", "kubernetes/sig-release", "main"
    )
    assert parse_notes_source("github:a/b") == NotesSource("github", "a/b", "master")
    assert parse_notes_source(str(tmp_path)) == NotesSource("dir", str(tmp_path))
    for bad in ("github:nope", str(tmp_path / "missing")):
        with pytest.raises(UsageError, match="--release-notes"):
            parse_notes_source(bad)


def test_select_releases_wanted_plus_newest_two():
    available = ["v1.37", "v1.20", "v1.36", "v1.35", "v1.9"]
    assert select_releases(available, ["1.20", "v1.35", "v1.12", "junk"]) == ["v1.20", "v1.35", "v1.36", "v1.37"]
    assert select_releases(available, []) == ["v1.36", "v1.37"]
    assert select_releases(available, None) == ["v1.9", "v1.20", "v1.35", "v1.36", "v1.37"]
    assert select_releases(available, [], newest=0) == []


def test_with_missing_names_each_needed_release_up_to_the_newest_available():
    notes = ReleaseNotes("src", ("v1.35", "v1.36"), {"v1.36": {}}, (Problem("x", "", "old"),))
    wanted = ["1.34", "v1.35", "v1.36", "v1.37", "junk"]  # v1.37 is later than the newest available: not made yet
    got = with_missing(notes, wanted)
    assert got.problems == (Problem("x", "", "old"), missing("src", "v1.34"), missing("src", "v1.35"))
    assert (got.source, got.available, got.notes) == (notes.source, notes.available, notes.notes)
    assert with_missing(got, wanted) == got  # idempotent
    assert with_missing(ReleaseNotes("src", (), {}, ()), ["v1.40"]).problems == (missing("src", "v1.40"),)


@pytest.mark.parametrize(
    "data, why",
    [
        (
            b'{"1": {"text": "a"},\n}',
            "not valid JSON at line 2 column 1: Expecting property name enclosed in double quotes",
        ),
        (b"[]", "expected a JSON object keyed by pull request number, found list"),
        (b'"text"', "expected a JSON object keyed by pull request number, found str"),
        (b"\xff", "not UTF-8 (invalid start byte at byte 0)"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to decode"),
        (b'{"1": ' * 100_000 + b"1" + b"}" * 100_000, "JSON nested too deeply to decode"),
    ],
)
def test_a_broken_file_is_one_problem_naming_it_and_never_raises(data, why):
    assert parse_notes("x.json", data, "v1.37") == (None, [Problem("x.json", "", f"{why}; {SKIPPED_37}")])


def test_parse_notes_skips_entries_without_text():
    entries, problems = parse_notes("x.json", body(notes_136()))
    assert sorted(entries) == ["9101", "9103", "9104", "9105", "9106"]
    assert problems == [Problem("x.json", "9107", "release-note entry has no text; skipped")]


def test_a_do_not_publish_that_is_not_a_boolean_is_read_safely_and_reported():
    from bot.plan.evidence import build_index
    from tests.notesutil import fixture_keps

    text = "Promoted the `WidgetGate` feature gate to beta."
    doc = {
        str(pr): entry(pr, text, do_not_publish=value)
        for pr, value in [(1, "true"), (2, 1), (3, "TRUE "), (4, "false"), (5, 0), (6, True), (7, False), (8, ["x"])]
    }
    entries, problems = parse_notes("release-notes-1.36.json", json.dumps(doc).encode(), "v1.36")
    assert {k: e["do_not_publish"] for k, e in entries.items()} == {
        "1": True,
        "2": True,
        "3": True,
        "4": False,
        "5": False,
        "6": True,
        "7": False,
        "8": True,
    }
    assert problems == [
        Problem(
            "release-notes-1.36.json",
            "1",
            'do_not_publish is "true" (str), not true/false; read as true (withdrawn: never evidence)',
        ),
        Problem(
            "release-notes-1.36.json",
            "2",
            "do_not_publish is 1 (int), not true/false; read as true (withdrawn: never evidence)",
        ),
        Problem(
            "release-notes-1.36.json",
            "3",
            'do_not_publish is "TRUE " (str), not true/false; read as true (withdrawn: never evidence)',
        ),
        Problem("release-notes-1.36.json", "4", 'do_not_publish is "false" (str), not true/false; read as false'),
        Problem("release-notes-1.36.json", "5", "do_not_publish is 0 (int), not true/false; read as false"),
        Problem(
            "release-notes-1.36.json",
            "8",
            'do_not_publish is ["x"] (list), not true/false; read as true (withdrawn: never evidence)',
        ),
    ]
    idx = build_index({"v1.36": entries}, fixture_keps())
    assert sorted(m.pr for m in idx.mentions) == [4, 5, 7]  # only the entries not withdrawn are evidence


def test_directory_reads_only_the_wanted_and_newest_releases(tmp_path):
    d = notes_dir(tmp_path)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.35"])
    assert got.source == str(d)
    assert got.available == ("v1.34", "v1.35", "v1.36", "v1.37")
    assert sorted(got.notes) == ["v1.35", "v1.36", "v1.37"]
    assert got.notes["v1.35"] == notes_135()
    assert got.problems == (
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
    )
    assert not (tmp_path / "cache").exists()


def test_directory_without_a_needed_release_says_so(tmp_path):
    d = notes_dir(tmp_path)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.20", "v1.35", "v1.38"])
    assert sorted(got.notes) == ["v1.35", "v1.36", "v1.37"]
    assert got.problems == (
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
        missing(str(d), "v1.20"),
    )


def test_directory_with_broken_files_skips_those_releases_and_reads_the_rest(tmp_path):
    d = notes_dir(tmp_path)
    (d / "release-notes-1.37.json").write_text('{"1": {"text": "a"}}\n{oops')
    (d / "release-notes-1.35.json").write_bytes(b"[" * 100_000)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.35"])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems == (
        Problem(
            str(d / "release-notes-1.35.json"),
            "",
            "JSON nested too deeply to decode; evidence and checks for v1.35 were skipped",
        ),
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
        Problem(str(d / "release-notes-1.37.json"), "", f"not valid JSON at line 2 column 1: Extra data; {SKIPPED_37}"),
    )  # v1.35 is wanted, yet told once: with_missing sees it was skipped
    assert with_missing(got, ["v1.35"]) == got


def test_directory_with_an_unreadable_or_special_file_skips_that_release(tmp_path):
    d = notes_dir(tmp_path)
    (d / "release-notes-1.37.json").unlink()
    (d / "release-notes-1.37.json").symlink_to(tmp_path / "nowhere")
    got = load_release_notes(str(d), tmp_path / "cache", [])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems[-1] == Problem(
        str(d / "release-notes-1.37.json"), "", f"cannot read release notes: No such file or directory; {SKIPPED_37}"
    )
    (d / "release-notes-1.37.json").unlink()
    os.mkfifo(d / "release-notes-1.37.json")  # opened without waiting for a writer, then refused
    got = load_release_notes(str(d), tmp_path / "cache", [])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems[-1] == Problem(
        str(d / "release-notes-1.37.json"), "", f"cannot read release notes: not a regular file (FIFO); {SKIPPED_37}"
    )


def test_directory_that_cannot_be_listed_is_a_config_error(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"^release_notes.source \(--release-notes\) '.*/gone': cannot list release "
        r"notes: No such file or directory$",
    ):
        rn._load_directory(tmp_path / "gone", None, 2)


def test_a_source_without_release_notes_is_a_config_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("notes elsewhere")
    with pytest.raises(ConfigError) as exc:
        load_release_notes(str(empty), tmp_path / "cache", None)
    assert str(exc.value) == (
        f"release_notes.source (--release-notes) {str(empty)!r}: no release-notes-1.NN.json file in the directory"
    )
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "release-notes-1.36.json").write_text("[]")
    (broken / "release-notes-1.37.json").write_text("{\n")
    with pytest.raises(ConfigError) as exc:
        load_release_notes(str(broken), tmp_path / "cache", None)
    assert str(exc.value) == (  # a config error, exit 2: no word of checks "skipped" as if the run went on
        f"release_notes.source (--release-notes) {str(broken)!r}: the source has no usable release notes (every "
        "release-notes file read is unusable; nothing was checked):\n"
        f"{broken / 'release-notes-1.36.json'}: expected a JSON object keyed by pull request number, found list\n"
        f"{broken / 'release-notes-1.37.json'}: not valid JSON at line 2 column 1: Expecting property name enclosed "
        "in double quotes"
    )


def test_cli_exits_2_for_a_release_notes_directory_without_notes(tmp_path, monkeypatch, capsys, _reset_structlog):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    (tmp_path / "none").mkdir()
    rc = main(
        [
            "sync",
            "--enhancements",
            str(enh),
            "--wiki",
            str(wiki),
            "--page",
            "m.md",
            "--release-notes",
            str(tmp_path / "none"),
        ]
    )
    assert rc == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kep-sync: error: release_notes.source (--release-notes) {str(tmp_path / 'none')!r}: no "
        "release-notes-1.NN.json file in the directory"
    )
