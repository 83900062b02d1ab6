"""Validated settings (pydantic) loaded from ``config/kep-sync.yaml``; see that file for every key.

:func:`load_config` raises :class:`~bot.errors.ConfigError` with one line per
problem naming the file and the dotted key. Secrets are never configuration:
tokens come from the environment only (``GITHUB_TOKEN``, ``KEP_SYNC_APP_*``).
"""

from __future__ import annotations

import copy
import itertools
import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import Literal, NamedTuple
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from bot.errors import ConfigError, relative_to
from bot.model.kep import normalize_milestone
from bot.plan.controls import REGENERATE_LABEL, Steering
from bot.redact import add_url_secrets, redact, without_userinfo
from bot.sources import ref_name_problem
from bot.wiki.headers import DEFAULT_ALIASES, DEFAULT_COVERAGE_ALIASES
from bot.wiki.ignore import IGNORABLE, field_name
from bot.wiki.pages import same_page

#: Looked for in the working directory when ``--config`` and ``KEP_SYNC_CONFIG`` are absent.
DEFAULT_CONFIG_PATH = Path("config/kep-sync.yaml")
#: Looked for in the working directory, in this order: what ``kep-sync init`` writes, then the shipped file's place.
DEFAULT_CONFIG_PATHS = (Path("kep-sync.yaml"), DEFAULT_CONFIG_PATH)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def actions_repository() -> str | None:
    """``$GITHUB_REPOSITORY`` (``OWNER/NAME``) when running under GitHub Actions (``$GITHUB_ACTIONS`` is
    ``true``), else ``None``: the default of ``wiki.repo``, so a workflow syncs the wiki of its own repository."""
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return os.environ.get("GITHUB_REPOSITORY") or None
    return None


class WikiConfig(_Strict):
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


class ColumnsConfig(_Strict):
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


class AddToConfig(_Strict):
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


class IgnoreRule(_Strict):
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


class CandidatesConfig(_Strict):
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


class CoverageColumnsConfig(_Strict):
    """Header aliases of the coverage page's design-group table (``bot/plan/tracking/coverage.py``)."""

    group: list[str] = Field(default_factory=lambda: list(DEFAULT_COVERAGE_ALIASES["group"]))
    """Headers of the design-group column."""
    keps: list[str] = Field(default_factory=lambda: list(DEFAULT_COVERAGE_ALIASES["keps"]), min_length=1)
    """Headers of the column listing each group's KEPs."""


class CoverageConfig(_Strict):
    """The design-group coverage page (read-only for the bot), relative to the wiki; ``None``: not checked."""

    page: str | None = None
    """The design-group page, relative to the wiki; read-only; unset: coverage is not checked."""
    columns: CoverageColumnsConfig = Field(default_factory=CoverageColumnsConfig)
    """How the group table's columns are found."""

    @field_validator("page")
    @classmethod
    def _relative(cls, page: str | None) -> str | None:
        return None if page is None else _relative_page(page)


class FrontMatterConfig(_Strict):
    """Opt-in: set ``date_key`` (e.g. ``date``) to today's date on pages whose rows changed."""

    date_key: str | None = None
    """A front matter key (e.g. ``date``) set to today's date on pages whose rows changed; unset: off."""


class LinksConfig(_Strict):
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


class GitHubConfig(_Strict):
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
class PullRequestConfig(_Strict):
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


class ScheduleConfig(_Strict):
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


class AuditConfig(_Strict):
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


class ReleaseNotesConfig(_Strict):
    """Release notes source: ``github:kubernetes/sig-release@master`` or a local directory; ``""`` turns them off.

    ``review``: ``page`` (default) keeps "Needs review" to the KEPs on the pages' rows; ``all`` adds
    feature gates announced in the notes that no kep.yaml declares, limited to the SIGs of those KEPs.
    """

    source: str = ""
    """``github:kubernetes/sig-release@master`` or a directory of ``release-notes-1.NN.json`` (relative: to this
    file's directory); empty: off."""
    review: Literal["page", "all"] = "page"
    """``page``: Needs review covers the pages' KEPs; ``all`` adds gates no kep.yaml declares."""


class GateLifecycleConfig(_Strict):
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


class ReleaseConfig(_Strict):
    """The release in progress, for ``kep-sync watch`` and the pull request's watch section: ``current`` and the
    day its cycle began (``started``); unset, they come from the release notes or the gate list (the release)
    and from the kep.yaml history (the day), and the output says which was used."""

    current: str = ""
    """The release in progress, e.g. ``v1.37``; empty: the newest release the notes or the gate list know."""
    started: str = ""
    """The day its cycle began, ``YYYY-MM-DD``; empty: the first kep.yaml naming it as latest-milestone."""
    watch: bool = False
    """Add the watch of the release in progress to the pull request body (a folded section)."""

    @field_validator("current")
    @classmethod
    def _release(cls, value: str) -> str:
        if value and normalize_milestone(value) is None:
            raise ValueError(f"{shown(value)} is not a release like v1.37")
        return normalize_milestone(value) or ""

    @field_validator("started", mode="before")
    @classmethod
    def _day(cls, value: object) -> object:
        import datetime

        if isinstance(value, datetime.date):  # YAML reads 2026-04-22 as a date
            return value.isoformat()
        if isinstance(value, str) and value:
            try:
                datetime.date.fromisoformat(value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else "?")
            except ValueError:
                raise ValueError(f"{shown(value)} is not a day written YYYY-MM-DD") from None
        return value


class ProvenanceConfig(_Strict):
    """Upstream provenance of each change (the commit and pull request that set the new value).

    Git sources compute it locally; ``github:`` sources send one commits-API
    request per changed kep.yaml, at most ``max_requests`` per run.
    """

    enabled: bool = True
    """Name the upstream commit and pull request of each change."""
    max_requests: int = Field(default=30, ge=0)
    """Most commits-API requests per run for a ``github:`` source."""


class DigestConfig(_Strict):
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


#: A target name: a directory name under the state directory and a job name in a workflow matrix.
TARGET_NAME = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
#: The name of the one target of a config without ``targets:``.
DEFAULT_TARGET = "default"


class TargetConfig(_Strict):
    """One wiki of a deployment with many (``targets:``): its ``name`` plus the per-wiki sections below,
    each merged key by key over the top-level section of the same name (a list or a plain value replaces
    it). Sources and their caches (``enhancements``, ``cache_dir``, ``release_notes``, ``gate_lifecycle``,
    ``provenance``, ``github``, ``links``) and the ``schedule`` are shared: set them at the top level."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(pattern=TARGET_NAME)
    """Lower-case letters, digits, ``.``, ``_``, ``-`` (at most 63): the state directory and job name."""
    wiki: WikiConfig | None = None
    """Merged over the top-level ``wiki``."""
    columns: ColumnsConfig | None = None
    """Merged over the top-level ``columns``."""
    pull_request: PullRequestConfig | None = None
    """Merged over the top-level ``pull_request``."""
    feature_gates: Literal["report", "owned"] | None = None
    """Replaces the top-level ``feature_gates``."""
    front_matter: FrontMatterConfig | None = None
    """Merged over the top-level ``front_matter``."""
    renames: Literal["report", "apply"] | None = None
    """Replaces the top-level ``renames``."""
    digest: DigestConfig | None = None
    """Merged over the top-level ``digest``."""
    candidates: CandidatesConfig | None = None
    """Merged over the top-level ``candidates``."""
    production_tables: list[str] | None = None
    """Replaces the top-level ``production_tables``."""
    coverage: CoverageConfig | None = None
    """Merged over the top-level ``coverage``."""

    def settings(self) -> dict:
        """The sections this target sets, as written (``{"wiki": {"repo": ...}}``), without ``name``."""
        return self.model_dump(exclude_unset=True, exclude={"name"}, by_alias=True)


class Config(_Strict):
    """All settings of one kep-sync deployment.

    ``cache_dir`` and ``github.api_url`` have environment variables: a value in
    the config file > ``$KEP_SYNC_CACHE_DIR`` / ``$GITHUB_API_URL`` > the built-in default.
    """

    # targets are excluded from dumps, so a config without them fingerprints as it always did.
    targets: list[TargetConfig] = Field(default_factory=list, exclude=True)
    """Many wikis from one deployment; empty: one target, ``default``."""
    targets_from: Literal["", "app-installations"] = Field(default="", exclude=True)
    """Only ``""``: ``app-installations`` (targets from the GitHub App's installations) is refused as not
    supported."""
    enhancements: str = Field(default="github:kubernetes/enhancements@master", min_length=1)
    """Where the KEPs come from (``--enhancements``): a directory with ``keps/``, a ``.tar.gz`` snapshot, a git
    repository, URL or bundle, or ``github:OWNER/REPO@REF``; a relative path is read from this file's directory."""
    cache_dir: str = Field(default_factory=lambda: os.environ.get("KEP_SYNC_CACHE_DIR") or "~/.cache/kep-sync")
    """Git clones, upstream and history caches (relative: to this file's directory); default
    ``$KEP_SYNC_CACHE_DIR``, else ``~/.cache/kep-sync``."""
    wiki: WikiConfig = Field(default_factory=WikiConfig)
    """Where the pages are."""
    columns: ColumnsConfig = Field(default_factory=ColumnsConfig)
    """Header aliases per column role (case-insensitive)."""
    feature_gates: Literal["report", "owned"] = "report"
    """``report`` lists feature gate drift; ``owned`` rewrites the cell."""
    front_matter: FrontMatterConfig = Field(default_factory=FrontMatterConfig)
    """Opt-in front matter date."""
    links: LinksConfig = Field(default_factory=LinksConfig)
    """Link bases used in the changelog."""
    publish: Literal["none", "files", "git", "github"] = "none"
    """``none`` prints the changelog; ``files`` rewrites pages; ``git`` commits on the bot branch of a clone;
    ``github`` opens one pull request."""
    github: GitHubConfig = Field(default_factory=dict, validate_default=True)  # so $GITHUB_API_URL is checked
    """The GitHub API."""
    pull_request: PullRequestConfig = Field(default_factory=PullRequestConfig)
    """The bot branch and pull request."""
    schedule: ScheduleConfig = Field(default_factory=ScheduleConfig)
    """When ``serve`` runs a sync."""
    release_notes: ReleaseNotesConfig = Field(default_factory=ReleaseNotesConfig)
    """Release notes as evidence."""
    gate_lifecycle: GateLifecycleConfig = Field(default_factory=GateLifecycleConfig)
    """What shipped, from the feature gate lists."""
    audit: AuditConfig = Field(default_factory=AuditConfig)
    """When ``serve`` runs an audit."""
    provenance: ProvenanceConfig = Field(default_factory=ProvenanceConfig)
    """Upstream provenance of each change."""
    release: ReleaseConfig = Field(default_factory=ReleaseConfig)
    """The release in progress and the day its cycle began (``kep-sync watch``)."""
    renames: Literal["report", "apply"] = "report"
    """A row naming a KEP directory upstream renamed: ``report`` it, or ``apply`` (rewrite the KEP cell)."""
    ignore: list[IgnoreRule] = Field(default_factory=list)
    """Rows or fields kep-sync must not change, e.g. ``[{kep: 5598, fields: [stable], value: v1.38}]``."""
    digest: DigestConfig = Field(default_factory=DigestConfig)
    """Opt-in generated digest page."""

    @field_validator("enhancements")
    @classmethod
    def _source_secrets(cls, value: str) -> str:
        add_url_secrets(value)  # a git URL's user-info: used to fetch, never written anywhere
        return value

    @field_validator("targets_from")
    @classmethod
    def _no_installations_yet(cls, value: str) -> str:
        if value:
            raise PydanticCustomError(
                "not_supported",
                "'app-installations' is not supported: kep-sync does not "
                "read targets from the GitHub App's installations; list each wiki under "
                "targets: instead",
                {},
            )
        return value

    @field_validator("targets")
    @classmethod
    def _unique_names(cls, targets: list[TargetConfig]) -> list[TargetConfig]:
        seen: dict[str, int] = {}
        for i, target in enumerate(targets):
            if target.name in seen:
                raise PydanticCustomError(
                    "duplicate_target",
                    "{name} is also the name of targets[{first}]; target names must be unique",
                    {"name": shown(target.name), "first": seen[target.name], "key": f"targets[{i}].name"},
                )
            seen[target.name] = i
        return targets

    @field_validator("digest")
    @classmethod
    def _digest_complete(cls, digest: DigestConfig) -> DigestConfig:
        if digest.page and not (digest.sig and digest.first and digest.last):
            raise PydanticCustomError(
                "digest_incomplete", "digest.page needs digest.sig, digest.from and digest.to", {"key": "digest"}
            )
        return digest

    candidates: CandidatesConfig = Field(default_factory=CandidatesConfig)
    """New KEPs to consider."""
    production_tables: list[str] = Field(default_factory=list)
    """Headings of tables listing production capability: a provisional or withdrawn KEP there is reported."""
    coverage: CoverageConfig = Field(default_factory=CoverageConfig, validate_default=True)  # add_to needs it
    """The design-group coverage page."""

    @field_validator("candidates")
    @classmethod
    def _add_to_a_page(cls, candidates: CandidatesConfig, info: ValidationInfo) -> CandidatesConfig:
        wiki = _sibling(info, "wiki.pages")
        add_to = candidates.add_to
        if add_to is not None and wiki is not None and not same_page(add_to.page, wiki.pages):
            raise PydanticCustomError(
                "not_a_page",
                "{page} is not one of wiki.pages ({pages})",
                {
                    "page": shown(add_to.page),
                    "pages": ", ".join(map(repr, wiki.pages)),
                    "key": "candidates.add_to.page",
                },
            )
        return candidates

    @field_validator("coverage")
    @classmethod
    def _groups_need_a_page(cls, coverage: CoverageConfig, info: ValidationInfo) -> CoverageConfig:
        candidates = _sibling(info, "candidates.add_to")
        add_to = candidates.add_to if candidates is not None else None
        if add_to is not None and add_to.reasons == ["group"] and coverage.page is None:
            raise PydanticCustomError(
                "needs_coverage",
                "candidates.add_to adds only KEPs a design group lists "
                "(reasons: [group]), so it needs coverage.page; set it, or add other reasons",
                {"key": "coverage.page"},
            )
        return coverage

    @field_validator("production_tables")
    @classmethod
    def _headings(cls, tables: list[str]) -> list[str]:
        for table in tables:
            if not table.strip("# ").strip():
                raise ValueError("a table is named by the text of the heading above it; got an empty heading")
        return tables

    @field_validator("coverage")
    @classmethod
    def _read_only(cls, coverage: CoverageConfig, info: ValidationInfo) -> CoverageConfig:
        wiki = _sibling(info, "wiki.pages")
        if coverage.page is not None and wiki is not None and same_page(coverage.page, wiki.pages):
            raise PydanticCustomError(
                "coverage_is_a_matrix_page",
                "{page} is also in wiki.pages; the coverage "
                "page is read-only for kep-sync, name a page that is not synced",
                {"page": shown(coverage.page), "key": "coverage.page"},
            )
        digest = _sibling(info, "digest.page")
        if coverage.page is not None and digest is not None and digest.page and same_page(coverage.page, [digest.page]):
            raise PydanticCustomError(
                "pages_overlap",
                "{page} is also digest.page; the coverage page is read-only "
                "for kep-sync and the digest page is written, so they must be different "
                "files: name another page",
                {"page": shown(coverage.page), "key": "coverage.page"},
            )
        return coverage

    @field_validator("publish")
    @classmethod
    def _repo_for_github(cls, publish: str, info: ValidationInfo) -> str:
        wiki = _sibling(info, "wiki.repo")  # absent when wiki itself is invalid (reported there)
        if publish == "github" and wiki is not None and not wiki.repo and not info.data.get("targets"):
            raise PydanticCustomError(
                "missing_for_publish",
                "required when publish is github (OWNER/NAME of the wiki repository)",
                {"key": "wiki.repo"},
            )
        return publish

    def add_reasons(self) -> list[str]:
        """The reason kinds ``candidates.add_to`` adds rows for: ``reasons`` as written, else ``[group]``
        with a ``coverage.page`` (each row then follows a human's design-group decision), else ``[new]``."""
        add_to = self.candidates.add_to
        if add_to is not None and add_to.reasons:
            return list(add_to.reasons)
        return ["group"] if self.coverage.page else ["new"]

    def pages_to_read(self) -> list[str]:
        """``wiki.pages`` plus the read-only ``coverage.page`` and the generated ``digest.page`` when set: what a
        wiki backend reads at the base (the digest page is also landed when its section changed)."""
        extra = (
            [self.coverage.page] if self.coverage.page and not same_page(self.coverage.page, self.wiki.pages) else []
        )
        if self.digest.page and not same_page(self.digest.page, list(self.wiki.pages) + extra):
            extra.append(self.digest.page)
        return list(self.wiki.pages) + extra

    def aliases(self) -> dict[str, tuple[str, ...]]:
        """Column aliases as ``{role: (header, ...)}`` for :func:`bot.wiki.matrix.parse_page`."""
        return {
            role: tuple(names)
            for role, names in self.columns.model_dump().items()
            if role != "shipped" or self.shipped_column()
        }

    def steering(self) -> Steering:
        """The values the pull request's Controls footer names (:func:`bot.plan.controls.controls`)."""
        return Steering(
            self.schedule.cron,
            self.schedule.timezone or "",
            self.pull_request.branch,
            self.publish == "github",
            self.publish == "git",
        )

    def shipped_column(self) -> bool:
        """True when the Shipped column is owned: ``gate_lifecycle.column`` with a ``gate_lifecycle.source``."""
        return self.gate_lifecycle.column and bool(self.gate_lifecycle.source)


#: Plain words for pydantic's error types (``err["type"]``); ``{got}`` is the value given.
_MESSAGES = {
    "model_type": "expected a mapping of settings (key: value lines), got {got}",
    "dict_type": "expected a mapping, got {got}",
    "list_type": "expected a list (one '- item' per line), got {got}",
    "string_type": "expected a text value, got {got}",
    "bool_type": "expected true or false, got {got}",
    "bool_parsing": "expected true or false, got {got}",
    "too_short": "must not be empty",
    "string_too_short": "must not be empty",
    "extra_forbidden": "unknown key (value {got})",
    "missing": "required, missing",
    "int_type": "expected a whole number, got {got}",
    "int_parsing": "expected a whole number, got {got}",
    "int_from_float": "expected a whole number, got {got}",
}


def error_key(loc: tuple) -> str:
    """A pydantic error location as the key a user writes: ``("wiki", "pages", 0)`` -> ``wiki.pages[0]``."""
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key or "(top level)"


#: Longest value quoted in an error message, characters; a longer one is cut and ends with "…".
MAX_SHOWN = 80


def shown(value: object) -> str:
    """``repr(value)`` for an error message, cut to :data:`MAX_SHOWN` characters plus ``…`` (a 200 KB
    string or an expanded alias is named, not printed). Never walks more of ``value`` than it shows
    for a str; other values are repr'd with :func:`reprlib.repr`'s bounds."""
    import reprlib

    if isinstance(value, str):
        text = repr(value[: MAX_SHOWN + 1])
    else:
        bounded = reprlib.Repr()
        bounded.maxstring = bounded.maxother = MAX_SHOWN
        text = bounded.repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def shown_key(key: str) -> str:
    """A config key for an error message: control characters escaped (``\\x1b``), cut like :func:`shown`."""
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in key[: MAX_SHOWN + 1])
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def error_message(err: ErrorDetails) -> str:
    """One pydantic error in plain words, with the value given; no library wording such as
    "Input should be a valid dictionary or instance of ..."."""
    got, kind, ctx = shown(err.get("input")), err["type"], err.get("ctx") or {}
    if kind in _MESSAGES:
        return _MESSAGES[kind].format(got=got)
    if kind == "literal_error":
        return f"{got} is not one of {ctx.get('expected', '')}"
    if kind == "string_pattern_mismatch" and err["loc"][-1:] == ("repo",):
        return f"{got}: expected OWNER/NAME of a GitHub repository"
    if kind == "string_pattern_mismatch" and err["loc"][:1] == ("targets",) and err["loc"][-1:] == ("name",):
        return f"{got}: expected a target name: lower-case letters, digits, '.', '_' and '-', at most 63"
    msg = err["msg"].removeprefix("Value error, ")
    if (
        kind
        in (
            "value_error",
            "http_url",
            "missing_for_publish",
            "not_a_page",
            "coverage_is_a_matrix_page",
            "needs_coverage",
            "pages_overlap",
            "duplicate_target",
            "not_supported",
        )
        or got in msg
    ):
        return msg
    if msg.startswith("Input should be "):  # e.g. greater_than_equal: "expected greater than or equal to 0"
        msg = "expected " + msg.removeprefix("Input should be ")
    return f"{msg}, got {got}"


def config_errors(exc: ValidationError, source: str) -> list[str]:
    """One line per validation error: ``FILE: key: what is wrong``, with list indices as ``wiki.pages[0]``.

    A cross-field check names the key at fault in its error context (``ctx["key"]``).
    """
    lines = []
    for err in exc.errors():
        if err["type"] == "invalid_key":  # pydantic: "Keys should be strings"; the key is the last of loc
            key, message = (
                error_key(err["loc"][:-1]),
                f"the key {shown(err['input'])} is not a name (setting names are text)",
            )
        else:
            key, message = (err.get("ctx") or {}).get("key") or error_key(err["loc"]), error_message(err)
            if err["type"] == "extra_forbidden":
                if _SECRET_KEY_RE.search(str(err["loc"][-1])):
                    message = "unknown key (its value is not shown: credentials come from the environment)"
                    message += did_you_mean(err["loc"])
                else:
                    message = shared_key_message(err) or message + did_you_mean(err["loc"])
        lines.append(redact(f"{source}: {shown_key(key)}: {message}"))
    return lines


#: An unknown key whose name says it may hold a credential: its value is never echoed.
_SECRET_KEY_RE = re.compile(r"token|secret|passw|credential|private|auth|key", re.IGNORECASE)


def shared_key_message(err: ErrorDetails) -> str:
    """For a key under ``targets[I]`` that only the top level may set (a setting every target shares, such as
    ``enhancements`` or ``schedule``): the message saying so, with the value; else ``""``."""
    loc = tuple(err["loc"])
    shared = set(Config.model_fields) - set(TargetConfig.model_fields) - {"targets", "targets_from"}
    if len(loc) == 3 and loc[0] == "targets" and loc[2] in shared:
        return f"shared by every target: set it at the top level, not under a target (value {shown(err.get('input'))})"
    return ""


def known_keys(loc: tuple) -> list[str]:
    """The setting names allowed beside the last part of ``loc`` (a pydantic error location): the fields
    (and their aliases, ``digest.from``) of the section it lies in, list indices skipped; ``[]`` when that is no
    section."""
    import typing

    model: type[BaseModel] | None = Config
    for part in loc[:-1]:
        if isinstance(part, int):  # an index into a list of sections (ignore[0])
            continue
        field = model.model_fields.get(part) if model is not None and isinstance(part, str) else None
        if field is None:
            return []
        kinds = [
            t
            for t in (field.annotation, *typing.get_args(field.annotation))
            if isinstance(t, type) and issubclass(t, BaseModel)
        ]
        model = kinds[0] if kinds else None
    if model is None:
        return []
    return [field.alias or name for name, field in model.model_fields.items()]


def did_you_mean(loc: tuple) -> str:
    """``"; did you mean 'pages'?"`` when the unknown key at the end of ``loc`` is close to a known one
    (:func:`difflib.get_close_matches`, case ignored) and starts with the same letter, else ``""``."""
    import difflib

    if not loc or not isinstance(loc[-1], str) or not loc[-1]:
        return ""
    word = loc[-1].casefold()
    known = [k for k in known_keys(tuple(loc)) if k[:1].casefold() == word[:1]]
    close = difflib.get_close_matches(word, [k.casefold() for k in known], n=1, cutoff=0.6)
    match = next((k for k in known if close and k.casefold() == close[0]), None)
    return f"; did you mean {match!r}?" if match else ""


def find_config_path(explicit: str | None) -> Path | None:
    """The config file to read: ``--config``, else ``$KEP_SYNC_CONFIG``, else the first of
    :data:`DEFAULT_CONFIG_PATHS` present (``kep-sync.yaml``, ``config/kep-sync.yaml``), else ``None``."""
    if explicit:
        return Path(explicit)
    if os.environ.get("KEP_SYNC_CONFIG"):
        return Path(os.environ["KEP_SYNC_CONFIG"])
    return next((p for p in DEFAULT_CONFIG_PATHS if p.is_file()), None)


def load_config(path: Path | None) -> Config:
    """Read and validate a config file (``None``: built-in defaults and the environment).

    Raises :class:`ConfigError` (every problem, one per line, naming the file
    and key) for a missing file, bad YAML or invalid values.
    """
    return validate_config(read_config_data(path), str(path) if path else "environment")


def read_config_data(path: Path | None) -> dict:
    """The settings in the file ``path`` as written (not validated), ``{}`` for ``None``; relative paths are
    read from the file's directory (:func:`bot.configpaths.anchor_paths`).

    ``/dev/null`` (:data:`os.devnull`) is an empty config, as git reads ``GIT_CONFIG_GLOBAL=/dev/null``; any
    other path is read only when it is a regular file of at most :data:`bot.fileread.CONFIG_BYTES` bytes.
    Raises :class:`ConfigError` naming the file when it is missing, unreadable, not a regular file, too large,
    not YAML or not a mapping.
    """
    if path is None or str(path) == os.devnull:
        return {}
    from bot.configyaml import ConfigYamlError, load_config_yaml
    from bot.fileread import CONFIG_BYTES, read_regular_text

    try:
        raw = load_config_yaml(read_regular_text(path, CONFIG_BYTES))
    except ConfigYamlError as exc:
        raise ConfigError(f"{path}: {shown_key(exc.key)}: {exc.problem}") from None
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file{relative_to(path)}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ConfigError(f"{path}: {where}not valid YAML: {getattr(exc, 'problem', exc)}") from None
    except RecursionError:
        raise ConfigError(f"{path}: (top level): nested too deeply to be a kep-sync config") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: (top level): expected a mapping of settings")
    from bot.configpaths import anchor_paths

    return anchor_paths(raw, path)


def validate_config(data: dict, source: str) -> Config:
    """``data`` (settings as written) validated into a :class:`Config`; defaults fill what is absent.

    Raises :class:`ConfigError` with every problem (:func:`collect_config`), one ``SOURCE: key: what is
    wrong`` per line.
    """
    checked = collect_config(data, source)
    if checked.errors or checked.config is None:
        raise ConfigError("\n".join(checked.errors) or f"{source}: (top level): invalid settings")
    return checked.config


class Checked(NamedTuple):
    """What :func:`collect_config` found: ``errors`` (``SOURCE: key: what is wrong`` lines, in the order found);
    ``config`` validated with every invalid key left at its default (``None`` when that still fails);
    ``dropped``: those keys, dotted (``candidates.sigs``), so later checks skip what they would misjudge."""

    config: Config | None
    errors: list[str]
    dropped: frozenset[str]


#: Most validation rounds :func:`collect_config` runs (each drops the keys the previous one found invalid).
_MAX_ROUNDS = 12


def collect_config(data: dict, source: str) -> Checked:
    """Every error in ``data`` at once, not in stages: validate, leave each invalid key at its default
    (drop it), validate again so the checks that need a valid key (``candidates.add_to.page`` against
    ``wiki.pages``) run for all the others, until the rest validates. A check that compares with a dropped
    key is skipped (:func:`_sibling`), and an error about a dropped key (now missing or at its default) is
    not reported again. Never raises for invalid settings."""
    work = copy.deepcopy(data)
    errors: list[str] = []
    dropped: set[str] = set()
    for _ in range(_MAX_ROUNDS):
        try:
            return Checked(
                Config.model_validate(work, context={"dropped": frozenset(dropped)}), errors, frozenset(dropped)
            )
        except ValidationError as exc:
            before, earlier = len(dropped), frozenset(dropped)  # errors of one round are all new
            for err, line in zip(exc.errors(), config_errors(exc, source), strict=True):
                path = tuple(
                    p for p in itertools.takewhile(lambda part: isinstance(part, str), err["loc"]) if isinstance(p, str)
                )
                named = (err.get("ctx") or {}).get("key") or ".".join(path)
                stale = any(_within(".".join(path), d) or _within(named, d) for d in earlier)
                if not stale and line not in errors:
                    errors.append(line)
                target = path[:-1] if stale else path
                if target:
                    _drop(work, target)
                    dropped.add(".".join(target))
            if len(dropped) == before:
                break
    return Checked(None, errors, frozenset(dropped))


def overlaps(key: str, dropped: Collection[str]) -> bool:
    """True when the dotted ``key`` is, holds or lies under one of the ``dropped`` keys (:class:`Checked`)."""
    return any(_within(key, d) or _within(d, key) for d in dropped)


def _within(key: str, outer: str) -> bool:
    return key == outer or key.startswith(outer + ".")


def _drop(data: dict[str, object], path: tuple[str, ...]) -> None:
    node: object = data
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def _sibling(info: ValidationInfo, key: str):
    """The validated top-level section holding the dotted ``key`` (``wiki.pages`` -> ``wiki``), or ``None``
    when it is invalid or :func:`collect_config` dropped ``key`` (a cross-field check then skips it)."""
    if overlaps(key, (info.context or {}).get("dropped", ())):
        return None
    return info.data.get(key.split(".")[0])
