"""Many wikis from one config: parsing ``targets:``, --target/--shard, one process for all, pacing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.cli import main as cli
from bot.commands.targets import Shard, Target, expand, parse_shard, select, shard_of, state_dir_of
from bot.config import Config, read_config_data, validate_config
from bot.errors import ConfigError, UsageError
from tests.commands.targetcases import SRC, expand_targets
from tests.publishutil import ENV, PAGE, PAGE_PATH, fresh_logging, keps  # noqa: F401 - fixture


def _errors(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        expand(validate_config(data, SRC), SRC)
    return str(err.value).split("\n")


# ---------------------------------------------------------------- config


def test_no_targets_is_one_default_target_with_the_config_itself():
    config = validate_config({"wiki": {"dir": "w"}}, SRC)
    assert expand(config, SRC) == [Target("default", config, False)]
    assert "targets" not in config.model_dump_json()  # the serve fingerprint of an old config is unchanged
    assert state_dir_of(Path("/s"), expand(config, SRC)[0]) == Path("/s")


def test_target_sections_merge_key_by_key_over_the_top_level():
    a, b = expand_targets(
        {"name": "a", "wiki": {"repo": "acme/a"}, "pull_request": {"labels": ["x"]}},
        {"name": "b", "wiki": {"pages": ["m.md"]}, "feature_gates": "owned", "pull_request": {"branch": "kep-sync/b"}},
        wiki={"dir": "top", "base": "main"},
        publish="files",
        enhancements="/k",
    )
    assert (a.name, a.config.wiki.repo, a.config.wiki.dir, a.config.wiki.base, a.config.wiki.pages) == (
        "a",
        "acme/a",
        "top",
        "main",
        ["kubernetes-keps-implementation-matrix.md"],
    )
    assert (a.config.pull_request.labels, a.config.pull_request.branch, a.config.feature_gates) == (
        ["x"],
        "kep-sync/matrix",
        "report",
    )
    assert (b.config.wiki.repo, b.config.wiki.dir, b.config.wiki.pages, b.config.feature_gates) == (
        None,
        "top",
        ["m.md"],
        "owned",
    )
    assert (a.config.enhancements, b.config.publish, a.config.targets, a.own_dir) == ("/k", "files", [], True)
    assert state_dir_of(Path("/s"), b) == Path("/s/targets/b")


def test_target_names_are_unique_and_named_by_their_key():
    assert _errors({"targets": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}) == [
        "t.yaml: targets[2].name: 'a' is also the name of targets[0]; target names must be unique"
    ]


def test_bad_target_keys_are_each_named():
    data = {
        "targets": [
            {"name": "Bad Name"},
            {"name": "ok", "enhancements": "/k"},
            {"name": "c", "wiki": {"repo": "x"}},
            {"wiki": {"dir": "w"}},
        ]
    }
    assert _errors(data) == [
        "t.yaml: targets[0].name: 'Bad Name': expected a target name: lower-case letters, digits, '.', '_' and '-', "
        "at most 63",
        "t.yaml: targets[1].enhancements: shared by every target: set it at the top level, not under a target "
        "(value '/k')",
        "t.yaml: targets[2].wiki.repo: 'x': expected OWNER/NAME of a GitHub repository",
        "t.yaml: targets[3].name: required, missing",
    ]


def test_merged_settings_are_checked_per_target():
    data = {"publish": "github", "targets": [{"name": "a", "wiki": {"repo": "acme/a"}}, {"name": "b"}]}
    assert _errors(data) == [
        "t.yaml: targets[1].wiki.repo: required when publish is github (OWNER/NAME of the wiki repository)"
    ]


def test_validate_names_a_target_problem(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("publish: github\ntargets:\n  - name: a\n", encoding="utf-8")
    assert cli.main(["validate", "--config", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: {path}: targets[0].wiki.repo: required when publish is "
        "github (OWNER/NAME of the wiki repository)\n"
    )


def test_validate_refuses_two_targets_on_one_wiki_and_branch(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(
        "publish: github\ntargets:\n  - {name: a, wiki: {repo: acme/W}}\n"
        "  - {name: b, wiki: {repo: acme/x}}\n  - {name: c, wiki: {repo: Acme/w}}\n"
        "  - {name: d, wiki: {repo: acme/w}, pull_request: {branch: kep-sync/d}}\n",
        encoding="utf-8",
    )
    assert cli.main(["validate", "--config", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: {path}: targets[2].pull_request.branch: 'kep-sync/matrix': targets 'c' and 'a' "
        "(targets[0]) write the same wiki (wiki.repo 'acme/w') on the same branch and would overwrite each "
        "other's commits; give one its own pull_request.branch or wiki\n"
    )
    assert cli.main(["sync", "--config", str(path), "--state-dir", str(tmp_path / "s")]) == 2
    assert not (tmp_path / "s").exists()


def test_two_targets_on_one_wiki_directory_are_refused_by_its_resolved_path(tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "w")
    data = {
        "publish": "git",
        "targets": [
            {"name": "a", "wiki": {"dir": str(tmp_path / "w"), "repo": "acme/a", "pages": ["a.md"]}},
            {"name": "b", "wiki": {"dir": str(tmp_path / "link"), "repo": "acme/b", "pages": ["b.md"]}},
        ],
    }
    assert _errors(data) == [
        "t.yaml: targets[1].pull_request.branch: 'kep-sync/matrix': targets 'b' and 'a' (targets[0]) write the same "
        f"wiki (wiki.dir '{tmp_path / 'w'}') on the same branch and would overwrite each other's commits; give one "
        "its own pull_request.branch or wiki"
    ]
    assert [t.name for t in expand_targets(*data["targets"], publish="github")] == ["a", "b"]  # two repositories


def test_two_targets_that_write_one_file_are_refused_whatever_their_branches(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "m.md").write_text("| KEP |\n|---|\n")
    (tmp_path / "w" / "d.md").write_text("<!-- kep-sync:digest:begin -->\n<!-- kep-sync:digest:end -->\n")
    (tmp_path / "path").write_text(
        "enhancements: enh\nwiki: {dir: w, pages: [m.md]}\npublish: files\ntargets:\n"
        "  - {name: a, digest: {page: d.md, sig: node, from: v1.30, to: v1.31}, pull_request: {branch: k/a}}\n"
        "  - {name: b, wiki: {pages: [n.md]}, digest: {page: ./d.md, sig: node, from: v1.33, to: v1.34}, "
        "pull_request: {branch: k/b}}\n",
        encoding="utf-8",
    )
    d = str(tmp_path / "w" / "d.md")
    line = (
        f"kep-sync: error: path: targets[1].digest.page: './d.md': targets 'b' and 'a' (targets[0]) write the same "
        f"file ({d!r}) and would overwrite each other's writes; give one its own wiki.dir or page\n"
    )
    assert cli.main(["validate", "--config", "path"]) == 2
    assert capsys.readouterr().err == line
    assert cli.main(["sync", "--config", "path", "--state-dir", "s"]) == 2
    assert capsys.readouterr().err.endswith(line)
    assert not (tmp_path / "s").exists()  # refused before any target ran
    none = read_config_data(tmp_path / "path") | {"publish": "none"}  # writes nothing: no overlap
    assert [t.name for t in expand(validate_config(none, SRC), SRC)] == ["a", "b"]


def test_a_page_reached_through_a_link_is_the_file_it_links_to(tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "m.md").write_text("x")
    (tmp_path / "w" / "hard.md").hardlink_to(tmp_path / "w" / "m.md")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "soft.md").symlink_to(tmp_path / "w" / "m.md")
    one = {"name": "a", "wiki": {"dir": str(tmp_path / "w"), "pages": ["m.md"]}}
    m = str(tmp_path / "w" / "m.md")
    for i, (wiki_dir, page) in enumerate([("w", "hard.md"), ("other", "soft.md")]):
        other = {"name": "b", "wiki": {"dir": str(tmp_path / wiki_dir), "pages": ["x.md", page]}}
        shown = os.path.realpath(tmp_path / wiki_dir / page)
        assert _errors({"publish": "git", "targets": [one, other]}) == [
            f"t.yaml: targets[1].wiki.pages[1]: {page!r}: targets 'b' and 'a' (targets[0]) write the same file "
            f"({shown!r}) and would overwrite each other's writes; give one its own wiki.dir or page"
        ], i
    assert shown == m
    other = {"name": "b", "wiki": {"dir": str(tmp_path / "w"), "pages": ["n.md"]}}
    assert [t.name for t in expand_targets(one, other, publish="files")] == ["a", "b"]  # two pages of one directory


# ---------------------------------------------------------------- selection

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon"]


def test_shard_is_a_stable_hash_of_the_name():
    # SHA-256 of the name, first 8 bytes big-endian, mod N (pinned: a change would move every deployment)
    assert [shard_of(n, 3) for n in NAMES] == [2, 0, 0, 1, 2]
    targets = [Target(n, Config(), True) for n in NAMES]
    shares = [[t.name for t in select(targets, shard=Shard(i, 3))] for i in range(3)]
    assert shares == [["beta", "gamma"], ["delta"], ["alpha", "epsilon"]]
    assert [t.name for t in select(targets, ["epsilon", "beta"])] == ["beta", "epsilon"]  # config order
    assert [t.name for t in select(targets, ["beta", "delta"], Shard(0, 3))] == ["beta"]


def test_unknown_target_and_bad_shard_are_usage_errors():
    with pytest.raises(UsageError, match=r"^--target 'zeta': no such target; the config has: alpha, beta$"):
        select([Target("alpha", Config()), Target("beta", Config())], ["alpha", "zeta"])
    assert parse_shard("1/4") == Shard(1, 4)
    for bad, why in (
        ("4/4", "'4/4': I must be at least 0 and less than N (0/4 .. 3/4)"),
        ("1", "'1': expected I/N such as 0/4 (share I of N, counted from 0)"),
        ("0/0", "'0/0': I must be at least 0 and less than N (0/1 .. 0/1)"),
        ("\u0661/\u0662", "'\u0661/\u0662': expected I/N such as 0/4 (share I of N, counted from 0)"),
        ("-1/2", "'-1/2': expected I/N such as 0/4 (share I of N, counted from 0)"),
    ):
        with pytest.raises(ValueError) as err:
            parse_shard(bad)
        assert str(err.value) == why


def test_targets_command_prints_json_for_a_matrix(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(
        "targets:\n" + "".join(f"  - {{name: {n}, wiki: {{repo: acme/{n}}}}}\n" for n in NAMES), encoding="utf-8"
    )
    assert cli.main(["targets", "--config", str(path)]) == 0
    assert cli.main(["targets", "--config", str(path), "--shard", "2/3"]) == 0
    assert cli.main(["validate", "--config", str(path), "--list-targets"]) == 0
    assert capsys.readouterr().out == (json.dumps(NAMES) + "\n" + '["alpha", "epsilon"]\n' + json.dumps(NAMES) + "\n")
    with pytest.raises(SystemExit) as exited:
        cli.main(["targets", "--config", str(path), "--shard", "3/3"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith(
        "argument --shard: '3/3': I must be at least 0 and less than N (0/3 .. 2/3)\n"
    )


def test_dashboard_and_automerge_are_set_per_target():
    a, b = expand_targets(
        {"name": "a", "wiki": {"repo": "acme/a"}, "dashboard": True, "pull_request": {"automerge": True}},
        {"name": "b", "wiki": {"repo": "acme/b"}},
        publish="github",
        enhancements="/k",
    )
    assert (a.config.dashboard, a.config.pull_request.automerge.enabled) == (True, True)
    assert (b.config.dashboard, b.config.pull_request.automerge.enabled) == (False, False)
