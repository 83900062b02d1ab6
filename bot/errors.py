"""Errors users can catch, as one hierarchy (like httpx's).

``KepSyncError`` is the root. ``ConfigError`` and ``UsageError`` map to exit
code 2; every other ``KepSyncError`` to exit code 1 (see ``bot/cli.py``).
Messages never contain secrets: tokens are redacted before they get here.
"""


def relative_to(path) -> str:
    """``" (relative to CWD)"`` for a relative ``path`` (``str`` or ``os.PathLike``), naming the working directory
    it was resolved against; ``""`` for an absolute one, ``~/...`` or a URL. For error messages about configured
    paths."""
    import os

    text = os.fspath(path)
    if os.path.isabs(text) or text.startswith("~") or "://" in text:
        return ""
    return f" (relative to {os.getcwd()})"


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
    written. ``outcome``: the :class:`~bot.publish.backend.Landing` that landed, so the caller can still print
    the changelog and pull request and must not call the publish failed. Exit code 1."""

    def __init__(self, message: str, outcome):
        super().__init__(message)
        self.outcome = outcome
