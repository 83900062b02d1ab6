"""Paths in a config file are read from that file's directory, wherever kep-sync runs.

A relative path written in a config file (``wiki.dir``, a local ``enhancements`` source, ``cache_dir``, a
local ``release_notes.source``, ``gate_lifecycle.source`` or ``release.sig_release``, and a target's ``wiki.dir``) names a place next
to the file: ``wiki.dir: ../wiki`` in ``config/kep-sync.yaml`` is the ``wiki`` directory beside ``config/``.
:func:`anchor_paths` rewrites them so they can be used from the working directory; a path on the command
line (``--wiki``, ``--enhancements``, ...) or in an environment variable is the working directory's.
:func:`config_relative` is the inverse, for ``kep-sync init`` writing a config.
"""

from __future__ import annotations

import copy
import os
import re

from bot.errors import note_written_path

#: Dotted keys whose value, when it is a local relative path, is read from the config file's directory.
PATH_KEYS = (
    "enhancements",
    "cache_dir",
    "wiki.dir",
    "release_notes.source",
    "gate_lifecycle.source",
    "release.sig_release",
)
#: A value that names no local path: ``github:OWNER/REPO@REF`` or a URL (``https://``, ``file://``, ``ssh://``).
_REMOTE_RE = re.compile(r"^(?:github:|[A-Za-z][A-Za-z0-9+.-]*://)")


def is_local_relative(value: object) -> bool:
    """True when ``value`` is a relative path on this machine (not empty, absolute, ``~``, a URL or ``github:``)."""
    return (
        isinstance(value, str)
        and bool(value.strip())
        and not os.path.isabs(value)
        and not value.startswith("~")
        and not _REMOTE_RE.match(value)
    )


def anchor_paths(data: dict, config_path: os.PathLike[str] | str) -> dict:
    """``data`` (a config file's settings as written) with each relative path of :data:`PATH_KEYS` (also under
    each entry of ``targets``) joined to the directory of ``config_path`` as given, normalised
    (``config/../wiki`` is ``wiki``); the working directory's path to the same place. ``data`` is not changed;
    values of the wrong type are left for validation to name."""
    base = os.path.dirname(os.fspath(config_path))
    if not base:
        return data
    out = copy.deepcopy(data)
    config = os.fspath(config_path)
    _anchor(out, base, config)
    targets = out.get("targets")
    if isinstance(targets, list):
        for target in targets:
            if isinstance(target, dict):
                _anchor(target, base, config)
    return out


def _anchor(section: dict, base: str, config: str) -> None:
    for key in PATH_KEYS:
        *parents, name = key.split(".")
        node: object = section
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and is_local_relative(node.get(name)):
            written = node[name]
            node[name] = os.path.normpath(os.path.join(base, written))
            note_written_path(node[name], written, config)


def config_relative(path: str, config_path: str) -> str:
    """``path`` (a local path as the working directory names it) as a config file at ``config_path`` says it:
    relative to the file's directory when the two share a directory below the root (``../wiki``), else
    absolute; a ``~`` path, a URL or a ``github:`` source as given."""
    if not isinstance(path, str) or path.startswith("~") or _REMOTE_RE.match(path):
        return path
    target = os.path.abspath(path)
    home = os.path.dirname(os.path.abspath(config_path))
    if os.path.commonpath([target, home]) == os.path.abspath(os.sep):
        return target
    return os.path.relpath(target, home)


def not_found(searched: tuple[os.PathLike[str], ...], cwd: str) -> str:
    """The error when no config file is found: the paths tried (``searched``, in the working directory ``cwd``),
    that neither ``--config`` nor ``$KEP_SYNC_CONFIG`` named one, and how to get one."""
    tried = " and ".join(os.fspath(p) for p in searched)
    return (
        f"no config file found: looked for {tried} in {cwd} (no --config given, $KEP_SYNC_CONFIG not set); "
        "write one with kep-sync init --wiki DIR, or name it with --config FILE"
    )
