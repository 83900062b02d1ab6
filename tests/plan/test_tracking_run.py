"""The tracking stage in a run: the coverage page read by every wiki backend (never written), new rows
landed by the git and GitHub backends, and ``kep-sync validate`` on the new keys (bot/config/,
bot/commands/validate.py). Small synthetic wikis; the real pages are in test_acceptance_tracking.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from bot.cli.main import main
from bot.commands.inputs import open_wiki
from bot.commands.sync import sync_snapshot
from bot.config import Config
from bot.errors import ConfigError
from bot.publish.git import GitWiki
from tests.gitutil import git, make_repo
from tests.publishutil import (
    BRANCH,
    PAGE,
    PAGE_PATH,
    REPO,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    run_github,
)
from tests.syncutil import PAGE as SYNC_PAGE
from tests.syncutil import PAGE_KEPS, kep, snapshot, write_keps

COVERAGE_PATH = "docs/coverage.md"
COVERAGE = "# Groups\n\n| Design group | Representative KEPs |\n|---|---|\n| Gang | 4671, 5710, 6000 |\n"
NEW_ROW = "| 6000-kep-6000 |  | implementable / alpha | v1.35 / - / - |  |"


def snap():
    return snapshot(
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
        kep(6000, "kep-6000", stage="alpha", alpha="v1.35"),
    )


def tracking(**extra) -> dict:
    return {
        "coverage": {"page": COVERAGE_PATH},
        "candidates": {"add_to": {"page": PAGE_PATH, "table": "KEP matrix"}},
        **extra,
    }


def test_git_backend_reads_the_coverage_page_at_the_base_and_commits_the_new_row(tmp_path):
    wiki = tmp_path / "wiki"
    make_repo(wiki, {PAGE_PATH: PAGE, COVERAGE_PATH: COVERAGE})
    cfg = Config.model_validate(
        {"publish": "git", "wiki": {"pages": [PAGE_PATH]}, "pull_request": {"branch": BRANCH}, **tracking()}
    )
    outcome = sync_snapshot(cfg, snap(), GitWiki(cfg, wiki))
    assert outcome.written == [PAGE_PATH]
    assert outcome.plan.report["coverage"]["not_on_matrix"] == [6000]
    assert [(c.kep_id, c.kind, c.new) for c in outcome.plan.changes if c.applied] == [
        ("4671", "promoted", "beta"),
        ("4671", "retargeted", "v1.37"),
        ("6000", "added", "6000-kep-6000"),
    ]
    page = git(wiki, "show", f"{BRANCH}:{PAGE_PATH}").split("\n")
    assert page[8] == NEW_ROW
    assert git(wiki, "show", f"{BRANCH}:{COVERAGE_PATH}") + "\n" == COVERAGE
    assert (
        "| [6000](https://kep.k8s.io/6000) KEP 6000 kep-6000 | L9 | row: - → **6000-kep-6000** |"
        in outcome.plan.changelog.body
    )
    again = sync_snapshot(cfg, snap(), GitWiki(cfg, wiki))  # same proposal: no new commit
    assert again.written == []


def test_github_backend_reads_the_coverage_page_and_never_writes_it(fake_github):
    fake_github.seed_repo(REPO, {PAGE_PATH: PAGE, COVERAGE_PATH: COVERAGE})
    base = github_config(fake_github)
    cfg = Config.model_validate({**base.model_dump(), **tracking()})
    result = run_github(fake_github, snap(), cfg)
    assert result.written == [PAGE_PATH]
    assert ("GET", f"/repos/{REPO}/contents/{COVERAGE_PATH}") in result.requests
    assert fake_github.read_file(REPO, BRANCH, PAGE_PATH).split("\n")[8] == NEW_ROW
    assert fake_github.read_file(REPO, BRANCH, COVERAGE_PATH) == COVERAGE


def test_a_missing_coverage_page_is_named_as_coverage_page(tmp_path):
    (tmp_path / "m.md").write_text(SYNC_PAGE)
    cfg = Config.model_validate({"wiki": {"dir": str(tmp_path), "pages": ["m.md"]}, "coverage": {"page": "c.md"}})
    with pytest.raises(ConfigError, match=r"^coverage.page 'c.md': no such file under the wiki directory"):
        sync_snapshot(cfg, snapshot(*PAGE_KEPS), open_wiki(cfg))


# --- kep-sync validate ------------------------------------------------------------------------------------------


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    write_keps(tmp_path / "enh", *PAGE_KEPS)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "m.md").write_text(SYNC_PAGE)
    (tmp_path / "wiki" / "c.md").write_text(COVERAGE)
    yield tmp_path
    structlog.reset_defaults()


def _validate(work: Path, capsys, text: str) -> tuple[int, list[str]]:
    (work / "c.yaml").write_text("enhancements: enh\nwiki:\n  dir: wiki\n  pages: [m.md]\n" + text)
    code = main(["validate", "--config", "c.yaml"])
    out, err = capsys.readouterr()
    return code, (out.splitlines() if code == 0 else err.splitlines())


def test_validate_accepts_the_tracking_keys(work, capsys):
    text = (
        "candidates:\n  sigs: [Scheduling, sig-scheduling]\n  releases: 2\n  limit: 5\n  ignore: [583]\n"
        "  add_to: {page: m.md, table: P1, count: 2, reasons: [group, new]}\n"
        "production_tables: [P0]\ncoverage:\n  page: c.md\n"
    )
    assert _validate(work, capsys, text) == (0, ["ok"])


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        (
            "candidates:\n  releases: 0\n  sigs: [Sig Node]\n",
            [
                "candidates.sigs: 'Sig Node' is not a SIG name (like sig-node or node)",
                "candidates.releases: expected greater than or equal to 1, got 0",
            ],
        ),
        (
            "candidates:\n  add_to: {page: other.md, table: P0, reasons: [new]}\n",
            ["candidates.add_to.page: 'other.md' is not one of wiki.pages ('m.md')"],
        ),
        (
            "candidates:\n  add_to: {page: m.md, table: P0, reasons: [maybe]}\n",
            ["candidates.add_to.reasons[0]: 'maybe' is not one of 'group', 'new', 'active', 'gate' or 'targets'"],
        ),
        (
            "candidates:\n  add_to: {page: m.md, table: P0, reasons: [group]}\n",
            [
                "coverage.page: candidates.add_to adds only KEPs a design group lists (reasons: [group]), so it needs "
                "coverage.page; set it, or add other reasons"
            ],
        ),
        (
            "coverage:\n  page: ./m.md\n",
            [
                "coverage.page: './m.md' is also in wiki.pages; the coverage page is read-only for kep-sync, name a page "
                "that is not synced"
            ],
        ),
        (
            "coverage:\n  page: ../c.md\n",
            ["coverage.page: '../c.md' must be a path relative to the wiki, without '..'"],
        ),
        (
            "production_tables: ['  ']\n",
            ["production_tables: a table is named by the text of the heading above it; got an empty heading"],
        ),
        # checked against the pages on disk
        ("coverage:\n  page: none.md\n", ["coverage.page 'none.md': no such file (under the wiki directory 'wiki')"]),
        (
            "coverage:\n  page: c.md\n  columns: {keps: [Members]}\n",
            [
                "coverage.page 'c.md': no design-group table (a column headed 'Members') (under the wiki directory 'wiki')"
            ],
        ),
        (
            "candidates:\n  add_to: {page: m.md, table: P2, reasons: [new]}\nproduction_tables: [P0, P3]\n",
            [
                "candidates.add_to.table 'P2': no KEP table under that heading on 'm.md'",
                "production_tables 'P3': no KEP table under that heading on the pages",
            ],
        ),
    ],
)
def test_validate_names_each_bad_tracking_key(work, capsys, text, errors):
    code, lines = _validate(work, capsys, text)
    assert (code, lines) == (2, [f"kep-sync: error: c.yaml: {e}" for e in errors])


def test_a_row_that_becomes_withdrawn_is_called_out_first():
    from bot.plan.planner import plan_sync

    snap_ = snapshot(kep(4671, "kep-4671", status="withdrawn", alpha="v1.35"), kep(5710, "kep-5710", alpha="v1.35"))
    plan = plan_sync(Config.model_validate({"wiki": {"pages": ["m.md"]}}), snap_, {"m.md": PAGE.encode()})
    body = plan.changelog.body
    assert body.index("### Now provisional or withdrawn") < body.index("### Changes")
    assert (
        "- KEP [4671](https://kep.k8s.io/4671) (m.md:7): status implementable → **withdrawn**; "
        "rule 3: no longer production capability"
    ) in body
    assert "findings" not in plan.report  # production_tables not set: the callout only


def test_add_to_reasons_default_to_group_with_a_coverage_page_else_new():
    def reasons(**extra) -> list[str]:
        return Config.model_validate({"wiki": {"pages": ["m.md"]}, **extra}).add_reasons()

    add = {"add_to": {"page": "m.md", "table": "P0"}}
    assert reasons(candidates=add) == ["new"]
    assert reasons(candidates=add, coverage={"page": "c.md"}) == ["group"]
    assert reasons(candidates={"add_to": {**add["add_to"], "reasons": ["gate", "new"]}}) == ["gate", "new"]


# --- the coverage page and --page in a sync run -----------------------------------------------------------------


def _sync(work: Path, capsys, config: str, *args: str) -> tuple[int, str, list[str]]:
    (work / "c.yaml").write_text("enhancements: enh\nwiki:\n  dir: wiki\n" + config)
    code = main(["sync", "--config", "c.yaml", "--publish", "files", "--report", "r.json", *args])
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if not line.startswith("{")]


def test_a_coverage_page_not_utf8_is_a_config_error_naming_coverage_page(work, capsys):
    (work / "wiki" / "c.md").write_bytes(b"| Design group | KEPs |\n\xff\n")
    before = (work / "wiki" / "m.md").read_bytes()
    code, out, err = _sync(work, capsys, "  pages: [m.md]\ncoverage:\n  page: c.md\n")
    assert (code, out, err) == (
        2,
        "",
        ["kep-sync: error: coverage.page 'c.md': not UTF-8 (invalid start byte at byte 24)"],
    )
    assert (work / "wiki" / "m.md").read_bytes() == before


def test_a_coverage_page_with_no_group_table_syncs_and_says_coverage_was_not_checked(work, capsys):
    import json

    (work / "wiki" / "c.md").write_text("# Groups\n\nnone yet\n")
    code, out, err = _sync(work, capsys, "  pages: [m.md]\ncoverage:\n  page: c.md\n")
    assert (code, err) == (0, [])
    assert (
        "<details><summary>Design-group coverage (c.md) (1)</summary>\n\n- **Not checked**: the page lists no design group (see Problems); "
        "nothing is known about coverage\n"
    ) in out
    assert "Rows in no design group" not in out
    assert (
        "| c.md | - | no design-group table (a column headed '代表 KEP', 'Representative KEPs', 'Representative "
        "KEP', 'KEPs'); coverage not checked |"
    ) in out
    report = json.loads((work / "r.json").read_text())
    assert report["coverage"] == {"page": "c.md", "checked": False, "groups": []}
    assert {
        "path": "c.md",
        "message": "no design-group table (a column headed '代表 KEP', "
        "'Representative KEPs', 'Representative KEP', 'KEPs'); coverage not checked",
    } in report["problems"]


def test_add_to_page_is_checked_against_the_pages_in_effect(work, capsys):
    add = "candidates:\n  add_to: {page: m.md, table: KEP matrix, reasons: [new]}\n"
    code, out, err = _sync(work, capsys, add, "--page", "m.md")
    assert (code, err) == (0, [])
    (work / "c.yaml").write_text("enhancements: enh\nwiki:\n  dir: wiki\n" + add)
    assert main(["sync", "--config", "c.yaml", "--publish", "none"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kep-sync: error: c.yaml: candidates.add_to.page: 'm.md' is not one of wiki.pages "
        "('kubernetes-keps-implementation-matrix.md')"
    )
    assert main(["sync", "--config", "c.yaml", "--publish", "none", "--page", "other.md"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kep-sync: error: c.yaml with the command-line options: candidates.add_to.page: 'm.md' is not one of "
        "wiki.pages ('other.md')"
    )
