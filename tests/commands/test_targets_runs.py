"""Many wikis from one config, run: one failing target never stops the others, --target, upstream read once,
one process for all, pacing (the config and selection are tests/commands/test_targets.py's)."""

from __future__ import annotations

import datetime
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from bot.cli import main as cli
from bot.commands.inputs import Inputs
from bot.commands.targets import Target, expand
from bot.config import Config, validate_config
from bot.publish import pacing
from bot.service.multi import run_targets, summary_lines
from tests.cliutil import shown
from tests.commands.targetcases import ROW, SRC, expand_targets
from tests.publishutil import ENV, PAGE, PAGE_PATH, fresh_logging, keps  # noqa: F401 - fixture
from tests.syncutil import kep, write_keps

# ---------------------------------------------------------------- runs


def _deployment(tmp_path: Path, names: list[str], missing: str = "") -> Path:
    write_keps(tmp_path / "keps-src", kep(4671, "gang", stage="beta", alpha="v1.35", beta="v1.37"))
    lines = [
        f"enhancements: {tmp_path / 'keps-src'}",
        f"cache_dir: {tmp_path / 'cache'}",
        "publish: files",
        "provenance: {enabled: false}",
        "wiki: {pages: [m.md]}",
        "targets:",
    ]
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
        "c\tok\t-\n"
    )
    for name in ("a", "c"):
        assert (tmp_path / name / "m.md").read_text(encoding="utf-8") == ROW.replace(
            "implementable / alpha | v1.35 / - / -", "implementable / beta | v1.35 / v1.37 / -"
        )
    records = {n: json.loads((state / "targets" / n / "state.json").read_text())["last_run"] for n in "abc"}
    assert {n: (r["result"], r["applied"]) for n, r in records.items()} == {
        "a": ("ok", 2),
        "b": ("failed", 0),
        "c": ("ok", 2),
    }
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
    config = validate_config(
        {
            "enhancements": str(write_keps(tmp_path / "k", kep(4671, "gang"))),
            "cache_dir": str(tmp_path / "cache"),
            "provenance": {"enabled": False},
            "wiki": {"pages": ["m.md"]},
            "targets": [{"name": n, "wiki": {"dir": str(tmp_path / n)}} for n in "xyz"],
        },
        SRC,
    )
    for n in "xyz":
        (tmp_path / n).mkdir()
        (tmp_path / n / "m.md").write_text(ROW, encoding="utf-8")
    loads = []

    def load(cfg, counter):
        loads.append(cfg.enhancements)
        return Inputs(cfg, counter).snapshot()

    targets = expand(config, SRC)
    shared = Inputs(targets[0].config, load=load)
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
    results = run_targets(targets, tmp_path, Inputs(targets[0].config, load=load))
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
    config = validate_config(
        {
            "publish": "github",
            "github": {"api_url": fake_github.url},
            "wiki": {"base": "main", "pages": [PAGE_PATH]},
            "pull_request": {"branch": BRANCH},
            "provenance": {"enabled": False},
            "targets": entries,
        },
        SRC,
    )
    targets = expand(config, SRC)
    snap = keps()
    results = run_targets(targets, tmp_path, Inputs(targets[0].config, load=lambda c, k: snap))
    assert [(r.name, r.result, r.pull_request) for r in results] == [
        ("one", "ok", "https://github.com/acme/one/pull/1"),
        ("two", "ok", "https://github.com/acme/two/pull/1"),
    ]
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


def _targets_workflow() -> dict:
    import yaml

    return yaml.safe_load((ROOT / ".github" / "workflows" / "kep-sync-targets.yml").read_text(encoding="utf-8"))


def test_the_targets_workflow_fans_out_from_the_listed_targets():
    flow = _targets_workflow()
    sync = flow["jobs"]["sync"]
    assert (sync["needs"], sync["strategy"]["fail-fast"]) == ("list", False)
    assert sync["strategy"]["matrix"]["target"] == "${{ fromJSON(needs.list.outputs.targets) }}"
    assert 'targets="$(kep-sync "${args[@]}")"' in flow["jobs"]["list"]["steps"][-1]["run"]
    assert all("${{" not in step.get("run", "") for job in flow["jobs"].values() for step in job["steps"])


def test_the_targets_workflow_shares_the_concurrency_group_and_runs_only_when_asked():
    flow = _targets_workflow()
    kep_sync = yaml_load(ROOT / ".github" / "workflows" / "kep-sync.yml")
    assert flow["concurrency"] == kep_sync["concurrency"] == {"group": "kep-sync", "cancel-in-progress": False}
    assert list(flow[True]) == ["workflow_dispatch"]  # YAML 1.1 reads the key `on` as True
    assert [step["name"] for step in flow["jobs"]["list"]["steps"][-2:]] == [
        "Validate the configuration",
        "List the targets",
    ]
    steps = {step.get("name"): step for step in flow["jobs"]["sync"]["steps"]}
    assert steps["Upload the changelog and report"]["with"]["path"] == "${{ steps.last.outputs.dir }}/"
    assert steps["Job summary"]["if"] == "always()"


def _run_step(step: dict, cwd: Path, env: dict) -> tuple[int, str]:
    out = cwd / "github-output"
    out.write_text("", encoding="utf-8")
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            **env,
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": os.devnull,
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        },
    )
    return done.returncode, out.read_text(encoding="utf-8")


def test_the_list_step_fails_on_a_broken_config_and_the_last_run_step_finds_the_directory(tmp_path):
    steps = {step.get("name"): step for job in _targets_workflow()["jobs"].values() for step in job["steps"]}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "kep-sync.yaml").write_text(
        "targets: [{name: a, wiki: {repo: o/a}}, {name: b, wiki: {repo: o/b}}]\n", encoding="utf-8"
    )
    assert _run_step(steps["List the targets"], tmp_path, {"ONLY": "b, "}) == (0, 'targets=["b"]\n')
    (tmp_path / "config" / "kep-sync.yaml").write_text("targets: [{name: a, bad: 1}]\n", encoding="utf-8")
    assert _run_step(steps["List the targets"], tmp_path, {"ONLY": ""}) == (2, "")
    (tmp_path / "state" / "last-run").mkdir(parents=True)
    summary = dict(steps["Job summary"], run=steps["Job summary"]["run"].replace("python -m bot.step_summary", "true"))
    assert _run_step(summary, tmp_path, {"TARGET": "default"}) == (0, "dir=state/last-run\n")
    (tmp_path / "state" / "targets" / "a" / "last-run").mkdir(parents=True)
    assert _run_step(summary, tmp_path, {"TARGET": "a"}) == (0, "dir=state/targets/a/last-run\n")


def yaml_load(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_a_misconfigured_source_or_state_dir_is_a_usage_error_before_any_target_runs(tmp_path, capsys):
    config = _deployment(tmp_path, ["a", "b"])
    state = tmp_path / "state"
    assert (
        cli.main(["sync", "--config", str(config), "--state-dir", str(state), "--enhancements", str(tmp_path / "none")])
        == 2
    )
    assert capsys.readouterr().err.endswith(
        f"kep-sync: error: enhancements (--enhancements) '{tmp_path / 'none'}': not a directory with keps/, a .tar.gz "
        "snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF\n"
    )
    assert not state.exists()
    state.write_text("", encoding="utf-8")
    assert cli.main(["sync", "--config", str(config), "--state-dir", str(state)]) == 2
    assert capsys.readouterr() == (
        "",
        f"kep-sync: error: --state-dir '{state}': not a directory (the state "
        "directory: --state-dir or $KEP_SYNC_STATE_DIR)\n",
    )
    assert (tmp_path / "a" / "m.md").read_text(encoding="utf-8") == ROW


def test_sync_with_targets_logs_in_the_format_asked(tmp_path, capsys):
    config = _deployment(tmp_path, ["a"])
    assert cli.main(["sync", "--config", str(config), "--state-dir", str(tmp_path / "s"), "--log-format", "text"]) == 0
    err = capsys.readouterr().err
    assert re.fullmatch(  # one console line, not JSON
        r"\S+Z \[info     \] targets finished +command=sync duration_seconds=[0-9.]+ failed=\[\] "
        r"http_requests=0 targets=1\n",
        err,
    )
    assert [line for line in err.splitlines() if line.startswith("{")] == []


def test_validate_checks_the_paths_of_every_target(tmp_path, capsys):
    config = _deployment(tmp_path, ["a", "b", "c"], missing="c")
    text = config.read_text(encoding="utf-8").replace(str(tmp_path / "b"), str(tmp_path / "nowhere"))
    config.write_text(
        text.replace(f"enhancements: {tmp_path / 'keps-src'}", f"enhancements: {tmp_path / 'no'}"), encoding="utf-8"
    )
    assert cli.main(["validate", "--config", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: {config}: enhancements: '{tmp_path / 'no'}': not a directory with keps/, a .tar.gz "
        "snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF\n"
        f"kep-sync: error: {config}: targets[1].wiki.dir {shown(tmp_path / 'nowhere')}: no such directory\n"
        f"kep-sync: error: {config}: targets[2].wiki.pages[0] 'm.md': no such file (under the wiki directory "
        f"{shown(tmp_path / 'c')})\n"
    )


def test_health_with_targets_is_unhealthy_once_the_service_is_gone(tmp_path, capsys):
    from bot.service.liveness import process_identity
    from bot.service.state import RunRecord, State, save_state

    config = _deployment(tmp_path, ["a"])
    state = tmp_path / "s"
    now = datetime.datetime.now(datetime.UTC).isoformat()
    good = RunRecord(run_id="r1", started=now, finished=now, result="ok", revision="abc")
    save_state(state / "targets" / "a", State(last_run=good, last_success=good))
    save_state(state, State(service_started=now, service_process=process_identity()))
    assert cli.main(["health", "--config", str(config), "--state-dir", str(state)]) == 0
    assert capsys.readouterr().out == f"a: healthy: last run r1 ok at {now}, revision abc\n"
    save_state(state, State(service_started=now, service_process="999999999:1@gone"))
    assert cli.main(["health", "--config", str(config), "--state-dir", str(state)]) == 1
    assert capsys.readouterr().out == (
        f"a: unhealthy: the service that recorded this state (pid 999999999, started {now}) is no longer running\n"
    )


def test_serve_and_health_refuse_an_unknown_target_as_sync_does(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(f"wiki: {{dir: {tmp_path}}}\n", encoding="utf-8")
    base = ["--config", str(path), "--state-dir", str(tmp_path / "s"), "--target", "x"]
    why = "--target 'x': no such target; the config has: default"
    for command in ("sync", "serve"):
        assert cli.main([command, *base]) == 2
        assert capsys.readouterr().err == f"kep-sync: error: {why}\n"
    assert cli.main(["health", *base]) == 1  # never 2: Docker reserves it in health checks
    assert capsys.readouterr().out == f"unhealthy: configuration error: {why}\n"
    assert not (tmp_path / "s").exists()


def test_serve_of_a_shard_without_the_one_target_runs_nothing(tmp_path):
    from bot.cli.targets import serve_job

    config = validate_config({"wiki": {"dir": str(tmp_path)}}, SRC)
    args = cli.build_parser().parse_args(["serve", "--shard", "0/2"])  # shard_of("default", 2) == 1
    job = serve_job(args, config)
    assert job is not None and job() is None
    assert serve_job(cli.build_parser().parse_args(["serve", "--shard", "1/2"]), config) is None
    assert list(tmp_path.iterdir()) == []


def test_targets_with_stdout_closed_say_so_without_a_traceback(tmp_path):
    config = _deployment(tmp_path, ["a"])
    root = Path(__file__).resolve().parents[2]
    for command, what in (
        ("targets", "the targets"),
        (f"sync --state-dir {shlex.quote(str(tmp_path / 's'))}", "the summary"),
    ):
        done = subprocess.run(
            f"{shlex.quote(sys.executable)} -m bot.cli {command} --config {shlex.quote(str(config))} "
            "--log-format json >&-",
            shell=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        assert (done.returncode, done.stderr.splitlines()[-1]) == (
            1,
            f"kep-sync: error: cannot write {what} to standard output: it is closed",
        )


def test_a_run_of_targets_writes_step_outputs_and_warns_of_each_blocked_target(tmp_path, monkeypatch, capsys):
    from bot.cli.targets import tell_actions
    from bot.service.multi import TargetResult

    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    targets = expand_targets(
        {"name": "a", "wiki": {"repo": "o/a"}},
        {"name": "b", "wiki": {"repo": "o/b"}, "pull_request": {"branch": "bot/b"}},
    )
    tell_actions(targets, [TargetResult("a", "failed", error="x"), TargetResult("b", "blocked")])
    assert out.read_text(encoding="utf-8") == 'results={"a":"failed","b":"blocked"}\nfailed=["a"]\nblocked=["b"]\n'
    assert capsys.readouterr().err == (
        "::warning title=kep-sync target b blocked::kep-sync target b was blocked: the bot branch bot/b has commits "
        "kep-sync did not make, so nothing was published. Add the label kep-sync:regenerate to the pull request, "
        "or delete the branch.\n"
    )
    config = _deployment(tmp_path, ["c"])
    out.write_text("", encoding="utf-8")
    assert cli.main(["sync", "--config", str(config), "--state-dir", str(tmp_path / "s")]) == 0
    assert out.read_text(encoding="utf-8") == (
        'results={"c":"ok"}\nfailed=[]\nblocked=[]\npull-request-url=\npull-request-number=\n'
    )


def test_targets_from_app_installations_is_refused_with_what_to_do_instead(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("targets_from: app-installations\n", encoding="utf-8")
    for command in ("validate", "targets", "sync"):
        assert cli.main([command, "--config", str(path)]) == 2
        assert capsys.readouterr().err == (
            f"kep-sync: error: {path}: targets_from: 'app-installations' is not supported: kep-sync does not read "
            "targets from the GitHub App's installations; list each wiki under targets: instead\n"
        )


def test_audit_reads_the_one_target_named(tmp_path, capsys):
    config = _deployment(tmp_path, ["a", "b"])
    text = config.read_text(encoding="utf-8").replace(
        "wiki: {pages: [m.md]}", "wiki: {pages: [m.md], dir: /placeholder}"
    )
    config.write_text(text, encoding="utf-8")
    assert cli.main(["audit", "--config", str(config)]) == 2
    assert capsys.readouterr().err == (
        "kep-sync: error: 2 targets selected; this command reads one wiki: name it "
        "with --target NAME (the config has: a, b)\n"
    )
    assert cli.main(["audit", "--config", str(config), "--target", "b"]) == 0
    assert capsys.readouterr().out.split("\n")[2] == (
        f"**kep-sync audit** of m.md against `{tmp_path / 'keps-src'}` at `working tree` and no release notes. "
        "Nothing was written."
    )


def test_serve_with_targets_asks_for_the_upstream_revision_once_per_poll(tmp_path, monkeypatch):
    import bot.service.job
    import bot.sources.enhancements
    from bot.cli.targets import serve_job
    from bot.sources.enhancements import current_revision

    config_path = _deployment(tmp_path, ["a", "b", "c"])
    subprocess.run(["git", "init", "-q", str(tmp_path / "keps-src")], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path / "keps-src"),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "keps",
            "--allow-empty",
        ],
        check=True,
    )
    asked = []

    def spy(*args, **kwargs):
        asked.append(args[0])
        return current_revision(*args, **kwargs)

    monkeypatch.setattr(bot.service.job, "current_revision", spy)
    monkeypatch.setattr(bot.sources.enhancements, "current_revision", spy)
    args = cli.build_parser().parse_args(["serve", "--config", str(config_path), "--state-dir", str(tmp_path / "s")])
    job = serve_job(args, cli.resolve_config(args))
    for polls in (1, 2):
        job()
        assert asked == [str(tmp_path / "keps-src")] * polls
    records = [json.loads((tmp_path / "s" / "targets" / n / "state.json").read_text())["last_run"] for n in "abc"]
    assert [(r["result"], r["applied"]) for r in records] == [("ok", 0)] * 3
