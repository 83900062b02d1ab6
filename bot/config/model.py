"""The whole config (:class:`Config`) and one wiki of many (:class:`TargetConfig`), with the checks that
compare one section with another."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from bot.config.base import Strict, shown, sibling
from bot.config.sections import (
    AuditConfig,
    CandidatesConfig,
    ColumnsConfig,
    CoverageConfig,
    DigestConfig,
    FrontMatterConfig,
    GateLifecycleConfig,
    GitHubConfig,
    IgnoreRule,
    LinksConfig,
    ProvenanceConfig,
    PullRequestConfig,
    ReleaseConfig,
    ReleaseNotesConfig,
    ScheduleConfig,
    WikiConfig,
)
from bot.plan.changelog.controls import Steering
from bot.redact import add_url_secrets
from bot.wiki.pages import same_page

#: A target name: a directory name under the state directory and a job name in a workflow matrix.
TARGET_NAME = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
#: The name of the one target of a config without ``targets:``.
DEFAULT_TARGET = "default"


class TargetConfig(Strict):
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
    renames: Literal["report", "apply", "owned-cells"] | None = None
    """Replaces the top-level ``renames``."""
    digest: DigestConfig | None = None
    """Merged over the top-level ``digest``."""
    candidates: CandidatesConfig | None = None
    """Merged over the top-level ``candidates``."""
    production_tables: list[str] | None = None
    """Replaces the top-level ``production_tables``."""
    dashboard: bool | None = None
    """Replaces the top-level ``dashboard``."""
    coverage: CoverageConfig | None = None
    """Merged over the top-level ``coverage``."""

    def settings(self) -> dict:
        """The sections this target sets, as written (``{"wiki": {"repo": ...}}``), without ``name``."""
        return self.model_dump(exclude_unset=True, exclude={"name"}, by_alias=True)


class Config(Strict):
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
    renames: Literal["report", "apply", "owned-cells"] = "report"
    """A row naming a KEP directory upstream renamed: ``report`` it (the row left as is), ``apply`` (rewrite the
    KEP cell and sync the row) or ``owned-cells`` (sync its status, stage and milestone cells, the KEP cell kept
    byte for byte)."""
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
    dashboard: bool = False
    """One issue in the wiki repository, kept current by every run (``publish: github``): the open pull request,
    the watch, the ignores with boxes that lift them, the last run's problems, a box to run now."""

    @field_validator("candidates")
    @classmethod
    def _add_to_a_page(cls, candidates: CandidatesConfig, info: ValidationInfo) -> CandidatesConfig:
        wiki = sibling(info, "wiki.pages")
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
        candidates = sibling(info, "candidates.add_to")
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
        wiki = sibling(info, "wiki.pages")
        if coverage.page is not None and wiki is not None and same_page(coverage.page, wiki.pages):
            raise PydanticCustomError(
                "coverage_is_a_matrix_page",
                "{page} is also in wiki.pages; the coverage "
                "page is read-only for kep-sync, name a page that is not synced",
                {"page": shown(coverage.page), "key": "coverage.page"},
            )
        digest = sibling(info, "digest.page")
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
        wiki = sibling(info, "wiki.repo")  # absent when wiki itself is invalid (reported there)
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
        """The values the pull request's Controls footer names (:func:`bot.plan.changelog.controls.controls`)."""
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
