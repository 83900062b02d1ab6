"""What planning reads of the configuration, as a structural type.

:class:`bot.config.Config` satisfies :class:`PlanSettings`; the planner names only these settings
and never imports the config module. Each section property returns the configuration's section as
it is (its fields are documented in ``docs/configuration.md``); the keys read are listed below.
"""

from __future__ import annotations

from typing import Any, Protocol

from bot.plan.changelog.controls import Steering


class PlanSettings(Protocol):
    """Read by :func:`bot.plan.planner.plan_sync`:

    ``wiki.pages``, ``wiki.repo``, ``publish``, ``github.api_url``, ``links.enhancements``,
    ``feature_gates``, ``renames``, ``ignore``, ``release_notes.review``, ``gate_lifecycle.promote_when``,
    ``front_matter.date_key``, ``digest`` (page, sigs, releases, ...), ``coverage`` (page, columns),
    ``candidates`` (sigs, releases, ignore, limit, add_to), ``production_tables``; and the derived
    values below.
    """

    @property
    def wiki(self) -> Any: ...
    @property
    def publish(self) -> str: ...
    @property
    def github(self) -> Any: ...
    @property
    def links(self) -> Any: ...
    @property
    def feature_gates(self) -> str: ...
    @property
    def renames(self) -> str: ...
    @property
    def ignore(self) -> Any: ...
    @property
    def release_notes(self) -> Any: ...
    @property
    def gate_lifecycle(self) -> Any: ...
    @property
    def front_matter(self) -> Any: ...
    @property
    def digest(self) -> Any: ...
    @property
    def coverage(self) -> Any: ...
    @property
    def candidates(self) -> Any: ...
    @property
    def production_tables(self) -> Any: ...

    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Column header aliases by role (``columns:`` over the defaults)."""
        ...

    def add_reasons(self) -> list[str]:
        """Why a candidate may get a new row (``candidates.add_to.reasons``)."""
        ...

    def shipped_column(self) -> bool:
        """Whether the bot owns a ``shipped`` column (``gate_lifecycle.column``)."""
        ...

    def steering(self) -> Steering:
        """The values the pull request's Controls footer names."""
        ...
