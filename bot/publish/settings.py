"""What the publishing backends read of the configuration, as structural types.

:class:`bot.config.Config` satisfies :class:`PublishSettings` (mypy checks it where the commands hand
the config over); the backends name only these settings and never import the config module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class WikiSettings(Protocol):
    """``wiki:``: the GitHub repository (``OWNER/NAME``) and base branch, and the matrix pages."""

    @property
    def repo(self) -> str | None: ...
    @property
    def base(self) -> str | None: ...
    @property
    def pages(self) -> Sequence[str]: ...


class AutomergeSettings(Protocol):
    """``pull_request.automerge``: whether and what kep-sync merges of its own pull request."""

    @property
    def enabled(self) -> bool: ...
    @property
    def kinds(self) -> Sequence[str]: ...
    @property
    def confirmed(self) -> Sequence[str]: ...
    @property
    def method(self) -> str: ...


class PullRequestSettings(Protocol):
    """``pull_request:``: the bot branch and what the pull request carries."""

    @property
    def branch(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def labels(self) -> Sequence[str]: ...
    @property
    def reviewers(self) -> Sequence[str]: ...
    @property
    def team_reviewers(self) -> Sequence[str]: ...
    @property
    def assignees(self) -> Sequence[str]: ...
    @property
    def draft(self) -> bool: ...
    @property
    def automerge(self) -> AutomergeSettings: ...


class GitHubSettings(Protocol):
    """``github:``: the REST API root (``https://api.github.com`` or a GitHub Enterprise Server's)."""

    @property
    def api_url(self) -> str: ...


class ScheduleSettings(Protocol):
    """``schedule:``: when ``kep-sync serve`` runs (the dashboard names the next run)."""

    @property
    def cron(self) -> str: ...
    @property
    def timezone(self) -> str: ...


class IgnoreSettings(Protocol):
    """One ``ignore:`` rule of the config (the dashboard lists it)."""

    @property
    def kep(self) -> int: ...
    @property
    def fields(self) -> Sequence[str]: ...
    @property
    def value(self) -> str: ...


class PublishSettings(Protocol):
    """The settings a wiki backend reads: ``wiki``, ``pull_request``, ``github``, the pages to read at the
    base (matrix, coverage and digest pages), the column header aliases, ``cache_dir`` (the ETags of
    :mod:`bot.publish.conditional`), and for the dashboard issue ``dashboard``, ``schedule`` and ``ignore``."""

    @property
    def wiki(self) -> WikiSettings: ...
    @property
    def pull_request(self) -> PullRequestSettings: ...
    @property
    def github(self) -> GitHubSettings: ...
    @property
    def cache_dir(self) -> str: ...
    @property
    def dashboard(self) -> bool: ...
    @property
    def schedule(self) -> ScheduleSettings: ...
    @property
    def ignore(self) -> Sequence[IgnoreSettings]: ...
    def pages_to_read(self) -> list[str]: ...
    def aliases(self) -> dict[str, tuple[str, ...]]: ...
