#!/usr/bin/env python3
"""Benchmark a dry run against the floors of parsing alone and of the libraries in use, side by side, on
the real data in ../shared.

    .venv/bin/python scripts/bench/benchmark.py [--runs 7] [--shared ../shared]

Every figure is a new process, as a user runs it; the commands are run in turns (floor, sync,
sync with release notes, ... then again), so load from other processes on the machine falls on
all of them alike. Printed: the median wall time and CPU time (user + system, from ``os.wait4``
rusage; steadier than wall time on a busy machine) of ``--runs`` rounds (one warm-up round first),
peak RSS (max over the rounds) and these ratios (of wall times; targets are on those):

- floor: a bare ``python`` that only parses every ``keps/**/kep.yaml`` of a clone of the bundle
  with libyaml (``yaml.load(data, Loader=yaml.CBaseLoader)``), nothing else;
- the floor with the libraries a sync must use, imported and used once each (a pydantic model validated,
  a table parsed with markdown-it-py, a structlog line logged, argparse): what no sync can go below;
- ``kep-sync sync --publish none`` of the 2026-03-01 page against that clone (a git checkout: provenance
  read from its history)                          <= 2.0x the floor with libraries (a guard; its ratio to
  the bare floor is printed for reference: the x4.0 target on it is retired, docs/contributing.md says why),
  peak RSS <= 80 MB;
- the same with ``--release-notes ../shared/data/release-notes``, for reference (its ratio to the sync; the
  target it had, 2.5x the floor, is retired: docs/contributing.md says why);
- the first sync with an empty ``cache_dir`` (one run, before the rounds: provenance reads the
  enhancements history with ``git log`` once and caches it; the rounds share a warm cache);
- the same sync with 10x KEPs (every KEP directory copied 10 times, renumbered)   <= 10x time;
- the same sync with 10x rows (every matrix row of the page repeated 10 times)   <= 2x time;
- peak RSS of the same sync on pages of about 1,000, 2,000 and 5,000 rows (one run each) <= 80 MB.

Nothing is written outside a temporary directory; ../shared is only read. Exit status 0 when
every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
PAGE = "wiki/kubernetes-keps-implementation-matrix.2026-03-01.md"
BUNDLE = "data/enhancements-keps.bundle"
NOTES = "data/release-notes"
TARGET_RATIO, TARGET_RSS_MB = 2.0, 80.0
#: Page sizes (rows, about) whose peak RSS is printed.
RSS_ROWS = (1000, 2000, 5000)
TARGET_KEPS_GROWTH, TARGET_ROWS_GROWTH = 10.0, 2.0
#: The floor: parse every kep.yaml with libyaml, construct the documents, nothing else.
FLOOR = (
    "import pathlib, sys, yaml\n"
    "for p in sorted(pathlib.Path(sys.argv[1], 'keps').rglob('kep.yaml')):\n"
    "    yaml.load(p.read_bytes(), Loader=yaml.CBaseLoader)\n"
)
#: The floor after importing the libraries every sync loads and using each once, as a sync does (config
#: model, page parser, log line, command line).
FLOOR_WITH_LIBRARIES = (
    "import argparse, markdown_it, structlog\n"
    "from pydantic import BaseModel\n"
    "class Settings(BaseModel):\n"
    "    page: str = ''\n"
    "    rows: list[int] = []\n"
    "Settings.model_validate({'page': 'm.md', 'rows': [1]})\n"
    "markdown_it.MarkdownIt('commonmark').enable('table').parse('| a |\\n|---|\\n| 1 |\\n')\n"
    "structlog.get_logger().info('ready')\n"
) + FLOOR
_ROW = re.compile(r"^\| \d+-[^ |]+ \|")
_NUMBERED = re.compile(r"^(\d+)-(.+)$")
_TEMPLATES = ("keps/NNNN-kep-template/", "keps/sig-cloud-provider/providers/0000-cloud-provider-template/")


def run_once(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """``(wall seconds, CPU seconds (user + system), peak RSS in kB)`` of one run of ``cmd``; exits naming
    the command when it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {os.waitstatus_to_exitcode(status)}: {err.strip()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss  # kilobytes on Linux


class Figures(NamedTuple):
    """One command's medians over the rounds: ``wall`` and ``cpu`` seconds, and its peak ``rss`` in MB."""

    wall: float
    cpu: float
    rss: float


def bench_env(cache: Path) -> dict[str, str]:
    """The environment of every run: no kep-sync or GitHub settings of the caller, ``cache`` as ``cache_dir``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KEP_SYNC_", "GITHUB_", "PYTHON"))}
    env.update(PYTHONPATH=str(ROOT), KEP_SYNC_CACHE_DIR=str(cache))
    return env


def run_in_turns(cmds: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, Figures]:
    """:class:`Figures` per command: every command once per round, ``runs`` rounds after a warm-up."""
    env = bench_env(cwd / "cache")
    wall: dict[str, list[float]] = {name: [] for name in cmds}
    cpu: dict[str, list[float]] = {name: [] for name in cmds}
    peak: dict[str, int] = dict.fromkeys(cmds, 0)
    for round_ in range(runs + 1):  # round 0 warms the page cache and is not counted
        for name, cmd in cmds.items():
            elapsed, used, rss = run_once(cmd, cwd, env)
            if round_:
                wall[name].append(elapsed)
                cpu[name].append(used)
                peak[name] = max(peak[name], rss)
    return {
        name: Figures(statistics.median(wall[name]), statistics.median(cpu[name]), peak[name] / 1024) for name in cmds
    }


def sync_cmd(enhancements: Path, page: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bot.cli.main",
        "sync",
        "--enhancements",
        str(enhancements),
        "--wiki",
        "wiki",
        "--page",
        page,
        "--publish",
        "none",
        *extra,
    ]


def multiply_keps(src: Path, dst: Path, factor: int) -> int:
    """Write ``dst/keps`` with every numbered KEP directory copied ``factor`` times, renumbered
    (``N``, ``N+10000``, ``N+20000``, ...; ``kep-number`` rewritten to match); templates and PRR
    files are copied once. Returns the kep.yaml count."""
    count = 0
    for path in sorted((src / "keps").rglob("*.yaml")):
        rel = path.relative_to(src)
        m = _NUMBERED.match(rel.parent.name) if path.name == "kep.yaml" else None
        if m and rel.as_posix().startswith(_TEMPLATES):
            m = None
        data = path.read_text(encoding="utf-8")
        for i in range(factor) if m else range(1):
            name = f"{int(m.group(1)) + 10000 * i}-{m.group(2)}" if m else rel.parent.name
            text = re.sub(r"(?m)^kep-number:.*$", f"kep-number: {int(m.group(1)) + 10000 * i}", data) if m else data
            target = dst / rel.parent.parent / name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            count += path.name == "kep.yaml"
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
    parser.add_argument("--runs", type=int, default=7, help="timed rounds (at least 1; default 7)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared data directory")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    runs = args.runs
    shared = args.shared.resolve()
    if not (shared / BUNDLE).is_file() or not (shared / PAGE).is_file():
        parser.error(f"--shared {args.shared}: no {BUNDLE} and {PAGE} there")
    with tempfile.TemporaryDirectory(prefix="kep-sync-bench-") as tmp_name:
        tmp = Path(tmp_name)
        enh, enh10 = tmp / "enhancements", tmp / "enhancements-10x"
        subprocess.run(
            ["git", "-c", "init.defaultBranch=master", "clone", "-q", str(shared / BUNDLE), str(enh)],
            check=True,
            capture_output=True,
        )
        (tmp / "wiki").mkdir()
        page_text = (shared / PAGE).read_text(encoding="utf-8")
        (tmp / "wiki" / "m.md").write_text(page_text, encoding="utf-8")
        big_page, rows10 = multiply_rows(page_text, 10)
        (tmp / "wiki" / "m10.md").write_text(big_page, encoding="utf-8")
        keps1 = sum(1 for _ in (enh / "keps").rglob("kep.yaml"))
        keps10 = multiply_keps(enh, enh10, 10)
        rows1 = multiply_rows(page_text, 1)[1]
        (tmp / "floor.py").write_text(FLOOR, encoding="utf-8")
        (tmp / "floor_libs.py").write_text(FLOOR_WITH_LIBRARIES, encoding="utf-8")
        wall, used, rss = run_once(sync_cmd(enh, "m.md"), tmp, bench_env(tmp / "empty-cache"))
        first = Figures(wall, used, rss / 1024)
        scale = []
        for want in RSS_ROWS:
            text, count = multiply_rows(page_text, max(1, round(want / multiply_rows(page_text, 1)[1])))
            (tmp / "wiki" / f"r{want}.md").write_text(text, encoding="utf-8")
            wall, used, rss = run_once(sync_cmd(enh, f"r{want}.md"), tmp, bench_env(tmp / "cache"))
            scale.append((count, Figures(wall, used, rss / 1024)))
        got = run_in_turns(
            {
                "floor": [sys.executable, str(tmp / "floor.py"), str(enh)],
                "libs": [sys.executable, str(tmp / "floor_libs.py"), str(enh)],
                "sync": sync_cmd(enh, "m.md"),
                "notes": sync_cmd(enh, "m.md", "--release-notes", str(shared / NOTES)),
                "keps10": sync_cmd(enh10, "m.md"),
                "rows10": sync_cmd(enh, "m10.md"),
            },
            tmp,
            runs,
        )

    floor, sync = got["floor"], got["sync"]

    def ratio(figures: Figures, base: Figures, target: float, what: str) -> tuple[str, bool]:
        wall, cpu = figures.wall / base.wall, figures.cpu / base.cpu
        return f"x{wall:.2f} {what} (CPU x{cpu:.2f}; target <= {target:g})", wall <= target

    rows = [
        ("floor: parse every kep.yaml (libyaml)", f"{keps1} files", floor, ("", None)),
        (
            "floor + libraries in use",
            f"{keps1} files",
            got["libs"],
            (
                f"x{got['libs'].wall / floor.wall:.2f} floor (CPU x{got['libs'].cpu / floor.cpu:.2f}; what no sync goes below)",
                None,
            ),
        ),
        (
            "sync --publish none",
            f"{keps1} kep.yaml, {rows1} rows",
            sync,
            ratio(sync, got["libs"], TARGET_RATIO, "floor + libraries"),
        ),
        ("", "", None, (f"x{sync.wall / floor.wall:.2f} floor (CPU x{sync.cpu / floor.cpu:.2f}; reference)", None)),
        ("  peak RSS", "", None, (f"{sync.rss:.1f} MB (target <= {TARGET_RSS_MB:g} MB)", sync.rss <= TARGET_RSS_MB)),
        (
            "sync --release-notes (dir of 18)",
            f"{keps1} kep.yaml, {rows1} rows",
            got["notes"],
            (
                f"x{got['notes'].wall / sync.wall:.2f} sync, x{got['notes'].wall / floor.wall:.2f} floor "
                f"(CPU x{got['notes'].cpu / sync.cpu:.2f} sync; reference)",
                None,
            ),
        ),
        (
            "sync, first run (empty cache_dir)",
            f"{keps1} kep.yaml, {rows1} rows",
            first,
            ("one run, not a median: the history is read with git log once, then cached", None),
        ),
        (
            "sync, 10x KEPs",
            f"{keps10} kep.yaml, {rows1} rows",
            got["keps10"],
            ratio(got["keps10"], sync, TARGET_KEPS_GROWTH, "sync"),
        ),
        (
            "sync, 10x rows",
            f"{keps1} kep.yaml, {rows10} rows",
            got["rows10"],
            ratio(got["rows10"], sync, TARGET_ROWS_GROWTH, "sync"),
        ),
    ] + [
        (
            f"  peak RSS at {count:,} rows",
            f"{keps1} kep.yaml, {count} rows",
            figures,
            (f"{figures.rss:.1f} MB (one run; target <= {TARGET_RSS_MB:g} MB)", figures.rss <= TARGET_RSS_MB),
        )
        for count, figures in scale
    ]
    print(
        f"kep-sync benchmark {time.strftime('%Y-%m-%d')}: new processes run in turns, median of {runs} rounds, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"{'figure':38} {'input':26} {'wall':>8} {'CPU':>8} {'peak RSS':>9}  ratio")
    for name, what, figures, (text, ok) in rows:
        timing = f"{figures.wall:6.3f} s {figures.cpu:6.3f} s {figures.rss:6.1f} MB" if figures else " " * 28
        verdict = "" if ok is None else ("  ok" if ok else "  MISSED")
        print(f"{name:38} {what:26} {timing}  {text}{verdict}")
    return 0 if all(ok is not False for *_, (_, ok) in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
