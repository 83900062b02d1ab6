"""``serve`` and ``health`` tell the truth: last-run files, a corrupt state file, an early stop signal,
health's exit codes and UTC times, and health agreeing with the DST-safe schedule."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys

import pytest
import structlog
from structlog.testing import capture_logs

from bot.cli.main import main
from bot.config import load_config
from bot.cron import parse_crontab
from bot.service.health import LATE_ALLOWANCE, check_health
from bot.service.job import run_job
from bot.service.state import InstanceLock, RunRecord, State, StateCorrupt, load_state, read_state, save_state
from bot.sources.enhancements import OFFLINE_HINT
from tests.servehelp import API, KEP_PATH, KEP_YAML, PAGE, PAGE_SYNCED, REPO_ROOT, SHA, write_setup

UTC = datetime.UTC


@pytest.fixture(autouse=True)
def _reset_structlog():
    yield
    structlog.reset_defaults()


def finished(logs: list[dict]) -> dict:
    (line,) = [e for e in logs if e["event"] == "run finished"]
    return line


# -- STATE_DIR/last-run ----------------------------------------------------------------------------------


def test_the_run_finished_line_counts_the_rows_left_as_is_and_names_the_files_listing_them(tmp_path, github):
    config = load_config(write_setup(tmp_path, API))
    with (tmp_path / "wiki" / "matrix.md").open("a", encoding="utf-8") as page:
        page.write("| #12x | scheduling | implementable / alpha | v1.35 / - / - |\n")
    last = tmp_path / "st" / "last-run"
    with capture_logs() as logs:
        assert run_job(config, tmp_path / "st").result == "ok"
    line = finished(logs)
    assert (line["rows_with_problems"], line["rows_listed_in"]) == (
        1,
        f"the Problems section of the changelog ({last / 'changelog.md'}) and the report {last / 'report.json'}",
    )
    assert "| matrix.md | line 6 | KEP cell '#12x' names no KEP; left as is |" in (last / "changelog.md").read_text()


def test_each_run_keeps_its_changelog_and_report_in_the_state_dir(tmp_path, github):
    mock, upstream = github
    config = load_config(write_setup(tmp_path, API))
    last = tmp_path / "st" / "last-run"
    with capture_logs() as logs:
        assert run_job(config, tmp_path / "st").result == "ok"
    line = finished(logs)
    assert (line["changelog"], line["report"]) == (str(last / "changelog.md"), str(last / "report.json"))
    assert (last / "changelog.md").read_text().startswith("# Update KEP matrix: 2 changes in 1 KEP")
    report = json.loads((last / "report.json").read_text())
    assert (report["result"], report["publish"], report["pages_written"], report["revision"]) == (
        "ok",
        "files",
        ["matrix.md"],
        SHA,
    )
    assert sorted(p.name for p in last.iterdir()) == ["changelog.md", "report.json"]  # no temp files

    assert (line["rows_with_problems"], line["rows_listed_in"]) == (0, None)
    with capture_logs() as logs:  # skipped: nothing new to keep, the files of the last full run stay
        assert run_job(config, tmp_path / "st").result == "skipped"
    assert (finished(logs)["changelog"], finished(logs)["report"]) == (None, None)
    assert json.loads((last / "report.json").read_text()) == report

    upstream.update(sha="b" * 40, etag='"e2"')
    (tmp_path / "wiki" / "matrix.md").unlink()  # the next full run fails reading the page
    with capture_logs() as logs:
        assert run_job(config, tmp_path / "st").result == "failed"
    assert finished(logs)["report"] == str(last / "report.json")
    failed = json.loads((last / "report.json").read_text())
    assert (failed["result"], failed["revision"], failed["changes"], failed["pages_written"]) == (
        "failed",
        "b" * 40,
        [],
        [],
    )
    assert (
        failed["error"] == f"wiki.pages (--page) 'matrix.md': no such file under the wiki directory "
        f"{str(tmp_path / 'wiki')!r}"
    )
    assert (last / "changelog.md").read_text() == f"# kep-sync: run failed\n\n{failed['error']}\n"
    line = finished(logs)  # the log line and state.json say what the report says
    assert (line["result"], line["revision"], line["changes"], line["error"], line["pull_request"]) == (
        "failed",
        "b" * 40,
        0,
        failed["error"],
        None,
    )
    record = read_state(tmp_path / "st").last_run
    assert (record.revision, record.changes, record.error, record.pull_request) == ("b" * 40, 0, failed["error"], None)


def test_a_run_whose_poll_fails_keeps_a_failed_report(tmp_path, github):
    _, upstream = github
    upstream.update(sha="not a commit")
    config = load_config(write_setup(tmp_path, API))
    with capture_logs() as logs:
        record = run_job(config, tmp_path / "st")
    last = tmp_path / "st" / "last-run"
    assert record.result == "failed" and finished(logs)["report"] == str(last / "report.json")
    report = json.loads((last / "report.json").read_text())
    assert (report["result"], report["revision"], report["changes"], report["error"]) == (
        "failed",
        "",
        [],
        f"GET {API}/repos/o/enh/commits/main: HTTP 200, could not resolve 'main' to a commit\n{OFFLINE_HINT}",
    )  # as sync says it
    assert (last / "changelog.md").read_text() == f"# kep-sync: run failed\n\n{report['error']}\n"


def test_a_dry_run_service_keeps_what_it_found(tmp_path, github):
    config = load_config(write_setup(tmp_path, API)).model_copy(update={"publish": "none"})
    assert run_job(config, tmp_path / "st").result == "ok"
    report = json.loads((tmp_path / "st" / "last-run" / "report.json").read_text())
    assert (report["publish"], report["pages_written"]) == ("none", [])
    assert [(c["field"], c["proposed"], c["applied"]) for c in report["changes"]] == [
        ("stage", True, False),
        ("beta", True, False),
    ]
    assert (tmp_path / "wiki" / "matrix.md").read_text() == PAGE


# -- a corrupt state.json --------------------------------------------------------------------------------


def corrupt_state(tmp_path, content: bytes):
    """``(config path, state directory)`` of a service setup whose ``state.json`` holds ``content``."""
    config_path = write_setup(tmp_path, API)
    state_dir = tmp_path / "st"
    state_dir.mkdir()
    (state_dir / "state.json").write_bytes(content)
    return config_path, state_dir


def unhealthy_because(config_path, state_dir, capsys) -> str:
    """What ``kep-sync health`` prints after ``state file is corrupt (``; it must exit 1 and name the file."""
    assert main(["health", "--config", str(config_path), "--state-dir", str(state_dir)]) == 1
    out = capsys.readouterr().out
    prefix = f"unhealthy: {state_dir / 'state.json'}: state file is corrupt ("
    assert out.startswith(prefix), out
    return out.removeprefix(prefix)


def test_a_corrupt_state_file_is_reported_kept_aside_and_never_overwritten(tmp_path, github, capsys):  # noqa: F811
    config_path, state_dir = corrupt_state(tmp_path, b'{"revision": "abc", "last_run": ')
    assert unhealthy_because(config_path, state_dir, capsys) == "not JSON: Expecting value at line 1 column 33)\n"
    with capture_logs() as logs:
        record = run_job(load_config(config_path), state_dir)
    assert record.result == "ok"
    (kept,) = state_dir.glob("state.json.corrupt-*")
    assert kept.read_bytes() == b'{"revision": "abc", "last_run": '
    assert [(e["event"], e["kept_as"]) for e in logs if e["log_level"] == "error"] == [
        ("state file corrupt; kept aside, starting from an empty state", str(kept))
    ]
    assert read_state(state_dir).last_run.run_id == record.run_id
    assert main(["health", "--config", str(config_path), "--state-dir", str(state_dir)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\xff\xfe{}", "not UTF-8 at byte 0"),
        (b"[]", "not a kep-sync state: (top level): expected a JSON object, got []"),
        (b'{"foo": 1}', "not a kep-sync state: foo: unknown key (value 1)"),
        (b'{"revision": 5}', "not a kep-sync state: revision: expected a text value, got 5"),
        (
            b'{"last_run": {"run_id": "a", "started": "s", "finished": "f", "result": "ok", "changes": "2"}}',
            "not a kep-sync state: last_run.changes: expected a whole number, got '2'",
        ),
        (
            b'{"last_run": {"result": 1}}',
            "not a kep-sync state: last_run.run_id: required, missing; last_run.started: "
            "required, missing; last_run.finished: required, missing",
        ),
    ],
)
def test_read_state_names_why_the_file_is_corrupt(tmp_path, content, why):
    (tmp_path / "state.json").write_bytes(content)
    with pytest.raises(StateCorrupt) as err:
        read_state(tmp_path)
    assert str(err.value) == f"{tmp_path / 'state.json'}: state file is corrupt ({why})"
    assert load_state(tmp_path) == State()
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["state.json.corrupt"]


# -- a stop signal before the service set up its handling ------------------------------------------------

EARLY_SIGNAL = """
import os, signal, sys
import bot.cli.main as cli
real = cli.resolve_config
def resolve_then_signal(args):
    os.kill(os.getpid(), signal.SIGTERM)  # arrives while serve is still reading its config
    return real(args)
cli.resolve_config = resolve_then_signal
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_stop_signal_before_the_service_is_ready_exits_0_and_releases_the_lock(tmp_path):
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    proc = subprocess.run(
        [sys.executable, "-c", EARLY_SIGNAL, "serve", "--config", str(config), "--state-dir", str(tmp_path / "st")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line)["event"] for line in proc.stderr.splitlines()]
    assert events == ["service started", "stop requested", "service stopped"]
    with InstanceLock(tmp_path / "st"):  # free again
        pass


# -- health ----------------------------------------------------------------------------------------------


def test_health_exits_1_not_2_for_a_bad_config(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("schedule:\n  cron: '0 6 * *'\ncolour: blue\n")
    assert main(["health", "--config", str(bad), "--state-dir", str(tmp_path / "st")]) == 1
    assert capsys.readouterr().out == (
        f"unhealthy: configuration error: {bad}: schedule.cron: '0 6 * *': expected 5 fields (minute hour "
        f"day-of-month month day-of-week) or a macro such as @daily, got 4 field(s); {bad}: colour: unknown key "
        "(value 'blue'); did you mean 'columns'?\n"
    )
    assert main(["health", "--config", str(tmp_path / "missing.yaml")]) == 1
    assert (
        capsys.readouterr().out == f"unhealthy: configuration error: {tmp_path / 'missing.yaml'}: no such config file\n"
    )


def test_health_exits_1_when_the_token_file_cannot_be_read(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(tmp_path / "missing-token"))
    assert main(["health", "--state-dir", str(tmp_path / "st")]) == 1
    assert capsys.readouterr().err == (
        f"kep-sync: error: GITHUB_TOKEN_FILE {tmp_path / 'missing-token'}: cannot read: No such file or directory\n"
    )


def berlin(*args: int) -> datetime.datetime:
    from zoneinfo import ZoneInfo

    return datetime.datetime(*args, tzinfo=ZoneInfo("Europe/Berlin"))


def test_health_speaks_utc_and_agrees_with_the_schedule_across_spring_forward():
    trigger = parse_crontab("0 0 * * *", "Europe/Berlin")
    ran = berlin(2026, 3, 29, 0, 0)
    run = RunRecord(
        run_id="r1", started=ran.isoformat(), finished=(ran + datetime.timedelta(minutes=1)).isoformat(), result="ok"
    )
    state = State(last_run=run, last_success=run)
    due = berlin(2026, 3, 30, 0, 0)  # the next day (APScheduler's CronTrigger says 31 March)
    assert check_health(state, trigger, due + LATE_ALLOWANCE - datetime.timedelta(seconds=1)) == (
        True,
        "last run r1 ok at 2026-03-28T23:01:00+00:00, revision -",
    )
    assert check_health(state, trigger, due + LATE_ALLOWANCE) == (
        False,
        "run due at 2026-03-29T22:00:00+00:00 has not succeeded (last good run or start: 2026-03-28T23:00:00+00:00)",
    )
    fresh = State(service_started=berlin(2026, 3, 29, 12, 0).isoformat())
    assert check_health(fresh, trigger, berlin(2026, 3, 29, 13, 0)) == (
        True,
        "service started at 2026-03-29T10:00:00+00:00; no run due yet",
    )


def test_health_command_prints_utc_for_a_state_written_in_another_zone(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("schedule:\n  cron: '0 0 * * *'\n  timezone: europe/berlin\n")
    now = datetime.datetime.now(UTC)
    save_state(tmp_path / "st", State(service_started=now.astimezone(berlin(2026, 1, 1).tzinfo).isoformat()))
    assert main(["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]) == 0
    assert capsys.readouterr().out == f"healthy: service started at {now.isoformat()}; no run due yet\n"


# -- a stop signal after "service started" but before the --run-now run ----------------------------------

SIGNAL_BEFORE_FIRST_RUN = """
import os, signal, sys, threading
import bot.service.serve as scheduler
stopped = threading.Event()
real_stop = scheduler.Runner.stop
def stop(self):
    try:
        return real_stop(self)
    finally:
        stopped.set()
scheduler.Runner.stop = stop
real_start = scheduler.BlockingScheduler.start
def start(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)  # after "service started", before the first run can start
    assert stopped.wait(60)
    return real_start(self, *args, **kwargs)
scheduler.BlockingScheduler.start = start
import bot.cli.main as cli
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("script", [SIGNAL_BEFORE_FIRST_RUN, EARLY_SIGNAL])
def test_a_stop_signal_before_the_first_run_starts_prevents_it(tmp_path, script):
    source = tmp_path / "enh" / KEP_PATH
    source.parent.mkdir(parents=True)
    source.write_bytes(KEP_YAML)
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({**settings, "enhancements": str(tmp_path / "enh")}))
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "serve",
            "--run-now",
            "--config",
            str(config),
            "--state-dir",
            str(tmp_path / "st"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line)["event"] for line in proc.stderr.splitlines()]
    assert events == ["service started", "stop requested", "service stopped"]
    assert (tmp_path / "wiki" / "matrix.md").read_text() == PAGE  # no run: the page is untouched
    assert not (tmp_path / "st" / "last-run").exists()
    assert read_state(tmp_path / "st").last_run is None
    with InstanceLock(tmp_path / "st"):  # free again
        pass


def test_a_failed_publish_is_summed_up_as_its_report_says(tmp_path, github, monkeypatch):
    import bot.publish.directory as directory
    from bot.errors import PublishError

    config = load_config(write_setup(tmp_path, API))
    page = tmp_path / "wiki" / "matrix.md"

    def read_only(wiki_dir, pages, read=None):
        raise PublishError(f"{page}: read-only; refusing to replace it")

    monkeypatch.setattr(directory, "publish_files", read_only)
    with capture_logs() as logs:
        assert run_job(config, tmp_path / "st").result == "failed"
    last = tmp_path / "st" / "last-run"
    report = json.loads((last / "report.json").read_text())
    error = f"{page}: read-only; refusing to replace it"
    assert (report["result"], report["revision"], report["error"], report["pages_written"]) == (
        "failed",
        SHA,
        error,
        [],
    )
    assert [(c["proposed"], c["applied"]) for c in report["changes"]] == [(True, False), (True, False)]
    line = finished(logs)
    assert {k: line[k] for k in ("result", "revision", "changes", "applied", "error", "pull_request", "log_level")} == {
        "result": "failed",
        "revision": SHA,
        "changes": 2,
        "applied": 0,
        "error": error,
        "pull_request": None,
        "log_level": "error",
    }
    assert [e["error"] for e in logs if e["event"] == "run failed"] == [error]
    assert (last / "changelog.md").read_text() == f"# kep-sync: run failed\n\n{error}\n"
    record = read_state(tmp_path / "st").last_run
    assert (record.revision, record.changes, record.error) == (SHA, 2, error)
    assert page.read_text() == PAGE


def test_an_empty_json_object_is_an_empty_state_not_a_corrupt_one(tmp_path):
    (tmp_path / "state.json").write_bytes(b"{}")
    assert read_state(tmp_path) == State()
    assert load_state(tmp_path) == State()
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # nothing kept aside


def test_a_json_object_that_is_no_state_is_kept_aside_by_serve_and_reported_by_health(tmp_path, github, capsys):  # noqa: F811
    config_path, state_dir = corrupt_state(tmp_path, b'{"foo": 1}')
    assert unhealthy_because(config_path, state_dir, capsys) == "not a kep-sync state: foo: unknown key (value 1))\n"
    assert run_job(load_config(config_path), state_dir).result == "ok"
    (kept,) = state_dir.glob("state.json.corrupt-*")
    assert kept.read_bytes() == b'{"foo": 1}'


def test_health_usage_errors_exit_1_not_2(tmp_path, capsys):
    assert main(["health", "--bogus-flag"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "kep-sync: error: unrecognized arguments: --bogus-flag"
    with pytest.raises(SystemExit) as other:  # every other command keeps 2 for a usage error
        main(["sync", "--bogus-flag"])
    assert other.value.code == 2


def test_make_snapshot_names_a_missing_source_in_one_line(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "scripts/gen/make_snapshot.py",
            str(tmp_path / "nonexistent"),
            "--out-dir",
            str(tmp_path / "out"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"make_snapshot.py: error: git clone {tmp_path / 'nonexistent'} failed: fatal: repository "
        f"'{tmp_path / 'nonexistent'}' does not exist\n"
    )
    assert not (tmp_path / "out").exists()


# -- a poll is skipped only when neither upstream nor the wiki changed; asked-for runs never skip ------------


def test_a_page_put_back_to_a_stale_state_is_synced_on_the_next_poll(tmp_path, github):
    config = load_config(write_setup(tmp_path, API))
    page = tmp_path / "wiki" / "matrix.md"
    assert run_job(config, tmp_path / "st").result == "ok"
    assert page.read_text() == PAGE_SYNCED
    assert run_job(config, tmp_path / "st").result == "skipped"
    page.write_text(PAGE)  # a human (or a restore from backup) puts the stale cells back; upstream is unchanged
    again = run_job(config, tmp_path / "st")
    assert (again.result, again.revision, again.changes, again.applied) == ("ok", SHA, 2, 2)
    assert page.read_text() == PAGE_SYNCED
    assert run_job(config, tmp_path / "st").result == "skipped"


def test_the_git_wiki_marker_is_the_base_commit_and_moves_with_it(tmp_path):
    from bot.config import Config
    from bot.service.job import wiki_marker
    from tests.gitutil import commit, make_repo

    first = make_repo(tmp_path / "wiki", {"matrix.md": PAGE})
    config = Config.model_validate({"publish": "git", "wiki": {"dir": str(tmp_path / "wiki"), "pages": ["matrix.md"]}})
    assert wiki_marker(config) == f"git:{first}"
    second = commit(tmp_path / "wiki", {"matrix.md": PAGE_SYNCED}, "a human edit on the base")
    assert wiki_marker(config) == f"git:{second}"
    github_wiki = Config.model_validate({"publish": "github", "wiki": {"repo": "o/wiki", "pages": ["matrix.md"]}})
    assert wiki_marker(github_wiki) == ""


def test_a_run_asked_for_is_never_skipped(tmp_path, github):
    config = load_config(write_setup(tmp_path, API))
    assert run_job(config, tmp_path / "st").result == "ok"
    assert run_job(config, tmp_path / "st").result == "skipped"
    forced = run_job(config, tmp_path / "st", force=True)
    # a full run: the ref asked once (304 to the state's ETag), the snapshot from the upstream cache checked
    # against the commit's tree id
    assert (forced.result, forced.revision, forced.changes, forced.http_requests) == ("ok", SHA, 0, 2)


# -- health: the service that recorded the state must still be running --------------------------------------


def test_health_is_unhealthy_when_the_recording_service_is_gone():
    from bot.service.liveness import process_identity, still_running

    me = process_identity()
    assert me.startswith(f"{__import__('os').getpid()}:") and still_running(me) is True
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    gone = process_identity(child.pid)
    child.wait()
    assert gone and still_running(gone) is False
    assert still_running("") is None
    now = datetime.datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    trigger = parse_crontab("0 6 * * *", "UTC")
    state = State(service_started="2026-03-02T11:00:00+00:00", service_process=gone)
    assert check_health(state, trigger, now) == (
        False,
        f"the service that recorded this state (pid {child.pid}, "
        "started 2026-03-02T11:00:00+00:00) is no longer running",
    )
    alive = state.model_copy(update={"service_process": me})
    assert check_health(alive, trigger, now) == (True, "service started at 2026-03-02T11:00:00+00:00; no run due yet")
    reused = state.model_copy(update={"service_process": me.replace(":", ":1", 1)})  # same pid, other start time
    assert check_health(reused, trigger, now).ok is False


def test_serve_records_its_process_and_health_sees_it_stop(tmp_path, capsys):
    import signal

    from tests.servehelp import ServeProcess

    config = write_setup(tmp_path, "http://127.0.0.1:9")
    serve = ServeProcess("serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), tmp=tmp_path)
    serve.wait_for("service started")
    recorded = read_state(tmp_path / "st").service_process
    assert recorded.startswith(f"{serve.proc.pid}:")
    assert main(["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]) == 0
    assert capsys.readouterr().out.startswith("healthy: service started at ")
    serve.proc.send_signal(signal.SIGTERM)
    assert serve.finish() == 0
    assert main(["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]) == 1
    assert capsys.readouterr().out.startswith(
        f"unhealthy: the service that recorded this state (pid {serve.proc.pid}, "
    )


def test_serve_run_now_is_a_full_run_even_when_nothing_changed(tmp_path):
    import signal

    from tests.servehelp import FakeApi, ServeProcess

    results = []
    with FakeApi() as api:
        config = write_setup(tmp_path, api.url)
        for _ in range(2):
            serve = ServeProcess(
                "serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), "--run-now", tmp=tmp_path
            )
            results.append(serve.wait_for("run finished")["result"])
            serve.proc.send_signal(signal.SIGTERM)
            assert serve.finish() == 0
    assert results == ["ok", "ok"]
