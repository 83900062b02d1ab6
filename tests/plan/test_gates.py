"""The feature-gate lifecycle: the list model, its sources, the join, marks, findings, promote_when, the Shipped
column and the second reading (scripts/check/check_gates.py). Small hand-written lists and KEPs only."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import respx

from bot.commands.audit import plan_audit
from bot.config import validate_config
from bot.errors import ConfigError
from bot.model.gates import ListError, Spec, blob_sha, lifecycle, parse_gate_list, shipped_text
from bot.plan.evidence import build_index
from bot.plan.evidence import gates as G
from bot.plan.evidence.index import gate_owners
from bot.plan.planner import plan_sync
from bot.sources import gate_lifecycle as S
from tests.plan.gatecases import LIST, PAGE, gates_config
from tests.syncutil import kep, snapshot

ROOT = Path(__file__).resolve().parents[2]


def one(data: bytes = LIST, where: str = "list.yaml"):
    gl, problems = parse_gate_list(where, data)
    return lifecycle(where, [gl], problems)


def test_the_list_is_read_with_synthetic_ga_and_deprecation():
    gl, problems = parse_gate_list("l.yaml", LIST)
    assert problems == []
    assert gl.newest == "v1.36" and gl.revision == blob_sha(LIST)
    assert gl.gates["Old"].specs == (Spec("", "stable", True, False), Spec("v1.34", "deprecated", True, True))
    assert gl.gates["Alpha1"].reached("beta") == Spec("v1.35", "beta", True, False)
    assert gl.gates["Alpha1"].at("v1.34") == Spec("v1.33", "alpha", False, False)
    assert gl.gates["Alpha1"].at("v1.32") is None


def test_a_single_list_ships_every_version_but_its_newest():
    assert sorted(one().shipped) == ["v1.30", "v1.33", "v1.34", "v1.35"]


def test_bad_entries_are_problems_naming_the_line_and_bad_yaml_names_the_line():
    gl, problems = parse_gate_list(
        "l.yaml",
        b"- name: X\n  versionedSpecs:\n  - {version: '1.3x', preRelease: Alpha,"
        b" default: false}\n- versionedSpecs: []\n",
    )
    assert [(p.key, p.message) for p in problems] == [
        ("line 3", "gate X: version '1.3x' is not MAJOR.MINOR; spec skipped"),
        ("line 4", "entry without a gate name (name: SomeGate); skipped"),
    ]
    with pytest.raises(ListError, match=r"^l.yaml: line 3: not YAML: did not find expected node content$"):
        parse_gate_list("l.yaml", b"- name: X\n  versionedSpecs: [\n")
    with pytest.raises(ListError, match=r"^l.yaml: line 1: expected a list of gates"):
        parse_gate_list("l.yaml", b"name: X\n")


def test_shipped_text():
    gates = one().lists[0].gates
    assert shipped_text(gates["Alpha1"]) == "alpha v1.33, beta v1.35 (on)"
    assert shipped_text(gates["Locked"]) == "beta v1.30, GA v1.33 (on), locked v1.34"
    assert shipped_text(gates["Old"]) == "GA before the versioned list (on), deprecated v1.34 (locked)"


def test_a_directory_of_lists_named_by_release(tmp_path):
    (tmp_path / "1.33.yaml").write_bytes(
        LIST.replace(b'"1.35"', b'"1.33"').replace(b'"1.36"', b'"1.33"').replace(b'"1.34"', b'"1.33"')
    )
    (tmp_path / "versioned_feature_list-1.36.yaml").write_bytes(LIST)
    (tmp_path / "notes.txt").write_text("x")
    lc = S.load_gate_lifecycle(str(tmp_path), tmp_path / "cache")
    assert [gl.release for gl in lc.lists] == ["v1.33", "v1.36"]
    assert lc.shipped == frozenset({"v1.30", "v1.33", "v1.34", "v1.35", "v1.36"})
    assert lc.gate("Alpha1", "v1.33")[1].release == "v1.33"  # the list of the release in question
    assert lc.gate("Alpha1")[1].release == "v1.36"


def test_a_list_named_by_another_release_is_a_problem_and_read_by_its_contents(tmp_path):
    from bot.commands.validate import gate_problems

    (tmp_path / "1.37.yaml").write_bytes(LIST)  # newest version 1.36
    lc = S.load_gate_lifecycle(str(tmp_path), tmp_path / "cache")
    assert [(p.path, p.key, p.message) for p in lc.problems] == [
        (
            str(tmp_path / "1.37.yaml"),
            "name",
            "the file name says v1.37, its newest version is v1.36: read as the "
            "list of v1.36 in the making (rename the file to its release)",
        )
    ]
    assert [(gl.release, gl.covers) for gl in lc.lists] == [("", "v1.36")]
    assert sorted(lc.shipped) == ["v1.30", "v1.33", "v1.34", "v1.35"] and lc.newest == "v1.36"
    assert gate_problems(str(tmp_path)) == [
        f"gate_lifecycle.source: {tmp_path / '1.37.yaml'} name: the file name "
        "says v1.37, its newest version is v1.36: read as the list of v1.36 in "
        "the making (rename the file to its release)"
    ]


def test_a_directory_reports_each_file_it_does_not_read(tmp_path):
    for name in (
        "1.36.yaml",
        "versioned_feature_list-1.36.yaml",
        "foo.yaml",
        ".1.33.yaml",
        "1.99999999999999999999.yaml",
        "1.0.yaml",
        "1.033.yaml",
    ):
        (tmp_path / name).write_bytes(LIST)
    lc = S.load_gate_lifecycle(str(tmp_path), tmp_path / "cache")
    assert [gl.where for gl in lc.lists] == [str(tmp_path / "1.36.yaml")]
    assert sorted((Path(p.path).name, p.message) for p in lc.problems) == [
        (
            ".1.33.yaml",
            "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read",
        ),
        ("1.0.yaml", "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read"),
        (
            "1.033.yaml",
            "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read",
        ),
        (
            "1.99999999999999999999.yaml",
            "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read",
        ),
        ("foo.yaml", "not named by a release v1.32 or later (1.33.yaml or versioned_feature_list-1.33.yaml); not read"),
        ("versioned_feature_list-1.36.yaml", "a second list for v1.36 (after 1.36.yaml); not read"),
    ]


def test_a_version_with_a_leading_zero_is_malformed():
    gl, problems = parse_gate_list(
        "l.yaml", b"- name: X\n  versionedSpecs:\n  - {version: '1.033', preRelease: Alpha, default: false}\n"
    )
    assert [(p.key, p.message) for p in problems] == [
        ("line 3", "gate X: version '1.033' is not MAJOR.MINOR; spec skipped")
    ]
    assert gl.gates["X"].specs == ()


def test_a_broken_list_is_a_config_error_naming_file_and_line(tmp_path):
    bad = tmp_path / "l.yaml"
    bad.write_bytes(b"- name: [\n")
    with pytest.raises(ConfigError, match=r"^gate_lifecycle.source \(--gate-lifecycle\) .*l.yaml: line 2: not YAML"):
        S.load_gate_lifecycle(str(bad), tmp_path)


def _contents(data: bytes) -> dict:
    return {"type": "file", "encoding": "base64", "content": base64.encodebytes(data).decode(), "sha": blob_sha(data)}


@respx.mock
def test_github_reads_each_needed_release_branch_with_etags(tmp_path):
    api = "https://api.example.test"
    seen = []

    def answer(request):
        seen.append((request.url.path, request.url.params["ref"], request.headers.get("if-none-match")))
        ref = request.url.params["ref"]
        if ref not in ("release-1.32", "release-1.35", "release-1.36"):
            return httpx.Response(404)
        if request.headers.get("if-none-match") == f'"{ref}"':
            return httpx.Response(304)
        return httpx.Response(200, json=_contents(LIST), headers={"ETag": f'"{ref}"'})

    respx.get(url__startswith=f"{api}/repos/kubernetes/kubernetes/contents/").mock(side_effect=answer)
    lc = S.load_gate_lifecycle("github:kubernetes/kubernetes", tmp_path, {"v1.30", "v1.35"}, api_url=api)
    assert seen == [
        ("/repos/kubernetes/kubernetes/contents/" + S.OLD_LIST_PATH, "release-1.32", None),
        ("/repos/kubernetes/kubernetes/contents/" + S.LIST_PATH, "release-1.35", None),
        ("/repos/kubernetes/kubernetes/contents/" + S.LIST_PATH, "release-1.36", None),
        ("/repos/kubernetes/kubernetes/contents/" + S.LIST_PATH, "release-1.37", None),
    ]
    assert [gl.release for gl in lc.lists] == ["v1.32", "v1.35", "v1.36"]
    assert [gl.final for gl in lc.lists] == [True, True, False]
    assert sorted(lc.shipped) == ["v1.30", "v1.32", "v1.33", "v1.34", "v1.35"]  # release-1.36 is cut, not shipped
    assert lc.lists[0].revision == blob_sha(LIST) and lc.source == "github:kubernetes/kubernetes"
    seen.clear()
    S.load_gate_lifecycle("github:kubernetes/kubernetes", tmp_path, {"v1.30", "v1.35"}, api_url=api)
    assert [s[2] for s in seen] == ['"release-1.32"', '"release-1.35"', '"release-1.36"', None]


def test_github_refuses_a_ref():
    from bot.errors import UsageError

    with pytest.raises(UsageError) as err:
        S.parse_gate_source("github:kubernetes/kubernetes@master")
    assert str(err.value) == (
        "--gate-lifecycle 'github:kubernetes/kubernetes@master': name no @REF; "
        "the list is read at each release-1.NN branch"
    )


# ---- the join ----


def _keps():
    return snapshot(
        kep(100, "live", gates=("Alpha1",), alpha="v1.33", beta="v1.35"),
        kep(101, "withdrawn", status="withdrawn", gates=("Alpha1",)),
        kep(200, "shared-a", gates=("Locked",), stage="stable", beta="v1.30", stable="v1.33"),
        kep(201, "shared-b", gates=("Locked",)),
        kep(300, "two", gates=("Old", "Later")),
        kep(400, "typo", gates=("LongGateNameTypo",)),
        kep(500, "absent", gates=("NowhereGate",), alpha="v1.34"),
        kep(600, "locked", gates=("LockedToo",), stage="stable", stable="v1.33"),
    )


def test_which_gate_speaks_for_a_kep():
    snap = _keps()
    lc = one(
        LIST + b"- name: LockedToo\n  versionedSpecs:\n  - {default: true, lockToDefault: true, preRelease: GA,"
        b" version: '1.33'}\n- name: LongGateNameTypos\n  versionedSpecs: []\n"
    )
    js = G.joins(snap.all_keps(), snap.all_keps(), lc)
    by = {p.split("/")[2]: j for p, j in js.items()}
    assert by["100-live"].gate == "Alpha1"  # the withdrawn KEP's claim on Alpha1 does not count
    assert by["101-withdrawn"].note == "Alpha1 belongs to live KEP(s) keps/sig-scheduling/100-live/kep.yaml"
    assert by["200-shared-a"].gate == "" and by["200-shared-a"].note == (
        "Locked is also declared by live KEP(s) keps/sig-scheduling/201-shared-b/kep.yaml: not picked"
    )
    assert by["300-two"].note == "several gates in the list (Later, Old): none is picked"
    assert by["400-typo"].gate == "LongGateNameTypos" and by["400-typo"].typos == (
        ("LongGateNameTypo", "LongGateNameTypos"),
    )
    assert by["500-absent"].note == "NowhereGate: in no feature-gate list"


def test_a_typo_of_a_gate_another_kep_declares_shares_that_gate():
    snap = snapshot(
        kep(5554, "exclusive", gates=("InPlaceScalingExclusiveCPUs",), alpha="v1.30"),
        kep(6122, "typo", gates=("InPlaceScalingExclusiveCPUS",), alpha="v1.34"),
    )
    lc = one(
        b"- name: InPlaceScalingExclusiveCPUs\n  versionedSpecs:\n  - {default: false, lockToDefault: false, "
        b"preRelease: Alpha, version: '1.34'}\n"
    )
    keps = snap.all_keps()
    js = G.joins(keps, keps, lc)
    by = {p.split("/")[2]: (j.gate, j.note) for p, j in js.items()}
    assert by == {
        "5554-exclusive": (
            "",
            "InPlaceScalingExclusiveCPUs is also declared by live KEP(s) "
            "keps/sig-scheduling/6122-typo/kep.yaml: not picked",
        ),
        "6122-typo": (
            "",
            "InPlaceScalingExclusiveCPUs is also declared by live KEP(s) "
            "keps/sig-scheduling/5554-exclusive/kep.yaml: not picked",
        ),
    }
    assert G.findings(keps, js, lc) == []  # a shared gate never speaks: no gate-stage-mismatch for 5554


def test_a_shared_gate_gives_no_shipped_lifecycle():
    snap = snapshot(
        kep(3695, "several", gates=("Alpha1", "Locked")),
        kep(4381, "live", gates=("Locked",)),
        kep(5000, "both", gates=("Alpha1", "Locked")),
    )
    lc, keps = one(), snap.all_keps()
    js = {p.split("/")[2]: j for p, j in G.joins(keps, keps, lc).items()}
    assert js["3695-several"].shared == ("Alpha1", "Locked")
    assert G.shipped_cell(js["3695-several"], lc) is None  # no gate of its own: the cell is kept
    alone = snapshot(kep(3695, "several", gates=("Alpha1", "Locked")), kep(4381, "live", gates=("Locked",)))
    js = {p.split("/")[2]: j for p, j in G.joins(alone.all_keps(), alone.all_keps(), lc).items()}
    assert (
        G.shipped_cell(js["3695-several"], lc) == "Alpha1: alpha v1.33, beta v1.35 (on); Locked: shared with "
        "another KEP"
    )
    assert G.shipped_cell(js["4381-live"], lc) is None  # its one gate is shared: never guessed


def test_release_note_evidence_uses_the_live_kep_of_a_gate_a_withdrawn_one_shares():
    snap = _keps()
    assert gate_owners(snap.all_keps())["Alpha1"] == ("keps/sig-scheduling/100-live/kep.yaml",)
    notes = {"v1.35": {"1": {"text": "The `Alpha1` feature gate graduated to beta.", "pr_number": 1}}}
    index = build_index(notes, snap.all_keps())
    assert (index.mentions[0].links, index.mentions[0].ambiguous) == (("keps/sig-scheduling/100-live/kep.yaml",), ())


def test_findings_name_gate_releases_and_list():
    snap = snapshot(
        kep(100, "live", gates=("Alpha1",), alpha="v1.32", beta="v1.35"),
        kep(600, "locked", gates=("Locked",), stage="stable", beta="v1.30", stable="v1.33"),
        kep(700, "notyet", gates=("Later",), alpha="v1.35"),
        kep(500, "absent", gates=("NowhereGate",), alpha="v1.34"),
    )
    lc = one()
    keps = snap.all_keps()
    found = G.findings(keps, G.joins(keps, keps, lc), lc)
    # The list is named once by the changelog (and the report's gate_lifecycle.lists), never in each finding.
    assert [(d.kind, d.kep_id, d.release, d.message) for d in found] == [
        (
            "gate-stage-mismatch",
            "100",
            "v1.32",
            "kep.yaml milestone.alpha is v1.32; the gate list shows Alpha1 alpha in v1.33",
        ),
        (
            "gate-stage-mismatch",
            "700",
            "v1.35",
            "kep.yaml milestone.alpha is v1.35; the gate list shows Later not yet in v1.35, alpha in v1.36",
        ),
        (
            "not-shipped",
            "500",
            "v1.34",
            "kep.yaml milestone.alpha is v1.34; the gate list shows no NowhereGate in any list",
        ),
        (
            "shipped-not-implemented",
            "600",
            "v1.34",
            "status implementable, but feature gate Locked is GA since v1.33 "
            "and locked to its default since v1.34: done in the code, not marked implemented",
        ),
    ]


def test_a_sync_marks_each_change_and_lists_findings(tmp_path):
    snap = snapshot(
        kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"),
        kep(700, "notyet", gates=("Later",), stage="beta", alpha="v1.35", beta="v1.36"),
    )
    config, list_file = gates_config(tmp_path)
    plan = plan_sync(config, snap, {"p.md": PAGE.encode()}, gates=S.load_gate_lifecycle(str(list_file), tmp_path))
    marks = {(c.kep_id, c.field): (c.shipped.mark, c.shipped.detail) for c in plan.changes}
    assert marks[("100", "beta")] == ("✓", "Alpha1 beta in v1.35")
    # v1.36 is the list's newest version (the release being made): pending, never a disagreement
    assert marks[("700", "beta")] == ("pending", "Later alpha as of v1.36 (v1.36 not closed)")
    body = plan.changelog.body
    # 700's alpha v1.35 is no cell this pull request changes: said, folded, with why
    assert body.split("\n")[2:5] == [
        "<details><summary>Settled by the sources or unchanged here (1)</summary>",
        "",
        "- ✗ [700](https://kep.k8s.io/700) alpha v1.35, unchanged here: the gate list shows Later not yet in v1.35, "
        "alpha in v1.36",
    ]
    rows = [line for line in body.split("\n") if line.startswith("| [")]
    assert [r.rsplit(" | ", 1)[1] for r in rows[:2]] == ["✓ v1.35 |", "pending v1.36 |"]
    where = f"`{list_file}` (blob {blob_sha(LIST)[:12]})"
    assert body.count(str(list_file)) == 1 and (
        f"Signs: Shipped, per the gate list {where}: ✓ confirmed, pending (release not closed), ✗ contradicted, "
        "unknown." in body
    )
    assert (
        "| [700](https://kep.k8s.io/700) | v1.35 | gate-stage-mismatch: kep.yaml milestone.alpha is v1.35; "
        "the gate list shows Later not yet in v1.35, alpha in v1.36 |" in body
    )
    item = next(i for i in plan.report["changes"] if i["kep"] == "100" and i["field"] == "beta")
    assert item["shipped"] == {"mark": "✓", "gate": "Alpha1", "release": "v1.35", "detail": "Alpha1 beta in v1.35"}
    states = [(s["kep"], s["stage"], s["release"], s["state"]) for s in plan.report["planned_stages"]]
    assert states[2:] == [("700", "alpha", "v1.35", "contradicted"), ("700", "beta", "v1.36", "pending")]
    assert plan.report["gate_lifecycle"]["lists"] == [
        {"where": str(list_file), "release": "", "newest": "v1.36", "revision": blob_sha(LIST)}
    ]
    assert "Shipped" not in PAGE.replace("| Shipped |", "") and b"old text" in plan.pages[0].new  # column not owned


def test_without_the_source_a_sync_is_unchanged():
    snap = snapshot(kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"))
    plain = plan_sync(validate_config({}, "t"), snap, {"p.md": PAGE.encode()})
    assert "Shipped |" not in plain.changelog.body.split("### Changes")[1].split("\n")[1]  # the header line
    assert "gate_lifecycle" not in plain.report
    assert [(c.kep_id, c.field, c.shipped) for c in plain.changes] == [
        ("100", "stage", None),
        ("100", "beta", None),
        ("700-notyet", "status", None),
    ]


def test_promote_when_released_holds_a_promotion_to_an_unshipped_release(tmp_path):
    snap = snapshot(
        kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"),
        kep(700, "notyet", gates=("Later",), stage="beta", alpha="v1.35", beta="v1.36"),
    )
    config, list_file = gates_config(tmp_path, promote_when="released")
    plan = plan_sync(config, snap, {"p.md": PAGE.encode()}, gates=S.load_gate_lifecycle(str(list_file), tmp_path))
    held = [(c.kep_id, c.field, c.kind, c.applied, c.pending) for c in plan.changes if c.kep_id == "700"]
    assert held == [("700", "stage", "pending", False, "v1.36"), ("700", "beta", "pending", False, "v1.36")]
    assert plan.pages[0].new.decode().split("\n")[5] == "| 700-notyet | implementable / alpha | v1.35 / - / - | - |"
    assert "| 100-live | implementable / beta | v1.33 / v1.35 / - |" in plan.pages[0].new.decode()
    assert (
        "stage: page shows alpha, kep.yaml says beta: pending v1.36 (written once v1.36 has shipped"
        in plan.changelog.body
    )


def test_promote_when_released_needs_the_source():
    with pytest.raises(ConfigError, match="gate_lifecycle.promote_when: released needs gate_lifecycle.source"):
        validate_config({"gate_lifecycle": {"promote_when": "released"}}, "t")


def _owned_column(tmp_path):
    """``(snapshot, config, list file, lifecycle)`` with the Shipped column owned: 100 went beta in v1.35
    (gate Alpha1), 700 is alpha in v1.36 (gate Later)."""
    snap = snapshot(
        kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"),
        kep(700, "notyet", gates=("Later",), alpha="v1.36"),
    )
    config, list_file = gates_config(tmp_path, column=True)
    return snap, config, list_file, S.load_gate_lifecycle(str(list_file), tmp_path)


def test_the_shipped_column_is_written_when_owned(tmp_path):
    snap, config, list_file, lc = _owned_column(tmp_path)
    plan = plan_sync(config, snap, {"p.md": PAGE.encode()}, gates=lc)
    lines = plan.pages[0].new.decode().split("\n")
    assert lines[4] == "| 100-live | implementable / beta | v1.33 / v1.35 / - | alpha v1.33, beta v1.35 (on) |"
    assert lines[5] == "| 700-notyet | implementable / alpha | v1.36 / - / - | alpha v1.36 |"
    again = plan_sync(config, snap, {"p.md": plan.pages[0].new}, gates=lc)
    assert again.pages[0].new == plan.pages[0].new and not [c for c in again.changes if c.applied]


def test_the_audit_lists_gate_findings_of_every_row(tmp_path):
    snap = snapshot(kep(100, "live", gates=("Alpha1",), alpha="v1.32"))
    config, list_file = gates_config(tmp_path)
    audit = plan_audit(
        config,
        snap,
        {"p.md": PAGE.replace("v1.33 / -", "v1.32 / -").encode()},
        None,
        gates=S.load_gate_lifecycle(str(list_file), tmp_path),
    )
    assert [(f["kind"], f["kep"], f["release"]) for f in audit.report["gate_lifecycle"]["findings"]] == [
        ("gate-stage-mismatch", "100", "v1.32")
    ]
    assert "<details><summary>Needs review: feature-gate lifecycle (" in audit.markdown


# ---- the second reading ----


def test_check_gates_agrees_with_the_audit_on_tiny_fixtures(tmp_path):
    files = [
        kep(100, "live", gates=("Alpha1",), alpha="v1.32"),
        kep(101, "gone", status="withdrawn", gates=("Alpha1",)),
        kep(600, "locked", gates=("Locked",), stage="stable", beta="v1.30", stable="v1.33"),
        kep(500, "absent", gates=("NowhereGate",), alpha="v1.34"),
    ]
    root = tmp_path / "enh"
    for path, data in files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    page = (
        PAGE + "| 600-locked | implementable / stable | - / v1.30 / v1.33 | - |\n"
        "| 500-absent | implementable / alpha | v1.34 / - / - | - |\n"
    )
    (tmp_path / "p.md").write_text(page.replace("v1.33 / -", "v1.32 / -"))
    config, list_file = gates_config(tmp_path)
    audit = plan_audit(
        config,
        snapshot(*files),
        {"p.md": (tmp_path / "p.md").read_bytes()},
        None,
        gates=S.load_gate_lifecycle(str(list_file), tmp_path),
    )
    (tmp_path / "audit.json").write_text(json.dumps(audit.report))
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts/check/check_gates.py"),
            "--enhancements",
            str(root),
            "--page",
            str(tmp_path / "p.md"),
            "--gates",
            str(list_file),
            "--audit-report",
            str(tmp_path / "audit.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert [line for line in run.stdout.splitlines() if line.startswith(("finding", "agree"))] == [
        "finding: gate-stage-mismatch KEP 100 v1.32",
        "finding: not-shipped KEP 500 v1.34",
        "finding: shipped-not-implemented KEP 600 v1.34",
        "agree on 3 findings; 0 differ",
    ]


def test_validate_checks_the_gate_list(tmp_path):
    from bot.commands.validate import gate_problems

    good = tmp_path / "l.yaml"
    good.write_bytes(LIST)
    assert gate_problems(str(good)) == []
    good.write_bytes(
        LIST + b"- name: Bad\n  versionedSpecs:\n  - {version: '1.36', preRelease: Gamma, default: true}\n"
    )
    assert gate_problems(str(good)) == [
        f"gate_lifecycle.source: {good} line 44: gate Bad: preRelease 'Gamma' is not one of Alpha, Beta, GA, "
        "Deprecated; spec skipped"
    ]
    good.write_bytes(b"- name: [\n")
    assert gate_problems(str(good)) == [
        f"gate_lifecycle.source: {good}: line 2: not YAML: did not find expected node content"
    ]
    assert gate_problems(str(tmp_path / "missing.yaml")) == [
        f"gate_lifecycle.source: '{tmp_path / 'missing.yaml'}': no such file or directory, and not github:OWNER/REPO"
    ]
    assert gate_problems("github:kubernetes/kubernetes") == []
    os.mkfifo(tmp_path / "fifo.yaml")
    assert gate_problems(str(tmp_path / "fifo.yaml")) == [
        f"gate_lifecycle.source: '{tmp_path / 'fifo.yaml'}': not a regular file (FIFO), nor a directory or "
        "github:OWNER/REPO"
    ]
    long = str(tmp_path / ("a" * 300))
    assert gate_problems(long) == [f"gate_lifecycle.source: {long!r}: cannot be read: File name too long"]


def test_the_shipped_column_keeps_ignored_rows_and_rows_outside_only(tmp_path):
    snap, config, list_file, lc = _owned_column(tmp_path)
    page = PAGE.replace("| 100-live |", "| 100-live <!-- kep-sync: ignore --> |").replace(
        "| 700-notyet |", "| 700-notyet <!-- kep-sync: ignore shipped --> |"
    )
    plan = plan_sync(config, snap, {"p.md": page.encode()}, gates=lc)
    lines = plan.pages[0].new.decode().split("\n")
    assert lines[4] == "| 100-live <!-- kep-sync: ignore --> | implementable / alpha | v1.33 / - / - | old text |"
    assert lines[5] == "| 700-notyet <!-- kep-sync: ignore shipped --> | implementable / alpha | v1.36 / - / - | - |"
    assert [(c.kep_id, c.field, c.new, c.applied, c.ignored) for c in plan.changes if c.field == "shipped"] == [
        ("100", "shipped", "alpha v1.33, beta v1.35 (on)", False, "page"),
        ("700", "shipped", "alpha v1.36", False, "page"),
    ]
    only = plan_sync(config, snap, {"p.md": PAGE.encode()}, only={700}, gates=lc)
    lines = only.pages[0].new.decode().split("\n")
    assert lines[4] == "| 100-live | implementable / alpha | v1.33 / - / - | old text |"
    assert lines[5] == "| 700-notyet | implementable / alpha | v1.36 / - / - | alpha v1.36 |"
    ruled = validate_config(
        {"gate_lifecycle": {"source": str(list_file), "column": True}, "ignore": [{"kep": 100, "fields": ["shipped"]}]},
        "test",
    )
    kept = plan_sync(ruled, snap, {"p.md": PAGE.encode()}, gates=lc).pages[0].new.decode().split("\n")
    assert kept[4] == "| 100-live | implementable / beta | v1.33 / v1.35 / - | old text |"
