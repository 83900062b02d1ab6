"""Commands meet a FIFO, a device or an oversized file where a page is expected: each is named and refused (or
skipped) at once, never waited on or read whole (bot/fileread.py)."""

from __future__ import annotations

import os

import pytest

from bot.cli.main import main
from bot.config import load_config
from tests.cliutil import SYNC

pytestmark = pytest.mark.usefixtures("_reset_structlog")
PAGE = "| KEP | Status | Stage |\n|---|---|---|\n| 4671-gang-scheduling | implementable | alpha |\n"


def test_init_skips_a_fifo_and_a_link_to_a_device_named_like_pages(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "matrix.md").write_text(PAGE)
    os.mkfifo(tmp_path / "wiki" / "notes.md")  # no writer: reading it would wait forever
    (tmp_path / "wiki" / "zero.md").symlink_to("/dev/zero")  # reading it would fill memory
    assert main(["init", "--wiki", "wiki", "--output", "kep-sync.yaml"]) == 0
    out = capsys.readouterr().out
    assert load_config(tmp_path / "kep-sync.yaml").wiki.pages == ["matrix.md"]
    assert (
        "Pages without a KEP table, left out: notes.md (cannot be read: not a regular file (FIFO)), "
        "zero.md (cannot be read: not a regular file (character device))"
    ) in out.splitlines()


def test_sync_and_validate_name_a_fifo_page_at_once(work, capsys):
    os.mkfifo(work / "wiki" / "f.md")
    assert main([*SYNC[:-1], "f.md", "--publish", "files"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kep-sync: error: wiki.pages (--page) 'f.md': not a file under the wiki directory 'wiki'"
    )
    (work / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [f.md]}\npublish: none\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert capsys.readouterr().err == (
        "kep-sync: error: c.yaml: wiki.pages[0] 'f.md': not a file (under the wiki directory 'wiki')\n"
    )


def test_a_page_over_the_cap_is_refused_before_it_is_parsed(work, capsys, monkeypatch):
    monkeypatch.setattr("bot.publish.directory.PAGE_BYTES", 100)
    monkeypatch.setattr("bot.commands.validate.PAGE_BYTES", 100)
    size = (work / "wiki" / "m.md").stat().st_size
    assert size > 100
    assert main([*SYNC, "--publish", "none"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kep-sync: error: wiki.pages (--page) 'm.md': larger than 100 bytes, refused under the wiki directory 'wiki'"
    )
    (work / "c.yaml").write_text("enhancements: enh\nwiki: {dir: wiki, pages: [m.md]}\npublish: none\n")
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert capsys.readouterr().err == (
        "kep-sync: error: c.yaml: wiki.pages[0] 'm.md': larger than 100 bytes, refused "
        "(under the wiki directory 'wiki')\n"
    )


def test_init_skips_a_dangling_link_and_an_unreadable_page_its_walk_found(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    wiki = tmp_path / "wiki"
    (wiki / "sub").mkdir(parents=True)
    (wiki / "matrix.md").write_text(PAGE)
    (wiki / "old.md").symlink_to("moved/away.md")  # the target is gone
    (wiki / "sub" / "loop.md").symlink_to("loop.md")  # a link to itself
    (wiki / "locked.md").write_text(PAGE)
    (wiki / "locked.md").chmod(0)
    root = os.geteuid() == 0  # root reads a mode-0 file all the same
    assert main(["init", "--wiki", "wiki", "--output", "kep-sync.yaml"]) == 0
    out = capsys.readouterr().out
    pages = load_config(tmp_path / "kep-sync.yaml").wiki.pages
    assert pages == (["locked.md", "matrix.md"] if root else ["matrix.md"])
    locked = [] if root else ["locked.md (cannot be read: Permission denied)"]
    assert (
        "Pages without a KEP table, left out: "
        + ", ".join(
            [*locked, "old.md (cannot be read: a symbolic link to a missing file)"]
            + ["sub/loop.md (cannot be read: Too many levels of symbolic links)"]
        )
    ) in out.splitlines()


def test_init_refuses_a_named_page_that_is_a_dangling_link(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "matrix.md").write_text(PAGE)
    (tmp_path / "wiki" / "old.md").symlink_to("gone.md")
    assert main(["init", "--wiki", "wiki", "--page", "old.md", "--output", "kep-sync.yaml"]) == 2
    assert capsys.readouterr().err.startswith("kep-sync: error: --page 'old.md': no such file (relative to ")
    assert not (tmp_path / "kep-sync.yaml").exists()
