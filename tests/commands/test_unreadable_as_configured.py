"""A source or wiki that cannot be used as configured is an error, never a quiet downgrade: a git checkout
owned by another user (git's ``safe.directory`` refusal, reproduced with real git: the repository is given to
another uid when the tests run as root, else git's own GIT_TEST_ASSUME_DIFFERENT_OWNER), a wiki directory
the running user may not write, and ``serve`` with a config ``validate`` rejects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.cliutil import shown
from tests.gitutil import make_repo
from tests.servehelp import GUARD_SECONDS, REPO_ROOT
from tests.syncutil import PAGE, PAGE_KEPS, write_keps

pytestmark = pytest.mark.usefixtures("_reset_structlog")
OTHER_UID = 12345
ROOT = os.geteuid() == 0


@pytest.fixture
def clean_git(tmp_path, monkeypatch):
    """git with no global or system config (a developer's safe.directory = * must not hide the refusal)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def give_away(path: Path, monkeypatch) -> str:
    """Make ``path`` another user's repository for git; returns the owner git is told of (``uid N``)."""
    if ROOT:
        for dirpath, dirnames, filenames in os.walk(path):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.lchown(name, OTHER_UID, OTHER_UID)
        return f"uid {OTHER_UID}"
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    return f"uid {os.getuid()}"


def refusal(path: Path, owner: str) -> str:
    return (
        f"git refuses to read this repository: it is owned by {owner}, not by uid {os.geteuid()} that kep-sync "
        f'runs as (git: "detected dubious ownership"); run kep-sync as the owner, or trust the directory in the '
        f"global git config of the user kep-sync runs as: git config --global --add safe.directory {path} (in a "
        f"container, a file named by GIT_CONFIG_GLOBAL holding [safe] directory = {path})"
    )


def validate_as_another_user(tmp: Path) -> int:
    """``kep-sync validate --config c.yaml`` in ``tmp``, as uid :data:`OTHER_UID` when the tests run as root (root
    may write anywhere; the effective uid only, the real one kept to switch back), else as this user."""
    if not ROOT:
        return main(["validate", "--config", "c.yaml"])
    os.chmod(tmp, 0o755)
    os.seteuid(OTHER_UID)
    try:
        return main(["validate", "--config", "c.yaml"])
    finally:
        os.seteuid(0)


def checkout(tmp: Path) -> str:
    """``enh/``: a git checkout of the KEPs of tests/syncutil.PAGE_KEPS, and ``wiki/m.md``; returns its HEAD."""
    write_keps(tmp / "enh", *PAGE_KEPS)
    head = make_repo(tmp / "enh", {})
    (tmp / "wiki").mkdir()
    (tmp / "wiki" / "m.md").write_text(PAGE, encoding="utf-8")
    (tmp / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [m.md]}\npublish: none\n")
    return head


def test_an_enhancements_checkout_git_refuses_is_an_error_not_a_plain_directory(clean_git, monkeypatch, capsys):
    head = checkout(clean_git)
    assert main(["sync", "--config", "c.yaml"]) == 0
    assert f"from `enh` at `{head[:12]}`" in capsys.readouterr().out  # read as a checkout: revision, links
    owner = give_away(clean_git / "enh", monkeypatch)
    assert main(["sync", "--config", "c.yaml"]) == 2  # a setting to fix, as validate and serve say (exit 2)
    assert capsys.readouterr().err.splitlines()[-1] == f"kep-sync: error: enh: {refusal(clean_git / 'enh', owner)}"
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: c.yaml: enhancements: enh: {refusal(clean_git / 'enh', owner)}\n"
    )
    if ROOT:  # trusted in the global config, as the message says: read as a checkout again
        (clean_git / "gitconfig").write_text(f"[safe]\n\tdirectory = {clean_git / 'enh'}\n")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(clean_git / "gitconfig"))
        assert main(["sync", "--config", "c.yaml"]) == 0
        assert f"from `enh` at `{head[:12]}`" in capsys.readouterr().out


def test_a_wiki_clone_git_refuses_is_named_as_wiki_dir(clean_git, monkeypatch, capsys):
    checkout(clean_git)
    make_repo(clean_git / "wiki", {})
    owner = give_away(clean_git / "wiki", monkeypatch)  # without root, git takes every repository for another's
    (clean_git / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [m.md]}\npublish: git\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    enh = [] if ROOT else [f"kep-sync: error: c.yaml: enhancements: enh: {refusal(clean_git / 'enh', owner)}"]
    assert capsys.readouterr().err.splitlines() == [
        *enh,
        f"kep-sync: error: c.yaml: wiki.dir 'wiki': {refusal(clean_git / 'wiki', owner)}",
    ]
    if ROOT:
        assert main(["sync", "--config", "c.yaml"]) == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"kep-sync: error: wiki.dir (--wiki) wiki: {refusal(clean_git / 'wiki', owner)}"
        )


def test_validate_names_a_wiki_directory_the_running_user_may_not_write(clean_git, capsys):
    checkout(clean_git)
    (clean_git / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [m.md]}\npublish: files\n")
    assert main(["validate", "--config", "c.yaml"]) == 0  # also loads every module the check needs
    assert capsys.readouterr().out == "ok\n"
    os.chmod(clean_git / "wiki", 0o555)
    try:
        code = validate_as_another_user(clean_git)
    finally:
        os.chmod(clean_git / "wiki", 0o755)
    uid = OTHER_UID if ROOT else os.getuid()
    tail = f"not writable by uid {uid}, the user kep-sync runs as (publish files writes there); give that user write "
    page = [f"kep-sync: error: c.yaml: wiki.dir 'wiki' (the page 'm.md'): {tail}access, or run as the owner"]
    assert (code, capsys.readouterr().err.splitlines()) == (
        2,
        [f"kep-sync: error: c.yaml: wiki.dir 'wiki': {tail}access, or run as the owner", *(page if ROOT else [])],
    )


def test_serve_refuses_to_start_with_a_config_validate_rejects(clean_git):
    checkout(clean_git)
    (clean_git / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [gone.md]}\npublish: files\n")
    env = {**os.environ, "KEP_SYNC_STATE_DIR": str(clean_git / "st")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve", "--config", str(clean_git / "c.yaml")],
        cwd=clean_git,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines() == [
        f"kep-sync: error: {clean_git / 'c.yaml'}: wiki.pages[0] 'gone.md': no such file (under the wiki "
        f"directory {shown(clean_git / 'wiki')}; written 'wiki' in {clean_git / 'c.yaml'}, read from that file's "
        f"directory {clean_git})",
        "kep-sync: error: the service did not start (kep-sync validate names the same)",
    ]
    assert not (clean_git / "st").exists()  # no state, no lock: it never started


def test_validate_names_a_page_or_the_folder_a_linked_page_is_in_that_the_user_may_not_write(clean_git, capsys):
    checkout(clean_git)
    (clean_git / "ro").mkdir()
    (clean_git / "ro" / "real.md").write_bytes((clean_git / "wiki" / "m.md").read_bytes())
    (clean_git / "wiki" / "l.md").symlink_to(Path("..") / "ro" / "real.md")
    (clean_git / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [m.md, l.md]}\npublish: files\n")
    assert main(["validate", "--config", "c.yaml"]) == 0
    assert capsys.readouterr().out == "ok\n"
    os.chmod(clean_git / "wiki" / "m.md", 0o444)
    os.chmod(clean_git / "ro" / "real.md", 0o666)
    os.chmod(clean_git / "ro", 0o555)
    os.chmod(clean_git / "wiki", 0o777)
    try:
        code = validate_as_another_user(clean_git)  # who owns none of these files
    finally:
        os.chmod(clean_git / "ro", 0o755)
        os.chmod(clean_git / "wiki", 0o755)
    uid = OTHER_UID if ROOT else os.getuid()
    tail = f"not writable by uid {uid}, the user kep-sync runs as (publish files writes there); give that user write "
    assert (code, capsys.readouterr().err.splitlines()) == (
        2,
        [
            f"kep-sync: error: c.yaml: wiki.dir 'wiki' (the folder of 'l.md'): {tail}access, or run as the owner",
            f"kep-sync: error: c.yaml: wiki.dir 'wiki' (the page 'm.md'): {tail}access, or run as the owner",
        ],
    )
