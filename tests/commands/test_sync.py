"""One run wired end to end on a directory source and a tmp wiki (bot/commands/sync.py, bot/publish/files.py)."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest

from bot.commands.sync import run_sync
from bot.config import Config
from bot.errors import ConfigError, PublishError, WikiError
from bot.plan.planner import plan_sync
from bot.publish.directory import read_wiki_pages
from bot.publish.files import publish_files, write_atomic

try:
    from tests.syncutil import PAGE, PAGE_KEPS, PAGE_SYNCED, snapshot, tree, write_keps
except ImportError:  # pragma: no cover
    from syncutil import PAGE, PAGE_KEPS, PAGE_SYNCED, snapshot, tree, write_keps

VARIANTS = {
    "lf": lambda t: t,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "no-final-newline": lambda t: t.rstrip("\n"),
    "crlf-no-final-newline": lambda t: t.rstrip("\n").replace("\n", "\r\n"),
    "bom": lambda t: "\ufeff" + t,
}


def plan(page: bytes, **config):
    return plan_sync(Config.model_validate(config), snapshot(*PAGE_KEPS), {"m.md": page}, today="2026-07-07")


@pytest.mark.parametrize("variant", VARIANTS)
def test_only_stale_rows_change_byte_for_byte(variant):
    form = VARIANTS[variant]
    result = plan(form(PAGE).encode()).pages[0]
    assert result.new == form(PAGE_SYNCED).encode()
    assert PAGE_SYNCED != PAGE


@pytest.mark.parametrize("variant", VARIANTS)
def test_second_run_changes_nothing(variant):
    page = VARIANTS[variant](PAGE_SYNCED).encode()
    second = plan(page)
    assert second.pages[0].new == page and not second.pages[0].changed
    assert [c for c in second.changes if c.applied] == []
    assert second.changelog.title == "KEP matrix: no changes"
    assert second.changed_pages() == {}


def test_plan_lists_changes_findings_and_report():
    p = plan(PAGE.encode())
    assert [(c.kep_id, c.field, c.kind, c.applied) for c in p.changes] == [
        ("4671", "stage", "promoted", True),
        ("4671", "beta", "retargeted", True),
        ("5710", "feature_gates", "gates", False),
    ]
    assert p.changed_pages() == {"m.md": PAGE_SYNCED.encode()}
    assert p.report["revision"] == snapshot().revision
    assert [c["kind"] for c in p.report["changes"]] == ["promoted", "retargeted", "gates"]


def test_feature_gates_owned_rewrites_the_gate_cell():
    p = plan(PAGE.encode(), feature_gates="owned")
    assert "| `GenericWorkload`, `WorkloadPreemption` | 抢占 |" in p.pages[0].new.decode()
    assert [(c.kep_id, c.field, c.old, c.new, c.applied) for c in p.changes] == [
        ("4671", "stage", "alpha", "beta", True),
        ("4671", "beta", "", "v1.37", True),
        ("5710", "feature_gates", "GenericWorkload", "GenericWorkload, WorkloadPreemption", True),
    ]


def test_front_matter_is_untouched_by_default_and_the_date_is_opt_in():
    assert b"date: 2026-03-01" in plan(PAGE.encode()).pages[0].new
    dated = plan(PAGE.replace("\n", "\r\n").encode(), front_matter={"date_key": "date"}).pages[0].new
    assert dated == PAGE_SYNCED.replace("date: 2026-03-01", "date: 2026-07-07").replace("\n", "\r\n").encode()
    # No applied change, no new date.
    assert plan(PAGE_SYNCED.encode(), front_matter={"date_key": "date"}).pages[0].new == PAGE_SYNCED.encode()


def test_page_that_is_not_utf8_is_an_error_naming_it():
    with pytest.raises(WikiError, match=r"^m\.md: not UTF-8 \(invalid start byte at byte 3\); page not touched$"):
        plan(b"abc\xff")


def test_read_wiki_pages_names_the_missing_page_and_reads_a_repeated_page_once(tmp_path):
    with pytest.raises(ConfigError, match=r"^wiki.pages \(--page\) 'gone\.md': no such file under the wiki "):
        read_wiki_pages(tmp_path, ["gone.md"])
    (tmp_path / "d.md").mkdir()
    with pytest.raises(ConfigError, match=r"'d\.md': not a file under"):
        read_wiki_pages(tmp_path, ["d.md"])
    (tmp_path / "m.md").write_bytes(b"x")
    assert read_wiki_pages(tmp_path, ["m.md", "./m.md"]) == {"m.md": b"x"}


def _config(tmp_path, publish: str, **extra) -> Config:
    write_keps(tmp_path / "enh", *PAGE_KEPS)
    (tmp_path / "wiki" / "sub").mkdir(parents=True)
    (tmp_path / "wiki" / "sub" / "m.md").write_bytes(PAGE.encode())
    return Config.model_validate(
        {
            "enhancements": str(tmp_path / "enh"),
            "cache_dir": str(tmp_path / "cache"),
            "wiki": {"dir": str(tmp_path / "wiki"), "pages": ["sub/m.md"]},
            "publish": publish,
            **extra,
        }
    )


def test_run_sync_files_rewrites_the_page_atomically(tmp_path):
    config = _config(tmp_path, "files")
    page = tmp_path / "wiki" / "sub" / "m.md"
    page.chmod(0o640)
    outcome = run_sync(config, report_path=tmp_path / "r.json")
    assert outcome.written == ["sub/m.md"]
    assert tree(tmp_path / "wiki") == {"sub/m.md": PAGE_SYNCED.encode()}  # no temp files left behind
    assert stat.S_IMODE(page.stat().st_mode) == 0o640
    data = json.loads((tmp_path / "r.json").read_text())
    assert set(data) == {
        "revision",
        "changes",
        "problems",
        "candidates",
        "publish",
        "result",
        "pull_request",
        "pull_request_file",
        "pages_written",
        "rows_with_problems",
    }
    assert (data["result"], data["pages_written"]) == ("ok", ["sub/m.md"])
    assert data["revision"] == ""  # a plain directory has no commit
    assert [(c["kep"], c["field"]) for c in data["changes"]] == [
        ("4671", "stage"),
        ("4671", "beta"),
        ("5710", "feature_gates"),
    ]
    again = run_sync(config)
    assert again.written == [] and tree(tmp_path / "wiki") == {"sub/m.md": PAGE_SYNCED.encode()}


def test_run_sync_none_writes_nothing(tmp_path):
    config = _config(tmp_path, "none")
    before = tree(tmp_path)
    outcome = run_sync(config)
    assert outcome.written == []
    assert outcome.plan.changed_pages() == {"sub/m.md": PAGE_SYNCED.encode()}
    assert tree(tmp_path) == before


def test_write_atomic_refuses_what_is_not_a_regular_file(tmp_path):
    target = tmp_path / "m.md"
    target.mkdir()
    (target / "keep").write_bytes(b"old")
    with pytest.raises(PublishError, match=r"m\.md: not a regular file; refusing to replace it$"):
        write_atomic(target, b"new")
    with pytest.raises(PublishError, match=r"^/dev/null: not a regular file"):
        write_atomic(Path("/dev/null"), b"new")
    assert tree(tmp_path) == {"m.md/keep": b"old"}


UNPRIVILEGED = 65534  # nobody


def _unprivileged(fn) -> str:
    """``fn()``'s return value (a str), run as an ordinary user: a forked child as uid nobody when
    we are root (the interpreter is already loaded, so nobody needs no access to it), else in-process."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        status = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(UNPRIVILEGED)
            os.setuid(UNPRIVILEGED)
            os.write(write, fn().encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        out = fh.read().decode()
    assert os.waitpid(pid, 0)[1] == 0
    return out


@pytest.fixture
def shared_tmp():
    """A temporary directory every user may enter (pytest's tmp_path is private to its owner)."""
    with tempfile.TemporaryDirectory() as name:
        os.chmod(name, 0o777)
        yield Path(name)


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: an ordinary user cannot write a 0444 file")
def test_root_replaces_a_read_only_page_as_sed_i_does_and_keeps_its_mode(tmp_path):
    (tmp_path / "ro.md").write_bytes(b"old")
    (tmp_path / "ro.md").chmod(0o444)
    assert publish_files(tmp_path, {"ro.md": b"new"}) == ["ro.md"]
    assert (tmp_path / "ro.md").read_bytes() == b"new"
    assert stat.S_IMODE((tmp_path / "ro.md").stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.md"]  # no temp left


def test_an_ordinary_user_is_refused_a_page_the_os_would_refuse(shared_tmp):
    (shared_tmp / "ro.md").write_bytes(b"old")
    (shared_tmp / "a.md").write_bytes(b"a")
    (shared_tmp / "locked").mkdir()
    (shared_tmp / "locked" / "p.md").write_bytes(b"p")
    for path, mode in (("ro.md", 0o444), ("a.md", 0o666), ("locked/p.md", 0o666), ("locked", 0o555)):
        (shared_tmp / path).chmod(mode)  # the page in locked/ is writable; its directory is not

    def attempt() -> str:
        said = []
        for pages in ({"a.md": b"A", "ro.md": b"B"}, {"a.md": b"A", "locked/p.md": b"P"}):
            try:
                publish_files(shared_tmp, pages)
            except PublishError as exc:
                said.append(str(exc))
        return "\n".join(said)

    try:
        assert _unprivileged(attempt).splitlines() == [
            f"{shared_tmp}/ro.md: read-only; refusing to replace it",
            f"{shared_tmp}/locked/p.md: directory {shared_tmp}/locked is read-only; refusing to replace it",
        ]
    finally:
        (shared_tmp / "locked").chmod(0o755)
    assert tree(shared_tmp) == {"a.md": b"a", "ro.md": b"old", "locked/p.md": b"p"}  # all or none


def test_publish_files_is_all_or_nothing_and_writes_through_symlinks(tmp_path):
    (tmp_path / "a.md").write_bytes(b"a")
    (tmp_path / "real.md").write_bytes(b"r")
    (tmp_path / "link.md").symlink_to("real.md")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "p.md").mkdir()  # not a regular file: refused before anything is written
    with pytest.raises(PublishError, match=r"b/p\.md: not a regular file"):
        publish_files(tmp_path, {"a.md": b"A", "b/p.md": b"B"})
    assert (tmp_path / "a.md").read_bytes() == b"a"  # nothing written when one page cannot be
    assert publish_files(tmp_path, {"a.md": b"A", "link.md": b"R"}) == ["a.md", "link.md"]
    assert (tmp_path / "link.md").is_symlink() and (tmp_path / "real.md").read_bytes() == b"R"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b", "link.md", "real.md"]  # no temp left


def test_publish_files_writes_in_path_order(tmp_path):
    for name in ("b.md", "a.md"):
        (tmp_path / name).write_bytes(b"x")
    assert publish_files(tmp_path, {"b.md": b"B", "a.md": b"A"}) == ["a.md", "b.md"]
    assert tree(tmp_path) == {"a.md": b"A", "b.md": b"B"}
