"""The sections of the config file (``wiki``, ``columns``, ``pull_request``, ...): one pydantic model each,
with the checks of its own keys."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from bot.config.base import Strict, shown
from bot.model.kep import normalize_milestone
from bot.plan.changelog.controls import REGENERATE_LABEL
from bot.redact import add_url_secrets, without_userinfo
from bot.sources import ref_name_problem
from bot.wiki.headers import DEFAULT_ALIASES, DEFAULT_COVERAGE_ALIASES
from bot.wiki.ignore import IGNORABLE, field_name


def actions_repository() -> str | None:
    """``$GITHUB_REPOSITORY`` (``OWNER/NAME``) when running under GitHub Actions (``$GITHUB_ACTIONS`` is
    ``true``), else ``None``: the default of ``wiki.repo``, so a workflow syncs the wiki of its own repository."""
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return os.environ.get("GITHUB_REPOSITORY") or None
    return None


class WikiConfig(Strict):
    """Where the matrix pages are: a local ``dir`` and/or a GitHub ``repo`` (``OWNER/NAME``) at ``base``.
    ``repo`` unset under GitHub Actions: the repository the workflow runs in (:func:`actions_repository`)."""

    dir: str = "examples/wiki"
    """The wiki checkout on disk: relative to this file's directory (``--wiki``: to the working directory)."""
    pages: list[str] = Field(default_factory=lambda: ["kubernetes-keps-implementation-matrix.md"], min_length=1)
    """Pages holding KEP tables, relative to ``dir`` (``--page``, repeatable); in ``repo`` the same paths from the
    repository root."""
    repo: str | None = Field(
        default_factory=actions_repository, pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", validate_default=True
    )
    """``OWNER/NAME`` of the wiki repository: required by ``publish: github``; with it ``--publish none`` reads the
    pages through the API. Unset under GitHub Actions: the repository the workflow runs in."""
    base: str | None = None
    """The branch pull requests go into and pages are read from; unset: the repository's default branch (``--publish
    git``: the checked-out branch)."""

    @field_validator("pages")
    @classmethod
    def _relative(cls, pages: list[str]) -> list[str]:
        for page in pages:
            if page.startswith("/") or ".." in Path(page).parts:
                raise ValueError(f"{shown(page)} must be a path relative to the wiki, without '..'")
        return pages


class ColumnsConfig(Strict):
    """Header aliases per column role, matched in any case (defaults: ``bot/wiki/headers.py``)."""

    kep: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["kep"]), min_length=1)
    """Headers of the KEP column, which keys each row."""
    status: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["status"]))
    """Headers of the status column; a cell may read ``<status> / <stage>``."""
    stage: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["stage"]))
    """Headers of the stage column."""
    milestones: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["milestones"]))
    """Headers of a combined milestones column: ``<alpha> / <beta> / <stable>``."""
    alpha: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["alpha"]))
    """Headers of the alpha milestone column."""
    beta: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["beta"]))
    """Headers of the beta milestone column."""
    stable: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["stable"]))
    """Headers of the GA (stable) milestone column."""
    feature_gates: list[str] = Field(default_factory=lambda: list(DEFAULT_ALIASES["feature_gates"]))
    """Headers of the feature gate column (report-only unless ``feature_gates: owned``)."""
    shipped: list[str] = Field(default_factory=lambda: ["Shipped"])
    """Headers of the Shipped column, written only with ``gate_lifecycle.column: true``."""


def _relative_page(page: str) -> str:
    if not page.strip() or page.startswith("/") or ".." in Path(page).parts:
        raise ValueError(f"{shown(page)} must be a path relative to the wiki, without '..'")
    return page


class AddToConfig(Strict):
    """Opt-in: append rows for the top ``count`` candidates that have a reason of a kind in ``reasons``
    to the KEP table under heading ``table`` on ``page`` (one of ``wiki.pages``). ``reasons`` unset:
    ``[group]`` (a design group lists the KEP) when ``coverage.page`` is set, else ``[new]`` (its first
    stage milestone is in the candidates window); see :meth:`Config.add_reasons`."""

    page: str
    """The page the rows go to: one of ``wiki.pages``."""
    table: str = Field(min_length=1)
    """The text of the heading above the KEP table the rows are appended to."""
    count: int = Field(default=5, ge=1, le=50)
    """Most rows added per run (1-50)."""
    reasons: list[Literal["group", "new", "active", "gate", "targets"]] | None = Field(default=None, min_length=1)
    """Reason kinds a candidate needs: ``group``, ``new``, ``active``, ``gate``, ``targets``; unset: ``[group]``
    with ``coverage.page``, else ``[new]``."""

    @field_validator("page")
    @classmethod
    def _relative(cls, page: str) -> str:
        return _relative_page(page)


class IgnoreRule(Strict):
    """One ``ignore`` entry: KEP number ``kep``; ``fields`` (:data:`bot.wiki.ignore.IGNORABLE`; empty: every
    field); ``value``: only this proposed value is ignored (a later, different upstream value is proposed)."""

    kep: int = Field(ge=0)
    """The KEP number."""
    fields: list[str] = Field(default_factory=list)
    """Fields to ignore (status, stage, alpha, beta, stable, feature_gates, shipped); empty: every field."""
    value: str = ""
    """Only this proposed value is ignored; a later, different value is proposed again. Empty: any value."""

    @field_validator("fields")
    @classmethod
    def _known_fields(cls, fields: list[str]) -> list[str]:
        for name in fields:
            if not field_name(name):
                raise ValueError(f"{shown(name)} is not a field kep-sync writes ({', '.join(IGNORABLE)})")
        return [field_name(name) for name in fields]

    def matches(self, number: int, field: str, new: str) -> bool:
        """True when this rule ignores the proposal of ``new`` for ``field`` of KEP ``number``."""
        if number != self.kep or (self.fields and field not in self.fields):
            return False
        want = self.value.strip()
        return not want or want == new.strip() or normalize_milestone(want) == normalize_milestone(new) is not None


class CandidatesConfig(Strict):
    """New KEP candidates (``bot/plan/tracking/candidates.py``): tracked ``sigs`` (default: the SIGs of the KEPs on
    the pages), the window of ``releases``, how many the changelog shows (``limit``), KEP numbers to ``ignore``,
    and the opt-in ``add_to``."""

    sigs: list[str] = Field(default_factory=list)
    """Owning SIGs to watch (``sig-node`` or ``node``, any case); empty: the SIGs of the KEPs on the pages."""
    releases: int = Field(default=1, ge=1, le=20)
    """The window: the newest ``latest-milestone`` and this many releases before it (1-20)."""
    limit: int = Field(default=10, ge=0, le=200)
    """Candidates shown in the changelog (all are in the report)."""
    ignore: list[int] = Field(default_factory=list)
    """KEP numbers never proposed."""
    add_to: AddToConfig | None = None
    """Opt-in: append rows for the top candidates to a KEP table."""

    @field_validator("sigs")
    @classmethod
    def _sig_names(cls, sigs: list[str]) -> list[str]:
        for sig in sigs:
            if not re.fullmatch(r"(sig-)?[a-z0-9][a-z0-9-]*", sig.strip().casefold()):
                raise ValueError(f"{shown(sig)} is not a SIG name (like sig-node or node)")
        return [sig.strip().casefold() for sig in sigs]  # upstream's owning-sig is lower case: SIG-Node is sig-node


class CoverageColumnsConfig(Strict):
    """Header aliases of the coverage page's design-group table (``bot/plan/tracking/coverage.py``)."""

    group: list[str] = Field(default_factory=lambda: list(DEFAULT_COVERAGE_ALIASES["group"]))
    """Headers of the design-group column."""
    keps: list[str] = Field(default_factory=lambda: list(DEFAULT_COVERAGE_ALIASES["keps"]), min_length=1)
    """Headers of the column listing each group's KEPs."""


class CoverageConfig(Strict):
    """The design-group coverage page (read-only for the bot), relative to the wiki; ``None``: not checked."""

    page: str | None = None
    """The design-group page, relative to the wiki; read-only; unset: coverage is not checked."""
    columns: CoverageColumnsConfig = Field(default_factory=CoverageColumnsConfig)
    """How the group table's columns are found."""

    @field_validator("page")
    @classmethod
    def _relative(cls, page: str | None) -> str | None:
        return None if page is None else _relative_page(page)


class FrontMatterConfig(Strict):
    """Opt-in: set ``date_key`` (e.g. ``date``) to today's date on pages whose rows changed."""

    date_key: str | None = None
    """A front matter key (e.g. ``date``) set to today's date on pages whose rows changed; unset: off."""


class LinksConfig(Strict):
    """Web URL of the enhancements repository, for kep.yaml links at the exact revision: an http(s) URL.

    Links are published in pull requests, so user-info (``https://user:token@host``) is dropped from it."""

    enhancements: str = "https://github.com/kubernetes/enhancements"
    """Web URL of the enhancements repository for kep.yaml and pull request links (user-info dropped)."""

    @field_validator("enhancements")
    @classmethod
    def _http_url(cls, url: str) -> str:
        add_url_secrets(url)
        if not is_http_url(url):
            raise ValueError(
                f"{shown(url)}: expected an http(s) URL such as https://github.com/kubernetes/enhancements"
            )
        if not is_base_url(url):
            raise ValueError(f"{shown(url)}: {NOT_BASE}")
        return without_userinfo(url)


#: Why a URL with a query or fragment cannot be a base URL.
NOT_BASE = "takes no ?query or #fragment: paths are appended to it (a token goes in $GITHUB_TOKEN)"


def is_base_url(url: str) -> bool:
    """True when ``url`` has no query or fragment, so a path appended to it stays a path (``?access_token=T``
    in a base URL would turn every path into part of the token's value)."""
    parts = urlsplit(url)
    return not (parts.query or parts.fragment or "?" in url or "#" in url)


def is_http_url(url: str) -> bool:
    """True for an ``http://`` or ``https://`` URL with a host and no whitespace."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in url)


class GitHubConfig(Strict):
    """GitHub API base URL; GitHub Enterprise Server: ``https://HOST/api/v3``.

    Precedence: a value in the config file > ``$GITHUB_API_URL`` > ``https://api.github.com``.
    """

    api_url: str = Field(
        default_factory=lambda: os.environ.get("GITHUB_API_URL") or "https://api.github.com", validate_default=True
    )
    """GitHub API base URL; default ``$GITHUB_API_URL``, else ``https://api.github.com``."""

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        add_url_secrets(url)  # kept as given (httpx sends its user-info), never written anywhere
        if not is_http_url(url):
            origin = " (from $GITHUB_API_URL)" if url == os.environ.get("GITHUB_API_URL") else ""
            raise PydanticCustomError(
                "http_url",
                "{url}{origin}: expected an http(s) URL such as https://api.github.com or https://HOST/api/v3",
                {"url": shown(url), "origin": origin, "key": "github.api_url"},
            )
        if not is_base_url(url):
            origin = " (from $GITHUB_API_URL)" if url == os.environ.get("GITHUB_API_URL") else ""
            raise PydanticCustomError(
                "base_url", "{url}{origin}: {why}", {"url": shown(url), "origin": origin, "why": NOT_BASE}
            )
        return url


#: Characters git check-ref-format forbids anywhere in a ref name (besides ASCII control characters).
#: Change kinds automerge may take (``bot.plan.diff.KINDS`` less those that never apply a cell on their own).
AUTOMERGE_KINDS = ("promoted", "demoted", "stage", "status", "retargeted", "target-removed", "gates", "shipped")


class AutomergeConfig(Strict):
    """When kep-sync merges its own pull request (``bot/publish/github_merge.py``): only when nothing needs a
    look (no contradiction, no rewritten released milestone, no default turned off, no finding on a changed row,
    no row it could not write), every applied change is of a kind in ``kinds`` (those in ``confirmed`` only when
    a release note or the gate list confirms them), the bot branch holds only the bot's commits with its own
    commit at the head, and the required checks and reviews of the base branch pass. ``automerge: true`` is
    ``{enabled: true}``."""

    enabled: bool = False
    """Merge the bot's pull request when every rule holds; off: never merged by kep-sync."""
    kinds: list[Literal[AUTOMERGE_KINDS]] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["retargeted", "status", "promoted"]
    )
    """The change kinds that may be merged without a reviewer."""
    confirmed: list[Literal[AUTOMERGE_KINDS]] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["retargeted", "status", "promoted", "demoted", "stage"]
    )
    """Kinds merged only when a release note (not a ``possible:`` one) or the gate list confirms each change;
    by default every kind in the default ``kinds``, so nothing merges on kep.yaml alone."""
    method: Literal["repository", "merge", "squash", "rebase"] = "repository"
    """The merge method; ``repository``: the first the repository allows of merge, squash, rebase."""


class PullRequestConfig(Strict):
    """The bot's branch and pull request."""

    branch: str = "kep-sync/matrix"
    """The bot branch: a valid git branch name (``git check-ref-format --branch``)."""
    title: str | None = None
    """Pull request title; unset: the changelog's title."""
    labels: list[str] = Field(default_factory=list)
    """Labels set on the pull request (not ``kep-sync:regenerate``)."""
    reviewers: list[str] = Field(default_factory=list)
    """Users asked for review."""
    team_reviewers: list[str] = Field(default_factory=list)
    """Teams asked for review."""
    assignees: list[str] = Field(default_factory=list)
    """Users assigned to the pull request."""
    draft: bool = False
    """Open the pull request as a draft."""
    automerge: AutomergeConfig = Field(default_factory=AutomergeConfig)
    """Opt-in merging of the bot's own pull request by kep-sync (``true``: enabled with the default rules)."""

    @field_validator("automerge", mode="before")
    @classmethod
    def _automerge(cls, value: object) -> object:
        return {"enabled": value} if isinstance(value, bool) else value

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        for label in labels:
            if not label.strip():
                raise ValueError("a label must not be empty")
            if label.strip().casefold() == REGENERATE_LABEL.casefold():
                raise ValueError(
                    f"{shown(label)} is the label a human adds to make kep-sync replace a foreign commit; "
                    "the bot must not set it on its own pull requests"
                )
        return labels

    @field_validator("branch")
    @classmethod
    def _ref_name(cls, branch: str) -> str:
        why = ref_name_problem(branch)
        if why:
            raise ValueError(f"{shown(branch)} is not a valid git branch name: {why}")
        return branch


class ScheduleConfig(Strict):
    """When ``kep-sync serve`` runs a sync: standard 5-field crontab in ``timezone`` (see ``bot/cron.py``)."""

    cron: str = "0 6 * * *"
    """Standard 5-field crontab (0 and 7 are Sunday; names and ``@daily`` macros work)."""
    timezone: str = "UTC"
    """IANA time zone of ``cron``, in any case (``europe/berlin`` is ``Europe/Berlin``)."""

    @field_validator("timezone")
    @classmethod
    def _zone(cls, name: str) -> str:
        from bot.cron import canonical_zone

        return canonical_zone(name)

    @field_validator("cron")
    @classmethod
    def _crontab(cls, expr: str) -> str:
        from bot.cron import parse_crontab

        parse_crontab(expr)
        return expr


class AuditConfig(Strict):
    """When ``kep-sync serve`` also runs ``kep-sync audit``: a 5-field crontab in ``schedule.timezone``;
    ``""`` (default) never. The audit writes ``audit.md`` and ``audit.json`` in the state directory."""

    cron: str = ""
    """Crontab for ``serve`` to run ``kep-sync audit`` in ``schedule.timezone``; empty: never."""

    @field_validator("cron")
    @classmethod
    def _crontab(cls, expr: str) -> str:
        from bot.cron import parse_crontab

        if expr.strip():
            parse_crontab(expr)
        return expr


class ReleaseNotesConfig(Strict):
    """Release notes source: ``github:kubernetes/sig-release@master`` or a local directory; ``""`` turns them off.

    ``review``: ``page`` (default) keeps "Needs review" to the KEPs on the pages' rows; ``all`` adds
    feature gates announced in the notes that no kep.yaml declares, limited to the SIGs of those KEPs.
    """

    source: str = ""
    """``github:kubernetes/sig-release@master`` or a directory of ``release-notes-1.NN.json`` (relative: to this
    file's directory); empty: off."""
    review: Literal["page", "all"] = "page"
    """``page``: Needs review covers the pages' KEPs; ``all`` adds gates no kep.yaml declares."""


class GateLifecycleConfig(Strict):
    """The feature-gate lifecycle (``versioned_feature_list.yaml``): a file, a directory of lists named by
    release (``1.33.yaml``), or ``github:kubernetes/kubernetes`` (each ``release-1.NN`` branch a run needs);
    ``""`` (default) turns it off.

    ``promote_when``: ``always`` (default) writes a stage promotion or a new milestone as soon as kep.yaml
    says it; ``released`` only once the release that carries it has shipped (its gate list exists or, with
    release notes read, its notes are final), listing it as "pending v1.NN" until then. ``column``: write the
    owned Shipped column (header ``columns.shipped``, default ``Shipped``).
    """

    source: str = ""
    """A ``versioned_feature_list.yaml``, a directory of them (relative: to this file's directory), or
    ``github:kubernetes/kubernetes``; empty: off."""
    promote_when: Literal["always", "released"] = "always"
    """``always``: write promotions at once; ``released``: only once the release shipped (needs ``source``)."""
    column: bool = False
    """Write the owned Shipped column (``columns.shipped``)."""

    @field_validator("promote_when")
    @classmethod
    def _needs_source(cls, when: str, info: ValidationInfo) -> str:
        if when == "released" and not info.data.get("source"):
            raise PydanticCustomError(
                "needs_source", "released needs gate_lifecycle.source (the gate lists tell which releases shipped)", {}
            )
        return when


class ReleaseConfig(Strict):
    """The release in progress, for ``kep-sync watch`` and the pull request's watch section: ``current`` and the
    day its cycle began (``started``); unset, they come from the release notes or the gate list (the release)
    and from the release team's records (``sig_release``) or else the kep.yaml history (the day), and the output
    says which was used."""

    current: str = ""
    """The release in progress, e.g. ``v1.37``; empty: the newest release the notes or the gate list know."""
    started: str = ""
    """The day its cycle began, ``YYYY-MM-DD`` (a time of day is refused); empty: the first kep.yaml naming it as
    latest-milestone."""
    watch: bool = False
    """Add the watch of the release in progress to the pull request body (a folded section)."""
    sig_release: str = ""
    """The release team's records: ``github:kubernetes/sig-release@master`` or a local copy of it (its
    ``releases/`` folder; relative: to this file's directory): each release's key dates (cycle start, freezes,
    release day) and freeze exceptions; ``current`` and ``started`` still override. Empty: off."""

    @field_validator("current")
    @classmethod
    def _release(cls, value: str) -> str:
        if value and normalize_milestone(value) is None:
            raise ValueError(f"{shown(value)} is not a release like v1.37")
        return normalize_milestone(value) or ""

    today: str = ""
    """The day the watch stands on, ``YYYY-MM-DD`` in UTC, against the release calendar (``sig_release``); empty:
    the newest commit of the kep.yaml history, else today."""

    @field_validator("started", "today", mode="before")
    @classmethod
    def _day(cls, value: object) -> object:
        import datetime

        if isinstance(value, datetime.datetime):  # YAML reads 2026-04-22 10:00:00 as a time of day
            raise ValueError(f"{str(value)!r} is a time, not a day: write the day alone, YYYY-MM-DD")
        if isinstance(value, datetime.date):  # YAML reads 2026-04-22 as a date
            return value.isoformat()
        if isinstance(value, str) and value:
            try:
                datetime.date.fromisoformat(value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else "?")
            except ValueError:
                raise ValueError(f"{shown(value)} is not a day written YYYY-MM-DD") from None
        return value


class ProvenanceConfig(Strict):
    """Upstream provenance of each change (the commit and pull request that set the new value).

    Git sources compute it locally; ``github:`` sources send one commits-API
    request per changed kep.yaml, at most ``max_requests`` per run.
    """

    enabled: bool = True
    """Name the upstream commit and pull request of each change."""
    max_requests: int = Field(default=30, ge=0)
    """Most commits-API requests per run for a ``github:`` source."""


class DigestConfig(Strict):
    """Opt-in generated digest page: ``page`` (relative to the wiki) gets the KEPs of ``sig`` that reached a
    stage within releases ``from``..``to``, rewritten between the digest markers on every sync. ``page`` may
    be one of ``wiki.pages``: its rows outside the section are synced too (:func:`bot.plan.planner.plan_sync`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    page: str | None = None
    """The digest page, relative to the wiki; unset: no digest."""
    sig: str = ""
    """The SIG whose KEPs are listed (``node`` or ``sig-node``)."""
    first: str = Field(default="", alias="from")
    """First release of the range, e.g. ``v1.33`` (written ``from``)."""
    last: str = Field(default="", alias="to")
    """Last release of the range, included, e.g. ``v1.35`` (written ``to``)."""

    @field_validator("page")
    @classmethod
    def _relative(cls, page: str | None) -> str | None:
        return None if page is None else _relative_page(page)

    @field_validator("sig")
    @classmethod
    def _sig(cls, sig: str) -> str:
        from bot.plan.digest import sig_name

        return sig_name(sig) if sig else sig

    @field_validator("last")
    @classmethod
    def _range(cls, last: str, info: ValidationInfo) -> str:
        from bot.plan.digest import digest_range

        first = info.data.get("first", "")
        if first or last:
            digest_range(first, last)
        return last
