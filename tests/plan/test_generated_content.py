"""What kep-sync generates and writes besides row values: renamed KEP cells, the digest section, front
matter dates, cell escaping, the proposal's fingerprint and title, and which files each setting names."""

from __future__ import annotations

import json
import os

import pytest
from markdown_it import MarkdownIt

from bot.commands.sync import run_sync
from bot.commands.validate import same_files
from bot.config import Config, load_config
from bot.errors import ConfigError
from bot.model.history.log import Commit
from bot.model.history.renames import Rename, renamed_cell, unplain_dir
from bot.plan import digest as digest_mod
from bot.plan.changelog.body import ChangelogInputs, render
from bot.plan.changelog.markdown import kep_yaml_url, table_cell
from bot.plan.diff import diff_page
from bot.plan.planner import plan_sync
from bot.publish.pull_request import fingerprint
from bot.wiki import frontmatter
from bot.wiki.matrix import parse_page

try:
    from tests.cliutil import shown
    from tests.syncutil import REVISION, kep, snapshot, write_keps
except ImportError:  # pragma: no cover
    from cliutil import shown
    from syncutil import REVISION, kep, snapshot, write_keps

OLD = "keps/sig-node/5573-cgroup-v1-unsupported/kep.yaml"
ALIGNED = (
    "| KEP                        | Status                | Notes |\n"
    "|----------------------------|-----------------------|-------|\n"
    "| 5573-cgroup-v1-unsupported | implementable / beta  | notes |\n"
)


def rename_diff(page: str, new_dir: str):
    new_path = f"keps/sig-node/{new_dir}/kep.yaml"
    snap = snapshot((new_path, kep(5573, "x", sig="sig-node", stage="beta")[1]))
    rename = Rename(new_path, Commit("c" * 40, "", "2026-01-01", "rename (#7)", 7, ()), OLD)
    return diff_page(
        parse_page("p.md", page), snap, renames={(5573, "cgroup-v1-unsupported"): rename}, apply_renames=True
    )


def test_renames_owned_cells_writes_the_status_cell_and_keeps_the_kep_cell_and_a_short_row():
    """``renames: owned-cells`` (``sync_renamed``): the row's status and stage are written, its KEP cell keeps every
    byte, the ``renamed`` change is report-only with ``synced``; a row too short to write stays as it was and its
    ``renamed`` change says nothing was synced."""
    new_path = "keps/sig-node/5573-remove-cgroup-v1/kep.yaml"
    snap = snapshot((new_path, kep(5573, "x", sig="sig-node", stage="beta")[1]))
    rename = Rename(new_path, Commit("c" * 40, "", "2026-01-01", "rename (#7)", 7, ()), OLD)
    stale = ALIGNED.replace("| implementable / beta  |", "| provisional / alpha   |")
    diff = diff_page(
        parse_page("p.md", stale), snap, renames={(5573, "cgroup-v1-unsupported"): rename}, sync_renamed=True
    )
    assert diff.lines == ALIGNED.split("\n")
    assert [(c.field, c.old, c.new, c.kind, c.applied, c.synced, c.written) for c in diff.changes] == [
        ("kep", "5573-cgroup-v1-unsupported", "5573-remove-cgroup-v1", "renamed", False, True, None),
        ("status", "provisional", "implementable", "status", True, False, "implementable"),
        ("stage", "alpha", "beta", "promoted", True, False, "beta"),
    ]
    short = "| KEP | Notes | Status |\n|---|---|---|\n| 5573-cgroup-v1-unsupported | notes |\n"
    diff = diff_page(
        parse_page("p.md", short), snap, renames={(5573, "cgroup-v1-unsupported"): rename}, sync_renamed=True
    )
    assert diff.lines == short.split("\n")
    assert [(c.kind, c.applied, c.synced) for c in diff.changes] == [("renamed", False, False)]
    assert [p.message for p in diff.problems] == [
        "KEP cell '5573-cgroup-v1-unsupported': row has 2 cells, fewer than the header; its status cell is "
        "past the row's end, where kep-sync does not write; left as is: add the missing `| |` cells to let kep-sync "
        "write it"
    ]


def test_a_renamed_kep_cell_keeps_the_column_padded():
    diff = rename_diff(ALIGNED, "5573-remove-cgroup-v1")
    assert diff.lines[2] == "| 5573-remove-cgroup-v1      | implementable / beta  | notes |"
    assert [(c.kind, c.applied) for c in diff.changes] == [("renamed", True)]


@pytest.mark.parametrize("name", ["5573-remove|cgroup v1", "5573-a`b", "5573-a\rb", "5573-a b"])
def test_a_directory_name_that_would_break_the_table_is_refused(name):
    diff = rename_diff(ALIGNED, name)
    assert diff.lines[2] == ALIGNED.split("\n")[2]
    assert [(c.kind, c.applied, c.new, c.flags) for c in diff.changes] == [
        (
            "renamed",
            False,
            name,
            (
                f"not applied: the new directory name {name!r} is not a plain name (letters, "
                "digits, '-', '_', '.'); KEP cell kept",
            ),
        )
    ]
    assert unplain_dir(f"keps/sig-node/{name}/kep.yaml") == name
    assert unplain_dir("keps/sig-node/5573-remove-cgroup-v1/kep.yaml") == ""


def test_only_whole_names_and_path_segments_are_renamed():
    new = "keps/sig-scheduling/100-new/kep.yaml"
    assert (
        renamed_cell("1100-old, 100-old-2, 100-old.md, KEP-100-old, 100-old", 100, "old", "", new)
        == "1100-old, 100-old-2, 100-old.md, KEP-100-new, 100-new"
    )
    assert (
        renamed_cell(
            "[x](https://h/mykeps/sig-node/100-oldx) [y](https://h/keps/sig-node/100-old)",
            100,
            "old",
            "keps/sig-node/100-old",
            new,
        )
        == "[x](https://h/mykeps/sig-node/100-oldx) [y](https://h/keps/sig-scheduling/100-new)"
    )
    # a URL fragment is an anchor in the target page, not a path segment: kept
    assert (
        renamed_cell(
            "[100-old](https://h/keps/sig-node/100-old/README.md#100-old) [a](x/#100-old) #100-old",
            100,
            "old",
            "keps/sig-node/100-old",
            new,
        )
        == "[100-new](https://h/keps/sig-scheduling/100-new/README.md#100-old) [a](x/#100-old) #100-new"
    )


def test_one_cell_escaping_makes_upstream_text_inert():
    assert table_cell("a|b\nc\rd\te\x00f\x85g\u2028h") == "a\\|b c d e f g h"
    assert table_cell("<b>x</b> & `<i>|`") == "&lt;b&gt;x&lt;/b&gt; &amp; `<i>\\|`"
    assert table_cell("") == "-"
    assert (
        kep_yaml_url("https://w", "abc", "keps/s/1-a|b c)/kep.yaml")
        == "https://w/blob/abc/keps/s/1-a%7Cb%20c%29/kep.yaml"
    )


def test_links_and_images_in_upstream_text_are_shown_as_text_not_followed():
    assert (
        table_cell("![i](http://evil/x.png) [x](javascript:a()) [ref] `[c](d)` \\[e\\]")
        == "!\\[i\\](`http://evil/x.png`) \\[x\\](javascript:a()) \\[ref\\] `[c](d)` \\\\\\[e\\\\\\]"
    )
    files = [kep(4000, "stable-one", sig="sig-node", stage="stable", stable="v1.35")]
    path, data = files[0]
    data = data.replace(b"title: KEP 4000 stable-one", b'title: "![i](http://evil/x.png) [x](javascript:a())"')
    block = digest_mod.render_markdown(
        digest_mod.digest(snapshot((path, data)), "sig-node", "v1.35", "v1.35"), "sig-node", "v1.35", "v1.35", REVISION
    )
    row = "| [4000](https://kep.k8s.io/4000) | !\\[i\\](`http://evil/x.png`) \\[x\\](javascript:a()) | v1.35 | - |"
    assert row in block.split("\n")
    html = MarkdownIt("commonmark").enable("table").render(block)
    assert "<img" not in html and "javascript:" not in html.replace("(javascript:a())", "")


def test_a_title_with_carriage_returns_stays_in_its_digest_row():
    files = [kep(4000, "stable-one", sig="sig-node", stage="stable", stable="v1.35")]
    path, data = files[0]
    data = data.replace(b"title: KEP 4000 stable-one", b'title: "Stable one\\r```\\r# Not <b>a</b> heading"')
    result = digest_mod.digest(snapshot((path, data)), "sig-node", "v1.35", "v1.35")
    block = digest_mod.render_markdown(result, "sig-node", "v1.35", "v1.35", REVISION)
    assert (
        "| [4000](https://kep.k8s.io/4000) | Stable one \\`\\`\\` # Not &lt;b&gt;a&lt;/b&gt; heading | v1.35 | - |"
        in block.split("\n")
    )
    assert "\r" not in block


DIGEST_PAGE = f"# d\n\n{digest_mod.BEGIN}\nold\n{digest_mod.END}\n\nhuman\n"
MATRIX = "| KEP | Status |\n|---|---|\n| 4000-stable-one | implemented / stable |\n"


def digest_plan(tmp_path, stable: str):
    config = Config.model_validate(
        {
            "wiki": {"dir": str(tmp_path), "pages": ["m.md"]},
            "digest": {"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.36"},
        }
    )
    snap = snapshot(kep(4000, "stable-one", sig="sig-node", status="implemented", stage="stable", stable=stable))
    return plan_sync(config, snap, {"m.md": MATRIX.encode(), "d.md": DIGEST_PAGE.encode()})


def test_a_digest_rewritten_without_row_changes_is_a_proposal_with_its_own_fingerprint(tmp_path):
    one, two = digest_plan(tmp_path, "v1.35"), digest_plan(tmp_path, "v1.36")
    assert (one.changes, list(one.changed_pages())) == ([], ["d.md"])
    assert one.changelog.title == "KEP matrix: update digest"
    assert one.changelog.commit_message.startswith("KEP matrix: update digest\n\n- d.md: digest section regenerated\n")
    assert "### Digest\n- d.md: digest section regenerated from kep.yaml\n" in one.changelog.body
    assert [page for page, _ in one.generated] == ["d.md"]
    assert one.generated[0][1] == digest_mod.section_text(one.changed_pages()["d.md"].decode())
    assert fingerprint(one.changes, one.generated) != fingerprint(two.changes, two.generated)
    assert fingerprint(one.changes, one.generated) != fingerprint([], ())
    assert fingerprint([], ()) == fingerprint([])


def test_the_title_names_the_digest_next_to_the_row_changes():
    snap = snapshot()
    assert render(snap, [], [], ChangelogInputs(generated=["d.md"])).title == "KEP matrix: update digest"
    assert render(snap, [], []).title == "KEP matrix: no changes"


def write_config(tmp_path, text: str):
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "c.yaml"


def test_a_digest_page_that_is_the_coverage_page_is_a_config_error(tmp_path):
    settings = (
        "wiki: {pages: [m.md]}\ncoverage: {page: c.md}\ndigest: {page: ./c.md, sig: node, from: v1.35, to: v1.36}\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(write_config(tmp_path, settings))
    assert str(err.value) == (
        f"{tmp_path / 'c.yaml'}: coverage.page: 'c.md' is also digest.page; the coverage page is read-only for "
        "kep-sync and the digest page is written, so they must be different files: name another page"
    )


#: A matrix page that is also the digest page; its section holds a stale KEP table, which is no row of the page.
BOTH = (
    "---\ndate: 2026-01-15\n---\n\n| KEP | Status | Feature gates |\n|---|---|---|\n"
    "| 4000-stable-one | {status} | `StableOne` |\n\n"
    f"{digest_mod.BEGIN}\n| KEP | Status |\n|---|---|\n| 4000-stable-one | provisional / alpha |\n{digest_mod.END}\n"
    "\nhuman\n"
)
SECTION = (
    "## sig-node: KEPs by stage reached in v1.35..v1.36\n\n"
    "1 stable, 0 beta, 0 alpha; from kep.yaml in `test` at `0123456789ab`.\n\n### Stable (1)\n\n"
    "| KEP | Title | Milestone | Feature gates |\n|---|---|---|---|\n"
    "| [4000](https://kep.k8s.io/4000) | KEP 4000 stable-one | v1.35 | `StableOne` |\n\n"
    "### Beta (0)\n\nNone.\n\n### Alpha (0)\n\nNone.\n"
)
STABLE = kep(
    4000, "stable-one", sig="sig-node", status="implemented", stage="stable", stable="v1.35", gates=("StableOne",)
)


def both_config(tmp_path, **settings) -> Config:
    return Config.model_validate(
        {
            "wiki": {"dir": str(tmp_path), "pages": ["m.md"]},
            "feature_gates": "owned",
            "front_matter": {"date_key": "date"},
            "digest": {"page": "./m.md", "sig": "node", "from": "v1.35", "to": "v1.36"},
            **settings,
        }
    )


def both_page(status: str, section: str, date: str = "2026-01-15") -> str:
    """:data:`BOTH` with the row's ``status``, the front matter ``date`` and ``section`` between the markers."""
    page = BOTH.format(status=status).replace("2026-01-15", date)
    return digest_mod.rewrite_section(page, section)


def test_a_matrix_page_gets_its_rows_and_its_digest_section_in_one_write(tmp_path):
    page = BOTH.format(status="implementable / beta")
    plan = plan_sync(both_config(tmp_path), snapshot(STABLE), {"m.md": page.encode()}, today="2026-11-30")
    assert plan.changed_pages() == {"m.md": both_page("implemented / stable", SECTION, "2026-11-30").encode()}
    assert [(c.page, c.line, c.field, c.old, c.new) for c in plan.changes if c.applied] == [
        ("m.md", 7, "status", "implementable", "implemented"),
        ("m.md", 7, "stage", "beta", "stable"),
    ]
    assert (plan.problems, plan.generated) == ([], (("m.md", SECTION),))
    assert plan.changelog.title == "Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 status change); update digest"
    assert "### Digest\n- m.md: digest section regenerated from kep.yaml\n" in plan.changelog.body
    assert "### Front matter\n- m.md: `date: 2026-01-15` → `date: 2026-11-30`\n" in plan.changelog.body
    assert plan.changelog.commit_message.split("\n")[2:5] == [
        "- KEP-4000 status: implementable -> implemented",
        "- KEP-4000 stage: beta -> stable",
        "- m.md: digest section regenerated",
    ]
    assert fingerprint(plan.changes, plan.generated) != fingerprint(plan.changes)


def test_a_matrix_page_whose_rows_are_in_sync_gets_only_its_digest_section(tmp_path):
    page = BOTH.format(status="implemented / stable")
    plan = plan_sync(both_config(tmp_path), snapshot(STABLE), {"m.md": page.encode()}, today="2026-11-30")
    # the date follows the rows: a digest alone leaves it
    assert plan.changed_pages() == {"m.md": both_page("implemented / stable", SECTION).encode()}
    assert ([c for c in plan.changes if c.applied], plan.problems, plan.generated) == ([], [], (("m.md", SECTION),))
    assert plan.changelog.title == "KEP matrix: update digest"
    assert "Front matter" not in plan.changelog.body


def test_a_matrix_page_without_digest_markers_has_its_rows_synced_and_the_digest_reported(tmp_path):
    page = "| KEP | Status |\n|---|---|\n| 4000-stable-one | implementable / beta |\n"
    plan = plan_sync(both_config(tmp_path), snapshot(STABLE), {"m.md": page.encode()}, today="2026-11-30")
    assert plan.changed_pages() == {"m.md": page.replace("implementable / beta", "implemented / stable").encode()}
    assert plan.generated == ()
    assert [(p.path, p.key, p.message) for p in plan.problems] == [
        (
            "m.md",
            "digest.page",
            f"no {digest_mod.BEGIN!r} ... {digest_mod.END!r} section outside code; digest not written, rows synced",
        )
    ]


def test_a_matrix_page_with_its_digest_converges_and_is_written_once(tmp_path):
    enh = write_keps(tmp_path / "enh", STABLE)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "m.md").write_text(BOTH.format(status="implementable / beta"), encoding="utf-8")
    config = both_config(tmp_path / "wiki", enhancements=str(enh), publish="files")
    first = run_sync(config, report_path=tmp_path / "r.json")
    written = (tmp_path / "wiki" / "m.md").read_bytes()
    assert json.loads((tmp_path / "r.json").read_text())["pages_written"] == ["m.md"]
    assert first.written == ["m.md"]
    assert digest_mod.section_text(written.decode()).startswith("## sig-node: KEPs by stage reached in v1.35..v1.36\n")
    second = run_sync(config, report_path=tmp_path / "r.json")
    assert (second.plan.changes, second.plan.problems, second.plan.generated, second.written) == ([], [], (), [])
    assert second.plan.changelog.title == "KEP matrix: no changes"
    assert json.loads((tmp_path / "r.json").read_text())["pages_written"] == []
    assert (tmp_path / "wiki" / "m.md").read_bytes() == written


def test_pages_that_are_one_file_through_a_link_are_refused(tmp_path):
    for name in ("m.md", "d.md"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    os.symlink("m.md", tmp_path / "link.md")
    config = Config.model_validate(
        {
            "wiki": {"dir": str(tmp_path), "pages": ["m.md", "link.md"]},
            "digest": {"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.36"},
        }
    )
    assert same_files(config) == []  # two wiki.pages entries may name one file
    config = config.model_copy(update={"digest": config.digest.model_copy(update={"page": "link.md"})})
    assert same_files(config) == [
        f"digest.page 'link.md': the same file as wiki.pages[0] 'm.md' ({shown(tmp_path / 'm.md')}); the digest "
        "page is rewritten between its markers and the rows of wiki.pages are synced, so name two different files"
    ]
    config = config.model_copy(update={"digest": config.digest.model_copy(update={"page": "./m.md"})})
    assert same_files(config) == [  # by its own name, but wiki.pages[1] reaches that file through a link
        f"digest.page './m.md': the same file as wiki.pages[1] 'link.md' ({shown(tmp_path / 'm.md')}); the digest "
        "page is rewritten between its markers and the rows of wiki.pages are synced, so name two different files"
    ]
    config = config.model_copy(update={"wiki": config.wiki.model_copy(update={"pages": ["m.md"]})})
    assert same_files(config) == []
    os.link(tmp_path / "m.md", tmp_path / "hard.md")
    config = config.model_copy(update={"digest": config.digest.model_copy(update={"page": "hard.md"})})
    assert same_files(config) == [
        f"digest.page 'hard.md': the same file as wiki.pages[0] 'm.md' ({shown(tmp_path / 'hard.md')}); the digest "
        "page is rewritten between its markers and the rows of wiki.pages are synced, so name two different files"
    ]


@pytest.mark.parametrize(
    "lines, found",
    [
        (["---", "", "date: TBD", "| a |"], None),  # a thematic break never closed: no front matter
        (["---", "title: t", "...", "date: body text"], None),  # closed by '...', no key inside
        (["# t", "date: x"], None),
        (["\ufeff---", "date: 2026-01-15", "---"], frontmatter.DateLine(1, "date: ", "2026-01-15", "")),
        (
            ["---", "dates: x", "date:'2026-01-15'", "date:  '2026-01-15'  # bot\r", "---"],
            frontmatter.DateLine(3, "date:  '", "2026-01-15", "'  # bot\r"),
        ),
    ],
)
def test_only_a_real_front_matter_block_holds_the_date(lines, found):
    assert frontmatter.find_date(lines, "date") == found


@pytest.mark.parametrize(
    "written, line, value",
    [
        ('date: "2026-01-15" # keep', 'date: "2026-11-30" # keep', "2026-11-30"),
        ("date: 2026/1/5", "date: 2026/11/30", "2026/11/30"),
        ("date: 15.01.2026", "date: 30.11.2026", "30.11.2026"),
        ("date: Jan 15, 2026", "date: Nov 30, 2026", "Nov 30, 2026"),
        ("date: 5 january 2026", "date: 30 november 2026", "30 november 2026"),
        ("date:", "date: 2026-11-30", "2026-11-30"),
    ],
)
def test_the_date_keeps_its_quoting_comment_and_format(written, line, value):
    update = frontmatter.set_date(["---", written, "..."], "date", "2026-11-30")
    assert (update.lines, update.new, update.problem) == (["---", line, "..."], value, "")


def test_a_date_in_no_known_format_is_kept_and_reported():
    update = frontmatter.set_date(["---", "date: 2026-01-15T10:00Z", "---"], "date", "2026-11-30")
    assert update == frontmatter.DateUpdate(
        ["---", "date: 2026-01-15T10:00Z", "---"],
        "",
        "",
        "date: '2026-01-15T10:00Z' is not a date kep-sync can write in the same "
        "format (YYYY-MM-DD, DD.MM.YYYY, January 15, 2026, ...); kept",
    )


@pytest.mark.parametrize("block", [["date: 2026-01-15", "date: 2026-02-01"], ["date: 2026-01-15", "title: t", "date:"]])
def test_a_date_key_given_twice_is_ambiguous_reported_and_not_written(block):
    lines = ["---", *block, "---", "body"]
    where = " and ".join(str(i + 1) for i, line in enumerate(lines) if line.startswith("date:"))
    assert frontmatter.set_date(lines, "date", "2026-11-30") == frontmatter.DateUpdate(
        lines,
        "",
        "",
        f"date: given twice in the front matter (lines {where}); the value is ambiguous, so it is not written",
    )


@pytest.mark.parametrize("line", ["Date: 2026-01-15", "date : 2026-01-15", "DATE :\r"])
def test_a_date_key_spelt_otherwise_is_reported_and_not_written(line):
    lines = ["---", "dates: x", "date:x", line, "---"]
    assert frontmatter.set_date(lines, "date", "2026-11-30") == frontmatter.DateUpdate(
        lines, "", "", f"date: no 'date:' line in the front matter, only line 4 {line.rstrip(chr(13))!r}; not written"
    )
    assert frontmatter.set_date(lines[:3] + lines[4:], "date", "2026-11-30").problem == ""  # no key at all: silent


def test_a_page_whose_date_key_is_given_twice_keeps_its_front_matter_and_says_why(tmp_path):
    page = (
        "---\ndate: 2026-01-15\ndate: 2026-01-20\n---\n\n| KEP | Status |\n|---|---|\n"
        "| 4000-a | provisional / alpha |\n"
    )
    config = Config.model_validate(
        {"wiki": {"dir": str(tmp_path), "pages": ["m.md"]}, "front_matter": {"date_key": "date"}}
    )
    plan = plan_sync(config, snapshot(kep(4000, "a")), {"m.md": page.encode()}, today="2026-11-30")
    assert plan.changed_pages() == {"m.md": page.replace("provisional", "implementable").encode()}
    assert [(p.path, p.key, p.message) for p in plan.problems] == [
        (
            "m.md",
            "front_matter.date_key",
            "date: given twice in the front matter (lines 2 and 3); the value is ambiguous, so it is not written",
        )
    ]
    assert "Front matter" not in plan.changelog.body


FM_PAGE = "---\n\nnotes\ndate: TBD, ask SIG Node\n\n| KEP | Status |\n|---|---|\n| 4000-a | provisional / alpha |\n"


def test_a_page_opening_with_a_thematic_break_keeps_its_body_when_rows_change(tmp_path):
    config = Config.model_validate(
        {"wiki": {"dir": str(tmp_path), "pages": ["m.md"]}, "front_matter": {"date_key": "date"}}
    )
    plan = plan_sync(config, snapshot(kep(4000, "a")), {"m.md": FM_PAGE.encode()}, today="2026-11-30")
    assert plan.changed_pages() == {"m.md": FM_PAGE.replace("provisional", "implementable").encode()}
    assert "Front matter" not in plan.changelog.body


def test_a_date_change_is_listed_when_only_rows_were_added(tmp_path):
    page = "---\ndate: 2026-01-15\n---\n\n## KEP matrix\n\n| KEP | Status |\n|---|---|\n| 4000-a | implementable / alpha |\n"
    config = Config.model_validate(
        {
            "wiki": {"dir": str(tmp_path), "pages": ["m.md"]},
            "front_matter": {"date_key": "date"},
            "candidates": {
                "sigs": ["scheduling"],
                "add_to": {"page": "m.md", "table": "KEP matrix", "reasons": ["new"]},
            },
        }
    )
    plan = plan_sync(config, snapshot(kep(4000, "a"), kep(4001, "b")), {"m.md": page.encode()}, today="2026-11-30")
    assert [(c.kep_id, c.kind) for c in plan.changes if c.applied] == [("4001", "added")]
    assert plan.changed_pages()["m.md"].decode().startswith("---\ndate: 2026-11-30\n---\n")
    assert "### Front matter\n- m.md: `date: 2026-01-15` → `date: 2026-11-30`\n" in plan.changelog.body
