"""Provenance, renames and the digest inside a sync, and the ``history`` / ``digest`` commands (bot/commands/sync.py, bot/cli/main.py)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx
import structlog

from bot.cli.main import main
from bot.commands.inputs import Inputs
from bot.commands.sync import run_sync
from bot.config import Config
from bot.model.history.provenance import attach
from bot.model.snapshot import Snapshot
from bot.plan import digest as digest_mod
from bot.plan.planner import plan_sync

try:
    from tests.cliutil import shown
    from tests.gitutil import commit, make_repo
    from tests.syncutil import PAGE, kep, kep_yaml, snapshot, tree, write_keps
except ImportError:  # pragma: no cover
    from cliutil import shown
    from gitutil import commit, make_repo
    from syncutil import PAGE, kep, kep_yaml, snapshot, tree, write_keps

P4671 = "keps/sig-scheduling/4671-gang-scheduling/kep.yaml"
OLD5710 = "keps/sig-scheduling/5710-old-preemption/kep.yaml"
NEW5710 = "keps/sig-scheduling/5710-workload-aware-preemption/kep.yaml"
OLD_CELL = "[5710-old-preemption](https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/5710-old-preemption)"
NEW_CELL = (
    "[5710-workload-aware-preemption](https://github.com/kubernetes/enhancements/tree/master/keps/"
    "sig-scheduling/5710-workload-aware-preemption)"
)
PAGE_OLD_SLUG = PAGE.replace("[5710-workload-aware-preemption](https://kep.k8s.io/5710)", OLD_CELL)


@pytest.fixture(autouse=True)
def _reset_structlog():
    yield
    structlog.reset_defaults()


@pytest.fixture
def upstream(tmp_path) -> tuple[Path, list[str]]:
    """``enh``: 4671 added (#1), beta milestone (#2), 5710 renamed (#3), 4671 promoted (#4), 4671 touched (#5)."""
    enh = tmp_path / "enh"
    g5710 = ("GenericWorkload", "WorkloadPreemption")
    base = {
        P4671: kep_yaml(4671, "gang-scheduling", gates=("GenericWorkload",)),
        OLD5710: kep_yaml(5710, "old-preemption", alpha="v1.36", beta="v1.37", stable="v1.39", gates=g5710),
        **dict([kep(624, "scheduling-framework", status="implemented", stage="stable", alpha="v1.16", stable="v1.19")]),
    }
    shas = [make_repo(enh, base, "Merge pull request #1 from a/add")]
    with_beta = kep_yaml(4671, "gang-scheduling", beta="v1.37", gates=("GenericWorkload",))
    shas.append(commit(enh, {P4671: with_beta}, "Merge pull request #2 from a/beta-milestone"))
    shas.append(
        commit(
            enh,
            {
                OLD5710: None,
                NEW5710: kep_yaml(
                    5710, "workload-aware-preemption", alpha="v1.36", beta="v1.37", stable="v1.39", gates=g5710
                ),
            },
            "KEP-5710: rename the directory (#3)",
        )
    )
    promoted = with_beta.replace("stage: alpha", "stage: beta")
    shas.append(commit(enh, {P4671: promoted}, "Merge pull request #4 from a/promote"))
    shas.append(commit(enh, {P4671: promoted + "reviewers: []\n"}, "Merge pull request #5 from a/touch"))
    return enh, shas


def _config(tmp_path: Path, enh: Path, page: str, **extra) -> Config:
    (tmp_path / "wiki").mkdir(exist_ok=True)
    (tmp_path / "wiki" / "m.md").write_text(page, encoding="utf-8")
    return Config.model_validate(
        {
            "enhancements": str(enh),
            "cache_dir": str(tmp_path / "cache"),
            "wiki": {"dir": str(tmp_path / "wiki"), "pages": ["m.md"]},
            **extra,
        }
    )


def test_each_change_names_the_commit_that_set_its_value(tmp_path, upstream):
    enh, shas = upstream
    config = _config(tmp_path, enh, PAGE, links={"enhancements": "https://example.test/k/enh"})
    outcome = run_sync(config, report_path=tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    got = [
        (c["kep"], c["field"], c["proposed"], c["upstream"] and (c["upstream"]["pr"], c["upstream"]["commit"]))
        for c in report["changes"]
    ]
    assert got == [
        ("4671", "stage", True, (4, shas[3])),
        ("4671", "beta", True, (2, shas[1])),
        ("5710", "feature_gates", False, (1, shas[0])),
        ("785", "status", False, None),
    ]
    assert report["changes"][0]["upstream"] == {
        "commit": shas[3],
        "date": "2026-01-02T03:04:05+00:00",
        "pr": 4,
        "subject": "Merge pull request #4 from a/promote",
    }
    assert report["provenance"] == {"source": "git", "requests": 0, "proposed": 2, "with_upstream": 2}
    body = outcome.plan.changelog.body
    assert "| KEP | m.md | Change | kep.yaml | Upstream |" in body
    # one row, two fields set by two pull requests (a merge commit's subject names no title: the link is bare)
    assert (
        "| [#4](https://example.test/k/enh/pull/4) 2026-01-02<br>[#2](https://example.test/k/enh/pull/2) 2026-01-02 |"
        in body
    )


def test_an_audit_report_has_the_sync_report_shape_with_provenance(tmp_path, upstream):
    from bot.commands.sync import run_audit

    enh, shas = upstream
    config = _config(tmp_path, enh, PAGE)
    run_sync(config, report_path=tmp_path / "sync.json")
    audit = run_audit(config.model_copy(update={"publish": "files"}), report_path=tmp_path / "audit.json")
    sync, report = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("sync", "audit"))
    assert sorted(report) == sorted([*sync, "audit"])  # one key added, none missing
    assert (report["result"], report["publish"], report["pages_written"], report["pull_request"]) == (
        "ok",
        "none",
        [],
        None,
    )
    assert (
        report["provenance"]
        == sync["provenance"]
        == {"source": "git", "requests": 0, "proposed": 2, "with_upstream": 2}
    )
    got = [
        (c["kep"], c["field"], c["proposed"], c["applied"], c["upstream"] and c["upstream"]["pr"])
        for c in report["changes"]
    ]
    assert got == [
        ("4671", "stage", True, False, 4),
        ("4671", "beta", True, False, 2),
        ("5710", "feature_gates", False, False, 1),
        ("785", "status", False, False, None),
    ]
    assert [c["upstream"] for c in report["changes"]] == [c["upstream"] for c in sync["changes"]]
    assert audit.changes[0].upstream.commit == shas[3]
    assert tree(tmp_path / "wiki") == {"m.md": PAGE.encode()}  # publish files asked: nothing written


def test_a_plain_directory_gets_no_provenance(tmp_path):
    from tests.syncutil import PAGE_KEPS

    write_keps(tmp_path / "enh", *PAGE_KEPS)
    config = _config(tmp_path, tmp_path / "enh", PAGE)
    run_sync(config, report_path=tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert "provenance" not in report and all("upstream" not in c for c in report["changes"])


def test_a_renamed_directory_is_reported_with_its_new_slug(tmp_path, upstream):
    enh, shas = upstream
    config = _config(tmp_path, enh, PAGE_OLD_SLUG)
    plan = run_sync(config).plan
    renamed = [c for c in plan.changes if c.kind == "renamed"]
    assert [(c.kep_id, c.field, c.old, c.new, c.applied, c.upstream.pr) for c in renamed] == [
        ("5710", "kep", "5710-old-preemption", "5710-workload-aware-preemption", False, 3)
    ]
    assert not any(c.kep_id == "5710" and c.kind == "gates" for c in plan.changes)  # the row is left as is
    assert "5710-old-preemption" in plan.pages[0].new.decode()
    assert (
        "| [5710](https://kep.k8s.io/5710) | m.md:19 | upstream renamed 5710-old-preemption to "
        "**5710-workload-aware-preemption** in [#3 KEP-5710: rename the directory](https://github.com/kubernetes/enhancements/pull/3) 2026-01-02; "
        "row left as is (`renames: apply` rewrites the KEP cell) |"
    ) in plan.changelog.body


def test_renames_apply_rewrites_the_kep_cell_in_its_own_style(tmp_path, upstream):
    enh, _ = upstream
    page = PAGE_OLD_SLUG.replace("| 4671-gang-scheduling |", "| 4671-old-gang |")
    config = _config(tmp_path, enh, page, renames="apply", publish="files")
    run_sync(config)
    text = (tmp_path / "wiki" / "m.md").read_text()
    assert NEW_CELL in text and OLD_CELL not in text
    assert "| 4671-old-gang |" in text  # never a directory of 4671: still a mismatch, left as is
    expected = PAGE_OLD_SLUG.replace(OLD_CELL, NEW_CELL).replace("| 4671-gang-scheduling |", "| 4671-old-gang |")
    assert text == expected  # 5710's gates are report-only; nothing else moved


def test_renames_apply_rewrites_a_kep_0000_cell_text_and_target_once(tmp_path):
    """KEP directories numbered 0000 are KEP 0 (three upstream): the text's padded number matches too."""
    enh, old, new = tmp_path / "enh", "keps/sig-scheduling/0000-pod-swap-node", "keps/sig-scheduling/0000-gang"
    make_repo(enh, {f"{old}/kep.yaml": kep_yaml(0, "pod-swap-node")}, "Merge pull request #1 from a/add")
    commit(enh, {f"{old}/kep.yaml": None, f"{new}/kep.yaml": kep_yaml(0, "gang")}, "Merge pull request #2 from a/mv")
    row = "| [{0}](https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/{0}) | implementable |\n"
    page = "# m\n\n| KEP | Status |\n|---|---|\n" + row.format("0000-pod-swap-node")
    config = _config(tmp_path, enh, page, renames="apply", publish="files")
    first = run_sync(config).plan
    assert [(c.kep_id, c.kind, c.old, c.new, c.applied) for c in first.changes] == [
        ("0", "renamed", "0000-pod-swap-node", "0000-gang", True)
    ]
    assert (tmp_path / "wiki" / "m.md").read_text() == page.replace(
        row.format("0000-pod-swap-node"), row.format("0000-gang")
    )
    assert run_sync(config).plan.changes == []


def test_plan_without_history_is_unchanged(upstream, tmp_path):
    enh, _ = upstream
    config = _config(tmp_path, enh, PAGE)
    snap = snapshot(kep(4671, "gang-scheduling", stage="beta", beta="v1.37"))
    plan = plan_sync(config, snap, {"m.md": PAGE.encode()}, release_notes=None)
    assert [c.upstream for c in plan.changes] == [None] * 6  # 4671 stage, beta, gates; 5710, 624, 785 status
    assert "provenance" not in plan.report


DIGEST_PAGE = f"# This year\n\nintro\n\n{digest_mod.BEGIN}\nold text\n{digest_mod.END}\n\nkept\n"


def test_digest_page_is_rewritten_between_its_markers(tmp_path, upstream):
    enh, shas = upstream
    config = _config(
        tmp_path,
        enh,
        PAGE,
        publish="files",
        digest={"page": "d.md", "sig": "scheduling", "from": "v1.35", "to": "v1.37"},
    )
    (tmp_path / "wiki" / "d.md").write_text(DIGEST_PAGE, encoding="utf-8")
    run_sync(config)
    text = (tmp_path / "wiki" / "d.md").read_text()
    head, rest = text.split(digest_mod.BEGIN + "\n")
    block, tail = rest.split(digest_mod.END)
    assert head == "# This year\n\nintro\n\n" and tail == "\n\nkept\n"
    assert block.startswith("## sig-scheduling: KEPs by stage reached in v1.35..v1.37\n")
    assert "### Beta (2, of which 1 planned: kep.yaml stage still alpha at that revision)" in block  # 5710
    assert "### Stable (0)" in block and "### Alpha (0)" in block
    assert "| [4671](https://kep.k8s.io/4671) | KEP 4671 gang-scheduling | v1.37 | `GenericWorkload` |" in block
    before = tree(tmp_path / "wiki")
    run_sync(config)
    assert tree(tmp_path / "wiki") == before  # same data: same bytes


def test_digest_page_without_markers_is_left_as_is(tmp_path, upstream):
    enh, _ = upstream
    config = _config(tmp_path, enh, PAGE, digest={"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.37"})
    (tmp_path / "wiki" / "d.md").write_text("no markers\n", encoding="utf-8")
    plan = run_sync(config).plan
    assert "d.md" not in plan.changed_pages()
    assert [p.message for p in plan.problems if p.path == "d.md"] == [
        f"no {digest_mod.BEGIN!r} ... {digest_mod.END!r} section outside code; page left as is"
    ]


FENCED = f"# Notes\n\n```\n{digest_mod.BEGIN}\nmy example\n{digest_mod.END}\n```\n\n    {digest_mod.BEGIN}\n\n"


@pytest.mark.parametrize(
    "page, problem",
    [
        (FENCED + "tail\n", f"no {digest_mod.BEGIN!r} ... {digest_mod.END!r} section outside code; page left as is"),
        (
            f"{digest_mod.BEGIN}\nold\n{digest_mod.END}\n{digest_mod.BEGIN}\nold2\n{digest_mod.END}\n",
            "2 begin and 2 end digest markers outside code (lines 1, 3, 4, 6); expected one pair, page left as is",
        ),
        (
            f"{digest_mod.END}\n{digest_mod.BEGIN}\n",
            f"no {digest_mod.BEGIN!r} ... {digest_mod.END!r} section outside code; page left as is",
        ),
    ],
)
def test_digest_markers_count_only_outside_code_and_once(tmp_path, upstream, page, problem):
    enh, _ = upstream
    config = _config(tmp_path, enh, PAGE, digest={"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.37"})
    (tmp_path / "wiki" / "d.md").write_text(page, encoding="utf-8")
    plan = run_sync(config).plan
    assert "d.md" not in plan.changed_pages() and (tmp_path / "wiki" / "d.md").read_text() == page
    assert [p.message for p in plan.problems if p.path == "d.md"] == [problem]
    assert (
        digest_mod.rewrite_section(FENCED + f"{digest_mod.BEGIN}\nold\n{digest_mod.END}\n", "NEW")
        == FENCED + f"{digest_mod.BEGIN}\nNEW\n{digest_mod.END}\n"
    )  # the fenced example stays, the real section moves


def test_digest_picks_the_highest_stage_in_range():
    snap = snapshot(
        kep(1, "a", sig="sig-node", stage="beta", alpha="v1.33", beta="v1.34"),
        kep(2, "b", sig="sig-node", stage="beta", alpha="v1.30", beta="1.35", stable="v1.36"),
        kep(3, "c", sig="sig-node", alpha="v1.32"),
        kep(4, "d", sig="sig-apps", alpha="v1.34"),
        kep(5, "e", sig="sig-node", stage="beta", alpha="v1.33", beta="v1.34", stable="v1.35", gates=("E",)),
        ("keps/sig-node/6-f/kep.yaml", kep_yaml(6, "f", sig="", alpha="v1.35").encode()),
    )
    result = digest_mod.digest(snap, digest_mod.sig_name("Node"), "v1.33", "v1.35")
    assert {s: [e.kep for e in v] for s, v in result.items()} == {"alpha": [6], "beta": [1, 2], "stable": [5]}
    assert digest_mod.as_json(result)["stable"] == [
        {
            "kep": 5,
            "title": "KEP 5 e",
            "milestone": "v1.35",
            "gates": ["E"],
            "path": "keps/sig-node/5-e/kep.yaml",
            "status": "implementable",
            "stage": "beta",
            "reached": False,
        }
    ]
    assert [(e["kep"], e["stage"], e["reached"]) for e in digest_mod.as_json(result)["beta"]] == [
        (1, "beta", True),
        (2, "beta", True),
    ]
    text = digest_mod.render_markdown(result, "sig-node", "v1.33", "v1.35", "f" * 40)
    assert "| [5](https://kep.k8s.io/5) | KEP 5 e | v1.35 (kep.yaml stage: beta) | `E` |" in text
    assert text.split("\n")[2] == (
        "1 stable (1 planned), 2 beta, 1 alpha; from kep.yaml in "
        "[kubernetes/enhancements](https://github.com/kubernetes/enhancements) at `ffffffffffff`."
    )
    assert "### Stable (1, of which 1 planned: kep.yaml stage still beta at that revision)\n" in text
    assert "### Beta (2)\n" in text and "### Alpha (1)\n" in text
    named = digest_mod.render_markdown(result, "sig-node", "v1.33", "v1.35", "f" * 40, source="github:o/enh@main")
    assert named.split("\n")[2].endswith("; from kep.yaml in o/enh at `ffffffffffff`.")  # as the changelog names it
    assert "| [2](https://kep.k8s.io/2) | KEP 2 b | v1.35 | - |" in text
    with pytest.raises(ValueError, match="starts after it ends"):
        digest_mod.digest(snap, "sig-node", "v1.35", "v1.33")
    with pytest.raises(ValueError, match="expected a SIG name"):
        digest_mod.sig_name("sig-")


def test_digest_section_keeps_crlf():
    page = f"a\r\n{digest_mod.BEGIN}\r\nold\r\n{digest_mod.END}\r\nz\r\n"
    assert (
        digest_mod.rewrite_section(page, "x\ny\n") == f"a\r\n{digest_mod.BEGIN}\r\nx\r\ny\r\n{digest_mod.END}\r\nz\r\n"
    )
    assert digest_mod.rewrite_section(f"{digest_mod.END}\n{digest_mod.BEGIN}\n", "x") is None


API = "https://api.example.test"


def test_github_sources_ask_the_commits_api_once_per_file_up_to_the_cap(tmp_path):
    config = Config.model_validate(
        {
            "enhancements": "github:o/enh@main",
            "cache_dir": str(tmp_path),
            "github": {"api_url": API},
            "provenance": {"max_requests": 2},
        }
    )
    snap = Snapshot("github:o/enh@main", "a" * 40, {}, {}, ())
    seen = []

    def commits(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.params["path"], request.url.params["sha"]))
        if request.url.params["path"].endswith("2-b/kep.yaml"):
            return httpx.Response(404, json={"message": "Not Found"})
        return httpx.Response(
            200,
            json=[
                {
                    "sha": "c" * 40,
                    "commit": {
                        "message": "Merge pull request #9 from x/y\n\nbody",
                        "committer": {"date": "2026-02-03T04:05:06Z"},
                    },
                }
            ],
        )

    with respx.mock(base_url=API) as mock:
        mock.get("/repos/o/enh/commits").mock(side_effect=commits)
        loader, renames = Inputs(config, snapshot=snap).provenance()
        found = loader(["keps/sig-a/3-c/kep.yaml", "keps/sig-a/1-a/kep.yaml", "keps/sig-a/2-b/kep.yaml"])
        assert loader(["keps/sig-a/1-a/kep.yaml", "keps/sig-a/2-b/kep.yaml", "keps/sig-a/3-c/kep.yaml"]) == found
        only = loader(
            {"keps/sig-a/3-c/kep.yaml": {"stage"}, "keps/sig-a/1-a/kep.yaml": {"status"}}, {"keps/sig-a/3-c/kep.yaml"}
        )  # a report-only finding on 1-a costs no request
    assert renames == {}
    assert seen == [
        ("keps/sig-a/1-a/kep.yaml", "a" * 40),
        ("keps/sig-a/2-b/kep.yaml", "a" * 40),
        ("keps/sig-a/3-c/kep.yaml", "a" * 40),
    ]
    assert (only.requests, sorted(only.last)) == (1, ["keps/sig-a/3-c/kep.yaml"])
    assert (found.kind, found.requests, sorted(found.last)) == ("github", 2, ["keps/sig-a/1-a/kep.yaml"])
    from bot.plan.diff import Change

    changes, block = attach(
        [Change("1", "m.md", 3, "stage", "alpha", "beta", "promoted", True, "keps/sig-a/1-a/kep.yaml")], found
    )
    assert changes[0].upstream.as_json() == {
        "commit": "c" * 40,
        "date": "2026-02-03T04:05:06Z",
        "pr": 9,
        "subject": "body",
        "exact": False,
    }
    assert block == {"source": "github", "requests": 2, "proposed": 1, "with_upstream": 1}


# -- the commands ---------------------------------------------------------------------------------


def test_history_command_text_and_json(tmp_path, upstream, capsys, monkeypatch):
    enh, shas = upstream
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    assert main(["history", "KEP-5710", "--enhancements", str(enh)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"KEP 5710: {NEW5710} (9 changes)"
    assert out[-1] == f"2026-01-02      #3  {shas[2][:12]}  path: {OLD5710} -> {NEW5710}"
    assert main(["history", "4671", "--enhancements", str(enh), "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert [(e["pr"], e["field"], e["old"], e["new"]) for e in events if e["pr"] > 1] == [
        (2, "milestone.beta", "", "v1.37"),
        (4, "stage", "alpha", "beta"),
    ]


def test_history_needs_git_history(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    write_keps(tmp_path / "enh", kep(1, "a"))
    assert main(["history", "1", "--enhancements", str(tmp_path / "enh")]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: enhancements (--enhancements) '{tmp_path / 'enh'}': "
        "history needs git history: a plain directory has no git history; pass a git clone, URL or "
        "bundle\n"
    )
    assert (
        main(
            [
                "digest",
                "--enhancements",
                str(tmp_path / "enh"),
                "--sig",
                "x",
                "--from",
                "v1.1",
                "--to",
                "v1.2",
                "--at",
                "2026-01-01",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"kep-sync: error: enhancements (--enhancements) '{tmp_path / 'enh'}': "
        "--at/--revision needs git history: a plain directory has no git history; pass a git clone, URL or "
        "bundle\n"
    )


def test_history_of_an_unknown_kep_is_a_usage_error(tmp_path, upstream, capsys, monkeypatch):
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    assert main(["history", "9999", "--enhancements", str(upstream[0])]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: KEP 9999: no kep.yaml with this number in the history of {upstream[0]}\n"
    )


def test_digest_of_a_sig_no_kep_yaml_names_is_a_usage_error_with_close_names(tmp_path, upstream, capsys, monkeypatch):
    enh, shas = upstream
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    args = ["digest", "--enhancements", str(enh), "--from", "v1.35", "--to", "v1.37"]
    assert main([*args, "--sig", "schedulng"]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: --sig sig-schedulng: no kep.yaml at {shas[-1][:12]} names "
        "this SIG; close SIG names: sig-scheduling\n"
    )
    assert main([*args, "--sig", "nosuch"]) == 2
    assert capsys.readouterr().err.endswith("names this SIG; close SIG names: sig-scheduling\n")
    assert main([*args, "--sig", "scheduling"]) == 0


def test_digest_command_at_a_date_and_a_revision(tmp_path, upstream, capsys, monkeypatch):
    enh, shas = upstream
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    args = ["digest", "--enhancements", str(enh), "--sig", "sig-scheduling", "--from", "v1.35", "--to", "v1.37"]
    assert main([*args, "--format", "json"]) == 0
    assert {k: [e["kep"] for e in v] for k, v in json.loads(capsys.readouterr().out).items()} == {
        "alpha": [],
        "beta": [4671, 5710],
        "stable": [],
    }
    assert main([*args, "--revision", shas[0], "--format", "json"]) == 0
    assert {k: [e["kep"] for e in v] for k, v in json.loads(capsys.readouterr().out).items()} == {
        "alpha": [4671],
        "beta": [5710],
        "stable": [],
    }
    assert main([*args, "--at", "2026-01-01"]) == 2  # every commit is dated 2026-01-02
    assert capsys.readouterr().err == (
        "kep-sync: error: --at 2026-01-01: the history has no kep.yaml commit on or before that date\n"
    )
    assert main([*args, "--at", "2026-01-02"]) == 0
    assert capsys.readouterr().out.startswith(
        "## sig-scheduling: KEPs by stage reached in v1.35..v1.37\n\n"
        f"0 stable, 2 beta (1 planned), 0 alpha; from kep.yaml in `{enh}`"
        f" at `{shas[-1][:12]}`.\n"
    )  # the source, as the changelog names it
    assert main([*args, "--revision", "nope"]) == 2
    assert main([*args[:-2], "--to", "v1.2"]) == 2


def test_a_missing_digest_page_is_named_by_its_key(tmp_path, upstream, capsys, monkeypatch):
    enh, _ = upstream
    config = _config(tmp_path, enh, PAGE, digest={"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.37"})
    from bot.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^digest\.page 'd\.md': no such file"):
        run_sync(config)
    cfg = tmp_path / "k.yaml"
    cfg.write_text(
        json.dumps(
            {
                "enhancements": str(enh),
                "cache_dir": str(tmp_path / "cache"),
                "wiki": {"dir": str(tmp_path / "wiki"), "pages": ["m.md"]},
                "digest": {"page": "d.md", "sig": "node", "from": "v1.35", "to": "v1.37"},
            }
        )
    )
    (tmp_path / "wiki" / "d.md").write_text("no markers\n", encoding="utf-8")
    assert main(["validate", "--config", str(cfg)]) == 2
    assert (
        f"digest.page 'd.md': no {digest_mod.BEGIN!r} ... {digest_mod.END!r} section outside code; page left "
        f"as is (under the wiki directory {shown(tmp_path / 'wiki')})"
    ) in capsys.readouterr().err
    (tmp_path / "wiki" / "d.md").write_text(DIGEST_PAGE + DIGEST_PAGE, encoding="utf-8")
    assert main(["validate", "--config", str(cfg)]) == 2
    assert "digest.page 'd.md': 2 begin and 2 end digest markers outside code (lines" in capsys.readouterr().err
    (tmp_path / "wiki" / "d.md").write_text(DIGEST_PAGE, encoding="utf-8")
    assert main(["validate", "--config", str(cfg)]) == 0


def test_an_uncommitted_edit_in_a_checkout_has_no_upstream(tmp_path, upstream):
    enh, _ = upstream
    text = (enh / P4671).read_text().replace('beta: "v1.37"', 'beta: "v1.38"')
    (enh / P4671).write_text(text)  # the working tree differs from HEAD
    config = _config(tmp_path, enh, PAGE)
    plan = run_sync(config).plan
    got = {(c.kep_id, c.field): (c.new, c.upstream and c.upstream.pr) for c in plan.changes if c.kep_id == "4671"}
    assert got == {("4671", "stage"): ("beta", 4), ("4671", "beta"): ("v1.38", None)}


def test_a_shallow_clone_gives_no_upstream_older_than_its_boundary_and_says_so(tmp_path, upstream):
    from tests.gitutil import git

    enh, shas = upstream
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{enh}", str(clone))  # #5, #4 and the boundary #3
    run_sync(_config(tmp_path, clone, PAGE), report_path=tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    got = [(c["kep"], c["field"], c["upstream"] and c["upstream"]["pr"]) for c in report["changes"]]
    assert got == [
        ("4671", "stage", 4),
        ("4671", "beta", None),
        ("5710", "feature_gates", None),
        ("785", "status", None),
    ]  # #2 and #1 set those: before the boundary, never credited to #3
    assert report["provenance"]["shallow"] == [shas[2]]
    assert [p["message"] for p in report["problems"] if p["path"] == "--enhancements"] == [
        f"the source is a shallow clone: history before commit {shas[2][:12]} is not available, so a value that "
        "may be older carries no upstream and `history` marks the boundary; fetch the full history (git fetch "
        "--unshallow)"
    ]


def test_renames_owned_cells_syncs_the_row_and_keeps_the_kep_cell_byte_for_byte(tmp_path, upstream):
    """``renames: owned-cells``: the status and beta cells of a renamed KEP's row are written, its KEP cell
    (naming the old directory) is not; the report says what was written; a second run proposes nothing."""
    enh, _ = upstream
    fresh = f"| {OLD_CELL} | scheduling | implementable / alpha | v1.36 / v1.37 / v1.39 |"
    stale = f"| {OLD_CELL} | scheduling | provisional / alpha | v1.36 / - / v1.39 |"
    page = PAGE_OLD_SLUG.replace(fresh, stale)
    assert page.count(stale) == 1
    config = _config(tmp_path, enh, page, renames="owned-cells", publish="files")
    outcome = run_sync(config, report_path=tmp_path / "r.json")
    text = (tmp_path / "wiki" / "m.md").read_text()
    gang = ("| implementable / alpha | v1.35 / - / - |", "| implementable / beta | v1.35 / v1.37 / - |")
    assert text == page.replace(stale, fresh).replace(*gang)  # 5710's KEP cell still names the old directory
    report = json.loads((tmp_path / "r.json").read_text())
    got = [(c["kep"], c["line"], c["field"], c["old"], c["new"], c["kind"], c["applied"]) for c in report["changes"]]
    assert got == [
        ("4671", 18, "stage", "alpha", "beta", "promoted", True),
        ("4671", 18, "beta", "", "v1.37", "retargeted", True),
        ("5710", 19, "kep", "5710-old-preemption", "5710-workload-aware-preemption", "renamed", False),
        ("5710", 19, "status", "provisional", "implementable", "status", True),
        ("5710", 19, "beta", "", "v1.37", "retargeted", True),
        ("5710", 19, "feature_gates", "GenericWorkload", "GenericWorkload, WorkloadPreemption", "gates", False),
        ("785", 32, "status", "implemented", "", "missing-upstream", False),
    ]
    line = [ln for ln in outcome.plan.changelog.body.splitlines() if "renamed" in ln]
    assert line == [
        "| [5710](https://kep.k8s.io/5710) | m.md:19 | upstream renamed 5710-old-preemption to "
        "**5710-workload-aware-preemption** in [#3 KEP-5710: rename the directory]"
        "(https://github.com/kubernetes/enhancements/pull/3) 2026-01-02; KEP cell kept, its status, stage and "
        "milestone cells synced (`renames: owned-cells`) |"
    ]
    second = run_sync(config, report_path=tmp_path / "r2.json")
    assert [c for c in second.plan.changes if c.applied] == []
    again = json.loads((tmp_path / "r2.json").read_text())
    assert [(c["kep"], c["kind"], c["applied"]) for c in again["changes"]] == [
        ("5710", "renamed", False),
        ("5710", "gates", False),
        ("785", "missing-upstream", False),
    ]
    assert again["pages_written"] == []
    assert (tmp_path / "wiki" / "m.md").read_text() == text
