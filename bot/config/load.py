"""Finding, reading and validating the config file; :func:`collect_config` reports every problem at once."""

from __future__ import annotations

import copy
import itertools
import os
from pathlib import Path
from typing import NamedTuple

import yaml
from pydantic import ValidationError

from bot.config.base import key_within, shown_key
from bot.config.messages import config_errors
from bot.config.model import Config
from bot.errors import ConfigError, forget_written_paths, relative_to

#: Looked for in the working directory when ``--config`` and ``KEP_SYNC_CONFIG`` are absent.
DEFAULT_CONFIG_PATH = Path("config/kep-sync.yaml")
#: Looked for in the working directory, in this order: what ``kep-sync init`` writes, then the shipped file's place.
DEFAULT_CONFIG_PATHS = (Path("kep-sync.yaml"), DEFAULT_CONFIG_PATH)


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
    forget_written_paths()
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
    key is skipped (:func:`bot.config.base.sibling`), and an error about a dropped key (now missing or at its default) is
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
                stale = any(key_within(".".join(path), d) or key_within(named, d) for d in earlier)
                if not stale and line not in errors:
                    errors.append(line)
                target = path[:-1] if stale else path
                if target:
                    _drop(work, target)
                    dropped.add(".".join(target))
            if len(dropped) == before:
                break
    return Checked(None, errors, frozenset(dropped))


def _drop(data: dict[str, object], path: tuple[str, ...]) -> None:
    node: object = data
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)
