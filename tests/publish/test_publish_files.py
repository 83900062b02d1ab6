"""``--publish files``: a page saved during the run is never overwritten; owner, group and mode are kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import Config
from bot.errors import PublishError
from bot.plan.planner import plan_sync
from bot.publish.directory import DirectoryWiki
from bot.publish.files import PageChanged, write_files
from tests.publishutil import (
    PAGE,
    PAGE_PATH,
    fresh_logging,  # noqa: F401  (autouse fixture)
    keps,
    page,
)

PROMOTED = page([(4671, "beta", "v1.37"), (5710, "alpha", "-")])
HUMAN = "| 9999-new-idea | x | provisional / - | - / - / - | saved by a human meanwhile |\n"


@pytest.fixture
def wiki(tmp_path) -> Path:
    (tmp_path / "wiki" / "docs").mkdir(parents=True)
    (tmp_path / "wiki" / PAGE_PATH).write_text(PAGE)
    return tmp_path / "wiki"


def config() -> Config:
    return Config.model_validate({"publish": "files", "wiki": {"pages": [PAGE_PATH]}})


def plan_for(cfg: Config, pages: dict[str, bytes]):
    return plan_sync(cfg, keps(), pages)


def test_a_page_saved_while_planning_is_planned_again_and_keeps_the_edit(wiki):
    cfg = config()
    backend = DirectoryWiki(wiki, [PAGE_PATH])
    first = plan_for(cfg, backend.read().pages)
    edited = PAGE.replace("\nEnd.\n", HUMAN + "\nEnd.\n")
    (wiki / PAGE_PATH).write_text(edited)
    seen = []

    def replan(base):
        seen.append(base.pages[PAGE_PATH])
        return plan_for(cfg, base.pages)

    publication = backend.publish(first, replan)
    assert seen == [edited.encode()]
    assert publication.written == [PAGE_PATH]
    assert (wiki / PAGE_PATH).read_text() == PROMOTED.replace("\nEnd.\n", HUMAN + "\nEnd.\n")


def test_an_unchanged_page_lands_the_plan_as_given(wiki):
    cfg = config()
    backend = DirectoryWiki(wiki, [PAGE_PATH])
    plan = plan_for(cfg, backend.read().pages)
    publication = backend.publish(plan, lambda _: pytest.fail("replanned an unchanged page"))
    assert publication.plan is plan and (wiki / PAGE_PATH).read_text() == PROMOTED


def test_a_page_that_keeps_changing_stops_the_run_without_writing(wiki):
    cfg = config()
    backend = DirectoryWiki(wiki, [PAGE_PATH])
    plan = plan_for(cfg, backend.read().pages)
    edits = iter(range(10))

    def replan(base):
        (wiki / PAGE_PATH).write_text(PAGE + f"edit {next(edits)}\n")
        return plan_for(cfg, base.pages)

    (wiki / PAGE_PATH).write_text(PAGE + "first edit\n")
    with pytest.raises(PublishError) as caught:
        backend.publish(plan, replan)
    assert str(caught.value) == f"{wiki}: the pages kept changing while kep-sync planned; try again"
    assert (wiki / PAGE_PATH).read_text() == PAGE + "edit 2\n"


def test_a_page_listed_twice_through_a_hard_link_is_planned_and_written_once_and_stays_one_file(wiki):
    os.link(wiki / PAGE_PATH, wiki / "hard.md")
    names = [PAGE_PATH, "hard.md"]
    cfg = Config.model_validate({"publish": "files", "wiki": {"pages": names}})
    backend = DirectoryWiki(wiki, names, once=names)
    plan = plan_for(cfg, backend.read().pages)
    assert sorted(backend.base.pages) == [PAGE_PATH]
    publication = backend.publish(plan, lambda _: pytest.fail("replanned an unchanged page"))
    assert publication.written == [PAGE_PATH]
    assert (wiki / "hard.md").read_text() == (wiki / PAGE_PATH).read_text() == PROMOTED
    assert (wiki / PAGE_PATH).stat().st_nlink == 2
    assert plan_for(cfg, DirectoryWiki(wiki, names, once=names).read().pages).changed_pages() == {}


def test_write_files_rewrites_a_hard_linked_file_in_place_keeping_mode(tmp_path):
    (tmp_path / "a.md").write_bytes(b"old old old\n")
    os.chmod(tmp_path / "a.md", 0o640)
    os.link(tmp_path / "a.md", tmp_path / "b.md")
    write_files({tmp_path / "a.md": b"new\n"}, expected={tmp_path / "a.md": b"old old old\n"})
    assert [(tmp_path / n).read_bytes() for n in ("a.md", "b.md")] == [b"new\n", b"new\n"]
    assert ((tmp_path / "b.md").stat().st_nlink, (tmp_path / "a.md").stat().st_mode & 0o777) == (2, 0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.md"]


def test_write_files_compares_the_bytes_just_before_replacing(tmp_path):
    one, two = tmp_path / "one.md", tmp_path / "two.md"
    one.write_bytes(b"one\n")
    two.write_bytes(b"two, saved meanwhile\n")
    with pytest.raises(PageChanged) as caught:
        write_files({one: b"ONE\n", two: b"TWO\n"}, expected={one: b"one\n", two: b"two\n"})
    assert str(caught.value) == (
        f"{two}: changed on disk while kep-sync was planning; nothing was written (run again to plan from the new page)"
    )
    assert caught.value.path == two
    assert (one.read_bytes(), two.read_bytes()) == (b"one\n", b"two, saved meanwhile\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.md", "two.md"]  # no temporary file left


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_root_keeps_the_owner_group_and_mode_of_a_replaced_page(tmp_path):
    path = tmp_path / "page.md"
    path.write_bytes(b"old\n")
    os.chown(path, 65534, 65533)
    os.chmod(path, 0o664)
    write_files({path: b"new\n"}, expected={path: b"old\n"})
    st = path.stat()
    assert (path.read_bytes(), st.st_uid, st.st_gid, st.st_mode & 0o7777) == (b"new\n", 65534, 65533, 0o664)


def test_an_ordinary_user_keeps_the_mode_and_its_own_owner(tmp_path):
    path = tmp_path / "page.md"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    write_files({path: b"new\n"})
    st = path.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (os.geteuid(), os.getegid(), 0o640)
