"""The wiki directory's configuration errors (bot/publish/directory.py): a missing directory, a page typo."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from bot.errors import ConfigError
from bot.publish.directory import close_page, read_wiki_pages


def test_a_missing_wiki_directory_is_named_with_the_directory_it_is_relative_to(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        read_wiki_pages(tmp_path / "mywikii", ["node.md"])
    assert str(err.value) == f"wiki.dir (--wiki) '{tmp_path / 'mywikii'}': no such directory"
    with pytest.raises(ConfigError) as err:
        read_wiki_pages(Path("../mywikii"), ["node.md"])
    assert str(err.value) == f"wiki.dir (--wiki) '../mywikii': no such directory (relative to {tmp_path})"
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError) as err:
        read_wiki_pages(Path("f"), ["node.md"])
    assert str(err.value) == f"wiki.dir (--wiki) 'f': not a directory (relative to {tmp_path})"


def test_a_mistyped_page_suggests_the_closest_page(tmp_path):
    for name in ("scheduling.md", "node.md", "sub/Storage.md", ".git/schedulin.md", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert close_page(tmp_path, "schedulng.md") == "scheduling.md"
    assert close_page(tmp_path, "sub/storage.md") == "sub/Storage.md"
    assert close_page(tmp_path, "unrelated-name.md") == ""
    with pytest.raises(ConfigError) as err:
        read_wiki_pages(tmp_path, ["scheduling.md", "schedulng.md"])
    assert str(err.value) == (
        f"wiki.pages (--page) 'schedulng.md': no such file under the wiki directory "
        f"'{tmp_path}'; did you mean 'scheduling.md'?"
    )


@pytest.mark.usefixtures("_reset_structlog")
def test_sync_with_a_missing_wiki_directory_exits_2_naming_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "enh" / "keps").mkdir(parents=True)
    assert main(["sync", "--enhancements", "enh", "--wiki", "../mywikii", "--page", "node.md"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kep-sync: error: wiki.dir (--wiki) '../mywikii': no such directory (relative to {tmp_path})"
    )
