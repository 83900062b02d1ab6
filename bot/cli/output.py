"""What a command prints: the changelog, audit or summary on stdout (or in the report file), errors and notes on
stderr, every line redacted; where the report lands and what a run says it landed."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import KepSyncError, UsageError
from bot.progress import log_format
from bot.redact import redact
from bot.terminal import terminal_text

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
    """``kep-sync: error: ...`` on stderr, redacted; every line of a multi-line error gets the prefix; controls
    and bidirectional overrides the error quotes show as escapes (:func:`bot.terminal.terminal_text`)."""
    to_stderr("".join(f"kep-sync: error: {line}\n" for line in terminal_text(redact(str(exc))).split("\n")))


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
    """``--report`` as a path, ``None`` when absent. Raises :class:`UsageError` naming both when it is (or links
    to, by a symbolic or hard link) a file the run reads (:func:`run_inputs`): a configured page (``wiki.pages``,
    ``coverage.page``, ``digest.page`` under ``wiki.dir``), the config file, the gate list, a release-notes file,
    a kep.yaml or the file of the enhancements source, a token or key file, or lies in an input directory (the
    release notes, the gate lists, the release team's records, ``cache_dir``): the report would overwrite it,
    whatever ``--publish`` says."""
    if not args.report:
        return None
    from bot.config import find_config_path

    path = Path(args.report)
    if path.is_dir():
        raise UsageError(f"--report {args.report!r} is a directory; name a file")
    target = _file_id(path)
    root = Path(config.wiki.dir).expanduser()
    for page in config.pages_to_read():
        if _file_id(root / page) == target:
            raise UsageError(
                f"--report {args.report!r} is the wiki page {page!r}; the report would overwrite it "
                "(choose another file)"
            )
    where = os.path.realpath(path)
    for what, name, tree in run_inputs(config, find_config_path(getattr(args, "config", None))):
        inside = tree and _under(where, os.path.realpath(name))
        if inside or _file_id(Path(name)) == target:
            raise UsageError(
                f"--report {args.report!r} is {'inside ' if inside else ''}{what} {name!r}, an input of this run; "
                "the report would overwrite it (choose another file)"
            )
    return path


def pages_not_inputs(args: argparse.Namespace, config: Config) -> None:
    """With ``publish: files`` (pages written in place, through a symbolic or hard link), raise
    :class:`UsageError` naming both when a configured page is, or links to, a file the run reads
    (:func:`run_inputs`, such as the release team's records): publishing would overwrite that input."""
    if config.publish != "files":
        return
    from bot.config import find_config_path

    root = Path(config.wiki.dir).expanduser()
    inputs = run_inputs(config, find_config_path(getattr(args, "config", None)))
    for page in config.pages_to_read():
        path = root / page
        where, target = os.path.realpath(path), _file_id(path)
        for what, name, tree in inputs:
            inside = tree and _under(where, os.path.realpath(name))
            if inside or _file_id(Path(name)) == target:
                raise UsageError(
                    f"wiki page {page!r} is {'inside ' if inside else ''}{what} {name!r} (through a link), an input "
                    "of this run; --publish files would overwrite it"
                )


def run_inputs(config: Config, config_path: Path | None) -> list[tuple[str, str, bool]]:
    """The local files and directories a run of ``config`` reads besides its pages, as ``(what, path, tree)``:
    ``tree`` when every file under ``path`` counts as an input. The config file (``config_path``), the
    ``enhancements`` source (a snapshot or bundle file; a directory's ``keps/`` and git directory), the
    release notes and gate lists (a file, or every file of their directory), the release team's records
    (``release.sig_release``: the folder, and each release's README.md and exceptions.yaml), ``cache_dir``, the wiki's git
    directory and the token and key files named by ``$GITHUB_TOKEN_FILE`` and
    ``$KEP_SYNC_APP_PRIVATE_KEY_FILE``. Remote sources
    (``github:``, URLs) and unset ones name nothing."""
    found: list[tuple[str, str, bool]] = []
    if config_path is not None and str(config_path) != os.devnull:
        found.append(("the config file", str(config_path), False))
    enhancements = _local(config.enhancements)
    if enhancements is not None and os.path.isdir(enhancements):
        bare = os.path.isfile(os.path.join(enhancements, "HEAD"))
        for part, what in (("keps", "the KEPs of enhancements"), (".git", "the git directory of enhancements")):
            if bare or os.path.lexists(os.path.join(enhancements, part)):
                found.append((what, enhancements if bare else os.path.join(enhancements, part), True))
    elif enhancements is not None:
        found.append(("the enhancements source", enhancements, False))
    for what, value in (
        ("the release notes (release_notes.source)", config.release_notes.source),
        ("the gate list (gate_lifecycle.source)", config.gate_lifecycle.source),
    ):
        local = _local(value)
        if local is not None:
            found.append((what, local, os.path.isdir(local)))
            if os.path.isdir(local):  # a hard link to one of its files, named from elsewhere
                found += [(what, os.path.join(local, f), False) for f in _files(local)]
    records = _local(config.release.sig_release)
    if records is not None:
        what = "the release team's records (release.sig_release)"
        found.append((what, records, os.path.isdir(records)))
        releases = os.path.join(records, "releases")
        root = releases if os.path.isdir(releases) else records
        for folder in _files(root) if os.path.isdir(root) else []:  # hard links to the files read, from elsewhere
            found += [(what, os.path.join(root, folder, f), False) for f in ("README.md", "exceptions.yaml")]
    found.append(("the cache directory (cache_dir)", str(Path(config.cache_dir).expanduser()), True))
    wiki_git = Path(config.wiki.dir).expanduser() / ".git"
    if os.path.lexists(wiki_git):
        found.append(("the git directory of the wiki", str(wiki_git), True))
    for variable in ("GITHUB_TOKEN_FILE", "KEP_SYNC_APP_PRIVATE_KEY_FILE"):
        if os.environ.get(variable):
            found.append((f"${variable}", os.environ[variable], False))
    return found


def _local(value: str) -> str | None:
    """``value`` (a source setting) as a local path, ``None`` when it is empty, ``github:`` or a URL."""
    if not value or value.startswith("github:") or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value):
        return None
    return str(Path(value).expanduser())


def _files(directory: str) -> list[str]:
    """The names of the entries of ``directory`` (not recursive; ``[]`` when it cannot be listed)."""
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _under(path: str, directory: str) -> bool:
    """True when the resolved ``path`` is ``directory`` or lies below it (both resolved)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _file_id(path: Path) -> tuple[int, int] | str:
    """What names one file: ``(st_dev, st_ino)`` after following symbolic links (so a hard link is its
    file), else the resolved path when it cannot be stat'ed (not there yet)."""
    try:
        st = path.stat()
    except (OSError, RuntimeError):
        return os.path.realpath(path)
    return st.st_dev, st.st_ino
