"""Validated settings (pydantic) loaded from ``config/kep-sync.yaml``; see that file for every key.

:func:`load_config` raises :class:`~bot.errors.ConfigError` with one line per
problem naming the file and the dotted key. Secrets are never configuration:
tokens come from the environment only (``GITHUB_TOKEN``, ``KEP_SYNC_APP_*``).

The parts: :mod:`bot.config.sections` (one model per section), :mod:`bot.config.model` (:class:`Config`,
:class:`TargetConfig`), :mod:`bot.config.messages` (errors in plain words), :mod:`bot.config.load` (finding,
reading and validating the file), :mod:`bot.config.base` (what they share). Import from ``bot.config``.
"""

from __future__ import annotations

from bot.config.base import MAX_SHOWN, overlaps, shown, shown_key
from bot.config.load import (
    DEFAULT_CONFIG_PATH,
    DEFAULT_CONFIG_PATHS,
    Checked,
    collect_config,
    find_config_path,
    load_config,
    read_config_data,
    validate_config,
)
from bot.config.messages import config_errors, did_you_mean, error_key, error_message, known_keys, shared_key_message
from bot.config.model import DEFAULT_TARGET, TARGET_NAME, Config, TargetConfig
from bot.config.sections import (
    AddToConfig,
    AuditConfig,
    CandidatesConfig,
    ColumnsConfig,
    CoverageColumnsConfig,
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
    actions_repository,
    is_http_url,
)

__all__ = [
    "AddToConfig",
    "AuditConfig",
    "CandidatesConfig",
    "Checked",
    "ColumnsConfig",
    "Config",
    "CoverageColumnsConfig",
    "CoverageConfig",
    "DEFAULT_CONFIG_PATH",
    "DEFAULT_CONFIG_PATHS",
    "DEFAULT_TARGET",
    "DigestConfig",
    "FrontMatterConfig",
    "GateLifecycleConfig",
    "GitHubConfig",
    "IgnoreRule",
    "LinksConfig",
    "MAX_SHOWN",
    "ProvenanceConfig",
    "PullRequestConfig",
    "ReleaseConfig",
    "ReleaseNotesConfig",
    "ScheduleConfig",
    "TARGET_NAME",
    "TargetConfig",
    "WikiConfig",
    "actions_repository",
    "collect_config",
    "config_errors",
    "did_you_mean",
    "error_key",
    "error_message",
    "find_config_path",
    "is_http_url",
    "known_keys",
    "load_config",
    "overlaps",
    "read_config_data",
    "shared_key_message",
    "shown",
    "shown_key",
    "validate_config",
]
