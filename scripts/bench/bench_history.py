"""Benchmark: what upstream provenance adds to a sync, and ``kep-sync digest`` over the whole history.

    .venv/bin/python scripts/bench/bench_history.py [--runs 7] [--bundle FILE] [--page FILE]

From a local clone of the bundle (a directory source) and the 2026-03-01 page:

1. the plan of a ``--publish none`` sync without history (for scale, in process);
2. provenance on a **first run** (empty ``cache_dir/history``), timed directly
   around the history I/O: git log of the first-parent line, renames, the field
   timelines of the changed kep.yaml files (the pure attach step is in the plan);
3. provenance on a **later run** (the cache filled by run 2);
4. ``kep-sync digest --sig node --from v1.33 --to v1.35 --at 2026-01-01`` as a new
   process, cold (empty cache) and warm.

Prints medians (min, max) in seconds over ``--runs`` runs, the changes with
provenance, and exits 1 when a median misses its target: first run <= 0.5 s,
later runs <= 0.1 s, digest < 2 s. Figures on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.commands.inputs import Inputs  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.plan.planner import plan_sync  # noqa: E402
from bot.sources.enhancements import load_snapshot  # noqa: E402
from scripts.bench._bench import SHARED, bench_parser, clone_bundle, spread  # noqa: E402

TARGETS = {"first": 0.5, "later": 0.1, "digest": 2.0}


def main() -> int:
    """Run the benchmark; exit 1 when a median misses its target."""
    parser = bench_parser(__doc__, runs=7)
    parser.add_argument("--page", default=str(SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        enh = str(clone_bundle(args.bundle, Path(tmp) / "enh"))
        pages = {"matrix.md": Path(args.page).read_bytes()}
        cache = Path(tmp) / "cache"
        config = Config.model_validate(
            {"enhancements": enh, "cache_dir": str(cache), "wiki": {"dir": tmp, "pages": ["matrix.md"]}}
        )
        snapshot = load_snapshot(enh, cache)
        floor, first, later = [], [], []
        plan = None
        for _ in range(args.runs):
            start = time.perf_counter()
            plain = plan_sync(config, snapshot, pages, release_notes=None)
            floor.append(time.perf_counter() - start)
            shutil.rmtree(cache / "history", ignore_errors=True)
            for bucket in (first, later):
                spent = [0.0]
                start = time.perf_counter()
                loader, renames = Inputs(config, snapshot=snapshot).provenance()
                spent[0] += time.perf_counter() - start

                def timed(wanted, proposed=(), loader=loader, spent=spent):
                    t0 = time.perf_counter()
                    try:
                        return loader(wanted, proposed)
                    finally:
                        spent[0] += time.perf_counter() - t0

                plan = plan_sync(config, snapshot, pages, release_notes=None, history=timed, renames=renames)
                bucket.append(spent[0])
        applied = [c for c in plan.changes if c.applied]
        stale = len({c.kep_id for c in applied})
        print(
            f"stale rows={stale} applied changes={len(applied)} with upstream="
            f"{sum(c.upstream is not None for c in applied)} ({plan.report['provenance']}) "
            f"plain plan changes={len(plain.changes)}"
        )
        print(f"plan without history (for scale): {spread(floor)}")
        print(f"provenance added, first run:  {spread(first)} target<={TARGETS['first']}s")
        print(f"provenance added, later runs: {spread(later)} target<={TARGETS['later']}s")
        digest = {"cold": [], "warm": []}
        cmd = [
            str(ROOT / ".venv" / "bin" / "kep-sync"),
            "digest",
            "--enhancements",
            enh,
            "--sig",
            "node",
            "--from",
            "v1.33",
            "--to",
            "v1.35",
            "--at",
            "2026-01-01",
            "--format",
            "json",
        ]
        env = {**os.environ, "KEP_SYNC_CACHE_DIR": f"{tmp}/digest-cache", "KEP_SYNC_CONFIG": "/dev/null"}
        for _ in range(args.runs):
            shutil.rmtree(f"{tmp}/digest-cache", ignore_errors=True)
            for kind in ("cold", "warm"):
                start = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=env)
                digest[kind].append(time.perf_counter() - start)
        print(f"digest as a new process, cold cache: {spread(digest['cold'])} target<{TARGETS['digest']}s")
        print(f"digest as a new process, warm cache: {spread(digest['warm'])}")
    ok = (
        statistics.median(first) <= TARGETS["first"]
        and statistics.median(later) <= TARGETS["later"]
        and statistics.median(digest["cold"]) < TARGETS["digest"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
