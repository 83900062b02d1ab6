"""Benchmark: the README's test command, run N times: median wall and CPU, the test count, the slowest tests.

    .venv/bin/python scripts/bench/bench_suite.py [--runs 3] [--dry-run] [-- PYTEST_ARGS...]

Runs ``.venv/bin/python -m pytest -q`` (README.md, "Run the tests") from the project root ``--runs`` times in a
row, each with ``--durations=10`` and any ``PYTEST_ARGS`` added (``-- --dist=worksteal`` to compare a
setting), its output kept out of the terminal. Prints, per run, the wall time
(``time.perf_counter``, seconds), the CPU time (user + system, seconds, from ``os.wait4``'s rusage of the
pytest process: on Linux it includes every descendant it waited for, so the pytest-xdist workers and the
``git`` and ``kep-sync`` processes the tests start) and pytest's closing line; then the date, the load average
(1, 5 and 15 minutes, ``os.getloadavg``) before the first run and after the last, the medians, the test count
(passed, of the last run) and the 10 slowest test phases of the last run. ``--dry-run`` prints the command and
runs nothing. Exit code 0 when every run passed (pytest exited 0 with at least one test passed); 1 when a run
failed or tested nothing (its figures measure no suite; the line ``not a measurement: ...`` says which run);
2 for bad arguments.
Never run it from the test suite: it runs the whole suite.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The README's test command (tests/test_scripts.py checks that README.md still shows it).
COMMAND = (".venv/bin/python", "-m", "pytest", "-q")
#: Added to each run: pytest's own report of the 10 slowest setup/call/teardown phases.
DURATIONS = "--durations=10"

_CLOSING = re.compile(r"^=*\s*(?P<line>(\d+ (passed|failed|error|errors|skipped|deselected)|no tests ran)\b.*?)\s*=*$")
_PASSED = re.compile(r"\b(\d+) passed\b")
_DURATION = re.compile(r"^\d+(\.\d+)?s (setup|call|teardown) +\S")


def closing_line(output: str) -> str:
    """pytest's closing line of ``output`` (``"2088 passed in 41.20s"``, without ``=`` rules); ``""`` when none."""
    for line in reversed(output.splitlines()):
        match = _CLOSING.match(line.strip())
        if match:
            return match.group("line")
    return ""


def passed(closing: str) -> int:
    """The ``N passed`` count of a closing line; 0 when it has none."""
    match = _PASSED.search(closing)
    return int(match.group(1)) if match else 0


def slowest(output: str) -> list[str]:
    """The lines of pytest's ``slowest durations`` report in ``output`` (``"9.31s call     tests/...::name"``), in
    its order (slowest first); ``[]`` when it has none."""
    return [line.rstrip() for line in output.splitlines() if _DURATION.match(line)]


def run_once(extra: list[str]) -> tuple[float, float, str, int]:
    """One run of :data:`COMMAND` plus :data:`DURATIONS` and ``extra`` in :data:`ROOT`: ``(wall seconds, CPU
    seconds, output, pytest's exit code)``, output being stdout and stderr together."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen([*COMMAND, DURATIONS, *extra], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, out.read(), process.returncode


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the suite (default 3)")
    parser.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments, after --")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    command = " ".join([*COMMAND, DURATIONS, *args.pytest_args])
    if args.dry_run:
        print(f"would run {args.runs} times in {ROOT}: {command}")
        return 0
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    load_before = _load()
    walls, cpus, output, invalid = [], [], "", []
    for i in range(args.runs):
        wall, cpu, output, code = run_once(args.pytest_args)
        if code != 0 or passed(closing_line(output)) == 0:
            invalid.append(f"run {i + 1} exited {code} with {closing_line(output) or 'no closing line'}")
        walls.append(wall)
        cpus.append(cpu)
        print(
            f"run {i + 1}: wall={wall:.1f}s cpu={cpu:.1f}s  {closing_line(output) or '(no closing line)'}", flush=True
        )
    print(f"date: {date}  command: {command}  cpus: {os.cpu_count()}")
    print(f"load average (1, 5, 15 min): {load_before} before, {_load()} after")
    print(
        f"median of {args.runs}: wall={statistics.median(walls):.1f}s cpu={statistics.median(cpus):.1f}s "
        f"(user + system)  tests passed (last run): {passed(closing_line(output))}"
    )
    print("10 slowest test phases (last run):")
    for line in slowest(output)[:10]:
        print(f"  {line}")
    if invalid:
        print(f"not a measurement: {'; '.join(invalid)}")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
