"""``kep-sync sync|validate``: output, files written, exit codes 0/1/2 and their one-line errors (bot/cli/main.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from bot.cli.main import main
from tests.cliutil import SYNC, error_line, log_event
from tests.syncutil import PAGE, PAGE_SYNCED, tree

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _reset_structlog():
    """main() points structlog at capsys' stderr; later tests must not log into that closed stream."""
    yield
    structlog.reset_defaults()


GATES_FINDING = {
    "kep": "5710",
    "page": "m.md",
    "line": 19,
    "field": "feature_gates",
    "old": "GenericWorkload",
    "new": "GenericWorkload, WorkloadPreemption",
    "kind": "gates",
    "applied": False,
    "proposed": False,
    "kep_path": "keps/sig-scheduling/5710-workload-aware-preemption/kep.yaml",
}


def test_sync_default_is_a_dry_run(work, capsys):
    before = tree(work)
    assert main(SYNC) == 0
    out, err = capsys.readouterr()
    assert out.startswith("# Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)\n\n**kep-sync**:")
    assert tree(work) == before
    event = log_event(err)
    assert (event["event"], event["changes"], event["findings"], event["pages_written"]) == ("sync finished", 2, 1, 0)


def test_publish_none_writes_nothing(work, capsys):
    before = tree(work)
    assert main([*SYNC, "--publish", "none"]) == 0
    assert tree(work) == before


def test_publish_files_and_report(work, capsys):
    assert main([*SYNC, "--publish", "files", "--report", "r.json"]) == 0
    out, _ = capsys.readouterr()
    assert (work / "wiki" / "m.md").read_bytes() == PAGE_SYNCED.encode()
    assert sorted(p.name for p in (work / "wiki").iterdir()) == ["m.md"]
    report = json.loads((work / "r.json").read_text())
    assert report == {
        "revision": "",
        "problems": [],
        "candidates": [],
        "changes": [
            {
                "kep": "4671",
                "page": "m.md",
                "line": 18,
                "field": "stage",
                "old": "alpha",
                "new": "beta",
                "kind": "promoted",
                "applied": True,
                "proposed": True,
                "kep_path": "keps/sig-scheduling/4671-gang-scheduling/kep.yaml",
            },
            {
                "kep": "4671",
                "page": "m.md",
                "line": 18,
                "field": "beta",
                "old": "",
                "new": "v1.37",
                "kind": "retargeted",
                "applied": True,
                "proposed": True,
                "kep_path": "keps/sig-scheduling/4671-gang-scheduling/kep.yaml",
            },
            GATES_FINDING,
        ],
        "publish": "files",
        "result": "ok",
        "pull_request": None,
        "pull_request_file": None,
        "pages_written": ["m.md"],
        "rows_with_problems": 0,
    }
    assert main([*SYNC, "--publish", "files", "--report", "r.json"]) == 0
    out2, _ = capsys.readouterr()
    assert out2.startswith("# KEP matrix: no changes\n")
    assert (work / "wiki" / "m.md").read_bytes() == PAGE_SYNCED.encode()
    assert json.loads((work / "r.json").read_text())["changes"] == [GATES_FINDING]  # report-only, every run


def test_kep_filter(work, capsys):
    assert main([*SYNC, "--kep", "KEP-5710,624", "--publish", "files"]) == 0
    assert (work / "wiki" / "m.md").read_bytes() == PAGE.encode()


def test_bad_config_key_exits_2_naming_file_and_key(work, capsys):
    (work / "c.yaml").write_text("feature_gate: owned\n")
    assert main([*SYNC, "--config", "c.yaml"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: c.yaml: feature_gate: unknown key (value 'owned'); did you mean 'feature_gates'?"
    )


def test_bad_config_value_exits_2(work, capsys):
    (work / "c.yaml").write_text("feature_gates: sometimes\n")
    assert main([*SYNC, "--config", "c.yaml"]) == 2
    assert error_line(capsys) == "kep-sync: error: c.yaml: feature_gates: 'sometimes' is not one of 'report' or 'owned'"


def test_missing_config_file_exits_2(work, capsys):
    assert main([*SYNC, "--config", "nope.yaml"]) == 2
    assert error_line(capsys) == f"kep-sync: error: nope.yaml: no such config file (relative to {work})"


def test_missing_page_exits_2_naming_it(work, capsys):
    before = tree(work)
    assert main([*SYNC[:-1], "gone.md", "--publish", "files"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: wiki.pages (--page) 'gone.md': no such file under the wiki directory 'wiki'"
    )
    assert tree(work) == before


def test_bad_enhancements_exits_2(work, capsys):
    assert main(["sync", "--enhancements", "no/such/dir", "--wiki", "wiki", "--page", "m.md"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: enhancements (--enhancements) 'no/such/dir': not a directory "
        "with keps/, a .tar.gz snapshot, a git repository, a bundle, a URL or "
        f"github:OWNER/REPO@REF (relative to {work})"
    )
    assert main(["sync", "--enhancements", "github:nope", "--wiki", "wiki", "--page", "m.md"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: enhancements (--enhancements) 'github:nope': expected github:OWNER/REPO@REF"
    )


def test_page_not_utf8_exits_1_and_is_not_touched(work, capsys):
    (work / "wiki" / "m.md").write_bytes(b"\xff\xfe")
    assert main([*SYNC, "--publish", "files"]) == 1
    assert error_line(capsys) == "kep-sync: error: m.md: not UTF-8 (invalid start byte at byte 0); page not touched"
    assert (work / "wiki" / "m.md").read_bytes() == b"\xff\xfe"


def test_argparse_errors_exit_2(work, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sync", "--publish", "somewhere"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["sync", "--kep", "abc"])
    assert exc.value.code == 2
    assert "expected KEP numbers like 4671 or 4671,5710" in capsys.readouterr().err
    for value in ("abc", "4671,5710"):  # history takes one number: its message says so
        with pytest.raises(SystemExit) as exc:
            main(["history", value])
        assert exc.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"kep-sync history: error: argument N: {value!r}: expected one KEP number like 4671"
        )


def test_module_entry_point_exit_codes(work):
    ok = subprocess.run(
        [sys.executable, "-m", "bot.cli", *SYNC],
        capture_output=True,
        text=True,
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(work)},
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("# Update KEP matrix: 2 changes")
    bad = subprocess.run(
        [sys.executable, "-m", "bot.cli", *SYNC, "--config", "nope.yaml"],
        capture_output=True,
        text=True,
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(work)},
    )
    assert (bad.returncode, bad.stdout, bad.stderr) == (
        2,
        "",
        f"kep-sync: error: nope.yaml: no such config file (relative to {work})\n",
    )


def test_a_dry_run_from_directories_imports_no_network_or_scheduler_library(work):
    (work / "notes").mkdir()
    (work / "notes" / "release-notes-1.35.json").write_text("{}")
    code = (
        "import sys; from bot.cli.main import main; code = main(sys.argv[1:]); "
        "print(sorted(m for m in ('httpx', 'tenacity', 'github', 'apscheduler') if m in sys.modules), "
        "file=sys.stderr); sys.exit(code)"
    )
    for extra in ([], ["--release-notes", "notes"]):
        run = subprocess.run(
            [sys.executable, "-c", code, *SYNC, "--publish", "none", *extra],
            capture_output=True,
            text=True,
            cwd=work,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(work)},
        )
        assert (run.returncode, run.stderr.splitlines()[-1]) == (0, "[]"), run.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--page", "../outside.md"],
            "kep-sync: error: command line: wiki.pages: '../outside.md' must be a path "
            "relative to the wiki, without '..'",
        ),
        (
            ["--page", "/abs/m.md"],
            "kep-sync: error: command line: wiki.pages: '/abs/m.md' must be a path relative to the wiki, without '..'",
        ),
        (["--enhancements", ""], "kep-sync: error: command line: enhancements: must not be empty"),
        (["--wiki", ""], "kep-sync: error: --wiki '': empty; name the wiki directory"),
    ],
)
def test_command_line_overrides_are_validated_like_the_config(work, capsys, argv, message):
    before = tree(work)
    assert main([*SYNC, *argv, "--publish", "files"]) == 2
    assert error_line(capsys) == message
    assert tree(work) == before


def test_an_invalid_github_api_url_from_the_environment_exits_2_without_a_config_file(work, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "ftp://x")
    assert main(SYNC) == 2
    assert error_line(capsys) == (
        "kep-sync: error: environment: github.api_url: 'ftp://x' (from $GITHUB_API_URL): "
        "expected an http(s) URL such as https://api.github.com or https://HOST/api/v3"
    )


def test_the_file_is_checked_and_then_the_file_with_the_overrides(work, capsys):
    (work / "c.yaml").write_text("schedule:\n  cron: '61 * * * *'\n")
    assert main([*SYNC, "--config", "c.yaml"]) == 2
    assert (
        error_line(capsys)
        == "kep-sync: error: c.yaml: schedule.cron: '61 * * * *': minute value '61' is out of range 0-59"
    )
    (work / "c.yaml").write_text("wiki:\n  dir: wiki\n")
    assert main([*SYNC, "--config", "c.yaml", "--page", "../m.md"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: c.yaml with the command-line options: wiki.pages: '../m.md' must be "
        "a path relative to the wiki, without '..'"
    )


@pytest.mark.parametrize("value", [",", "", "²", "KEP-", "4671,x"])
def test_bad_kep_filters_exit_2(work, capsys, value):
    with pytest.raises(SystemExit) as info:
        main([*SYNC, "--kep", value])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kep-sync sync: error: argument --kep: {value!r}: expected KEP numbers like 4671 or 4671,5710"
    )


def test_a_kep_on_no_page_is_reported(work, capsys):
    assert main([*SYNC, "--kep", "4671,99999", "--report", "r.json"]) == 0
    problems = json.loads((work / "r.json").read_text())["problems"]
    assert {"path": "--kep", "message": "KEP 99999 is in no matrix row of the pages; nothing to do for it"} in problems


def test_a_deeply_nested_config_is_a_config_error(work, capsys):
    (work / "c.yaml").write_text("wiki: " + "[" * 5000 + "]" * 5000 + "\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert error_line(capsys) == "kep-sync: error: c.yaml: (top level): nested too deeply to be a kep-sync config"


def test_retries_are_logged_with_the_url_redacted(capsys):
    import httpx

    from bot.http import make_client, send
    from bot.log import configure

    configure()
    answers = iter([httpx.Response(502), httpx.Response(200, text="ok")])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    assert send(client, "GET", "https://u:ghp_abcdefghijklmnop@h.test/a?token=zz", sleep=lambda s: None).text == "ok"
    event = log_event(capsys.readouterr().err)
    assert {k: event[k] for k in ("event", "level", "method", "url", "reason", "attempt", "wait_seconds")} == {
        "event": "retrying request",
        "level": "warning",
        "method": "GET",
        "url": "https://***@h.test/a?token=***",
        "reason": "HTTP 502",
        "attempt": 1,
        "wait_seconds": 2.0,
    }


def test_validate_checks_the_config_as_the_sync_will_run(work, capsys):
    (work / "c.yaml").write_text("publish: none\nenhancements: enh\nwiki:\n  dir: wiki\n  pages: [m.md]\n")
    assert main(["validate", "--config", "c.yaml"]) == 0
    assert capsys.readouterr().out == "ok\n"
    assert main(["validate", "--config", "c.yaml", "--publish", "github"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: c.yaml with the command-line options: wiki.repo: required when "
        "publish is github (OWNER/NAME of the wiki repository)"
    )


def test_github_api_retries_are_logged(capsys):
    from github import GithubException

    from bot.log import configure
    from bot.publish.auth import call_with_retry

    configure()
    answers = iter([GithubException(502, {"message": "bad gateway"}, {}), "done"])

    def call():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    waits = []
    assert call_with_retry("list the bot's pull requests", call, sleep=waits.append) == "done"
    event = log_event(capsys.readouterr().err)
    assert {k: event[k] for k in ("event", "level", "call", "reason", "attempt")} == {
        "event": "retrying request",
        "level": "warning",
        "call": "list the bot's pull requests",
        "reason": "HTTP 502",
        "attempt": 1,
    }
    assert event["wait_seconds"] == waits[0]


@pytest.mark.parametrize(
    ("labels", "why"),
    [
        (
            '["kep-sync", "kep-sync:regenerate"]',
            "'kep-sync:regenerate' is the label a human adds to make kep-sync "
            "replace a foreign commit; the bot must not set it on its own pull "
            "requests",
        ),
        (
            '["Kep-Sync:Regenerate "]',
            "'Kep-Sync:Regenerate ' is the label a human adds to make kep-sync replace a "
            "foreign commit; the bot must not set it on its own pull requests",
        ),
        ('[""]', "a label must not be empty"),
        ('["  "]', "a label must not be empty"),
    ],
)
def test_validate_refuses_the_regenerate_label_and_empty_labels(work, capsys, labels, why):
    (work / "c.yaml").write_text(f"pull_request:\n  labels: {labels}\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    # every error at once: the settings, then the on-disk checks of the valid ones (the default wiki.dir)
    assert capsys.readouterr().err.splitlines() == [
        f"kep-sync: error: c.yaml: pull_request.labels: {why}",
        f"kep-sync: error: c.yaml: wiki.dir 'examples/wiki': no such directory (relative to {work})",
    ]


def test_validate_refuses_an_empty_enhancements_source(work, capsys):
    (work / "c.yaml").write_text('enhancements: ""\n')
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "kep-sync: error: c.yaml: enhancements: must not be empty",
        f"kep-sync: error: c.yaml: wiki.dir 'examples/wiki': no such directory (relative to {work})",
    ]


@pytest.mark.parametrize(
    "what, message",
    [
        ("the changelog", "cannot write the changelog to standard output: No space left on device"),
        ("", "cannot write to standard output: No space left on device"),
    ],
)
def test_a_stdout_that_cannot_be_written_is_one_error_naming_what_was_lost(monkeypatch, what, message):
    import errno

    from bot.cli.output import write_output
    from bot.errors import KepSyncError

    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    with pytest.raises(KepSyncError) as err:
        write_output("# kep-sync\n", what)
    assert str(err.value) == message


def test_a_records_source_the_config_names_is_checked_and_its_errors_name_the_file_and_key(work, capsys):
    base = "publish: none\nenhancements: enh\nwiki:\n  dir: wiki\n  pages: [m.md]\n"
    (work / "empty" / "releases").mkdir(parents=True)
    (work / "c.yaml").write_text(base + "release: {sig_release: /nonexistent}\n")
    (work / "e.yaml").write_text(base + "release: {sig_release: empty}\n")
    not_a_copy = "'/nonexistent': not a copy of kubernetes/sig-release (releases/) nor github:OWNER/REPO@REF"
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert error_line(capsys) == f"kep-sync: error: c.yaml: release.sig_release: {not_a_copy}"
    assert main(["validate", "--config", "e.yaml"]) == 2
    assert error_line(capsys) == "kep-sync: error: e.yaml: release.sig_release 'empty': no release-1.NN folder"
    for command in ("watch", "sync"):
        assert main([command, "--config", "c.yaml"]) == 2, command
        assert error_line(capsys) == f"kep-sync: error: c.yaml: release.sig_release: {not_a_copy}"
    assert main(["watch", "--config", "c.yaml", "--sig-release", "/nope"]) == 2
    assert error_line(capsys) == (
        "kep-sync: error: --sig-release '/nope': not a copy of kubernetes/sig-release (releases/) nor github:OWNER/REPO@REF"
    )
