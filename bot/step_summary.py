"""The GitHub Actions job summary of a kep-sync run (``.github/workflows/kep-sync.yml``, step with ``if: always()``).

    python -m bot.step_summary --report kep-sync-report.json --changelog changelog.md \\
        --outcome "${{ steps.run.outcome }}" >> "$GITHUB_STEP_SUMMARY"

Prints markdown: a first line saying how the run ended (failed, with the error when the JSON report has
one, else why the report cannot tell; blocked, with what to do; cancelled; not run because an earlier step
such as the validation failed), the pull request URL when there is one, then the changelog
(or audit) kep-sync printed. Either file may be missing or empty (a run that failed before writing it);
the summary says so instead of failing; a FIFO, device or file over its cap is never read
(:mod:`bot.fileread`). The error and the pull request address are shown inert
(:func:`bot.plan.changelog.markdown.inline`: an error quotes inputs). Standard library only (``bot/__init__.py``
and the modules it imports import nothing else either), so it runs from a checkout of kep-sync even when the
install failed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import NamedTuple

from bot.fileread import PR_FILE_BYTES, REPORT_BYTES, read_regular
from bot.plan.changelog.markdown import inline

REGENERATE = "kep-sync:regenerate"


class Report(NamedTuple):
    """The JSON report as read: ``data`` (``{}`` when absent or unusable) and ``why`` it is empty
    (``""`` when it was read)."""

    data: dict
    why: str = ""


def read_report(path: Path) -> Report:
    """The JSON report at ``path``: its object, or ``{}`` with why (missing, not a regular file, larger than
    :data:`bot.fileread.REPORT_BYTES`, not UTF-8 or JSON, not an object)."""
    try:
        text = read_regular(path, REPORT_BYTES).decode("utf-8")
    except FileNotFoundError:
        return Report({}, "no report was written")
    except (OSError, UnicodeDecodeError) as exc:
        return Report({}, f"the report {path} could not be read ({getattr(exc, 'strerror', None) or exc})")
    try:
        data = json.loads(text)
    except ValueError as exc:
        return Report({}, f"the report {path} is not JSON ({exc})")
    if not isinstance(data, dict):
        return Report({}, f"the report {path} is not a JSON object")
    return Report(data)


def summary(report: dict | Report, changelog: str, outcome: str, command: str = "sync") -> str:
    """The summary markdown. ``outcome``: the step outcome (``success``, ``failure``, ``cancelled``,
    ``skipped``: an earlier step, such as the validation, failed); ``report``: the JSON report (``result``,
    ``error``, ``pull_request``), maybe ``{}``, or a :class:`Report` saying why it is empty."""
    report, why = (
        (report.data, report.why) if isinstance(report, Report) else (report, "" if report else "no report was written")
    )
    lines = []
    result = report.get("result")
    if outcome == "cancelled":
        lines.append(f"**kep-sync {command} was cancelled** before it finished; nothing below is complete.")
    elif outcome == "skipped":
        lines.append(
            f"**kep-sync {command} did not run**: an earlier step failed (a configuration that does not "
            "validate stops the job there); see that step's log."
        )
    elif outcome != "success" or result == "failed":
        error = inline(str(report.get("error") or "").strip()) or (
            f"{inline(why.strip())}; see the step's log for the error"
            if why
            else "the report names no error; see the step's log for it"
        )
        lines.append(f"**kep-sync {command} failed**: {error}")
    elif result == "blocked":
        lines.append(
            f"**kep-sync {command} was blocked**: a commit kep-sync did not make is on the bot branch, "
            f"so nothing was written. Add the label `{REGENERATE}` to the pull request to let kep-sync "
            "replace it, or delete the branch."
        )
    if report.get("pull_request"):
        lines.append(f"Pull request: {_address(str(report['pull_request']))}")
    if lines:
        lines.append("")
    lines.append(changelog.rstrip("\n") if changelog.strip() else f"_kep-sync {command} printed no changelog._")
    return "\n".join(lines) + "\n"


def _address(url: str) -> str:
    """The pull request's address as a link GitHub makes of it (an ``https://`` URL with nothing markdown would
    read in it), else :func:`bot.plan.changelog.markdown.inline` of the value."""
    return url if re.fullmatch(r"https://[A-Za-z0-9./_-]+", url) else inline(url)


def main(argv: list[str] | None = None) -> int:
    """Print the summary; always exits 0 (a summary must never fail the job)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", default="kep-sync-report.json")
    parser.add_argument("--changelog", default="changelog.md")
    parser.add_argument("--outcome", default="success")
    parser.add_argument("--command", default="sync")
    args = parser.parse_args(argv)
    try:
        changelog = read_regular(args.changelog, PR_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        changelog = ""
    sys.stdout.write(summary(read_report(Path(args.report)), changelog, args.outcome, args.command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
