"""A second reading of the release team's key dates: the "Timeline" table of each
``releases/release-1.NN/README.md``, read with rules of its own (no code shared with ``bot/``), against what
kep-sync reads from the "Summary" list (:mod:`bot.model.release_calendar`).

Rules here: a table row (``| What | Who | When | Week |``) is a key date by its What cell (``Start of Release
Cycle``; ``Production Readiness``; ``Begin [Enhancements Freeze]``; ``Begin [Code Freeze]``; ``Docs Freeze`` or
``Docs complete``; ``v1.NN.0 released``); its day is, in the When cell, the date right before ``(AoE)``, else the
date right after ``HH:MM UTC``, else the first date; the year is the 4-digit number after the month (none: printed
``????-MM-DD``). Prints per release both readings and each disagreement.

Usage: ``python scripts/check/check_calendar.py [--sig-release ../shared/data/sig-release]``
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.sources.sig_release import load_records  # noqa: E402  (the reading checked here)

KEYS = ("started", "prr_freeze", "enhancements_freeze", "code_freeze", "docs_freeze", "release_day")
WHAT = {
    "started": r"^Start of Release Cycle",
    "prr_freeze": r"Production Readiness",
    "enhancements_freeze": r"^\**Begin \[Enhancements Freeze\]",
    "code_freeze": r"^\**Begin \[Code Freeze\]",
    "docs_freeze": r"^\**\[?Docs Freeze|^Docs complete",
    "release_day": r"^\**v\d+\.\d+\.0 released",
}
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
MONTH = r"((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)"
DATE = rf"(?i:(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+{MONTH}|{MONTH}\s+(\d{{1,2}})(?!\d)(?:st|nd|rd|th)?)(?:,?\s+(\d{{4}}))?)"


def when_day(cell: str) -> tuple[str, bool]:
    """``(YYYY-MM-DD or MM-DD, has_year)`` of a When cell by the rules of the module docstring."""
    cell = re.sub(r"\]\([^)]*\)|\[", " ", cell)
    aoe = re.search(DATE + r"\s*\(AoE\)", cell)
    utc = re.search(r"\d{1,2}:\d{2}\s*UTC\s+(?:[A-Za-z]+,?\s+)?" + DATE, cell)
    first = [m for m in re.finditer(DATE, cell) if (m.group(2) or m.group(3) or "")[:3].lower() in MONTHS]
    m = aoe or utc or (first[0] if first else None)
    if m is None:
        return "", False
    g = m.groups()[-5:]
    day, month = (g[0], g[1]) if g[0] else (g[3], g[2])
    if month[:3].lower() not in MONTHS:
        return "", False
    md = f"{MONTHS.index(month[:3].lower()) + 1:02d}-{int(day):02d}"
    return (f"{g[4]}-{md}", True) if g[4] else (md, False)


def timeline(text: str) -> dict[str, str]:
    """``{key: day}`` from the Timeline table (first row per key)."""
    out: dict[str, str] = {}
    after = text.split("## Timeline", 1)[-1]
    for line in after.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        for key, pattern in WHAT.items():
            if key not in out and re.search(pattern, cells[0], re.I):
                day, has_year = when_day(cells[2])
                out[key] = day if has_year else (f"????-{day}" if day else "")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sig-release", default=str(ROOT.parent / "shared" / "data" / "sig-release"))
    args = ap.parse_args()
    records = load_records(args.sig_release, Path("/nonexistent-cache"))
    root = Path(args.sig_release)
    root = root / "releases" if (root / "releases").is_dir() else root
    agree = disagree = 0
    for folder in sorted(root.glob("release-1.*"), key=lambda p: int(p.name.split(".")[-1])):
        release = "v" + folder.name.removeprefix("release-")
        own = timeline((folder / "README.md").read_text(encoding="utf-8"))
        cal = records.calendars.get(release)
        print(f"== {release}")
        for key in KEYS:
            theirs = cal.day(key) if cal else ""
            mine = own.get(key, "")
            same = theirs == mine
            agree += same
            disagree += not same
            print(f"  {key:<20} summary {theirs or '-':<11} timeline {mine or '-':<11} {'' if same else 'DISAGREE'}")
    for p in records.problems:
        if "README" in p.path:
            print(f"problem: {p.path}: {p.key}: {p.message}")
    print(f"{agree} key dates agree, {disagree} disagree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
