"""What a command prints: the changelog, audit or summary on stdout (or in the report file), errors and notes on
stderr, every line redacted; where the report lands and what a run says it landed."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import KepSyncError, UsageError
from bot.progress import log_format
from bot.redact import redact

if TYPE_CHECKING:
    from bot.config import Config


def write_output(text: str, what: str = "") -> None:
    """``text`` on stdout, flushed; raises :class:`KepSyncError` ("cannot write WHAT to standard output")
    when stdout is closed (``>&-``: ``sys.stdout`` is ``None``; a closed file: ``ValueError``) or full."""
    from bot.redact import redact_values

    where = f"cannot write {what + ' ' if what else ''}to standard output"
    if sys.stdout is None:
        raise KepSyncError(f"{where}: it is closed")
    try:
        sys.stdout.write(redact_values(text))
        sys.stdout.flush()
    except OSError as exc:
        raise KepSyncError(f"{where}: {exc.strerror or exc}") from None
    except ValueError:  # "I/O operation on closed file"
        raise KepSyncError(f"{where}: it is closed") from None


def to_stderr(text: str) -> None:
    """``text`` on stderr, flushed; nothing when stderr is closed or fails (the exit code still tells)."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def os_error_message(exc: OSError) -> str:
    """``PATH: REASON`` for an ``OSError`` (``wiki/x.md: File name too long``); the reason alone when it names
    no path."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def print_error(exc: Exception) -> None:
    """``kep-sync: error: ...`` on stderr, redacted; every line of a multi-line error gets the prefix."""
    to_stderr("".join(f"kep-sync: error: {line}\n" for line in redact(str(exc)).split("\n")))


def tell_what_landed(args: argparse.Namespace, config: Config, outcome, log) -> None:
    """After a sync (:mod:`bot.commands.next_steps`): the pages written (``files``), the branch, commit and commands to
    open the pull request (``git``), as lines on stderr with ``--log-format text``, else one ``published`` log
    event; under GitHub Actions the step outputs (``$GITHUB_OUTPUT``) and a ``::warning::`` for a blocked run."""
    from bot.commands import next_steps

    lines = (
        next_steps.files_lines(outcome, config.wiki.dir)
        if config.publish == "files"
        else next_steps.git_lines(config, outcome)
        if config.publish == "git"
        else []
    )
    if lines and log_format(getattr(args, "log_format", None)) == "text":
        to_stderr("".join(redact(line) + "\n" for line in lines))
    elif lines:
        log.info("published", publish=config.publish, lines=lines)
    if os.environ.get("GITHUB_OUTPUT"):
        next_steps.write_outputs(os.environ["GITHUB_OUTPUT"], next_steps.action_outputs(outcome))
    if os.environ.get("GITHUB_ACTIONS") == "true" and outcome.blocked:
        to_stderr(next_steps.blocked_annotation(config.pull_request.branch) + "\n")


def report_path(args: argparse.Namespace, config: Config) -> Path | None:
    """``--report`` as a path, ``None`` when absent. Raises :class:`UsageError` when it is (or links to, by a
    symbolic or hard link) one
    of the configured pages (``wiki.pages``, ``coverage.page``, ``digest.page`` under ``wiki.dir``): the
    report would overwrite it, whatever ``--publish`` says."""
    if not args.report:
        return None
    path = Path(args.report)
    target = _file_id(path)
    root = Path(config.wiki.dir).expanduser()
    for page in config.pages_to_read():
        if _file_id(root / page) == target:
            raise UsageError(
                f"--report {args.report!r} is the wiki page {page!r}; the report would overwrite it "
                "(choose another file)"
            )
    return path


def _file_id(path: Path) -> tuple[int, int] | str:
    """What names one file: ``(st_dev, st_ino)`` after following symbolic links (so a hard link is its
    file), else the resolved path when it cannot be stat'ed (not there yet)."""
    try:
        st = path.stat()
    except (OSError, RuntimeError):
        return os.path.realpath(path)
    return st.st_dev, st.st_ino
