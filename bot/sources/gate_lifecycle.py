"""Fetch the feature-gate lifecycle (``versioned_feature_list.yaml``) of each release.

``gate_lifecycle.source`` / ``--gate-lifecycle SRC`` forms (see :func:`parse_gate_source`):

1. a file: one list (its newest version is taken as the release being made);
2. a directory of lists, one per release, named by it: ``1.33.yaml``, ``v1.33.yaml`` or
   ``versioned_feature_list-1.33.yaml`` (each list says its release shipped). The list's own newest
   version decides which release it describes: a name that disagrees is a problem naming the file, and
   that list is read as a single file is (its newest version not shipped). Every other ``.yaml``/``.yml``
   file, a name whose version is malformed (leading zero, too long) and a second file for one release are
   problems naming the file; those files are not read;
3. ``github:OWNER/REPO`` (``github:kubernetes/kubernetes``): the list at each ``release-1.NN`` branch a run
   needs (:func:`wanted_branches`), read with GitHub REST "Get repository content",
   ``GET /repos/{owner}/{repo}/contents/{path}?ref=release-1.NN`` (base64 content and the blob SHA, the
   list's revision), at ``test/compatibility_lifecycle/reference/versioned_feature_list.yaml`` on
   ``release-1.33`` and later and ``test/featuregates_linter/test_data/versioned_feature_list.yaml`` on
   ``release-1.32`` (no list before). Every request goes to ``github.api_url`` only, ETag-conditional,
   cached under ``CACHE_DIR/gate-lifecycle/`` (:mod:`bot.sources.etag_cache`): an unchanged list costs a
   ``304``; a 404 means that branch (or list) does not exist yet. A ``release-1.NN`` branch is cut weeks
   before v1.NN ships, so the newest branch read says only its older versions shipped
   (:attr:`bot.model.gates.GateList.final` false); an older branch says its release shipped.

A source that cannot be used at all is a :class:`ConfigError` naming the file (and line); a ``github:``
source that cannot be reached without a cached copy is a :class:`SourceError`. Malformed entries are
problems, kept in :attr:`bot.model.gates.Lifecycle.problems`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import stat
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

from bot.errors import ConfigError, SourceError, UsageError
from bot.fileread import read_regular, special_kind
from bot.http import RequestCounter, client_or_new
from bot.model.gates import GateList, Lifecycle, ListError, lifecycle, parse_gate_list, release_key
from bot.model.kep import Problem
from bot.sources import parse_github_spec
from bot.sources.etag_cache import EtagCache, fetch_cached, source_cache_dir

if TYPE_CHECKING:
    import httpx

#: Where the list lives on ``release-1.33`` and later, and on ``release-1.32`` (kubernetes/kubernetes).
LIST_PATH = "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"
OLD_LIST_PATH = "test/featuregates_linter/test_data/versioned_feature_list.yaml"
#: The first release branch that carries a list.
FIRST_RELEASE = (1, 32)
#: Largest list accepted, bytes (the real ones are ~50 KB).
MAX_LIST_BYTES = 8 * 1024 * 1024
#: Most release branches probed past the newest wanted one (the probe stops at the first 404).
PROBE_AHEAD = 12
_NAME_RE = re.compile(r"^(?:versioned_feature_list[-_.])?v?([1-9][0-9]{0,2}|0)\.([1-9][0-9]{0,3}|0)\.ya?ml$")
KEY = "gate_lifecycle.source (--gate-lifecycle)"


class GateSource(NamedTuple):
    """A parsed source: ``kind`` ``file``, ``dir`` or ``github`` (``location`` ``OWNER/REPO``)."""

    kind: str
    location: str


def parse_gate_source(value: str) -> GateSource:
    """Classify a ``--gate-lifecycle`` value; raises :class:`UsageError` for anything else."""
    if value.startswith("github:") and "@" in value:
        raise UsageError(f"--gate-lifecycle {value!r}: name no @REF; the list is read at each release-1.NN branch")
    spec = parse_github_spec(value, "--gate-lifecycle", "HEAD")
    if spec:
        return GateSource("github", spec[0])
    try:
        mode = Path(value).expanduser().stat().st_mode
    except FileNotFoundError:
        raise UsageError(f"--gate-lifecycle {value!r}: no such file or directory, and not github:OWNER/REPO") from None
    except OSError as exc:  # e.g. a name too long, a directory this user may not search
        raise UsageError(f"--gate-lifecycle {value!r}: cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        return GateSource("dir", str(Path(value).expanduser()))
    if stat.S_ISREG(mode):
        return GateSource("file", str(Path(value).expanduser()))
    raise UsageError(
        f"--gate-lifecycle {value!r}: not a regular file ({special_kind(mode)}), nor a directory or github:OWNER/REPO"
    )


def list_path(release: str) -> str | None:
    """The list's path on the ``release-1.NN`` branch of ``release`` (``v1.33``); ``None`` before v1.32."""
    key = release_key(release)
    if key < FIRST_RELEASE:
        return None
    return OLD_LIST_PATH if key == FIRST_RELEASE else LIST_PATH


def wanted_branches(wanted: Collection[str]) -> list[str]:
    """Releases whose branch is read for ``wanted`` releases: each at v1.32 or later, v1.32 for older ones
    (its list is back-filled to each gate's first release), oldest first."""
    out = {
        r if release_key(r) >= FIRST_RELEASE else f"v{FIRST_RELEASE[0]}.{FIRST_RELEASE[1]}"
        for r in wanted
        if release_key(r) != (0, 0)
    }
    return sorted(out, key=release_key)


def load_gate_lifecycle(
    value: str,
    cache_dir: Path,
    wanted: Collection[str] = (),
    *,
    api_url: str = "https://api.github.com",
    token: str | None = None,
    client: httpx.Client | None = None,
    counter: RequestCounter | None = None,
) -> Lifecycle:
    """Read the lists named by ``value``; ``wanted``: releases (``v1.33``) a ``github:`` source must read.

    Raises :class:`UsageError` for an unknown form, :class:`ConfigError` for a list that cannot be used
    (naming the file and line) or a source with no list at all, :class:`SourceError` when a ``github:``
    source cannot be reached and nothing is cached.
    """
    source = parse_gate_source(value)
    if source.kind == "file":
        return read_file_list(Path(source.location))
    if source.kind == "dir":
        return read_directory(Path(source.location))
    with client_or_new(client, token, counter=counter) as client:
        cache = source_cache_dir(cache_dir, "gate-lifecycle", value)
        return _load_github(client, cache, source, wanted, api_url.rstrip("/"))


def _parse(where: str, data: bytes, release: str = "") -> tuple[GateList, list[Problem]]:
    try:
        return parse_gate_list(where, data, release)
    except ListError as exc:
        raise ConfigError(f"{KEY} {exc}") from None


def _read(path: Path) -> bytes:
    try:
        return read_regular(path, MAX_LIST_BYTES)
    except OSError as exc:
        raise ConfigError(f"{KEY} {str(path)!r}: cannot read: {exc.strerror or exc}") from None


def read_file_list(path: Path) -> Lifecycle:
    """One list from a file (no release of its own)."""
    gl, problems = _parse(str(path), _read(path))
    return lifecycle(str(path), [gl], problems)


def release_of(name: str) -> str:
    """``v1.33`` for a list file named ``1.33.yaml``, ``v1.33.yml`` or ``versioned_feature_list-1.33.yaml``;
    ``""`` otherwise."""
    m = _NAME_RE.match(name)
    return f"v{int(m.group(1))}.{int(m.group(2))}" if m else ""


def read_directory(root: Path) -> Lifecycle:
    """Every list named by its release in ``root``; :class:`ConfigError` when there is none. Files not read
    and names that disagree with the contents are problems (see the module docstring)."""
    try:
        paths = sorted(p for p in root.iterdir() if p.suffix in (".yaml", ".yml") or release_of(p.name))
    except OSError as exc:
        raise ConfigError(f"{KEY} {str(root)!r}: cannot list: {exc.strerror or exc}") from None
    files, problems = _named_files(paths)
    if not files:
        raise ConfigError(
            f"{KEY} {str(root)!r}: no list named by its release (1.33.yaml or "
            "versioned_feature_list-1.33.yaml) in the directory"
        )
    lists = []
    for release, path in files:
        gl, found = _parse(str(path), _read(path), release)
        if gl.newest != release:
            found.append(
                Problem(
                    str(path),
                    "name",
                    f"the file name says {release}, its newest version is "
                    f"{gl.newest or 'none'}: read as the list of {gl.newest or 'no release'} in "
                    "the making (rename the file to its release)",
                )
            )
            gl = gl._replace(release="")
        lists.append(gl)
        problems += found
    return lifecycle(str(root), lists, problems)


def _named_files(paths: list[Path]) -> tuple[list[tuple[str, Path]], list[Problem]]:
    """``[(release, path)]`` of the files named by a release (one per release, the first by name), and a
    problem for each other file."""
    files: dict[str, Path] = {}
    problems: list[Problem] = []
    for path in paths:
        release = release_of(path.name)
        if not release or release_key(release) < FIRST_RELEASE:
            problems.append(
                Problem(
                    str(path),
                    "name",
                    "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read",
                )
            )
        elif release in files:
            problems.append(
                Problem(str(path), "name", f"a second list for {release} (after {files[release].name}); not read")
            )
        else:
            files[release] = path
    return sorted(files.items(), key=lambda rp: release_key(rp[0])), problems


def _contents_url(api_url: str, repo: str, path: str, release: str) -> str:
    return f"{api_url}/repos/{repo}/contents/{path}?ref={quote('release-' + release[1:], safe='')}"


def file_content(body: bytes) -> tuple[bytes, str] | None:
    """``(file bytes, blob SHA)`` from a contents API file object; ``None`` when it is not one."""
    try:
        doc = json.loads(body)
        if isinstance(doc, dict) and doc.get("encoding") == "base64" and isinstance(doc.get("content"), str):
            return base64.b64decode(doc["content"]), str(doc.get("sha", ""))
    except (ValueError, RecursionError, binascii.Error):
        pass
    return None


def _load_github(
    client: httpx.Client, cache_root: Path, source: GateSource, wanted: Collection[str], api_url: str
) -> Lifecycle:
    problems: list[Problem] = []
    cache = EtagCache(cache_root, problems)
    lists: list[GateList] = []
    branches = wanted_branches(wanted)
    newest = release_key(branches[-1]) if branches else FIRST_RELEASE
    ahead = [f"v{newest[0]}.{newest[1] + i}" for i in range(1, PROBE_AHEAD + 1)]
    for release in branches + ahead:
        path = list_path(release) or LIST_PATH
        url = _contents_url(api_url, source.location, path, release)
        body = fetch_cached(
            client,
            cache,
            f"release-{release[1:]}",
            url,
            problems,
            max_bytes=MAX_LIST_BYTES,
            headers={"Accept": "application/vnd.github+json"},
            usable=lambda b: file_content(b) is not None,
        )
        if body is None:  # no such branch (a release not cut yet) or no list on it
            if release in ahead:
                break
            continue
        decoded = file_content(body)
        if decoded is None:
            raise SourceError(f"GET {url}: not a contents API file object")
        gl, found = _parse(f"{source.location}@release-{release[1:]}:{path}", decoded[0], release)
        lists.append(gl._replace(revision=decoded[1] or gl.revision))
        problems += found
    if not lists:
        raise ConfigError(
            f"{KEY} github:{source.location}: no release-1.NN branch with a feature-gate list among "
            f"{', '.join(branches + ahead[:1])}"
        )
    lists[-1] = lists[-1]._replace(final=False)
    return lifecycle(f"github:{source.location}", lists, problems)
