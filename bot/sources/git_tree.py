"""Git tree ids computed from a listing of paths, so a cached listing of ``keps/`` can be checked against the one
tree id GitHub gives for a commit (``GET /repos/{o}/{r}/git/commits/{sha}``: ``tree.sha``).

A git tree object is ``MODE NAME\\0`` + the 20-byte id of each entry, sorted by name as bytes (a tree's name
compared as if it ended in ``/``), hashed as ``tree LEN\\0`` + body with SHA-1 (git's object format). A
listing is ``{path: (mode, id)}`` of every entry that is not a tree (blobs ``100644``/``100755``, symbolic
links ``120000``, submodules ``160000``); git keeps no empty directory, so the trees follow from the paths.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from bot.sources.tarball import SHA_RE

#: Modes of the entries a listing holds: regular files, executables, symbolic links, submodules.
LEAF_MODES = frozenset({"100644", "100755", "120000", "160000"})
#: Modes of files a full read takes as files (an executable kep.yaml is read like any other).
FILE_MODES = frozenset({"100644", "100755"})
#: The mode of a symbolic link.
LINK_MODE = "120000"
#: The mode of a tree as git writes it in a tree object (GitHub's API shows it as ``040000``).
TREE_MODE = "40000"

Listing = Mapping[str, tuple[str, str]]


def blob_id(data: bytes) -> str:
    """The git id of a blob holding ``data`` (SHA-1 of ``blob LEN\\0`` + data), as GitHub's APIs give it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_id(entries: Iterable[tuple[str, str, str]]) -> str:
    """The git id of the tree holding ``entries`` ``(mode, name, id)``. Raises ValueError for a name that is empty,
    holds ``/`` or NUL, is given twice, or an id that is not 40 hex digits."""
    rows = list(entries)
    names = [name for _, name, _ in rows]
    if len(set(names)) != len(names) or any(not n or "/" in n or "\0" in n or n in (".", "..") for n in names):
        raise ValueError(f"not a tree: names {sorted(names)[:5]}")
    if not all(SHA_RE.fullmatch(sha) for _, _, sha in rows):
        raise ValueError("not a tree: an id is not 40 hex digits")

    def key(row: tuple[str, str, str]) -> bytes:
        mode, name, _ = row
        return (name + "/" if mode.lstrip("0") == TREE_MODE else name).encode("utf-8", "surrogateescape")

    body = b"".join(
        f"{mode.lstrip('0')} {name}".encode("utf-8", "surrogateescape") + b"\0" + bytes.fromhex(sha)
        for mode, name, sha in sorted(rows, key=key)
    )
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


def subtree_id(listing: Listing, prefix: str) -> str | None:
    """The id of the tree at ``prefix`` (e.g. ``keps``) whose every entry below it that is not a tree is in
    ``listing`` (paths from the repository root); ``None`` when the listing holds nothing below it (git keeps no
    empty tree). Raises ValueError for a mode outside :data:`LEAF_MODES` or a path that is not a tree path."""
    below: dict[str, tuple[str, str]] = {}
    for path, (mode, sha) in listing.items():
        if not path.startswith(prefix + "/"):
            raise ValueError(f"{path!r} is not below {prefix}/")
        below[path[len(prefix) + 1 :]] = (mode, sha)
    return _tree(below) if below else None


def _tree(below: Mapping[str, tuple[str, str]]) -> str:
    return tree_id((mode, name, sha) for name, (mode, sha) in top_entries(below).items())


def top_entries(listing: Listing) -> dict[str, tuple[str, str]]:
    """The entries ``{name: (mode, id)}`` of the tree whose every entry below it that is not a tree is in
    ``listing`` (paths relative to it): a folder as ``040000`` (as GitHub's API shows it) with its computed id.
    Raises ValueError as :func:`tree_id` does, and for a mode outside :data:`LEAF_MODES`."""
    out: dict[str, tuple[str, str]] = {}
    groups: dict[str, dict[str, tuple[str, str]]] = {}
    for rel, (mode, sha) in listing.items():
        if mode not in LEAF_MODES:
            raise ValueError(f"{rel!r}: mode {mode!r} is not a file, link or submodule")
        head, sep, rest = rel.partition("/")
        if sep:
            groups.setdefault(head, {})[rest] = (mode, sha)
        elif head in out:
            raise ValueError(f"not a tree: {head!r} given twice")
        else:
            out[head] = (mode, sha)
    for name, sub in groups.items():
        if name in out:
            raise ValueError(f"not a tree: {name!r} is a file and a folder")
        out[name] = ("0" + TREE_MODE, _tree(sub))
    return out


def listing_id(listing: Listing) -> str:
    """The id of the tree whose every entry below it that is not a tree is in ``listing`` (:func:`top_entries`)."""
    return _tree(listing)


def root_id(top: Mapping[str, tuple[str, str]], keps: str | None) -> str:
    """The id of a root tree with the entries ``top`` ``{name: (mode, id)}`` and, unless ``None``, the tree
    ``keps`` at ``keps/``. Raises ValueError as :func:`tree_id` does."""
    rows = [(mode, name, sha) for name, (mode, sha) in top.items()]
    return tree_id(rows + ([(TREE_MODE, "keps", keps)] if keps else []))
