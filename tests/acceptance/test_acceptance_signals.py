"""Real-data acceptance for the signals a reviewer reads first: release-aware Shipped marks, gate ownership from
the kep.yaml history, "Needs a look", possible evidence in prose, and the output without those sources pinned.

The bundle's HEAD, the release notes 1.20-1.37 and the newer gate list
(``versioned_feature_list.openshift-0b0e324c.yaml``: 1.36 complete, 1.37 only begun) from ../shared, read in
place. Skipped when ../shared is absent, unless KEP_SYNC_REQUIRE_SHARED=1 (then it fails).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from bot.commands.audit import plan_audit
from bot.commands.inputs import Inputs
from bot.config import Config
from bot.plan.changelog.signals import visible_text
from bot.plan.planner import page_url, plan_sync
from bot.sources.enhancements import load_snapshot
from bot.sources.gate_lifecycle import load_gate_lifecycle
from bot.sources.release_notes import load_release_notes

pytestmark = pytest.mark.acceptance

SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
NOTES_DIR = SHARED / "data" / "release-notes"
GATES = SHARED / "data" / "feature-gates" / "versioned_feature_list.openshift-0b0e324c.yaml"
STALE = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"
CURRENT = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.md"
BASE = "b" * 40


@pytest.fixture(scope="module")
def clone(request) -> Path:
    if not all(p.exists() for p in (BUNDLE, NOTES_DIR, GATES, STALE, CURRENT)):
        if os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1":
            pytest.fail(f"{SHARED} is required (KEP_SYNC_REQUIRE_SHARED=1) but missing")
        pytest.skip(f"{SHARED} not present")
    return request.getfixturevalue("bundle_clone")


def _config(clone: Path, tmp: Path) -> Config:
    return Config.model_validate(
        {
            "enhancements": str(clone),
            "cache_dir": str(tmp / "cache"),
            "publish": "github",
            "wiki": {"repo": "acme/wiki", "pages": ["matrix.md"]},
        }
    )


def _digest(text: str, clone: Path) -> str:
    """sha256 of ``text`` with the clone's temporary path named ``<enhancements>`` (the same bytes every run)."""
    return hashlib.sha256(text.replace(str(clone), "<enhancements>").encode("utf-8")).hexdigest()


def test_without_a_gate_list_or_notes_the_output_is_the_pre_change_output(clone, tmp_path):
    """The pull request body and report of the stale page, and the audit of the current page, with neither
    release notes nor a gate list, pinned by sha256 (the clone's path replaced, see ``_digest``): the signals
    of a gate list or release notes change nothing without them. A change that means to alter this output
    re-pins the four digests the assertion prints, and says in its commit which lines changed and why."""
    config = _config(clone, tmp_path)
    snapshot = load_snapshot(str(clone), tmp_path / "cache")
    plan = plan_sync(
        config,
        snapshot,
        {"matrix.md": STALE.read_bytes()},
        history=Inputs(config, snapshot=snapshot).provenance()[0],
        page_url=page_url(config, BASE),
    )
    audit = plan_audit(
        config.model_copy(update={"publish": "none"}), snapshot, {"matrix.md": CURRENT.read_bytes()}, None
    )
    got = {
        "body": _digest(plan.changelog.body, clone),
        "report": _digest(json.dumps(plan.report, sort_keys=True), clone),
        "audit": _digest(audit.markdown, clone),
        "audit_report": _digest(json.dumps(audit.report, sort_keys=True), clone),
    }
    assert got == {  # to re-pin on purpose: copy the digests from the failure's left side
        # the Page column (one page: its name heads the column, each cell `L32`) and the Upstream column (the
        # pull request number and date, no title) changed; every other byte is as before
        "body": "99673b1ff64f1bd512a151dfdfbf2444ab2f60587c50d65637b465ac0febde83",
        "report": "03edd503dc908d058f921f0501ce9ee6c946656c73d4cbb1453eee07aff727d3",
        "audit": "b9517dadaa799d3675e9fc85a57e4214a933d2c4ccd270b4a5224a500242e60f",
        "audit_report": "edd41eed8490cfcea677cf492c34b357fa4ba4d515ff92cb2707499b66c08947",
    }


@pytest.fixture(scope="module")
def stale_plan(clone, tmp_path_factory):
    """The stale page's pull request body at the bundle's HEAD, with the notes 1.20-1.37 and the newer gate list."""
    tmp = tmp_path_factory.mktemp("signals")
    config = _config(clone, tmp)
    snapshot = load_snapshot(str(clone), tmp / "cache")
    return plan_sync(
        config,
        snapshot,
        {"matrix.md": STALE.read_bytes()},
        release_notes=lambda wanted: load_release_notes(str(NOTES_DIR), tmp / "cache", wanted),
        history=Inputs(config, snapshot=snapshot).provenance()[0],
        page_url=page_url(config, BASE),
        gates=lambda wanted: load_gate_lifecycle(str(GATES), tmp / "cache", wanted),
        gate_history=Inputs(config, snapshot=snapshot).gate_origins(),
    )


K, PR = "https://kep.k8s.io/", "https://github.com/kubernetes/kubernetes/pull/"
ENH = "https://github.com/kubernetes/enhancements/pull/"


def test_the_stale_page_body_leads_with_what_needs_a_look_and_fits_a_minute(stale_plan, clone):
    body = stale_plan.changelog.body
    look = body.split("\n\n<details>")[0].split("\n")[2:]
    assert look == [
        "### Needs a look",
        # the notes alone contradict it: the list's reading of v1.37, a release not closed, is no second source
        f"- ✗ [5732]({K}5732) beta v1.37: the v1.37 note [#138274]({PR}138274) says alpha",
        f"- off [5526]({K}5526) beta v1.37: the v1.37 note [#141209]({PR}141209) turned it off by default before "
        "release",
        # the one rewrite no source shows to be a slip: 5554 took InPlacePodVerticalScalingExclusiveCPUs (alpha
        # since v1.32) planning v1.36, so the list says nothing of its plan
        f"- ↺ 1 released milestone rewritten in 1 KEP, no source shows the slip: [5554]({K}5554) alpha v1.36 "
        "(kep.yaml history below)",
        "",
        # every mark of Needs a look (✗, off, ↺) is explained right under it, before the table uses them too
        # no "possible:" left: the notes naming 4563 and 5055 by their titles are read as the watch reads them
        "Signs: ↺ a released milestone rewritten; off a default turned off before release; ≠ a note of that release "
        f"names another stage; Shipped, per the gate list `{GATES}` (blob 92f09bc2f438) and the notes: ✓ confirmed, "
        "pending (release not closed), ✗ contradicted, unknown.",
    ]
    folded = body.split("<details><summary>Settled by the sources or unchanged here (11)</summary>\n\n")[1]
    assert folded.split("\n\n</details>")[0].split("\n") == [
        f"- ↺ [4817]({K}4817) GA v1.36 → v1.37: slip confirmed, the gate list shows DRAResourceClaimDeviceStatus "
        "beta in v1.36",
        f"- ↺ [2371]({K}2371) beta v1.36 → v1.37: slip confirmed, the gate list shows PodAndContainerStatsFromCRI "
        "alpha in v1.36",
        f"- ↺ [2033]({K}2033) beta v1.35 → v1.37: slip confirmed, the gate list shows KubeletInUserNamespace alpha "
        "in v1.35",
        f"- ↺ [4438]({K}4438) alpha v1.33 → v1.37: slip confirmed, the gate list has no "
        "SidecarsRestartableDuringPodTermination by v1.33; kep.yaml now plans alpha in v1.37",
        f"- ↺ [4438]({K}4438) beta v1.34 → v1.38: slip confirmed, the gate list has no "
        "SidecarsRestartableDuringPodTermination by v1.34; kep.yaml now plans alpha in v1.37",
        f"- ↺ [4438]({K}4438) GA v1.35 → v1.39: slip confirmed, the gate list has no "
        "SidecarsRestartableDuringPodTermination by v1.35; kep.yaml now plans alpha in v1.37",
        f"- ↺ [4563]({K}4563) alpha v1.36 → v1.37: slip confirmed, the gate list has no EvictionRequestAPI by "
        "v1.36; kep.yaml now plans alpha in v1.37",
        # cells this pull request does not change, each moved upstream on purpose (the merge that set the value)
        f"- ✗ [127]({K}127) beta v1.35, unchanged here: the gate list shows UserNamespacesSupport beta in v1.30, on "
        f"by default in v1.33; kep.yaml set v1.35 in [#5603]({ENH}5603) 2025-10-06",
        f"- ✗ [2837]({K}2837) alpha v1.33, unchanged here: the gate list shows PodLevelResources alpha in v1.32; "
        f"kep.yaml set v1.33 in [#5145]({ENH}5145) 2025-02-13",
        f"- ✗ [2371]({K}2371) alpha v1.29, unchanged here: the gate list shows PodAndContainerStatsFromCRI alpha in "
        f"v1.23; kep.yaml set v1.29 in [#4249]({ENH}4249) 2023-10-03",
        # not-in-notes on 5030 alpha v1.35, 4205 and 5055 alpha v1.33: the gate list confirms those stages
        f"- 2 findings on stages this pull request does not change: stage-mismatch [127]({K}127); gate-typo "
        f"[3695]({K}3695) (under Needs review)",
    ]
    settled = [f.message for f in stale_plan.discrepancies if f.kind == "not-in-notes" and f.kep_id in ("4205", "5055")]
    assert settled == [
        "kep.yaml says alpha in v1.33, but the v1.33 release notes never name KEP-4205 or its gates (gates KubeletPSI); "
        "check their prose, which may describe the feature in words only; the gate list confirms it: KubeletPSI "
        "alpha in v1.33",
        "kep.yaml says alpha in v1.33, but the v1.33 release notes never name KEP-5055 or its gates (gates "
        "DRADeviceTaintRules, DRADeviceTaints); check their prose, which may describe the feature in words only; "
        "the gate list confirms it: DRADeviceTaints alpha in v1.33",
    ]
    # What a reviewer reads before the folded sections: at most 6,000 visible characters (docs/reviewers.md;
    # scripts/check/body_size.py prints it). The paths are named as a user's config names them, so the figure
    # does not depend on where the checkout lives.
    named = body.replace(str(clone), "enhancements").replace(str(GATES), f"../shared/data/feature-gates/{GATES.name}")
    assert len(visible_text(named)) == 4282 <= 6000
    assert body.count(GATES.name) == 1  # the legend; never once per mark or finding
    assert "⚠" not in body.split("\n<details>")[0]  # one sign per meaning: ↺, ≠, ✗, off


def test_no_stage_of_the_release_in_progress_its_notes_announce_is_a_warning(stale_plan):
    rows = {
        line.split(" ", 2)[1].split("]")[0][1:]: line
        for line in stale_plan.changelog.body.splitlines()
        if line.startswith("| [") and "/matrix.md#L" in line
    }
    shipped = {
        k: rows[k].rsplit(" | ", 1)[1].removesuffix(" |")
        for k in ("5729", "4817", "4951", "2021", "5030", "2371", "2033", "5328", "5732", "127")
    }
    assert shipped == {
        "5729": "pending v1.37",
        "4817": "pending v1.37",
        "4951": "pending v1.37",
        "2021": "pending v1.37",
        "5030": "pending v1.37",
        "2371": "pending v1.37",
        "2033": "pending v1.37",
        "5328": "pending v1.37",
        "5732": "✗ v1.37",
        "127": "✓ v1.36",
    }
    # 4563's EvictionRequest API: the 1.37 note #137050 names it by its title, as the watch reads it (landed)
    assert f"| v1.37 [#137050]({PR}137050) | pending v1.37 |" in rows["4563"]
    # no "none found" for the release in progress: its notes are a draft
    evidence = {k: rows[k].rsplit(" | ", 2)[1] for k in ("5304", "5554", "4438", "5055", "5598", "5526")}
    # one sign, one meaning: "pending" is the Shipped column's (release not closed); Evidence says what it lacks
    assert evidence == {
        "5304": "no v1.37 note announces beta",
        "5554": "no v1.37 note announces alpha",
        "4438": "no v1.37 note announces alpha",
        # the GA note names 5055 by its title: one reading with the watch's, never "possible" here
        "5055": f"v1.37 [#138676]({PR}138676)",
        "5598": "v1.38 not released yet",
        # the row names the 1.37 note that turned 5526's beta off by default, next to the one promoting it
        "5526": f"v1.37 [#140573]({PR}140573)<br>off v1.37 [#141209]({PR}141209)",
    }
    assert "none found" not in stale_plan.changelog.body.split("\n<details>")[0]  # 2837's GA v1.37 too
    states = {(s.kep, s.stage): s for s in stale_plan.states}
    assert (states[("5732", "beta")].state, states[("5732", "beta")].source) == ("contradicted", "release notes")
    assert (
        states[("4951", "stable")].reason == "v1.37 is the release in progress; the v1.37 notes announce it (#140107)"
    )
    assert (
        states[("5055", "stable")].reason == "v1.37 is the release in progress; the v1.37 notes announce it (#138676)"
    )
    assert "2837" in rows and rows["2837"].rsplit(" | ", 2)[1] == "no v1.37 note announces GA"
    assert stale_plan.report["planned_stages"][0] == states[("4671", "alpha")].as_report()


@pytest.fixture(scope="module")
def audit(clone, tmp_path_factory):
    """``kep-sync audit`` of the current page with the notes (every release) and the gate list."""
    tmp = tmp_path_factory.mktemp("signals-audit")
    config = _config(clone, tmp).model_copy(update={"publish": "none"})
    snapshot = load_snapshot(str(clone), tmp / "cache")
    return plan_audit(
        config,
        snapshot,
        {"matrix.md": CURRENT.read_bytes()},
        load_release_notes(str(NOTES_DIR), tmp / "cache", None),
        gates=lambda wanted: load_gate_lifecycle(str(GATES), tmp / "cache", wanted),
        gate_history=Inputs(config, snapshot=snapshot).gate_origins(),
    )


def test_the_audit_finds_what_no_reading_of_the_list_explains_and_only_for_the_owner(audit):
    found = [(f["kind"], f["kep"], f["release"]) for f in audit.report["gate_lifecycle"]["findings"]]
    assert found == [
        ("gate-stage-mismatch", "127", "v1.35"),
        ("gate-stage-mismatch", "2371", "v1.29"),
        ("gate-stage-mismatch", "2837", "v1.33"),
        ("not-shipped", "5325", "v1.35"),  # HPASelectionStrategy is in no list and no note
        ("not-shipped", "5325", "v1.36"),  # its beta, on the same evidence: never `unknown` beside a ✗ alpha
        ("not-shipped", "5679", "v1.36"),
        ("not-shipped", "5394", "v1.36"),
        ("shipped-not-implemented", "2862", "v1.36"),
    ]
    states = {(s.kep, s.stage): (s.state, s.reason) for s in audit.states}
    # 4247: the gate was born beta in 1.28 and turned on by default in 1.32, as kep.yaml's beta says: no finding
    assert states[("4247", "alpha")] == (
        "unknown",
        "the gate list shows SchedulerQueueingHints born beta in v1.28, so nothing of alpha",
    )
    assert states[("4247", "beta")] == (
        "confirmed",
        "the gate list shows SchedulerQueueingHints beta in v1.28, on by default in v1.32; the v1.32 notes announce "
        "it (#128472)",
    )
    # 5554 took InPlacePodVerticalScalingExclusiveCPUs (alpha since 1.32) planning v1.36: no measure of its plan
    assert states[("5554", "alpha")][0] == "pending"
    # borrowers stay silent: 5419 and 5526 borrow 2837's PodLevelResources, 3695 4381's DynamicResourceAllocation
    assert {f["kep"] for f in audit.report["gate_lifecycle"]["findings"]} & {"5419", "5526", "3695"} == set()
    owners = {o["gate"]: (o["owner"], o["borrowers"], o["why"]) for o in audit.report["gate_ownership"]}
    assert owners["DynamicResourceAllocation"] == (
        "4381",
        ["3695"],  # 3063 declared it first and passed it on: no borrower
        "declared first by KEP 3063 (#3064 2022-06-23), now withdrawn; passed to KEP 4381, which links it; KEP 3695 "
        "added it later",
    )
    assert owners["PodLevelResources"] == (
        "2837",
        ["5419", "5526"],
        "declared first by KEP 2837 (#4678 2024-10-09); KEP 5419, 5526 added it later",
    )
    assert "- ✗ [6132](https://kep.k8s.io/6132) beta v1.37: the v1.37 notes [#138916]" in audit.markdown
    assert audit.markdown.count(GATES.name) == 1


def test_the_4381_note_is_evidence_through_ownership_on_the_blanked_page(clone, tmp_path):
    """The current page with every milestone blanked (scripts/check/eval_evidence.py's second page): 4381's GA is
    announced by the 1.35 note #134452 on the DynamicResourceAllocation gate, which 4381 owns."""
    from tests.scriptutil import ROOT, load_script

    blanked = load_script(ROOT / "scripts" / "check" / "eval_evidence.py").blank_milestones(CURRENT.read_text("utf-8"))
    config = _config(clone, tmp_path)
    snapshot = load_snapshot(str(clone), tmp_path / "cache")
    plan = plan_sync(
        config,
        snapshot,
        {"matrix.md": blanked.encode()},
        release_notes=lambda wanted: load_release_notes(str(NOTES_DIR), tmp_path / "cache", wanted),
        gate_history=Inputs(config, snapshot=snapshot).gate_origins(),
    )
    stable = [c for c in plan.changes if c.kep_id == "4381" and c.field == "stable"]
    assert [(e.release, e.pr, e.ambiguous) for c in stable for e in c.evidence] == [("v1.35", 134452, False)]
    assert [e for c in plan.changes if c.kep_id == "3695" for e in c.evidence if e.pr == 134452] == []
