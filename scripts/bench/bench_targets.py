"""Benchmark: 1, 10 and 100 targets from one process against the loopback fake GitHub.

    .venv/bin/python scripts/bench/bench_targets.py [--counts 1,10,100]

Each target is its own wiki repository on ``tests/fakegithub/`` (the real PyGithub client over HTTP,
no network) with one matrix page; upstream is one synthetic snapshot, read once per process and shared
(:class:`bot.commands.inputs.Inputs`). Prints, per target count, for a first run (every target opens a pull
request) and a no-change run: wall time, requests, writes and bytes (request plus response bodies) per
target, and the write-pacing floor the measured runs leave out (they run with
``SECONDS_BETWEEN_WRITES = 0``; a real run waits that long between the writes of the whole process).
Exit code 1 when a run has a failed target or a no-change run writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.commands.inputs import Inputs  # noqa: E402
from bot.commands.targets import expand  # noqa: E402
from bot.config import validate_config  # noqa: E402
from bot.log import configure  # noqa: E402
from bot.publish import auth  # noqa: E402
from bot.service.multi import run_targets  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.publishutil import BRANCH, ENV, PAGE, PAGE_PATH, keps  # noqa: E402


class CountingGitHub(FakeGitHub):
    """The fake, also counting the bytes of request and response bodies."""

    bytes = 0

    def _wsgi(self, environ, start_response):
        sent = int(environ.get("CONTENT_LENGTH") or 0)
        body = b"".join(super()._wsgi(environ, start_response))
        self.bytes += sent + len(body)
        return [body]


def deployment(fake: FakeGitHub, count: int):
    """``count`` targets ``wiki-000``.. each on its own seeded repository; returns the expanded targets."""
    entries = []
    for i in range(count):
        repo = f"acme/wiki-{i:03d}"
        fake.seed_repo(repo, {PAGE_PATH: PAGE, "README.md": "wiki\n"})
        entries.append({"name": f"wiki-{i:03d}", "wiki": {"repo": repo}})
    config = validate_config(
        {
            "publish": "github",
            "github": {"api_url": fake.url},
            "provenance": {"enabled": False},
            "wiki": {"base": "main", "pages": [PAGE_PATH]},
            "pull_request": {"branch": BRANCH},
            "targets": entries,
        },
        "bench",
    )
    return expand(config, "bench")


def measure(fake: CountingGitHub, targets, state: Path, snap) -> dict:
    """One process run of every target: wall time, requests, writes, bytes and the failed targets."""
    fake.reset_counters()
    fake.bytes = 0
    start = time.perf_counter()
    results = run_targets(targets, state, Inputs(targets[0].config, load=lambda config, counter: snap))
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "requests": len(fake.requests),
        "writes": fake.writes,
        "bytes": fake.bytes,
        "failed": [r.name for r in results if r.result == "failed"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1,10,100", help="target counts, comma-separated")
    args = parser.parse_args()
    configure("error")  # the runs' own log lines would drown the table
    os.environ.update(ENV)
    auth.SECONDS_BETWEEN_WRITES = 0.0
    snap, bad = keps(), []
    print(
        f"{'targets':>7} {'run':<10} {'total s':>8} {'s/target':>9} {'req/target':>10} {'writes/target':>13} "
        f"{'bytes/target':>12} {'pacing floor s':>14}"
    )
    for count in (int(c) for c in args.counts.split(",")):
        with CountingGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
            targets = deployment(fake, count)
            for run in ("first", "no-change"):
                m = measure(fake, targets, Path(tmp), snap)
                floor = max(m["writes"] - 1, 0) * 1.0  # bot.publish.auth.SECONDS_BETWEEN_WRITES in a real run
                print(
                    f"{count:>7} {run:<10} {m['seconds']:>8.2f} {m['seconds'] / count:>9.3f} "
                    f"{m['requests'] / count:>10.1f} {m['writes'] / count:>13.1f} {m['bytes'] / count:>12.0f} "
                    f"{floor:>14.0f}"
                )
                if m["failed"] or (run == "no-change" and m["writes"]):
                    bad.append(f"{count} targets, {run}: failed {m['failed']}, writes {m['writes']}")
    print("all targets ok; no-change runs write nothing" if not bad else "MISSED: " + "; ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
