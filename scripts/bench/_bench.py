"""Shared by the benchmarks under ``scripts/``: the real data's paths, ``--runs``/``--bundle``, one clone, a spread.

Not a script (no ``main``); imported as ``scripts.bench._bench`` after a script puts the project root on
``sys.path``. Never imported by the second readings (``eval_evidence.py``, ``check_*.py``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

#: ../shared from the project root (read-only real data, see ../shared/README.md).
SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"


def bench_parser(doc: str, runs: int) -> argparse.ArgumentParser:
    """An argument parser described by ``doc``'s first line, with ``--runs`` (default ``runs``) and ``--bundle``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--bundle", default=str(BUNDLE))
    return parser


def clone_bundle(bundle: str, target: Path) -> Path:
    """``git clone -q bundle target`` (not timed; the real bundle has no HEAD, so git checks out its
    ``init.defaultBranch``: ``master`` here, whatever the caller's git config says); returns ``target``. Raises
    CalledProcessError when git fails."""
    subprocess.run(["git", "-c", "init.defaultBranch=master", "clone", "-q", bundle, str(target)], check=True)
    return target


def spread(times: list[float]) -> str:
    """``median=…s min=…s max=…s`` of ``times`` (seconds, at least one)."""
    return f"median={statistics.median(times):.3f}s min={min(times):.3f}s max={max(times):.3f}s"
