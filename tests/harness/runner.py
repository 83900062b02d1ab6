"""Run kep-sync through its real entry point (``bot.cli.main.main``) on a scenario laid out in a temp directory.

    sc = lay_out(root, up, {"m.md": text}, options)   # upstream (directory or git), wiki, config file
    run = run_cli(["sync", "--config", str(sc.config), "--report", str(sc.report)], env)

A :class:`Run` keeps the exit code, stdout, stderr and the JSON report. Everything runs in-process,
with the environment and the standard streams swapped for the call only.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import NamedTuple
from unittest import mock

try:
    from tests.gitutil import commit, git, make_repo
    from tests.harness.strategies import Upstream
except ImportError:  # pragma: no cover
    from gitutil import commit, git, make_repo

    from harness.strategies import Upstream

__all__ = ["CANARY", "Run", "Scenario", "lay_out", "run_cli", "wiki_pages"]

#: A secret that must never leave the process: not shaped like a GitHub token, so only redaction by value
#: catches it.
CANARY = "kepsyncCanary7f3a9e"


class Run(NamedTuple):
    """One ``main()`` call: exit ``code``, ``stdout``, ``stderr``, the parsed ``report`` (``None``: not written)."""

    code: int
    stdout: str
    stderr: str
    report: dict | None


class Scenario(NamedTuple):
    """Paths of a laid-out run: ``root``, upstream ``enh``, ``wiki`` directory, ``config`` file, ``report``."""

    root: Path
    enh: Path
    wiki: Path
    config: Path
    report: Path
    pages: tuple[str, ...]


def run_cli(argv: list[str], env: dict[str, str], report: Path | None = None) -> Run:
    """``bot.cli.main.main(argv)`` with ``env`` added to the environment; stdout and stderr captured."""
    import structlog

    from bot.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    if report is not None and report.exists():
        report.unlink()
    with mock.patch.dict(os.environ, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        finally:
            structlog.reset_defaults()
    data = json.loads(report.read_text(encoding="utf-8")) if report is not None and report.exists() else None
    return Run(code, out.getvalue(), err.getvalue(), data)


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def lay_out(
    root: Path, up: Upstream, pages: dict[str, str], options: dict, *, git_upstream: bool, git_wiki: bool
) -> Scenario:
    """Write the upstream tree (a git repository with the renames as a second commit, or a plain
    directory of the renamed tree), the wiki pages (committed on ``main`` when ``git_wiki``) and a config
    file (JSON, which YAML reads) with ``options`` merged over the paths."""
    enh, wiki = root / "enh", root / "wiki"
    if git_upstream:
        before, after = up.files(renamed=False), up.files(renamed=True)
        make_repo(enh, before, "Merge pull request #1 from a/add")
        moved = {
            **{p: None for p in before if p not in after},
            **{p: b for p, b in after.items() if before.get(p) != b},
        }
        if moved:
            commit(enh, moved, "KEP: rename directories (#2)")
    else:
        _write_tree(enh, up.files(renamed=True))
    encoded = {name: text.encode("utf-8") for name, text in pages.items()}
    if git_wiki:
        make_repo(wiki, encoded, "wiki")
    else:
        _write_tree(wiki, encoded)
    matrix = [p for p in pages if p != options.get("digest", {}).get("page")]
    config = {
        "enhancements": str(enh),
        "cache_dir": str(root / "cache"),
        "wiki": {"dir": str(wiki), "pages": matrix},
        **options,
    }
    path = root / "kep-sync.yaml"
    path.write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
    return Scenario(root, enh, wiki, path, root / "report.json", tuple(pages))


def wiki_pages(sc: Scenario, ref: str | None = None) -> dict[str, bytes]:
    """The pages as they are in the wiki directory, or at ``ref`` of its git repository (``None``: on disk)."""
    if ref is None:
        return {p: (sc.wiki / p).read_bytes() for p in sc.pages}
    import subprocess

    out = {}
    for p in sc.pages:
        proc = subprocess.run(["git", "-C", str(sc.wiki), "show", f"{ref}:{p}"], capture_output=True, check=True)
        out[p] = proc.stdout
    return out


def branch_exists(sc: Scenario, branch: str) -> bool:
    """Whether the wiki repository has ``branch``."""
    return bool(git(sc.wiki, "branch", "--list", branch))
