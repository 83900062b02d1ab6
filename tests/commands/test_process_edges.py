"""The process edges: ``serve`` stops on SIGTERM whatever happens to its log."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from bot.log import LineLogger
from tests.servehelp import GUARD_SECONDS, REPO_ROOT, write_setup


class _Broken(io.StringIO):
    def __init__(self, exc: Exception):
        super().__init__()
        self.exc = exc

    def write(self, text):
        raise self.exc


@pytest.mark.parametrize(
    "exc",
    [
        BrokenPipeError(32, "Broken pipe"),
        OSError(28, "No space left on device"),
        ValueError("I/O operation on closed file."),
    ],
)
def test_a_log_line_that_cannot_be_written_is_dropped(exc):
    LineLogger(_Broken(exc)).info("stop requested")  # no exception
    ok = io.StringIO()
    LineLogger(ok).error('{"event": "x"}')
    assert ok.getvalue() == '{"event": "x"}\n'


def _serve(tmp_path, stderr):
    config = write_setup(tmp_path, "http://127.0.0.1:9")  # the cron never fires during the test
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE")}
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--config", str(config), "--state-dir", str(tmp_path / "st")],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )


def _stop(proc: subprocess.Popen) -> int:
    """SIGTERM ``proc``; its exit code, or -9 when it was still running after the guard time (then killed)."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(GUARD_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return -9


def test_serve_stops_on_sigterm_after_its_log_reader_went_away(tmp_path):
    proc = _serve(tmp_path, subprocess.PIPE)
    while b'"service started"' not in proc.stderr.readline():
        pass
    proc.stderr.close()  # every later write to stderr fails with EPIPE
    assert _stop(proc) == 0


def test_serve_stops_on_sigterm_when_its_log_disk_is_full(tmp_path):
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        proc = _serve(tmp_path, full)
    deadline = time.monotonic() + GUARD_SECONDS
    while not (tmp_path / "st" / "state.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # past "service started": the stop thread waits for the signal
    assert _stop(proc) == 0


# -- OS errors on configured paths: one line naming the path and the reason --------------------------------

LONG = "a" * 300  # one path component over the 255-byte limit: ENAMETOOLONG


@pytest.fixture
def work(tmp_path, monkeypatch):
    from tests.servehelp import KEP_PATH, KEP_YAML, PAGE

    (tmp_path / KEP_PATH).parent.mkdir(parents=True)
    (tmp_path / KEP_PATH).write_bytes(KEP_YAML)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "matrix.md").write_text(PAGE)
    (tmp_path / "c.yaml").write_text("enhancements: .\nwiki:\n  dir: wiki\n  pages: [matrix.md]\npublish: none\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def errors(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if not line.startswith("{")]


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            ["--page", f"{LONG}.md"],
            f"wiki.pages (--page) '{LONG}.md': cannot be read (File name too long) under the wiki directory 'wiki'",
        ),
        (
            ["--wiki", f"/tmp/{LONG}"],
            f"wiki.pages (--page) 'matrix.md': cannot be read (File name too long) under the "
            f"wiki directory '/tmp/{LONG}'",
        ),
        (
            ["--enhancements", f"/tmp/{LONG}"],
            f"enhancements (--enhancements) '/tmp/{LONG}': cannot be read: File name too long",
        ),
        (["--release-notes", f"/tmp/{LONG}"], f"--release-notes '/tmp/{LONG}': cannot be read: File name too long"),
    ],
)
def test_a_configured_path_the_os_rejects_is_one_error_exit_2(work, capsys, args, expected):
    from bot.cli.main import main

    assert main(["sync", "--config", "c.yaml", *args]) == 2
    assert errors(capsys) == [f"kep-sync: error: {expected}"]


def test_validate_lists_os_errors_one_per_line(work, capsys):
    from bot.cli.main import main
    from bot.config import shown

    (work / "v.yaml").write_text(
        f"enhancements: .\nwiki:\n  dir: wiki\n  pages: [{LONG}.md]\nschedule:\n  timezone: {LONG}\n"
    )
    assert main(["validate", "--config", "v.yaml"]) == 2
    assert errors(capsys) == [
        f"kep-sync: error: v.yaml: schedule.timezone: unknown time zone '{LONG}' (File name too long)",
        f"kep-sync: error: v.yaml: wiki.pages[0] {shown(LONG + '.md')}: cannot be read: File name too long (under "
        "the wiki directory 'wiki')",
    ]


def test_health_tells_an_unreadable_state_file_from_a_corrupt_one(work, capsys):
    from bot.cli.main import main

    (work / "st" / "state.json").mkdir(parents=True)  # refused as no regular file, whoever runs the test
    assert main(["health", "--config", "c.yaml", "--state-dir", "st"]) == 1
    assert (
        capsys.readouterr().out
        == "unhealthy: st/state.json: state file cannot be read (not a regular file (directory))\n"
    )
    (work / "st" / "state.json").rmdir()
    (work / "st" / "state.json").write_text("{")
    assert main(["health", "--config", "c.yaml", "--state-dir", "st"]) == 1
    assert capsys.readouterr().out == (
        "unhealthy: st/state.json: state file is corrupt (not JSON: Expecting "
        "property name enclosed in double quotes at line 1 column 2)\n"
    )


def test_an_unreadable_state_file_is_never_kept_aside(work):
    from bot.service.state import StateUnreadable, load_state

    (work / "st" / "state.json").mkdir(parents=True)
    with pytest.raises(StateUnreadable) as err:
        load_state(work / "st")
    assert str(err.value) == f"{work / 'st' / 'state.json'}: state file cannot be read (not a regular file (directory))"
    assert sorted(p.name for p in (work / "st").iterdir()) == ["state.json"]


_NO_DAC = "-dac_override,-dac_read_search,-fowner"


def _without_root_file_access() -> list[str]:
    """A command prefix that drops the capabilities with which root ignores file modes (none for another user)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", f"--bounding-set={_NO_DAC}", f"--inh-caps={_NO_DAC}", "--"]


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"), reason="root without setpriv")
def test_a_directory_this_user_may_not_search_is_one_error_not_a_traceback(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "enh" / "keps").mkdir(parents=True)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "matrix.md").write_text("| KEP | Status |\n|---|---|\n| 4671 | implementable |\n")
    os.chmod(locked, 0)
    (tmp_path / "c.yaml").write_text(  # a config validate accepts: serve starts and meets the state directory
        f"enhancements: {tmp_path / 'enh'}\nwiki:\n  dir: {tmp_path / 'wiki'}\n  pages: [matrix.md]\npublish: none\n"
    )
    env = {**os.environ, "KEP_SYNC_CACHE_DIR": str(tmp_path / "cache")}
    try:
        serve = subprocess.run(
            [
                *_without_root_file_access(),
                sys.executable,
                "-m",
                "bot.cli.main",
                "serve",
                "--config",
                str(tmp_path / "c.yaml"),
                "--state-dir",
                str(locked / "state"),
            ],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    finally:
        os.chmod(locked, 0o755)
    assert (serve.returncode, serve.stderr.splitlines()) == (
        1,
        [f"kep-sync: error: {locked / 'state'}: cannot create the state directory: Permission denied"],
    )


def test_an_os_error_no_check_named_is_still_one_line():
    from bot.cli.main import os_error_message

    assert os_error_message(OSError(36, "File name too long", "/x/aaa")) == "/x/aaa: File name too long"
    assert os_error_message(OSError(28, "No space left on device")) == "No space left on device"


@pytest.mark.parametrize("value", ["9999-12-31", "20260101", "2026-W01-1", "2026-02-30", "2026-1-1"])
def test_digest_at_rejects_a_date_it_cannot_handle_with_a_usage_error(work, capsys, value):
    from bot.cli.main import main

    assert (
        main(["digest", "--config", "c.yaml", "--sig", "scheduling", "--from", "v1.30", "--to", "v1.31", "--at", value])
        == 2
    )
    assert (
        errors(capsys)[-1] == f"kep-sync: error: --at {value!r}: expected a date YYYY-MM-DD from 0001-01-01 "
        "to 9999-12-30"
    )


# -- a closed stdout (``>&-``): one error line, or silence when stderr is closed too; never a traceback -------

CLOSED = [
    (["sync", "--config", "c.yaml", "--publish", "files"], "the changelog"),
    (["digest", "--config", "c.yaml", "--sig", "scheduling", "--from", "v1.30", "--to", "v1.35"], ""),
    (["init", "--wiki", "wiki", "--output", "new.yaml"], "the summary"),
    (["targets", "--config", "c.yaml"], "the targets"),
    (["validate", "--config", "c.yaml"], ""),
]


def _closed(work, args, redirect):
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m bot.cli "$@" --log-format text {redirect}', sys.executable, *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.parametrize("args, what", CLOSED, ids=[a[0] for a, _ in CLOSED])
def test_a_closed_stdout_is_one_error_line_exit_1(work, args, what):
    if args[0] == "targets":
        (work / "c.yaml").write_text((work / "c.yaml").read_text() + "targets:\n  - name: a\n")
    done = _closed(work, args, ">&-")
    lines = [line for line in done.stderr.decode().splitlines() if line.startswith("kep-sync:")]
    assert (done.returncode, lines) == (
        1,
        [f"kep-sync: error: cannot write {what + ' ' if what else ''}to standard output: it is closed"],
    )
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("args, what", CLOSED, ids=[a[0] for a, _ in CLOSED])
def test_closed_stdout_and_stderr_exit_1_silently(work, args, what):
    done = _closed(work, args, ">&- 2>&-")
    assert (done.returncode, done.stdout, done.stderr) == (1, b"", b"")
