"""Benchmark: release-note evidence cost. Targets: indexing 18 releases <= 0.5 s; a sync with
notes <= 0.3 s more than one without.

    .venv/bin/python scripts/bench/bench_evidence.py [--runs 5] [--notes DIR] [--bundle FILE] [--kep-sync PATH]

Clones the bundle once (not timed). Prints medians of ``--runs`` runs:

- ``index``: reading all 18 ``release-notes-1.NN.json`` (``load_release_notes``) plus ``build_index``,
  and ``build_index`` alone;
- ``sync``: ``kep-sync sync --publish none`` as a new process on the 2026-03-01 page (the real-data case:
  62 rows, 23 KEPs change), without and with ``--release-notes``, runs interleaved; the difference of
  the medians is the cost of the notes (that run reads the 10 releases the changed KEPs name plus the
  newest two);
- ``audit``: ``kep-sync audit`` of the current page with every release read, for reference.

Timings on a shared 2-core machine are noisy; compare figures taken in the same run (the index line
also gives CPU time and the ratio to a floor, decoding the same JSON files; the target is checked on CPU time).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.plan.evidence import build_index  # noqa: E402
from bot.sources.enhancements import load_snapshot  # noqa: E402
from bot.sources.release_notes import load_release_notes  # noqa: E402
from scripts.bench._bench import SHARED, bench_parser, clone_bundle  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INDEX_TARGET, NOTES_COST_TARGET = 0.5, 0.3


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "KEP_SYNC_CONFIG": ""})
    return time.perf_counter() - start


def main() -> int:
    """Print the figures; exit 1 when a target is missed."""
    parser = bench_parser(__doc__, runs=5)
    parser.add_argument("--notes", default=str(SHARED / "data" / "release-notes"))
    parser.add_argument("--kep-sync", default=str(ROOT / ".venv" / "bin" / "kep-sync"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        keps = load_snapshot(str(clone_bundle(args.bundle, t / "enh")), t / "cache").all_keps()
        total, index_only, cpu, floor = [], [], [], []
        files = sorted(Path(args.notes).glob("release-notes-*.json"))
        for _ in range(args.runs):
            start, cpu_start = time.perf_counter(), time.process_time()
            notes = load_release_notes(args.notes, t / "cache", None)
            mid = time.perf_counter()
            index = build_index(notes.notes, keps)
            end = time.perf_counter()
            total.append(end - start)
            index_only.append(end - mid)
            cpu.append(time.process_time() - cpu_start)
            start = time.perf_counter()  # the floor: only decoding the same JSON files
            for f in files:
                json.loads(f.read_bytes())
            floor.append(time.perf_counter() - start)
        print(
            f"index: releases={len(notes.notes)} mentions={len(index.mentions)} runs={args.runs} "
            f"read+index median={statistics.median(total):.3f}s wall, {statistics.median(cpu):.3f}s CPU "
            f"(build_index alone {statistics.median(index_only):.3f}s; floor json.loads of the files "
            f"{statistics.median(floor):.3f}s, ratio {statistics.median(total) / statistics.median(floor):.1f}x) "
            f"target<={INDEX_TARGET}s"
        )
        wiki = t / "wiki"
        wiki.mkdir()
        shutil.copy(SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md", wiki / "stale.md")
        shutil.copy(SHARED / "wiki" / "kubernetes-keps-implementation-matrix.md", wiki / "current.md")
        base = [
            args.kep_sync,
            "sync",
            "--enhancements",
            str(t / "enh"),
            "--wiki",
            str(wiki),
            "--page",
            "stale.md",
            "--publish",
            "none",
        ]
        _timed(base)  # warm the page cache and the bytecode
        plain, notes_runs = [], []
        for _ in range(args.runs):
            plain.append(_timed(base))
            notes_runs.append(_timed(base + ["--release-notes", args.notes]))
        cost = statistics.median(notes_runs) - statistics.median(plain)
        print(
            f"sync: runs={args.runs} without notes median={statistics.median(plain):.3f}s with notes "
            f"median={statistics.median(notes_runs):.3f}s cost={cost:+.3f}s target<={NOTES_COST_TARGET}s"
        )
        audit = [
            _timed(
                [
                    args.kep_sync,
                    "audit",
                    "--enhancements",
                    str(t / "enh"),
                    "--wiki",
                    str(wiki),
                    "--page",
                    "current.md",
                    "--release-notes",
                    args.notes,
                ]
            )
            for _ in range(3)
        ]
        print(f"audit: 73 rows, every release read, median of 3={statistics.median(audit):.3f}s")
    ok = statistics.median(cpu) <= INDEX_TARGET and cost <= NOTES_COST_TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
