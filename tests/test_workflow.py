"""The GitHub Actions workflow: a job summary on every run (``python -m bot.step_summary``) and the audit input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from bot import step_summary
from bot.fileread import REPORT_BYTES

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "kep-sync.yml"

CHANGELOG = "# Update KEP matrix: 2 changes in 1 KEP\n\n**kep-sync**: 2 changes\n"
PR = "https://github.com/acme/wiki/pull/7"


def steps() -> dict[str, dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    return {step.get("name", step.get("uses")): step for step in workflow["jobs"]["sync"]["steps"]}


def test_the_summary_step_runs_on_every_run_and_the_sync_step_no_longer_writes_it():
    all_steps = steps()
    summary = all_steps["Job summary"]
    assert summary["if"] == "always()"
    assert summary["env"]["OUTCOME"] == "${{ steps.run.outcome }}"
    assert "python -m bot.step_summary" in summary["run"] and '>> "$GITHUB_STEP_SUMMARY"' in summary["run"]
    assert all_steps["Sync"]["id"] == "run" and "GITHUB_STEP_SUMMARY" not in all_steps["Sync"]["run"]


def test_workflow_dispatch_offers_audit_and_the_command_exists():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    inputs = workflow[True]["workflow_dispatch"]["inputs"]  # PyYAML reads the key "on" as True
    assert set(inputs) == {"dry_run", "keps", "audit"}
    assert (inputs["audit"]["type"], inputs["audit"]["default"]) == ("boolean", False)
    assert "args=(audit --config config/kep-sync.yaml --report kep-sync-report.json)" in steps()["Sync"]["run"]
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "audit", "--help"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.startswith("usage: kep-sync audit")


def test_a_good_run_shows_the_pull_request_and_the_changelog():
    report = {"result": "ok", "pull_request": PR}
    assert step_summary.summary(report, CHANGELOG, "success") == f"Pull request: {PR}\n\n{CHANGELOG}"
    assert step_summary.summary({"result": "ok", "pull_request": None}, CHANGELOG, "success") == CHANGELOG


def test_a_blocked_run_says_so_first():
    text = step_summary.summary({"result": "blocked", "pull_request": PR}, CHANGELOG, "success")
    assert text == (
        "**kep-sync sync was blocked**: a commit kep-sync did not make is on the bot branch, so nothing "
        "was written. Add the label `kep-sync:regenerate` to the pull request to let kep-sync replace "
        f"it, or delete the branch.\nPull request: {PR}\n\n{CHANGELOG}"
    )


def test_a_failed_run_says_so_with_the_error_or_without_any_file(tmp_path, capsys):
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"result": "failed", "error": "GET https://api.github.com/x: HTTP 502"}))
    assert (
        step_summary.main(["--report", str(report), "--changelog", str(tmp_path / "none.md"), "--outcome", "failure"])
        == 0
    )
    assert capsys.readouterr().out == (
        "**kep-sync sync failed**: GET `https://api.github.com/x`: HTTP 502\n\n_kep-sync sync printed no changelog._\n"
    )
    assert (
        step_summary.main(
            [
                "--report",
                str(tmp_path / "missing.json"),
                "--changelog",
                str(tmp_path / "x"),
                "--outcome",
                "failure",
                "--command",
                "audit",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == (
        "**kep-sync audit failed**: no report was written; see the step's log for "
        "the error\n\n_kep-sync audit printed no changelog._\n"
    )


def test_a_cancelled_run_is_named():
    assert step_summary.summary({}, "", "cancelled").startswith("**kep-sync sync was cancelled** before it finished")


def test_a_report_that_cannot_be_read_or_names_no_error_is_not_called_missing(tmp_path, capsys):
    report = tmp_path / "r.json"
    report.write_text('{"result": "fail')
    assert step_summary.main(["--report", str(report), "--changelog", str(tmp_path / "x"), "--outcome", "failure"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"**kep-sync sync failed**: the report {report} is not JSON (Unterminated string starting at: line 1 "
        "column 12 (char 11)); see the step's log for the error"
    )
    report.write_text(json.dumps({"audit": {}, "changes": []}))  # an audit that failed after its report
    assert (
        step_summary.main(
            ["--report", str(report), "--changelog", str(tmp_path / "x"), "--outcome", "failure", "--command", "audit"]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines()[0] == (
        "**kep-sync audit failed**: the report names no error; see the step's log for it"
    )
    report.write_text("[]")
    assert step_summary.read_report(report) == step_summary.Report({}, f"the report {report} is not a JSON object")


def test_a_run_stopped_by_the_validation_did_not_run_rather_than_failed():
    assert step_summary.summary(step_summary.Report({}, "no report was written"), "", "skipped") == (
        "**kep-sync sync did not run**: an earlier step failed (a configuration that does not validate stops the "
        "job there); see that step's log.\n\n_kep-sync sync printed no changelog._\n"
    )


class _Ctx:
    """A GitHub Actions expression context over a dict: a missing key reads as null (``None``)."""

    def __init__(self, data):
        self._data = data

    def __getattr__(self, key):
        value = self._data.get(key) if isinstance(self._data, dict) else None
        return _Ctx(value) if isinstance(value, dict) else value


def _job_runs(event_name: str, event: dict) -> bool:
    """The sync job's ``if:`` evaluated for one event (the expression uses only ==, !=, &&, ||, startsWith,
    contains and fromJSON)."""
    expr = yaml.safe_load(WORKFLOW.read_text())["jobs"]["sync"]["if"]
    code = expr.replace("&&", " and ").replace("||", " or ").replace("\n", " ")
    starts = lambda text, prefix: (text or "").lower().startswith(prefix.lower())  # noqa: E731 (case-insensitive)

    def contains(items, item):  # the string form (a substring) and the array form, both case-insensitive
        if isinstance(items, str) or items is None:
            return (item or "").lower() in (items or "").lower()
        return any(x.lower() == (item or "").lower() for x in items)

    return bool(
        eval(
            code,
            {"__builtins__": {}},
            {
                "github": _Ctx({"event_name": event_name, "event": event}),
                "startsWith": starts,
                "contains": contains,
                "fromJSON": json.loads,
            },
        )
    )


def test_comments_and_the_regenerate_label_run_it_and_nothing_else_does():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    on = workflow[True]
    assert set(on) == {"schedule", "workflow_dispatch", "issue_comment", "pull_request", "issues"}
    assert on["issues"] == {"types": ["edited"]}
    board = "<!-- kep-sync:dashboard -->\n\n- [x] Run now <!-- kep-sync:box run-now -->"
    person, bot = {"type": "User"}, {"type": "Bot"}
    assert _job_runs("issues", {"issue": {"body": board}, "sender": person})
    assert not _job_runs("issues", {"issue": {"body": board}, "sender": bot})
    assert not _job_runs("issues", {"issue": {"body": board.replace("[x]", "[ ]")}, "sender": person})
    assert not _job_runs("issues", {"issue": {"body": "- [x] a task list of people"}, "sender": person})
    assert (on["issue_comment"], on["pull_request"]) == ({"types": ["created"]}, {"types": ["labeled"]})
    assert workflow["concurrency"] == {"group": "kep-sync", "cancel-in-progress": False}
    on_pr = {"pull_request": {"url": "https://api.github.com/repos/acme/wiki/pulls/7"}}
    assert _job_runs("schedule", {}) and _job_runs("workflow_dispatch", {"inputs": {}})
    member = {"author_association": "MEMBER"}
    assert _job_runs("issue_comment", {"issue": on_pr, "comment": {"body": "/kep-sync ignore 4671 stable", **member}})
    assert not _job_runs("issue_comment", {"issue": {}, "comment": {"body": "/kep-sync regenerate", **member}})
    assert not _job_runs("issue_comment", {"issue": on_pr, "comment": {"body": "LGTM /kep-sync", **member}})
    for association, runs in (  # kep-sync reads the author's role; the association never decides
        ("OWNER", True),
        ("COLLABORATOR", True),
        ("CONTRIBUTOR", True),
        ("NONE", True),
        ("FIRST_TIME_CONTRIBUTOR", True),
        (None, True),
    ):
        comment = {"body": "/kep-sync regenerate", "author_association": association}
        assert _job_runs("issue_comment", {"issue": on_pr, "comment": comment}) is runs, association
    assert _job_runs("pull_request", {"label": {"name": "kep-sync:regenerate"}})
    assert not _job_runs("pull_request", {"label": {"name": "kep-sync"}})
    assert not _job_runs("push", {})


def test_no_event_text_reaches_a_shell_and_a_labeled_run_uses_the_default_branch():
    for step in yaml.safe_load(WORKFLOW.read_text())["jobs"]["sync"]["steps"]:
        text = json.dumps([step.get("run", ""), step.get("env", {})])
        assert "github.event." not in text and "github.head_ref" not in text, step.get("name")
    checkout = steps()["actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8"]
    assert checkout["with"]["ref"] == (
        "${{ github.event_name == 'pull_request' && github.event.repository.default_branch || '' }}"
    )


def test_the_summary_runs_with_the_standard_library_only(tmp_path):
    """``python -S`` (no site-packages: none of kep-sync's dependencies) from the checkout, as after a failed install."""
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "bot.step_summary", "--report", str(tmp_path / "r.json"), "--outcome", "failure"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (
        "**kep-sync sync failed**: no report was written; see the step's log for the error\n\n"
        "_kep-sync sync printed no changelog._\n"
    )


def test_a_fifo_device_or_oversized_file_is_never_read_whole(tmp_path, capsys):
    fifo = tmp_path / "changelog.md"
    os.mkfifo(fifo)
    zero = tmp_path / "kep-sync-report.json"
    zero.symlink_to("/dev/zero")
    assert step_summary.main(["--report", str(zero), "--changelog", str(fifo), "--outcome", "failure"]) == 0
    assert capsys.readouterr().out == (
        f"**kep-sync sync failed**: the report {zero} could not be read (not a regular file (character device)); "
        "see the step's log for the error\n\n_kep-sync sync printed no changelog._\n"
    )
    big = tmp_path / "big.json"
    big.write_bytes(b" " * REPORT_BYTES + b"{}")
    assert step_summary.read_report(big) == step_summary.Report(
        {}, f"the report {big} could not be read (larger than {REPORT_BYTES} bytes, refused)"
    )
    big.write_bytes(b" " * (REPORT_BYTES - 2) + b"{}")
    assert step_summary.read_report(big) == step_summary.Report({})


def test_the_workflows_grant_the_reads_automerge_makes():
    """automerge reads ``GET /commits/{sha}/status`` and ``/check-runs`` (bot/publish/github_merge.py): the token
    needs ``statuses: read`` and ``checks: read``, and nothing more than it had for them."""
    sync = yaml.safe_load(WORKFLOW.read_text())["permissions"]
    targets = yaml.safe_load((WORKFLOW.parent / "kep-sync-targets.yml").read_text())["jobs"]["sync"]["permissions"]
    assert sync == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "statuses": "read",
        "checks": "read",
    }
    assert targets == {"contents": "write", "pull-requests": "write", "statuses": "read", "checks": "read"}
