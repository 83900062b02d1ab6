"""Many wikis from one deployment: the targets of a config, and which of them a process runs.

A config without ``targets:`` has one target, ``default``, whose settings are the config itself. With
``targets:`` each entry (:class:`bot.config.TargetConfig`) is merged over the top-level settings
(:func:`expand`): a mapping section key by key, a list or plain value replacing the top-level one.

A process runs all targets, those named with ``--target NAME`` (repeatable), or a stable share of them
with ``--shard I/N``: the targets whose :func:`shard_of` is ``I``, that is the first 8 bytes of the
SHA-256 of the name, big-endian, modulo ``N``. The share depends only on the name, so adding or
removing a target never moves another one to a different shard.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import NamedTuple

from bot.config import DEFAULT_TARGET, Config, collect_config
from bot.errors import ConfigError, UsageError


class Target(NamedTuple):
    """One wiki: its ``name``, the settings a sync of it runs with (``targets`` empty) and ``own_dir``: True
    for a target of ``targets:`` (its state lives in a directory of its own, :func:`state_dir_of`)."""

    name: str
    config: Config
    own_dir: bool = False


class Shard(NamedTuple):
    """``--shard I/N``: this process runs ``share`` (0-based) of ``shares``."""

    share: int
    shares: int


def parse_shard(text: str) -> Shard:
    """``"2/5"`` -> ``Shard(2, 5)``. Raises :class:`ValueError` unless I and N are ASCII digits and
    ``0 <= I < N`` (argparse: exit 2)."""
    left, sep, right = text.partition("/")
    if not (sep and re.fullmatch(r"[0-9]{1,9}", left.strip()) and re.fullmatch(r"[0-9]{1,9}", right.strip())):
        raise ValueError(f"{text!r}: expected I/N such as 0/4 (share I of N, counted from 0)")
    shard = Shard(int(left), int(right))
    if not 0 <= shard.share < shard.shares:
        raise ValueError(
            f"{text!r}: I must be at least 0 and less than N (0/{shard.shares or 1} .. "
            f"{max(shard.shares - 1, 0)}/{shard.shares or 1})"
        )
    return shard


def shard_of(name: str, count: int) -> int:
    """The share (``0 .. count-1``) of the target ``name``: SHA-256 of its UTF-8 bytes, first 8 bytes as a
    big-endian integer, modulo ``count``."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % count


def expand(config: Config, source: str) -> list[Target]:
    """The targets of ``config`` in the order written; ``[Target("default", config)]`` without ``targets:``.

    Raises :class:`ConfigError` with every problem of every target, one ``SOURCE: targets[I].key: what is
    wrong`` per line (a problem of the merged settings, such as ``publish: github`` without a ``wiki.repo``,
    is named under the target too; two targets that write the same file or the same wiki and bot branch,
    :func:`shared_outputs`).
    """
    if not config.targets:
        return [Target(DEFAULT_TARGET, config)]
    top = config.model_dump(by_alias=True)
    targets, errors = [], []
    for i, entry in enumerate(config.targets):
        checked = collect_config(merge(top, entry.settings()), source)
        errors += [line.replace(f"{source}: ", f"{source}: targets[{i}].", 1) for line in checked.errors]
        if checked.config is not None and not checked.errors:
            targets.append(Target(entry.name, checked.config, own_dir=True))
    if not errors:
        errors = [f"{source}: {line}" for line in shared_outputs(targets)]
    if errors:
        raise ConfigError("\n".join(errors))
    return targets


def wiki_of(config: Config) -> tuple[str, str]:
    """Where a sync of ``config`` writes: ``("wiki.dir", RESOLVED PATH)`` for ``publish`` ``files`` or ``git``
    and for a wiki without ``wiki.repo``, else ``("wiki.repo", OWNER/NAME)`` (lower-case: GitHub names are
    case-insensitive)."""
    if config.publish in ("files", "git") or not config.wiki.repo:
        return "wiki.dir", os.path.realpath(os.path.expanduser(config.wiki.dir))
    return "wiki.repo", config.wiki.repo.lower()


def written_files(config: Config) -> list[tuple[str, str, tuple[int, int] | str]]:
    """``[(key, page, file id)]`` of the files a sync of ``config`` may write under ``wiki.dir``: each of
    ``wiki.pages`` and the ``digest.page`` for ``publish`` ``files`` and ``git`` (none for ``none`` and
    ``github``). The file id is ``(st_dev, st_ino)`` after following symbolic links, so a link or hard link
    to a page is that page, else the resolved path of a file not there yet."""
    if config.publish not in ("files", "git"):
        return []
    root = Path(config.wiki.dir).expanduser()
    named = [(f"wiki.pages[{i}]", page) for i, page in enumerate(config.wiki.pages)]
    named += [("digest.page", config.digest.page)] if config.digest.page else []
    return [(key, page, file_id(root / page)) for key, page in named]


def file_id(path: Path) -> tuple[int, int] | str:
    """``(st_dev, st_ino)`` of ``path`` after following symbolic links, else its resolved path (not there
    yet, or cannot be looked at)."""
    try:
        st = path.stat()
    except (OSError, RuntimeError):
        return os.path.realpath(path)
    return st.st_dev, st.st_ino


def shared_outputs(targets: Sequence[Target]) -> list[str]:
    """One line for each target that writes what an earlier target writes, naming both: the same file
    (:func:`written_files`: the same page of one wiki directory, through any link) for ``publish`` ``files``
    or ``git``, or the same wiki (:func:`wiki_of`) and ``pull_request.branch`` for ``git`` and ``github``.
    Two such targets would undo each other's writes on every run."""
    branches: dict[tuple[str, str, str], tuple[int, str]] = {}
    files: dict[tuple[int, int] | str, tuple[int, str, str]] = {}
    lines = []
    for j, target in enumerate(targets):
        config = target.config
        for key, page, fid in written_files(config):
            first = files.setdefault(fid, (j, target.name, page))
            if first[0] != j:
                where = os.path.realpath(Path(config.wiki.dir).expanduser() / page)
                lines.append(
                    f"targets[{j}].{key}: {page!r}: targets {target.name!r} and {first[1]!r} (targets[{first[0]}]) "
                    f"write the same file ({where!r}) and would overwrite each other's writes; give one its own "
                    "wiki.dir or page"
                )
                break
        else:
            if config.publish not in ("git", "github"):
                continue
            where_key, where = wiki_of(config)
            branch = config.pull_request.branch
            other = branches.setdefault((where_key, where, branch), (j, target.name))
            if other[0] != j:
                lines.append(
                    f"targets[{j}].pull_request.branch: {branch!r}: targets {target.name!r} and {other[1]!r} "
                    f"(targets[{other[0]}]) write the same wiki ({where_key} {where!r}) on the same branch and would "
                    "overwrite each other's commits; give one its own pull_request.branch or wiki"
                )
    return lines


def merge(top: dict, own: dict) -> dict:
    """``own`` over ``top``: a mapping in both is merged key by key (one level), anything else replaces."""
    out = dict(top)
    for key, value in own.items():
        out[key] = {**top[key], **value} if isinstance(value, dict) and isinstance(top.get(key), dict) else value
    return out


def select(targets: Sequence[Target], names: Collection[str] = (), shard: Shard | None = None) -> list[Target]:
    """The targets this process runs, in config order: those ``names`` (all when empty), then the ``shard``.

    Raises :class:`UsageError` naming an unknown target and the known ones.
    """
    known = [t.name for t in targets]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"--target {unknown[0]!r}: no such target; the config has: {', '.join(known)}")
    chosen = [t for t in targets if not names or t.name in names]
    if shard is not None:
        chosen = [t for t in chosen if shard_of(t.name, shard.shares) == shard.share]
    return chosen


def state_dir_of(root: Path, target: Target) -> Path:
    """The state directory of ``target``: ``root`` itself for the one target of a config without
    ``targets:`` (as before targets existed), else ``root/targets/NAME``."""
    return root / "targets" / target.name if target.own_dir else root
