"""Benchmark: read and index the release notes of all 18 releases (1.20-1.37, ~5.5 MB of JSON). Target <= 1 s.

    .venv/bin/python scripts/bench/bench_release_notes.py [--runs 7] [--notes DIR] [--bundle FILE]

Builds the KEP snapshot once from the bundle's HEAD (not timed), then times
``load_release_notes`` (JSON parsing) + ``build_index`` per run and prints the
median, min and max in seconds.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.plan.evidence import build_index  # noqa: E402
from bot.sources.enhancements import load_snapshot  # noqa: E402
from bot.sources.release_notes import load_release_notes  # noqa: E402
from scripts.bench._bench import SHARED, bench_parser, clone_bundle, spread  # noqa: E402

TARGET_SECONDS = 1.0


def main() -> int:
    """Run the benchmark; exit 1 when the median exceeds :data:`TARGET_SECONDS`."""
    parser = bench_parser(__doc__, runs=7)
    parser.add_argument("--notes", default=str(SHARED / "data" / "release-notes"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        keps = load_snapshot(str(clone_bundle(args.bundle, Path(tmp) / "enh")), Path(tmp) / "cache").all_keps()
        times, mentions, size = [], 0, sum(p.stat().st_size for p in Path(args.notes).glob("release-notes-*.json"))
        for _ in range(args.runs):
            start = time.perf_counter()
            notes = load_release_notes(args.notes, Path(tmp) / "cache", None)
            index = build_index(notes.notes, keps)
            times.append(time.perf_counter() - start)
            mentions = len(index.mentions)
    median = statistics.median(times)
    print(f"releases={len(notes.notes)} json_bytes={size} keps={len(keps)} mentions={mentions} runs={args.runs}")
    print(f"{spread(times)} target<={TARGET_SECONDS}s")
    return 0 if median <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
