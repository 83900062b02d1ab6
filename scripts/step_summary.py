"""The GitHub Actions job summary of a kep-sync run (``.github/workflows/kep-sync.yml``, step with ``if: always()``).

    python scripts/step_summary.py --report kep-sync-report.json --changelog changelog.md \\
        --outcome "${{ steps.run.outcome }}" >> "$GITHUB_STEP_SUMMARY"

Prints markdown: a first line saying how the run ended (failed, with the error when the JSON report has
one; blocked, with what to do; cancelled), the pull request URL when there is one, then the changelog
(or audit) kep-sync printed. Either file may be missing or empty (a run that failed before writing it);
the summary says so instead of failing. Standard library only, so it runs even when the install failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REGENERATE = "kep-sync:regenerate"


def read_report(path: Path) -> dict:
    """The JSON report as a dict; ``{}`` when it is missing or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def summary(report: dict, changelog: str, outcome: str, command: str = "sync") -> str:
    """The summary markdown. ``outcome``: the step outcome (``success``, ``failure``, ``cancelled``,
    ``skipped``); ``report``: the JSON report (``result``, ``error``, ``pull_request``), maybe ``{}``."""
    lines = []
    result = report.get("result")
    if outcome == "cancelled":
        lines.append(f"**kep-sync {command} was cancelled** before it finished; nothing below is complete.")
    elif outcome != "success" or result == "failed":
        error = report.get("error") or "no report was written; see the step's log for the error"
        lines.append(f"**kep-sync {command} failed**: {error}")
    elif result == "blocked":
        lines.append(f"**kep-sync {command} was blocked**: a commit kep-sync did not make is on the bot branch, "
                     f"so nothing was written. Add the label `{REGENERATE}` to the pull request to let kep-sync "
                     "replace it, or delete the branch.")
    if report.get("pull_request"):
        lines.append(f"Pull request: {report['pull_request']}")
    if lines:
        lines.append("")
    lines.append(changelog.rstrip("\n") if changelog.strip() else f"_kep-sync {command} printed no changelog._")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the summary; always exits 0 (a summary must never fail the job)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", default="kep-sync-report.json")
    parser.add_argument("--changelog", default="changelog.md")
    parser.add_argument("--outcome", default="success")
    parser.add_argument("--command", default="sync")
    args = parser.parse_args(argv)
    try:
        changelog = Path(args.changelog).read_text(encoding="utf-8", errors="replace")
    except OSError:
        changelog = ""
    sys.stdout.write(summary(read_report(Path(args.report)), changelog, args.outcome, args.command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
