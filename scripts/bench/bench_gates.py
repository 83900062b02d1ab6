"""Benchmark: the cost of the feature-gate lifecycle source.

    .venv/bin/python scripts/bench/bench_gates.py [--runs 7] [--gates FILE]

1. a local file: times ``load_gate_lifecycle`` on one ``versioned_feature_list.yaml`` per run and prints the
   median, min and max in seconds;
2. ``github:kubernetes/kubernetes`` against the loopback fake GitHub (``tests/fakegithub/``) holding that list
   on ``release-1.32`` .. ``release-1.36``, for the releases the real page's KEPs need (v1.21 .. v1.37): the
   requests and response bytes of a first run (empty cache) and of a second run (ETag cache; the fake sends no
   ETag, so this is the upper bound: a real 304 costs no body).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.http import make_client  # noqa: E402
from bot.sources.gate_lifecycle import LIST_PATH, OLD_LIST_PATH, load_gate_lifecycle  # noqa: E402
from scripts.bench._bench import SHARED, bench_parser, spread  # noqa: E402

DEFAULT = SHARED / "data" / "feature-gates" / "versioned_feature_list.openshift-0b0e324c.yaml"


def bench_file(path: Path, runs: int) -> None:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            start = time.perf_counter()
            lc = load_gate_lifecycle(str(path), Path(tmp))
            times.append(time.perf_counter() - start)
    print(
        f"local file {path.name} ({path.stat().st_size:,} bytes, {len(lc.lists[0].gates)} gates): "
        f"{spread(times)} over {runs} runs"
    )


def bench_github(path: Path) -> None:
    from tests.fakegithub import FakeGitHub

    text = path.read_text(encoding="utf-8")
    wanted = {f"v1.{n}" for n in range(21, 38)}
    with FakeGitHub() as gh, tempfile.TemporaryDirectory() as tmp:
        for n in range(32, 37):
            files = {OLD_LIST_PATH if n == 32 else LIST_PATH: text}
            gh.seed_repo("kubernetes/kubernetes", files, branch=f"release-1.{n}")
        for label in ("first run (empty cache)", "second run (cached)"):
            sizes: list[int] = []
            client = make_client("bench-token")  # the fake answers authenticated requests only
            client.event_hooks["response"] = [lambda r, sizes=sizes: (r.read(), sizes.append(len(r.content)))]
            start = time.perf_counter()
            lc = load_gate_lifecycle("github:kubernetes/kubernetes", Path(tmp), wanted, api_url=gh.url, client=client)
            took = time.perf_counter() - start
            client.close()
            print(
                f"github: {label}: {len(sizes)} requests, {sum(sizes):,} response bytes, {len(lc.lists)} lists "
                f"read, {took:.3f} s"
            )


def main() -> int:
    parser = bench_parser(__doc__, runs=7)
    parser.add_argument("--gates", default=str(DEFAULT))
    args = parser.parse_args()
    bench_file(Path(args.gates), args.runs)
    bench_github(Path(args.gates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
