"""Helpers that build real git repositories for tests (no network, no global git config).

    sha = make_repo(tmp_path / "up", {"keps/sig-x/1-a/kep.yaml": "title: A\n"})
    sha2 = commit(tmp_path / "up", {"keps/sig-x/2-b/kep.yaml": b"..."}, "add b")

``files`` maps repository-relative POSIX paths to ``str`` (written as UTF-8)
or ``bytes``; a value of ``None`` deletes the file. Every call stages all
changes and makes one commit on branch ``main``; the new commit SHA is returned.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = ["GIT_ENV", "commit", "git", "make_repo"]

#: Environment that makes commits deterministic and independent of the user's git config. ``GIT_TEMPLATE_DIR``
#: empty: ``git init`` copies no template (the 13 sample hooks, ``info/exclude``, ``description``), half its time.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_TEMPLATE_DIR": "",
}


def git(path: Path | str, *args: str) -> str:
    """Run ``git -C path ARGS`` with :data:`GIT_ENV` and no automatic maintenance; return stdout (stripped); raise
    on failure."""
    env = {**os.environ, **GIT_ENV}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    proc = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "maintenance.auto=false",  # no `git maintenance run --auto` process after each commit, merge or fetch
            "-C",
            str(path),
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {path}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def _write(path: Path, files: Mapping[str, str | bytes | None]) -> None:
    for rel, content in files.items():
        target = path / rel
        if content is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        target.write_bytes(content)


def commit(path: Path | str, files: Mapping[str, str | bytes | None], message: str = "update") -> str:
    """Write ``files`` into the work tree at ``path``, commit everything, return the new HEAD SHA."""
    path = Path(path)
    _write(path, files)
    git(path, "add", "-A")
    git(path, "commit", "-q", "--allow-empty", "-m", message)
    return git(path, "rev-parse", "HEAD")


def make_repo(path: Path | str, files: Mapping[str, str | bytes | None], message: str = "initial commit") -> str:
    """Create a git repository at ``path`` (branch ``main``) with one commit of ``files``; return its SHA."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return commit(path, files, message)
