"""Errors users can catch, as one hierarchy (like httpx's).

``KepSyncError`` is the root. ``ConfigError`` and ``UsageError`` map to exit
code 2; every other ``KepSyncError`` to exit code 1 (see ``bot/cli/main.py``).
Messages never contain secrets: tokens are redacted before they get here.
"""

#: Each path a config file wrote relative to its own directory, as it is used -> ``(as written, config file)``
#: (:func:`bot.configpaths.anchor_paths` records them), so an error about it says where it was read from.
_WRITTEN: dict[str, tuple[str, str]] = {}


def forget_written_paths() -> None:
    """Forget every :func:`note_written_path` record: a config being read (or none) names its own paths only, so
    an error never credits a path to a file read before it in the same process."""
    _WRITTEN.clear()


def note_written_path(used: str, written: str, config: str) -> None:
    """Record that ``used`` is the path ``written`` in the config file ``config``, read from that file's directory."""
    _WRITTEN[used] = (written, config)


def written_in(path) -> str:
    """``"written 'wiki' in conf/k.yaml, read from that file's directory conf"`` for a path (``str`` or
    ``os.PathLike``) a config file wrote relative to its directory (:func:`note_written_path`), else ``""``."""
    import os

    written = _WRITTEN.get(os.fspath(path))
    if written is None:
        return ""
    return f"written {written[0]!r} in {written[1]}, read from that file's directory {os.path.dirname(written[1])}"


def relative_to(path) -> str:
    """Where a configured ``path`` (``str`` or ``os.PathLike``) was resolved, for error messages: for a path a config
    file wrote relative to its directory, ``" (written 'wiki' in conf/k.yaml, read from that file's directory
    conf; relative to CWD)"`` (:func:`written_in`; the working directory only for a relative result); else
    ``" (relative to CWD)"`` for a relative path, naming the working directory it was resolved against; ``""``
    for an absolute one, ``~/...`` or a URL."""
    import os

    text = os.fspath(path)
    relative = not (os.path.isabs(text) or text.startswith("~") or "://" in text)
    cwd = f"relative to {os.getcwd()}" if relative else ""
    said = "; ".join(part for part in (written_in(text), cwd) if part)
    return f" ({said})" if said else ""


class KepSyncError(Exception):
    """Base class of every error kep-sync raises on purpose."""


class ConfigError(KepSyncError):
    """The configuration is invalid; the message names the file and key. Exit code 2."""


class UsageError(KepSyncError):
    """The command line is invalid (e.g. an unknown ``--enhancements`` form). Exit code 2."""


class SourceError(KepSyncError):
    """An upstream source (git, GitHub tarball, release notes) could not be read. Exit code 1."""


class WikiError(KepSyncError):
    """A wiki page could not be read or written (missing file, not UTF-8). Exit code 1."""


class PublishError(KepSyncError):
    """Publishing (files, git, GitHub) failed; nothing half-done was left behind. Exit code 1."""


class ReportNotWritten(PublishError):
    """The pages landed (written, committed or pull request opened) but the final ``--report`` could not be
    written. ``outcome``: the :class:`~bot.publish.backend.Publication` that landed, so the caller can still print
    the changelog and pull request and must not call the publish failed. Exit code 1."""

    def __init__(self, message: str, outcome):
        super().__init__(message)
        self.outcome = outcome
