"""Many wikis from one config: parsing ``targets:``, --target/--shard, one process for all, pacing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import cli
from bot.commands.sync import load_enhancements
from bot.commands.targets import Shard, Target, expand, parse_shard, select, shard_of, state_dir_of
from bot.config import Config, validate_config
from bot.errors import ConfigError, UsageError
from bot.publish import pacing
from bot.service.multi import SharedSources, run_targets, summary_lines
from tests.publishutil import ENV, PAGE, PAGE_PATH, fresh_logging, keps  # noqa: F401 - fixture
from tests.syncutil import kep, write_keps

SRC = "t.yaml"
ROW = "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n| 4671-gang | implementable / alpha | v1.35 / - / - |\n"


def _targets(*entries, **top) -> list[Target]:
    return expand(validate_config({**top, "targets": list(entries)}, SRC), SRC)


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
    a, b = _targets({"name": "a", "wiki": {"repo": "acme/a"}, "pull_request": {"labels": ["x"]}},
                    {"name": "b", "wiki": {"pages": ["m.md"]}, "feature_gates": "owned"},
                    wiki={"dir": "top", "base": "main"}, publish="files", enhancements="/k")
    assert (a.name, a.config.wiki.repo, a.config.wiki.dir, a.config.wiki.base, a.config.wiki.pages) == \
        ("a", "acme/a", "top", "main", ["kubernetes-keps-implementation-matrix.md"])
    assert (a.config.pull_request.labels, a.config.pull_request.branch, a.config.feature_gates) == \
        (["x"], "kep-sync/matrix", "report")
    assert (b.config.wiki.repo, b.config.wiki.dir, b.config.wiki.pages, b.config.feature_gates) == \
        (None, "top", ["m.md"], "owned")
    assert (a.config.enhancements, b.config.publish, a.config.targets, a.own_dir) == ("/k", "files", [], True)
    assert state_dir_of(Path("/s"), b) == Path("/s/targets/b")


def test_target_names_are_unique_and_named_by_their_key():
    assert _errors({"targets": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}) == [
        "t.yaml: targets[2].name: 'a' is also the name of targets[0]; target names must be unique"]


def test_bad_target_keys_are_each_named():
    data = {"targets": [{"name": "Bad Name"}, {"name": "ok", "enhancements": "/k"},
                        {"name": "c", "wiki": {"repo": "x"}}, {"wiki": {"dir": "w"}}]}
    assert _errors(data) == [
        "t.yaml: targets[0].name: 'Bad Name': expected a target name: lower-case letters, digits, '.', '_' and '-', "
        "at most 63",
        "t.yaml: targets[1].enhancements: unknown key (value '/k')",
        "t.yaml: targets[2].wiki.repo: 'x': expected OWNER/NAME of a GitHub repository",
        "t.yaml: targets[3].name: required, missing"]


def test_merged_settings_are_checked_per_target():
    data = {"publish": "github", "targets": [{"name": "a", "wiki": {"repo": "acme/a"}}, {"name": "b"}]}
    assert _errors(data) == ["t.yaml: targets[1].wiki.repo: required when publish is github "
                             "(OWNER/NAME of the wiki repository)"]


def test_validate_names_a_target_problem(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("publish: github\ntargets:\n  - name: a\n", encoding="utf-8")
    assert cli.main(["validate", "--config", str(path)]) == 2
    assert capsys.readouterr().err == (f"kep-sync: error: {path}: targets[0].wiki.repo: required when publish is "
                                       "github (OWNER/NAME of the wiki repository)\n")


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
    for bad, why in (("4/4", "'4/4': I must be at least 0 and less than N (0/4 .. 3/4)"),
                     ("1", "'1': expected I/N such as 0/4 (share I of N, counted from 0)"),
                     ("0/0", "'0/0': I must be at least 0 and less than N (0/1 .. 0/1)")):
        with pytest.raises(ValueError) as err:
            parse_shard(bad)
        assert str(err.value) == why


def test_targets_command_prints_json_for_a_matrix(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("targets:\n" + "".join(f"  - name: {n}\n" for n in NAMES), encoding="utf-8")
    assert cli.main(["targets", "--config", str(path)]) == 0
    assert cli.main(["targets", "--config", str(path), "--shard", "2/3"]) == 0
    assert cli.main(["validate", "--config", str(path), "--list-targets"]) == 0
    assert capsys.readouterr().out == (json.dumps(NAMES) + "\n" + '["alpha", "epsilon"]\n'
                                       + json.dumps(NAMES) + "\n")
    with pytest.raises(SystemExit) as exited:
        cli.main(["targets", "--config", str(path), "--shard", "3/3"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith("argument --shard: '3/3': I must be at least 0 and less than N "
                                            "(0/3 .. 2/3)\n")


# ---------------------------------------------------------------- runs


def _deployment(tmp_path: Path, names: list[str], missing: str = "") -> Path:
    write_keps(tmp_path / "keps-src", kep(4671, "gang", stage="beta", alpha="v1.35", beta="v1.37"))
    lines = [f"enhancements: {tmp_path / 'keps-src'}", f"cache_dir: {tmp_path / 'cache'}", "publish: files",
             "provenance: {enabled: false}", "wiki: {pages: [m.md]}", "targets:"]
    for name in names:
        (tmp_path / name).mkdir()
        if name != missing:
            (tmp_path / name / "m.md").write_text(ROW, encoding="utf-8")
        lines.append(f"  - {{name: {name}, wiki: {{dir: {tmp_path / name}}}}}")
    path = tmp_path / "c.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_one_failing_target_never_stops_the_others(tmp_path, capsys):
    config = _deployment(tmp_path, ["a", "b", "c"], missing="b")
    state = tmp_path / "state"
    assert cli.main(["sync", "--config", str(config), "--state-dir", str(state)]) == 1
    assert capsys.readouterr().out == (
        "a\tok\t-\n"
        f"b\tfailed\t-\twiki.pages (--page) 'm.md': no such file under the wiki directory '{tmp_path / 'b'}'\n"
        "c\tok\t-\n")
    for name in ("a", "c"):
        assert (tmp_path / name / "m.md").read_text(encoding="utf-8") == ROW.replace(
            "implementable / alpha | v1.35 / - / -", "implementable / beta | v1.35 / v1.37 / -")
    records = {n: json.loads((state / "targets" / n / "state.json").read_text())["last_run"] for n in "abc"}
    assert {n: (r["result"], r["applied"]) for n, r in records.items()} == \
        {"a": ("ok", 2), "b": ("failed", 0), "c": ("ok", 2)}
    assert json.loads((state / "targets" / "b" / "last-run" / "report.json").read_text())["result"] == "failed"
    assert sorted(p.name for p in (state / "targets" / "a").iterdir()) == ["last-run", "lock", "state.json"]
    assert not (state / "state.json").exists()  # the root holds only the targets' directories


def test_target_option_runs_only_that_target(tmp_path, capsys):
    config = _deployment(tmp_path, ["a", "b"])
    assert cli.main(["sync", "--config", str(config), "--state-dir", str(tmp_path / "s"), "--target", "b"]) == 0
    assert capsys.readouterr().out == "b\tok\t-\n"
    assert (tmp_path / "a" / "m.md").read_text(encoding="utf-8") == ROW
    assert sorted(p.name for p in (tmp_path / "s" / "targets").iterdir()) == ["b"]


def test_upstream_is_read_once_for_every_target(tmp_path):
    config = validate_config({"enhancements": str(write_keps(tmp_path / "k", kep(4671, "gang"))),
                              "cache_dir": str(tmp_path / "cache"), "provenance": {"enabled": False},
                              "wiki": {"pages": ["m.md"]},
                              "targets": [{"name": n, "wiki": {"dir": str(tmp_path / n)}} for n in "xyz"]}, SRC)
    for n in "xyz":
        (tmp_path / n).mkdir()
        (tmp_path / n / "m.md").write_text(ROW, encoding="utf-8")
    loads = []

    def load(cfg, counter):
        loads.append(cfg.enhancements)
        return load_enhancements(cfg, counter)

    targets = expand(config, SRC)
    shared = SharedSources(targets[0].config, load=load)
    results = run_targets(targets, tmp_path / "s", shared)
    assert [(r.name, r.result) for r in results] == [("x", "ok"), ("y", "ok"), ("z", "ok")]
    assert loads == [str(tmp_path / "k")]


def test_a_snapshot_that_cannot_be_read_fails_every_target_once(tmp_path):
    calls = []

    def load(cfg, counter):
        calls.append(1)
        from bot.errors import SourceError

        raise SourceError("upstream down")

    targets = [Target(n, Config(publish="none"), True) for n in ("p", "q")]
    results = run_targets(targets, tmp_path, SharedSources(targets[0].config, load=load))
    assert summary_lines(results) == ["p\tfailed\t-\tupstream down", "q\tfailed\t-\tupstream down"]
    assert calls == [1]


# ---------------------------------------------------------------- pacing


def test_pacer_spaces_writes_and_lets_reads_through():
    now = [10.0]
    pacer = pacing.WritePacer(clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    pacer.before("POST", 1.0)
    pacer.after("POST")  # ends at 10.0
    now[0] = 10.25
    pacer.before("GET", 1.0)
    pacer.after("GET")
    pacer.before("PATCH", 1.0)  # 0.75 s left of the interval
    pacer.after("PATCH")  # ends at 11.0
    pacer.before("DELETE", 0.0)  # a client with no pacing
    assert pacer.waits == [0.75]


def test_writes_are_paced_across_targets_not_per_target(monkeypatch, fake_github, tmp_path):
    from tests.publishutil import BRANCH

    waits: list[float] = []
    monkeypatch.setattr(pacing, "PACER", pacing.WritePacer(clock=lambda: 50.0, sleep=waits.append))
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    entries = []
    for repo in ("acme/one", "acme/two"):
        fake_github.seed_repo(repo, {PAGE_PATH: PAGE})
        entries.append({"name": repo.split("/")[1], "wiki": {"repo": repo}})
    config = validate_config({"publish": "github", "github": {"api_url": fake_github.url},
                              "wiki": {"base": "main", "pages": [PAGE_PATH]}, "pull_request": {"branch": BRANCH},
                              "provenance": {"enabled": False},
                              "targets": entries}, SRC)
    targets = expand(config, SRC)
    snap = keps()
    results = run_targets(targets, tmp_path, SharedSources(targets[0].config, load=lambda c, k: snap))
    assert [(r.name, r.result, r.pull_request) for r in results] == [
        ("one", "ok", "https://github.com/acme/one/pull/1"), ("two", "ok", "https://github.com/acme/two/pull/1")]
    # the clock stands still: every write but the very first of the process waits the whole interval
    assert waits == [1.0] * (fake_github.writes - 1)


# ---------------------------------------------------------------- where users run it

ROOT = Path(__file__).resolve().parents[2]


def test_the_indexed_job_spreads_every_shard_once():
    import yaml

    cron = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "cronjob.yaml").read_text(encoding="utf-8"))
    job = cron["spec"]["jobTemplate"]["spec"]
    container = job["template"]["spec"]["containers"][0]
    assert (cron["spec"]["concurrencyPolicy"], job["completionMode"]) == ("Forbid", "Indexed")
    shard = container["args"][container["args"].index("--shard") + 1]
    assert shard == f"$(JOB_COMPLETION_INDEX)/{job['completions']}"
    assert job["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_targets_workflow_fans_out_from_the_listed_targets():
    import yaml

    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "kep-sync-targets.yml").read_text(encoding="utf-8"))
    sync = flow["jobs"]["sync"]
    assert (sync["needs"], sync["strategy"]["fail-fast"]) == ("list", False)
    assert sync["strategy"]["matrix"]["target"] == "${{ fromJSON(needs.list.outputs.targets) }}"
    assert "kep-sync \"${args[@]}\"" in flow["jobs"]["list"]["steps"][-1]["run"]
    assert all("${{" not in step.get("run", "") for job in flow["jobs"].values() for step in job["steps"])
