"""bot.sources.prefetch: the snapshot read by a forked worker is exactly the one read in-process; a failed
worker falls back to reading in-process; errors are the serial ones. Real forks, real files in tmp_path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.errors import UsageError
from bot.sources.enhancements import load_snapshot
from bot.sources.prefetch import Pending, can_fork, start
from tests.syncutil import PAGE, kep, write_keps

ROOT = Path(__file__).resolve().parents[1]
needs_fork = pytest.mark.skipif(not can_fork(), reason="os.fork unavailable or threads running")


def _fixture(root: Path) -> Path:
    """A directory source with good, broken, duplicate-numbered and PRR files (every kind of problem)."""
    return write_keps(
        root,
        kep(4671, "gang-scheduling", stage="beta", beta="v1.37", gates=("GangScheduling",)),
        kep(2133, "kubelet-credential-providers", sig="sig-node"),
        kep(2133, "other-2133", sig="sig-auth"),
        ("keps/sig-node/9999-broken/kep.yaml", b"title: [unclosed\n"),
        ("keps/sig-node/9998-dupkey/kep.yaml", b"title: x\nkep-number: 9998\nstatus: implementable\nstatus: implemented\n"),
        ("keps/prod-readiness/sig-scheduling/4671.yaml", b"kep-number: 4671\n"),
    )


@needs_fork
def test_worker_snapshot_equals_serial(tmp_path):
    root = _fixture(tmp_path / "enh")
    serial = load_snapshot(str(root), tmp_path / "cache")
    pending = start(lambda: (os.getpid(), load_snapshot(str(root), tmp_path / "cache")))
    assert pending.forked
    worker, parallel = pending.result()
    assert not pending.forked  # reaped
    assert worker != os.getpid()  # the child's value, not the fallback's (which would equal serial trivially)
    assert parallel == serial
    assert [(p.path, p.key) for p in parallel.all_problems()] == [  # the fixture does exercise problems
        ("keps/sig-auth/2133-other-2133/kep.yaml", "kep-number"), ("keps/sig-node/9999-broken/kep.yaml", ""),
        ("keps/sig-node/9998-dupkey/kep.yaml", "status"), ("keps/sig-node/9998-dupkey/kep.yaml", "stage")]


@needs_fork
def test_worker_failure_falls_back_to_the_caller():
    parent = os.getpid()

    def load() -> str:
        if os.getpid() != parent:
            os._exit(3)  # the worker dies without sending anything
        return "computed here"

    pending = start(load)
    assert pending.forked
    assert pending.result() == "computed here"


@needs_fork
def test_worker_error_is_raised_by_the_caller_with_its_message(tmp_path):
    calls = []

    def load():
        calls.append(os.getpid())
        raise UsageError(f"--enhancements {tmp_path / 'nope'}: no such source")

    pending = start(load)
    with pytest.raises(UsageError, match="no such source"):
        pending.result()
    assert calls == [os.getpid()]  # raised here; the child's attempt is not reported


@needs_fork
def test_close_stops_an_uncollected_worker():
    pending = start(lambda: b"x" * (1 << 20))  # larger than a pipe buffer: the child blocks writing
    pid = pending.pid
    pending.close()
    assert not pending.forked
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped
    pending.close()  # idempotent


def test_no_fork_computes_on_result():
    calls = []
    pending = start(lambda: calls.append(1) or "v", fork=False)
    assert not pending.forked and calls == []
    assert pending.result() == "v" and calls == [1]
    assert Pending(lambda: 5).result() == 5


@pytest.mark.parametrize("named_by", ["command line", "config file"])
def test_cli_sync_output_is_the_same_with_and_without_the_worker(tmp_path, named_by):
    """A real ``kep-sync sync`` process with the worker (default) and with ``KEP_SYNC_WORKER=0``: same
    changelog bytes, same report; the source named by ``--enhancements`` (the worker starts before the config
    is read) or by the config file (it starts after)."""
    root = _fixture(tmp_path / "enh")
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "m.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "kep-sync.yaml").write_text(f"enhancements: {root}\n", encoding="utf-8")
    source = ["--enhancements", str(root)] if named_by == "command line" else ["--config", "kep-sync.yaml"]
    out = {}
    for worker in ("1", "0"):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KEP_SYNC_", "GITHUB_"))}
        env.update(PYTHONPATH=str(ROOT), KEP_SYNC_WORKER=worker, KEP_SYNC_CACHE_DIR=str(tmp_path / "cache"))
        report = tmp_path / f"report-{worker}.json"
        proc = subprocess.run([sys.executable, "-m", "bot.cli", "sync", *source, "--wiki",
                               str(tmp_path / "wiki"), "--page", "m.md", "--publish", "none", "--report",
                               str(report)], cwd=tmp_path, env=env, capture_output=True, check=False)
        assert proc.returncode == 0, proc.stderr
        out[worker] = (proc.stdout, report.read_bytes())
    assert out["1"] == out["0"]
    assert b"9999-broken" in out["1"][1]  # the broken file's problem is in both reports
