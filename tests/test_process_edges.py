"""The process edges: ``serve`` stops on SIGTERM whatever happens to its log."""

from __future__ import annotations

import io
import os
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


@pytest.mark.parametrize("exc", [BrokenPipeError(32, "Broken pipe"), OSError(28, "No space left on device"),
                                 ValueError("I/O operation on closed file.")])
def test_a_log_line_that_cannot_be_written_is_dropped(exc):
    LineLogger(_Broken(exc)).info("stop requested")  # no exception
    ok = io.StringIO()
    LineLogger(ok).error('{"event": "x"}')
    assert ok.getvalue() == '{"event": "x"}\n'


def _serve(tmp_path, stderr):
    config = write_setup(tmp_path, "http://127.0.0.1:9")  # the cron never fires during the test
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE")}
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--config", str(config), "--state-dir",
                             str(tmp_path / "st")], cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=stderr)


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
