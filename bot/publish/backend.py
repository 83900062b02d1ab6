"""Wiki backends: where the pages are read at a base and where a proposal is published.

Every backend has the two jobs of :class:`Wiki` and nothing else; :mod:`bot.commands.sync`
drives them (read, plan, publish) and nothing here plans or imports :mod:`bot.commands.sync`.

- :mod:`bot.publish.directory`: pages in a directory; publish = rewrite the files (all or none).
- :mod:`bot.publish.git`: a local clone; publish = one commit on the bot branch + ``pull-request.md``.
- :mod:`bot.publish.github`: a GitHub repository through the API; publish = one commit + a pull request.

The pull request body, its state marker, fingerprints and the ownership rule of the
bot branch live in :mod:`bot.publish`, which the git and GitHub backends use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol

from bot.errors import ConfigError
from bot.plan.changelog.body import DEFAULT_MAX_BODY_CHARS

if TYPE_CHECKING:
    from bot.plan.planner import SyncPlan


class PagesAtBase(NamedTuple):
    """The configured pages as they stand at the base: ``pages`` ``{relative path: bytes}`` in the configured
    order, the base ``revision`` (a commit SHA; ``""`` for a plain directory) and ``max_chars``, the
    changelog budget in characters that the pull request body leaves (text outside the bot's section counts)."""

    pages: dict[str, bytes]
    revision: str = ""
    max_chars: int = DEFAULT_MAX_BODY_CHARS


class Publication(NamedTuple):
    """What :meth:`Wiki.publish` did: the ``plan`` it published (a new one when the base moved), the pages
    ``written`` (files rewritten, or pages in the commit made this run; ``[]`` when none), the pull request
    ``url`` (or ``pull-request.md`` path; ``""`` when none) and ``blocked``: True when a commit kep-sync did
    not make on the bot branch stopped the update (a human must act). ``operation``: what happened to the
    pull request, ``created``, ``updated``, ``closed``, ``blocked`` or ``none`` (``""``: not a GitHub publication).
    ``replaced``: the commit the bot branch pointed at before this run rebuilt it on a new base (its new head does
    not descend from it, so a push of the branch needs a force), ``""`` when it was not rebuilt. ``automerge``
    (``pull_request.automerge`` enabled): ``merged`` or ``left open: REASON``, else ``""``."""

    plan: SyncPlan
    written: list[str]
    url: str = ""
    blocked: bool = False
    operation: str = ""
    replaced: str = ""
    automerge: str = ""


#: Re-plan against a base that moved while publishing: ``PagesAtBase -> SyncPlan`` (a callback from
#: :mod:`bot.commands.sync`).
Replan = Callable[[PagesAtBase], "SyncPlan"]


class Wiki(Protocol):
    """A wiki backend for one run: :meth:`read`, then at most one :meth:`publish`."""

    def read(self) -> PagesAtBase:
        """The configured pages at the base. Raises :class:`~bot.errors.ConfigError` (exit 2) naming
        ``wiki.pages`` for a page that does not exist or is not a file, a
        :class:`~bot.errors.KepSyncError` subclass when the wiki cannot be read."""

    def publish(self, plan: SyncPlan, replan: Replan) -> Publication:
        """Land ``plan`` (made from :meth:`read`'s pages); ``replan`` rebuilds it when the base moved.
        Raises :class:`~bot.errors.PublishError` on failure, leaving the wiki untouched."""


def page_error(page: str, what: str, where: str) -> ConfigError:
    """The :class:`ConfigError` (exit 2) for a ``wiki.pages`` entry that names no page, in every backend.

    ``"wiki.pages (--page) 'x.md': WHAT WHERE"``, e.g. ``what`` "no such file", ``where`` "under the
    wiki directory 'wiki'" or "at main of OWNER/NAME".
    """
    return ConfigError(f"wiki.pages (--page) {page!r}: {what} {where}")
