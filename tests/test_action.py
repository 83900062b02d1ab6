"""The composite action (action.yml): its inputs reach kep-sync through env only, its outputs are the ones
kep-sync writes to ``$GITHUB_OUTPUT`` (bot/commands/next_steps.py). actionlint checks workflows, not action.yml."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from bot.commands.next_steps import action_outputs
from tests.syncutil import kep, write_keps

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}


def test_inputs_and_outputs():
    assert set(ACTION["inputs"]) == {"config", "publish", "keps", "dry-run", "target", "token"}
    assert {name: spec["default"] for name, spec in ACTION["inputs"].items()} == {
        "config": "config/kep-sync.yaml",
        "publish": "github",
        "keps": "",
        "dry-run": "false",
        "target": "",
        "token": "${{ github.token }}",
    }
    assert ACTION["runs"]["using"] == "composite"
    names = set(action_outputs(None))
    assert set(ACTION["outputs"]) == names == {"pull-request-number", "pull-request-url", "pull-request-operation"}
    sync_id = STEPS["Sync"]["id"]
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.{sync_id}.outputs.{name} }}}}"


def test_every_input_reaches_the_sync_step_through_env_and_no_run_script_expands_one():
    env = STEPS["Sync"]["env"]
    assert {value for value in env.values()} >= {f"${{{{ inputs.{name} }}}}" for name in ACTION["inputs"]}
    assert env["GITHUB_TOKEN"] == "${{ inputs.token }}"
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], step["name"]  # expressions in scripts are an injection risk
        used = set(re.findall(r"\$\{?([A-Z_]+)", step["run"]))
        assert used - set(step.get("env", {})) <= {"RUNNER_TEMP", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}, step["name"]
    run = STEPS["Sync"]["run"]
    assert 'args=(sync --config "$CONFIG" --publish "$publish")' in run
    assert 'args+=(--report "$RUNNER_TEMP/kep-sync-report.json")' in run
    assert 'args+=(--kep "$KEPS")' in run


def test_the_summary_runs_on_every_outcome_with_the_shipped_script():
    summary = STEPS["Job summary"]
    assert summary["if"] == "always()"
    assert summary["env"]["OUTCOME"] == f"${{{{ steps.{STEPS['Sync']['id']}.outcome }}}}"
    assert 'PYTHONPATH="$ACTION_PATH" python3 -m bot.step_summary' in summary["run"]
    assert (ROOT / "bot" / "step_summary.py").is_file() and (ROOT / "requirements.lock").is_file()


def _step(name: str, tmp_path: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-e", "-c", STEPS[name]["run"]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "RUNNER_TEMP": str(tmp_path),
            "ACTION_PATH": str(ROOT),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            **env,
        },
    )


def test_a_target_of_a_config_with_targets_syncs_and_is_summarized(tmp_path):
    write_keps(tmp_path / "keps", kep(4671, "gang"))
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.md").write_text(
            "| KEP | Status |\n|---|---|\n| 4671-gang | provisional |\n", encoding="utf-8"
        )
    (tmp_path / "c.yaml").write_text(
        f"enhancements: {tmp_path / 'keps'}\ncache_dir: {tmp_path / 'cache'}\nprovenance: {{enabled: false}}\n"
        f"wiki: {{pages: [m.md]}}\ntargets:\n  - {{name: a, wiki: {{dir: {tmp_path / 'a'}}}}}\n"
        f"  - {{name: b, wiki: {{dir: {tmp_path / 'b'}}}}}\n",
        encoding="utf-8",
    )
    env = {
        "CONFIG": "c.yaml",
        "PUBLISH": "files",
        "KEPS": "",
        "DRY_RUN": "false",
        "TARGET": "b",
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "OUTCOME": "success",
    }
    assert _step("Sync", tmp_path, env).returncode == 0
    assert (tmp_path / "kep-sync-changelog.md").read_text(encoding="utf-8") == "b\tok\t-\n"
    assert (tmp_path / "b" / "m.md").read_text(encoding="utf-8").splitlines()[2] == "| 4671-gang | implementable |"
    assert (tmp_path / "a" / "m.md").read_text(encoding="utf-8").splitlines()[2] == "| 4671-gang | provisional |"
    assert (tmp_path / "out").read_text(encoding="utf-8") == (
        'results={"b":"ok"}\nfailed=[]\nblocked=[]\npull-request-url=\npull-request-number=\n'
    )
    assert _step("Job summary", tmp_path, env).returncode == 0
    changelog = (tmp_path / "kep-sync-state" / "targets" / "b" / "last-run" / "changelog.md").read_text(
        encoding="utf-8"
    )
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").endswith(changelog.rstrip("\n") + "\n")
