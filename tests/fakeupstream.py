"""Serve a git repository's history from :class:`tests.fakegithub.FakeGitHub`: every object of a local clone
(a bundle cloned once) is loaded into the fake with its real SHA, so the fake answers the commits, compare,
blobs and tarball endpoints for real upstream commits.

    with FakeGitHub() as fake:
        line = load_git_repo(fake, clone, "kubernetes/enhancements")  # first-parent line, oldest first
        move_branch(fake, "kubernetes/enhancements", "master", line[-2])
"""

from __future__ import annotations

import subprocess
from datetime import UTC
from pathlib import Path

from tests.fakegithub import FakeGitHub


def _objects(repo: Path):
    """Yield ``(sha, type, bytes)`` of every object in ``repo`` (one ``git cat-file --batch-all-objects``)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch", "--unordered"],
        capture_output=True,
        check=True,
    ).stdout
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        sha, kind, size = out[pos:end].decode().split()
        start = end + 1
        yield sha, kind, out[start : start + int(size)]
        pos = start + int(size) + 1


def _tree_entries(body: bytes) -> dict[str, tuple[str, str, str]]:
    """``{name: (mode, type, sha)}`` of a raw git tree object."""
    entries, pos = {}, 0
    while pos < len(body):
        space, nul = body.index(b" ", pos), body.index(b"\0", pos)
        mode = body[pos:space].decode().rjust(6, "0")
        kind = {"040000": "tree", "160000": "commit"}.get(mode, "blob")
        entries[body[space + 1 : nul].decode("utf-8", "surrogateescape")] = (mode, kind, body[nul + 1 : nul + 21].hex())
        pos = nul + 21
    return entries


class _Trees(dict):
    """The fake's ``trees`` (``{sha: {name: (mode, type, sha)}}``) with raw git tree objects parsed on first use:
    a real history holds tens of thousands of trees, and a test reads the few under the commits it serves."""

    def __init__(self, parsed: dict, raw: dict[str, bytes]):
        super().__init__(parsed)
        self.raw = raw

    def __missing__(self, sha: str) -> dict[str, tuple[str, str, str]]:
        entries = self[sha] = _tree_entries(self.raw.pop(sha))  # KeyError for an unknown sha, as a dict
        return entries

    def __contains__(self, sha: object) -> bool:
        return super().__contains__(sha) or sha in self.raw


def _commit_record(sha: str, body: bytes, ts: int) -> dict:
    head, _, message = body.decode("utf-8", "replace").partition("\n\n")
    fields: dict[str, list[str]] = {}
    for line in head.splitlines():
        key, _, value = line.partition(" ")
        fields.setdefault(key, []).append(value)

    def ident(value: str) -> dict:
        name, _, rest = value.partition(" <")
        email, _, when = rest.partition("> ")
        from datetime import datetime

        date = datetime.fromtimestamp(int(when.split()[0]), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"name": name, "email": email, "date": date}

    return dict(
        sha=sha,
        tree=fields["tree"][0],
        parents=fields.get("parent", []),
        message=message,
        author=ident(fields["author"][0]),
        committer=ident(fields["committer"][0]),
        login=None,
        verified=False,
        ts=ts,
    )


def load_git_repo(fake: FakeGitHub, repo: Path, full_name: str, branch: str = "master") -> list[str]:
    """Load every object of the git repository ``repo`` into ``fake`` as ``full_name`` (created), with
    ``branch`` at ``repo``'s ``HEAD``; returns the first-parent line of ``HEAD``, oldest first."""
    line = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--first-parent", "--reverse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    order = {sha: i for i, sha in enumerate(line)}
    with fake.lock:
        trees = fake.trees if isinstance(fake.trees, _Trees) else _Trees(fake.trees, {})
        fake.trees = trees
        for sha, kind, body in _objects(repo):
            if kind == "blob":
                fake.blobs[sha] = body
            elif kind == "tree":
                trees.raw[sha] = body
            elif kind == "commit":
                fake.commits[sha] = _commit_record(sha, body, order.get(sha, 0))
        owner, name = full_name.split("/")
        fake.repos[full_name] = dict(
            full_name=full_name,
            owner=owner,
            name=name,
            id=fake._next_id(),
            default_branch=branch,
            refs={f"refs/heads/{branch}": line[-1]},
            labels={},
            pulls={},
        )
    return line


def move_branch(fake: FakeGitHub, full_name: str, branch: str, sha: str) -> None:
    """Point ``branch`` of ``full_name`` at the commit ``sha`` (as a push upstream would)."""
    with fake.lock:
        fake.repos[full_name]["refs"][f"refs/heads/{branch}"] = sha
