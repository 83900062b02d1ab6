"""The composite action (action.yml): its inputs reach kep-sync through env only, its outputs are the ones
kep-sync writes to ``$GITHUB_OUTPUT`` (bot/commands/next_steps.py). actionlint checks workflows, not action.yml."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.commands.next_steps import action_outputs

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}


def test_inputs_and_outputs():
    assert set(ACTION["inputs"]) == {"config", "publish", "keps", "dry-run", "token"}
    assert {name: spec["default"] for name, spec in ACTION["inputs"].items()} == {
        "config": "config/kep-sync.yaml", "publish": "github", "keps": "", "dry-run": "false",
        "token": "${{ github.token }}"}
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
    assert 'args=(sync --config "$CONFIG" --publish "$publish" --report "$RUNNER_TEMP/kep-sync-report.json")' in run
    assert 'args+=(--kep "$KEPS")' in run


def test_the_summary_runs_on_every_outcome_with_the_shipped_script():
    summary = STEPS["Job summary"]
    assert summary["if"] == "always()"
    assert summary["env"]["OUTCOME"] == f"${{{{ steps.{STEPS['Sync']['id']}.outcome }}}}"
    assert '"$ACTION_PATH/scripts/step_summary.py"' in summary["run"]
    assert (ROOT / "scripts" / "step_summary.py").is_file() and (ROOT / "requirements.lock").is_file()
