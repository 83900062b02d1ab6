"""``kep-sync watch`` and the watch section of the pull request body (``release.watch``): a real git repository
with dated commits, a page, release notes and a gate list, all written here; the default-branch gate list of a
``github:`` source through respx."""

from __future__ import annotations

import base64
import json
import shutil

import httpx
import pytest
import respx

from bot.cli.main import main
from bot.errors import ConfigError
from bot.model.gates import blob_sha
from bot.sources.gate_head import newest_gate_list
from tests import gitutil
from tests.notesutil import entry
from tests.syncutil import kep_yaml

P100 = "keps/sig-node/100-hundred/kep.yaml"
P200 = "keps/sig-node/200-two/kep.yaml"
P300 = "keps/sig-node/300-three/kep.yaml"
PAGE = (
    "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
    "| 100 | implementable / beta | v1.35 | v1.36 | v1.38 |\n"
    "| 200 | implementable / beta | v1.36 | v1.37 | - |\n"
    "| 300 | implementable / alpha | v1.37 | - | - |\n"
)
LIST = b"""- name: ThreeGate
  versionedSpecs:
  - {version: "1.37", preRelease: Alpha, default: false, lockToDefault: false}
"""
NOTES_137 = {"5001": entry(5001, "Promoted the `TwoGate` feature gate to beta.")}


def _at(monkeypatch, day: str) -> None:
    monkeypatch.setitem(gitutil.GIT_ENV, "GIT_COMMITTER_DATE", f"{day}T10:00:00Z")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """``(repo, wiki, notes, gate list)``: KEP 100 plans GA in v1.37 until #12 moves it to v1.38 (2026-05-10), KEP
    200 beta in v1.37 from #11 (2026-04-20, the first latest-milestone v1.37), KEP 300 alpha in v1.37 (#13)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "enh"
    hundred = {"alpha": "v1.35", "beta": "v1.36", "stage": "beta", "gates": ("HundredGate",), "sig": "sig-node"}
    _at(monkeypatch, "2026-01-10")
    gitutil.make_repo(
        repo,
        {
            P100: kep_yaml(100, "hundred", stable="v1.37", **hundred),
            P200: kep_yaml(200, "two", alpha="v1.36", beta="v1.37", gates=("TwoGate",), sig="sig-node"),
        },
        "Merge pull request #10 from a/init",
    )
    _at(monkeypatch, "2026-04-20")
    two = kep_yaml(200, "two", stage="beta", alpha="v1.36", beta="v1.37", latest="v1.37", gates=("TwoGate",))
    gitutil.commit(repo, {P200: two.replace("sig-scheduling", "sig-node")}, "Merge pull request #11 from b/two-beta")
    _at(monkeypatch, "2026-05-10")
    gitutil.commit(repo, {P100: kep_yaml(100, "hundred", stable="v1.38", **hundred)}, "KEP-100: GA in v1.38 (#12)")
    three = kep_yaml(300, "three", alpha="v1.37", latest="v1.37", gates=("ThreeGate",), sig="sig-node")
    gitutil.commit(repo, {P300: three}, "Merge pull request #13 from c/three")
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "m.md").write_text(PAGE)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "release-notes-1.36.json").write_text("{}")
    (notes / "release-notes-1.37.json").write_text(json.dumps(NOTES_137))
    gates = tmp_path / "list.yaml"
    gates.write_bytes(LIST)
    return repo, wiki, notes, gates


def _args(tree, *more: str) -> list[str]:
    repo, wiki, notes, gates = tree
    base = ["watch", "--enhancements", str(repo), "--wiki", str(wiki), "--page", "m.md"]
    return base + ["--release-notes", str(notes), "--gate-lifecycle", str(gates), *more]


def test_watch_prints_each_state_with_its_signs_and_writes_the_report(tree, tmp_path, capsys, _reset_structlog):
    repo, wiki, notes, gates = tree
    report = tmp_path / "watch.json"
    assert main(_args(tree, "--report", str(report))) == 0
    head = gitutil.git(repo, "rev-parse", "HEAD")
    assert capsys.readouterr().out == (
        "Watch of v1.37: 3 KEPs (1 slipped, 2 landed)\n"
        "Release in progress: v1.37, from release notes (the newest release with notes is v1.37; the newest gate "
        "list is making v1.37)\n"
        f"Cycle began: 2026-04-20, from history (the first kep.yaml to name v1.37 as its latest milestone: {P200} "
        "(#11))\n"
        "Could not see: the release team's records: none read (--sig-release); no freeze dates, so no planned, at risk, "
        "shipped or missed\n"
        "Pages: m.md\n"
        f"Source: {repo} at {head[:12]}\n"
        f"Release notes: {notes} (v1.36, v1.37)\n"
        f"Gate list: {gates} (blob {blob_sha(LIST)[:12]}, newest version v1.37)\n"
        "\n"
        "== slipped (1)\n"
        "100  KEP 100 hundred  (GA was planned in v1.37)\n"
        "  GA moved v1.37 → v1.38 on 2026-05-10 (#12)\n"
        "  - history: GA moved v1.37 → v1.38 on 2026-05-10 (#12)\n"
        "\n"
        "== landed (2)\n"
        "200  KEP 200 two  (beta in v1.37)\n"
        "  the v1.37 note #5001 announces beta\n"
        "  - release note: the v1.37 note #5001 announces beta: Promoted the `TwoGate` feature gate to beta.\n"
        "  - gate list: TwoGate: not in the list yet\n"
        "  - kep.yaml: implementable, stage beta since 2026-04-20 (#11), latest-milestone v1.37\n"
        "  - history: beta v1.37 set on 2026-01-10 (#10), before the cycle began\n"
        "  - history: stage alpha → beta on 2026-04-20 (#11)\n"
        "300  KEP 300 three  (alpha in v1.37)\n"
        "  gate list: ThreeGate reaches alpha in v1.37\n"
        "  - gate list: ThreeGate reaches alpha in v1.37\n"
        "  - kep.yaml: implementable, stage alpha since 2026-05-10 (#13), latest-milestone v1.37\n"
        "  - history: new kep.yaml plans alpha in v1.37 on 2026-05-10 (#13), after the cycle began\n"
    )
    data = json.loads(report.read_text())
    assert (data["command"], data["result"], data["revision"]) == ("watch", "ok", head)
    assert data["watch"]["counts"] == {"contradicted": 0, "slipped": 1, "no sign yet": 0, "on track": 0, "landed": 2}
    assert data["watch"]["release"]["started"] == "2026-04-20"
    assert [(k["kep"], k["state"], k["planned"]) for k in data["watch"]["keps"]] == [
        ("100", "slipped", ["stable"]),
        ("200", "landed", ["beta"]),
        ("300", "landed", ["alpha"]),
    ]
    assert data["watch"]["keps"][0]["signs"][0]["url"] == "https://github.com/kubernetes/enhancements/pull/12"
    assert (wiki / "m.md").read_text() == PAGE


def test_without_notes_or_a_list_the_watch_says_what_it_could_not_see(tree, capsys, _reset_structlog):
    repo, wiki, _, _ = tree
    assert main(["watch", "--enhancements", str(repo), "--wiki", str(wiki), "--page", "m.md"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == [
        "Watch of v1.37: 3 KEPs (1 slipped, 2 on track)",
        "Release in progress: v1.37, from kep.yaml (the newest latest-milestone many kep.yaml files name is v1.37)",
        f"Cycle began: 2026-04-20, from history (the first kep.yaml to name v1.37 as its latest milestone: {P200} (#11))",
        "Could not see: release notes: none read (--release-notes); no note can say landed or contradicted",
        "Could not see: feature-gate list: none read (--gate-lifecycle); no gate entry can say landed or contradicted",
    ]


def test_the_release_and_its_first_day_from_the_command_line_and_a_plain_directory(
    tree, tmp_path, capsys, _reset_structlog
):
    repo, wiki, _, _ = tree
    assert main(_args(tree, "--release", "1.37", "--started", "2026-05-11")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "Watch of v1.37: 2 KEPs (2 landed)",  # #12 came before 2026-05-11: no slip in this cycle
        "Release in progress: v1.37, from config (release.current)",
        "Cycle began: 2026-05-11, from config (release.started)",
    ]
    plain = tmp_path / "plain"
    shutil.copytree(repo / "keps", plain / "keps")
    assert main(["watch", "--enhancements", str(plain), "--wiki", str(wiki), "--page", "m.md"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Watch of v1.37: 2 KEPs (2 on track)"
    assert out[2] == "Cycle began: unknown"
    assert out[5] == (
        f"Could not see: history: {plain} has no git history (a github: source, a tarball or a plain directory); "
        "no slips, no dates"
    )


def test_a_start_after_the_newest_commit_is_said_not_taken_silently(tree, capsys, _reset_structlog):
    repo = tree[0]
    assert main(_args(tree, "--started", "2026-06-01")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == [
        "Watch of v1.37: 2 KEPs (2 landed)",  # #12 moved KEP 100 on 2026-05-10: before this start, no slip
        "Release in progress: v1.37, from release notes (the newest release with notes is v1.37; the newest gate "
        "list is making v1.37)",
        "Cycle began: 2026-06-01, from config (release.started)",
        f"Could not see: changes since release.started 2026-06-01: it is after the newest commit of {repo} "
        "(2026-05-10), so no slip or late addition can show (is it the day the next cycle begins?)",
    ]
    assert main(_args(tree, "--started", "2026-05-10")) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if line.startswith("Could not see")] == [
        "Could not see: the release team's records: none read (--sig-release); no freeze dates, so no planned, at "
        "risk, shipped or missed"
    ]


def test_unusable_notes_of_a_release_are_named_and_never_pick_the_release(tree, capsys, _reset_structlog):
    repo, wiki, notes, _ = tree
    (notes / "release-notes-1.38.json").write_text("[]")
    base = ["watch", "--enhancements", str(repo), "--wiki", str(wiki), "--page", "m.md", "--release-notes", str(notes)]
    assert main(base) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "Release in progress: v1.37, from release notes (the newest release with notes is v1.37; release notes for "
        f"v1.38 unusable ({notes / 'release-notes-1.38.json'}: expected a JSON object keyed by pull request number, "
        "found list), so not taken as the release in progress)"
    )
    assert main([*base, "--release", "v1.38"]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Could not see: release notes")]
    assert said == [
        f"Could not see: release notes for v1.38: {notes / 'release-notes-1.38.json'}: expected a JSON object keyed "
        "by pull request number, found list; no note can say landed or contradicted"
    ]


def test_a_bad_day_is_a_usage_error_and_a_failed_watch_writes_its_report(tree, tmp_path, capsys, _reset_structlog):
    assert main(_args(tree, "--started", "2026-13-01")) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == "kep-sync: error: command line: release.started: '2026-13-01' is not a day written YYYY-MM-DD"
    report = tmp_path / "failed.json"
    _, wiki, _, _ = tree
    rc = main(["watch", "--enhancements", str(tmp_path / "gone"), "--wiki", str(wiki), "--report", str(report)])
    assert rc == 2
    data = json.loads(report.read_text())
    assert (data["command"], data["result"], data["revision"]) == ("watch", "failed", "")
    assert data["error"] == capsys.readouterr().err.splitlines()[-1].removeprefix("kep-sync: error: ")


def _config(tmp_path, tree, watch: bool):
    repo, wiki, notes, gates = tree
    path = tmp_path / f"c{int(watch)}.yaml"
    path.write_text(
        f"enhancements: {repo}\nwiki: {{dir: {wiki}, pages: [m.md]}}\nrelease_notes: {{source: {notes}}}\n"
        f"gate_lifecycle: {{source: {gates}}}\nrelease: {{watch: {str(watch).lower()}}}\n"
    )
    return path


def test_release_watch_adds_the_folded_section_and_the_report_block_to_a_sync(tree, tmp_path, capsys, _reset_structlog):
    report = tmp_path / "sync.json"
    assert main(["sync", "--config", str(_config(tmp_path, tree, True)), "--report", str(report)]) == 0
    body = capsys.readouterr().out
    start = body.index("<details><summary>Watch of v1.37")
    assert body[start:].split("\n")[:10] == [
        "<details><summary>Watch of v1.37: 3 KEPs (1 slipped, 2 landed)</summary>",
        "",
        "- Release in progress: v1.37, from release notes (the newest release with notes is v1.37; the newest gate "
        "list is making v1.37)",
        f"- Cycle began: 2026-04-20, from history (the first kep.yaml to name v1.37 as its latest milestone: {P200} "
        "(`#11`))",
        "- Could not see: the release team's records: none read (--sig-release); no freeze dates, so no planned, at "
        "risk, shipped or missed",
        "",
        "| KEP | State | Planned | Why | Signs |",
        "|---|---|---|---|---|",
        "| [100](https://kep.k8s.io/100) KEP 100 hundred | slipped | GA was planned in v1.37 | GA moved v1.37 → v1.38 "
        "on 2026-05-10 (#12) | [#12](https://github.com/kubernetes/enhancements/pull/12) GA moved v1.37 → v1.38 "
        "2026-05-10 |",
        "| [200](https://kep.k8s.io/200) KEP 200 two | landed | beta in v1.37 | the v1.37 note #5001 announces beta | "
        "note [#5001](https://github.com/kubernetes/kubernetes/pull/5001) beta<br>kep.yaml set<br>"
        "[#10](https://github.com/kubernetes/enhancements/pull/10) beta v1.37 set 2026-01-10<br>"
        "[#11](https://github.com/kubernetes/enhancements/pull/11) stage alpha → beta 2026-04-20 |",
    ]
    assert json.loads(report.read_text())["watch"]["counts"]["landed"] == 2
    assert main(["sync", "--config", str(_config(tmp_path, tree, False)), "--report", str(report)]) == 0
    assert "Watch of" not in capsys.readouterr().out
    assert "watch" not in json.loads(report.read_text())


def _contents(data: bytes) -> dict:
    return {"type": "file", "encoding": "base64", "content": base64.encodebytes(data).decode(), "sha": blob_sha(data)}


@respx.mock
def test_a_github_list_is_read_on_the_default_branch_with_its_etag(tmp_path):
    api = "https://api.example.test"
    url = (
        f"{api}/repos/kubernetes/kubernetes/contents/test/compatibility_lifecycle/reference/versioned_feature_list.yaml"
    )
    seen = []

    def answer(request):
        seen.append((str(request.url), request.headers.get("if-none-match")))
        if request.headers.get("if-none-match") == '"v1"':
            return httpx.Response(304)
        return httpx.Response(200, json=_contents(LIST), headers={"ETag": '"v1"'})

    respx.get(url).mock(side_effect=answer)
    lc = newest_gate_list("github:kubernetes/kubernetes", tmp_path, api_url=api)
    again = newest_gate_list("github:kubernetes/kubernetes", tmp_path, api_url=api)
    assert seen == [(url, None), (url, '"v1"')]  # no ?ref=: the default branch
    assert lc == again
    [gl] = lc.lists
    where = "kubernetes/kubernetes@default-branch:test/compatibility_lifecycle/reference/versioned_feature_list.yaml"
    assert (gl.where, gl.release, gl.newest, gl.revision, lc.source) == (
        where,
        "",
        "v1.37",
        blob_sha(LIST),
        "github:kubernetes/kubernetes",
    )
    assert sorted(lc.shipped) == []  # the newest version of a default-branch list is the release being made


@respx.mock
def test_a_github_repository_without_the_list_is_a_config_error(tmp_path):
    respx.get(url__startswith="https://api.example.test/repos/").mock(return_value=httpx.Response(404))
    with pytest.raises(ConfigError) as info:
        newest_gate_list("github:o/r", tmp_path, api_url="https://api.example.test")
    assert str(info.value) == (
        "gate_lifecycle.source (--gate-lifecycle) github:o/r: no "
        "test/compatibility_lifecycle/reference/versioned_feature_list.yaml on the default branch"
    )


def test_a_kep_in_no_page_row_is_named_as_sync_and_audit_name_it(tree, tmp_path, capsys, _reset_structlog):
    report = tmp_path / "kep.json"
    assert main(_args(tree, "--kep", "300", "--kep", "5075", "--report", str(report))) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Watch of v1.37: 1 KEP (1 landed)"
    assert out[8:10] == ["Problem: --kep: KEP 5075 is in no matrix row of the pages; nothing to do for it", ""]
    data = json.loads(report.read_text())
    assert data["problems"] == [
        {"path": "--kep", "message": "KEP 5075 is in no matrix row of the pages; nothing to do for it"}
    ]


def test_all_and_sig_read_the_whole_release_by_sig_with_the_page_rows_marked(tree, tmp_path, capsys, _reset_structlog):
    repo = tree[0]
    four = kep_yaml(400, "four", stage="beta", alpha="v1.36", beta="v1.37", latest="v1.37")
    gitutil.commit(repo, {"keps/sig-scheduling/400-four/kep.yaml": four}, "Merge pull request #14 from d/four")
    report = tmp_path / "all.json"
    assert main(_args(tree, "--all", "--report", str(report))) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Watch of v1.37: 4 KEPs (1 slipped, 1 on track, 2 landed)"
    assert out[4] == "Scope: every kep.yaml naming v1.37"
    assert [line for line in out if line.startswith(("== ", "100 ", "200 ", "300 ", "400 "))] == [
        "== sig-node (3 KEPs: 1 slipped, 2 landed)",
        "100  KEP 100 hundred  (GA was planned in v1.37)  slipped  [page: m.md:3]",
        "200  KEP 200 two  (beta in v1.37)  landed  [page: m.md:4]",
        "300  KEP 300 three  (alpha in v1.37)  landed  [page: m.md:5]",
        "== sig-scheduling (1 KEP: 1 on track)",
        "400  KEP 400 four  (beta in v1.37)  on track",
    ]
    data = json.loads(report.read_text())["watch"]
    assert [(k["kep"], k["sig"], k["rows"], k["slipped_to"]) for k in data["keps"]] == [
        ("100", "sig-node", [{"page": "m.md", "line": 3}], "v1.38"),
        ("400", "sig-scheduling", [], ""),
        ("200", "sig-node", [{"page": "m.md", "line": 4}], ""),
        ("300", "sig-node", [{"page": "m.md", "line": 5}], ""),
    ]
    assert (data["read"]["scope"], data["read"]["pages"], data["read"]["history"]) == ("all", ["m.md"], True)
    assert main(_args(tree, "--sig", "scheduling")) == 0
    out = capsys.readouterr().out.splitlines()
    assert (out[0], out[4]) == ("Watch of v1.37: 1 KEP (1 on track)", "Scope: SIG sig-scheduling naming v1.37")
    assert main(_args(tree, "--sig", "nope")) == 2
    assert "--sig 'nope': no kep.yaml names sig-nope as its owning-sig" in capsys.readouterr().err
    for empty in ("", " "):
        assert main(_args(tree, "--sig", empty)) == 2
        assert capsys.readouterr().err == "kep-sync: error: --sig '': empty; name the owning SIG (node, sig-node)\n"


def test_a_page_kep_deleted_in_the_cycle_is_slipped_in_the_watch_and_the_sync(tree, tmp_path, capsys, _reset_structlog):
    repo = tree[0]
    gitutil.commit(repo, {P300: None}, "Merge pull request #15 from e/drop-300")
    report = tmp_path / "watch.json"
    assert main(_args(tree, "--report", str(report))) == 0
    out = capsys.readouterr().out.split("\n== ")
    assert out[1].splitlines() == [
        "slipped (2)",
        "100  KEP 100 hundred  (GA was planned in v1.37)",
        "  GA moved v1.37 → v1.38 on 2026-05-10 (#12)",
        "  - history: GA moved v1.37 → v1.38 on 2026-05-10 (#12)",
        "300  KEP 300 three  (alpha was planned in v1.37)",
        "  kep.yaml deleted on 2026-05-10 (#15)",
        "  - history: new kep.yaml plans alpha in v1.37 on 2026-05-10 (#13), after the cycle began",
        "  - history: kep.yaml deleted on 2026-05-10 (#15)",
    ]
    [gone] = [k for k in json.loads(report.read_text())["watch"]["keps"] if k["kep"] == "300"]
    assert (gone["kep_path"], gone["state"], gone["signs"][-1]["pr"]) == (P300, "slipped", 15)
    assert main(["sync", "--config", str(_config(tmp_path, tree, True))]) == 0
    assert (
        "| [300](https://kep.k8s.io/300) KEP 300 three | slipped | alpha was planned in v1.37 |"
        in capsys.readouterr().out
    )
