#!/usr/bin/env python3
"""Benchmark kep-sync on the real data in ../shared and print the figures against the targets.

    .venv/bin/python scripts/benchmark.py [--runs 7] [--shared ../shared]

Figures (median of ``--runs`` runs, at least 5):

- load a directory snapshot (a clone of the bundle), in process      target <= 0.25 s
- a whole ``kep-sync sync --publish none`` from that directory,
  as a subprocess (interpreter start included)                        target <= 1.0 s
- peak RSS of that subprocess (``os.wait4`` rusage, max over runs)    target <= 120 MB
- growth: the same with 10x KEPs (synthetic copies of every KEP directory, renumbered)
  and with 10x rows (every matrix row of the 2026-03-01 page repeated 10 times).

Nothing is written outside a temporary directory; ../shared is only read.
Exit status 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.model.kep import is_template  # noqa: E402
from bot.sources.enhancements import load_snapshot  # noqa: E402

PAGE = "wiki/kubernetes-keps-implementation-matrix.2026-03-01.md"
BUNDLE = "data/enhancements-keps.bundle"
TARGET_LOAD_S, TARGET_SYNC_S, TARGET_RSS_MB = 0.25, 1.0, 120.0
_ROW = re.compile(r"^\| \d+-[^ |]+ \|")
_NUMBERED = re.compile(r"^(\d+)-(.+)$")


def time_in_process(fn, runs: int) -> float:
    """Median wall time of ``fn()`` in seconds (one warm-up call first, as the OS page cache would be)."""
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def time_subprocess(cmd: list[str], cwd: Path, runs: int) -> tuple[float, float]:
    """``(median seconds, peak RSS in MB)`` of ``cmd`` run ``runs`` times (rusage of each child via wait4)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KEP_SYNC_", "GITHUB_"))}
    env.update(PYTHONPATH=str(ROOT), KEP_SYNC_CACHE_DIR=str(cwd / "cache"))
    samples, peak_kb = [], 0
    for i in range(runs + 1):  # the first run warms the page cache and is not counted
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
        if i:
            samples.append(elapsed)
            peak_kb = max(peak_kb, usage.ru_maxrss)  # kilobytes on Linux
    return statistics.median(samples), peak_kb / 1024


def sync_cmd(enhancements: Path, page: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", "sync", "--enhancements", str(enhancements), "--wiki", "wiki",
            "--page", page, "--publish", "none"]


def multiply_keps(src: Path, dst: Path, factor: int) -> int:
    """Write ``dst/keps`` with every numbered KEP directory copied ``factor`` times, renumbered
    (``N``, ``N+10000``, ``N+20000``, ...; ``kep-number`` rewritten to match); the two templates are
    copied once. Returns the kep.yaml count."""
    count = 0
    for path in sorted((src / "keps").rglob("kep.yaml")):
        rel = path.relative_to(src)
        m = None if is_template(rel.as_posix()) else _NUMBERED.match(rel.parent.name)
        copies = range(factor) if m else range(1)
        data = path.read_text(encoding="utf-8")
        for i in copies:
            name = f"{int(m.group(1)) + 10000 * i}-{m.group(2)}" if m else rel.parent.name
            text = re.sub(r"(?m)^kep-number:.*$", f"kep-number: {int(m.group(1)) + 10000 * i}", data) if m else data
            target = dst / rel.parent.parent / name / "kep.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            count += 1
    return count


def multiply_rows(text: str, factor: int) -> tuple[str, int]:
    """Every KEP row line repeated ``factor`` times in place; returns (page, row count)."""
    out, rows = [], 0
    for line in text.split("\n"):
        is_row = bool(_ROW.match(line))
        out.extend([line] * (factor if is_row else 1))
        rows += factor if is_row else 0
    return "\n".join(out), rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (>= 5; default 7)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared data directory")
    args = parser.parse_args()
    runs = max(5, args.runs)
    shared = args.shared.resolve()
    with tempfile.TemporaryDirectory(prefix="kep-sync-bench-") as tmp_name:
        tmp = Path(tmp_name)
        enh = tmp / "enhancements"
        subprocess.run(["git", "clone", "-q", str(shared / BUNDLE), str(enh)], check=True, capture_output=True)
        (tmp / "wiki").mkdir()
        page_text = (shared / PAGE).read_text(encoding="utf-8")
        (tmp / "wiki" / "m.md").write_text(page_text, encoding="utf-8")
        big_page, big_rows = multiply_rows(page_text, 10)
        (tmp / "wiki" / "m10.md").write_text(big_page, encoding="utf-8")
        enh10 = tmp / "enhancements-10x"
        multiply_keps(enh, enh10, 10)
        n1 = len(load_snapshot(str(enh), tmp / "cache").all_keps())
        n10 = len(load_snapshot(str(enh10), tmp / "cache").all_keps())
        rows1 = multiply_rows(page_text, 1)[1]

        load1 = time_in_process(lambda: load_snapshot(str(enh), tmp / "cache"), runs)
        load10 = time_in_process(lambda: load_snapshot(str(enh10), tmp / "cache"), runs)
        sync1, rss1 = time_subprocess(sync_cmd(enh, "m.md"), tmp, runs)
        sync_k10, rss_k10 = time_subprocess(sync_cmd(enh10, "m.md"), tmp, runs)
        sync_r10, rss_r10 = time_subprocess(sync_cmd(enh, "m10.md"), tmp, runs)
        start_only, rss_start = time_subprocess([sys.executable, "-m", "bot.cli", "--version"], tmp, runs)
        shutil.rmtree(enh10)

    rows = [
        ("load directory snapshot", f"{n1} KEPs", f"{load1:.3f} s", f"<= {TARGET_LOAD_S} s", load1 <= TARGET_LOAD_S),
        ("sync --publish none (subprocess)", f"{n1} KEPs, {rows1} rows", f"{sync1:.3f} s", f"<= {TARGET_SYNC_S} s",
         sync1 <= TARGET_SYNC_S),
        ("  peak RSS", "", f"{rss1:.1f} MB", f"<= {TARGET_RSS_MB:.0f} MB", rss1 <= TARGET_RSS_MB),
        ("  of which: kep-sync --version", "process start + imports", f"{start_only:.3f} s", "", None),
        ("load directory snapshot, 10x KEPs", f"{n10} KEPs", f"{load10:.3f} s", f"x{load10 / load1:.1f}", None),
        ("sync, 10x KEPs", f"{n10} KEPs, {rows1} rows", f"{sync_k10:.3f} s", f"x{sync_k10 / sync1:.1f}", None),
        ("  peak RSS", "", f"{rss_k10:.1f} MB", f"x{rss_k10 / rss1:.1f}", None),
        ("sync, 10x rows", f"{n1} KEPs, {big_rows} rows", f"{sync_r10:.3f} s", f"x{sync_r10 / sync1:.1f}", None),
        ("  peak RSS", "", f"{rss_r10:.1f} MB", f"x{rss_r10 / rss1:.1f}", None),
    ]
    print(f"kep-sync benchmark: median of {runs} runs, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"{'figure':36} {'input':28} {'value':>10}  target/growth")
    for name, what, value, target, ok in rows:
        verdict = "" if ok is None else ("  ok" if ok else "  MISSED")
        print(f"{name:36} {what:28} {value:>10}  {target}{verdict}")
    return 0 if all(ok is not False for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
