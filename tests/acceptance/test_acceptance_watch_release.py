"""Real-data acceptance for ``kep-sync watch --all``: every kep.yaml naming v1.37 at the bundle's HEAD, with the
release notes 1.20-1.37 and the newer gate list (openshift-0b0e324c), read in place from ../shared.

Checked by hand against the 1.37 notes (``release-notes-1.37.json``) and ``git log --first-parent -p`` of each
kep.yaml: #138676 "Promoted the DRA Device Taints and Tolerations feature to GA" is 5055's GA; #140000 adds
"scheduler support for preempting ... in-place Pod resizes" behind ``InPlacePodVerticalScalingSchedulerPreemption``,
a gate no kep.yaml declares (5836 declares ``SchedulerPreemptionForPodResize``); #139929 adds "the standard device
attribute ``resource.kubernetes.io/numaNode``" (6072, no gate, GA its first stage); #137050 adds "the
EvictionRequest and Eviction resources" (4563 *EvictionRequest API*); #140029 links KEP 6080 in ``documentation``
and adds "derived attributes in DRA"; 4680's kep.yaml is at beta, latest-milestone v1.36, though its GA milestone
says v1.37. 5710 declared ``WorkloadAwarePreemption`` until #6106 (2026-06-12). Skipped when ../shared is absent,
failed when ``KEP_SYNC_REQUIRE_SHARED=1``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from bot.commands.watch import run_watch
from bot.config import Config
from bot.model.kep import STAGES, normalize_milestone
from tests.acceptance.shareddata import LIST, NOTES, PAGE, PRESENT, REQUIRED, SHARED, WIKI

pytestmark = [pytest.mark.acceptance, pytest.mark.skipif(not PRESENT and not REQUIRED, reason=f"{SHARED} is absent")]


@pytest.fixture(scope="module")
def whole(bundle_clone, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("watch-all")
    config = Config(
        enhancements=str(bundle_clone),
        cache_dir=str(tmp / "cache"),
        wiki={"dir": str(WIKI), "pages": [PAGE]},
        release_notes={"source": str(NOTES)},
        gate_lifecycle={"source": str(LIST)},
    )
    return run_watch(config, report_path=tmp / "watch.json", whole=True), tmp / "watch.json"


def test_every_sign_is_read_and_the_right_note_lands_each_kep(whole):
    by_kep = {e.kep: e for e in whole[0].watch.entries}
    landed = {
        k: [s.pr for s in by_kep[k].signs if s.says == "landed"] for k in ("4563", "5055", "5836", "6072", "6080")
    }
    assert {k: by_kep[k].state for k in landed} == dict.fromkeys(landed, "landed")
    assert landed == {"4563": [137050], "5055": [138676], "5836": [140000], "6072": [139929], "6080": [140029]}
    # the bug-fix note #139651 that names 5055's gate no longer hides the GA note
    assert [s.pr for s in by_kep["5055"].signs if s.source == "release note"] == [139651, 138676]
    assert by_kep["5836"].reason == (
        "the v1.37 note #140000 announces alpha, naming the KEP by its title and the gate "
        "InPlacePodVerticalScalingSchedulerPreemption, which kep.yaml does not declare (SchedulerPreemptionForPodResize)"
    )
    assert (by_kep["4680"].state, by_kep["4680"].reason) == (
        "no sign yet",
        "kep.yaml not set for GA in v1.37; the v1.37 note #139477 names no stage",
    )
    renamed = [s.text for s in by_kep["5710"].signs if "no longer declares" in s.text]
    assert renamed[-1] == (
        "the v1.37 note #139980 names no stage (names WorkloadAwarePreemption, a gate kep.yaml no longer declares; "
        "it declares GenericWorkload)"
    )
    assert len(renamed) == 4  # #139373, #139520, #139674, #139980


def test_all_lists_every_kep_yaml_naming_v1_37_with_its_sig(whole, bundle_clone):
    from bot.sources.enhancements import load_snapshot

    done, _ = whole
    snapshot = load_snapshot(str(bundle_clone), Path("/nonexistent-cache"))
    planning = {k.path: k for k in snapshot.all_keps() if any(normalize_milestone(k.milestone(s)) == "v1.37" for s in STAGES)}  # fmt: skip
    listed = {e.kep_path: e for e in done.watch.entries}
    assert len(planning) == 88
    assert set(planning) <= set(listed)
    assert {p: listed[p].sig for p in planning} == {p: k.sig for p, k in planning.items()}
    assert all(e.sig.startswith("sig-") for e in done.watch.entries)
    assert {e.kep: e.reason for e in listed.values() if e.kep_path not in planning} == {
        "5075": "GA moved v1.37 → v1.38 on 2026-06-09 (#6102)",
        "5547": "beta moved v1.37 → (none) on 2026-06-16 (#6153)",
        "5598": "GA moved v1.37 → v1.38 on 2026-06-17 (#6039)",
    }
    assert listed["keps/sig-node/5978-cluster-resource-claim-template/kep.yaml"].state == "slipped"  # withdrawn
    targeting = {e.kep: e for e in done.watch.targeting}
    assert {"5517", "5677"} <= set(targeting)
    assert targeting["5517"].reason == "latest-milestone v1.37, stage alpha (alpha v1.36): no stage planned in v1.37"
    sigs = [line for line in done.text.splitlines() if line.startswith("== ")]
    assert sigs[0] == "== sig-api-machinery (9 KEPs: 3 no sign yet, 5 on track, 1 landed; 3 with no new stage)"
    assert len(sigs) == 12
    assert "5517  DRA Node Allocatable Resources  (no new stage in v1.37)  no new stage  [page: " in done.text


def test_the_report_carries_the_row_sig_gates_and_slip_target(whole):
    import json

    _, path = whole
    report = json.loads(path.read_text(encoding="utf-8"))["watch"]
    lines = (WIKI / PAGE).read_text(encoding="utf-8").split("\n")
    by_kep = {e["kep"]: e for e in report["keps"]}
    on_page = [e for e in report["keps"] if e["rows"]]
    assert len(on_page) == 34
    for e in on_page:
        [row] = e["rows"]
        assert row["page"] == PAGE and lines[row["line"] - 1].startswith(f"| {e['kep']}"), e["kep"]
    slipped = by_kep["5075"]
    assert (slipped["sig"], slipped["status"], slipped["stage"], slipped["gates"], slipped["slipped_to"]) == (
        "sig-scheduling",
        "implementable",
        "beta",
        ["DRAConsumableCapacity"],
        "v1.38",
    )
    assert [(s["pr"], s["url"]) for s in by_kep["4671"]["signs"] if s["source"] == "kep.yaml"] == [
        (6076, "https://github.com/kubernetes/enhancements/pull/6076")
    ]
    assert report["read"]["scope"] == "all" and report["read"]["release_notes"]["releases"] == ["v1.36", "v1.37"]
    assert report["read"]["gate_list"]["newest"] == "v1.37" and report["read"]["history"] is True
    assert report["read"]["records"] is None  # no --sig-release: "Could not see" names them


def test_a_second_reading_of_the_notes_naming_a_kep_agrees_but_for_one_explained(whole, bundle_clone, capsys):
    script = Path(__file__).resolve().parents[2] / "scripts" / "check" / "check_named_notes.py"
    spec = importlib.util.spec_from_file_location("check_named_notes", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = ["--enhancements", str(bundle_clone), "--release", "v1.37", "--notes", str(NOTES)]
    assert module.main([*args, "--watch-report", str(whole[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    # 6089 "Workload Aware Scheduling Controller APIs": no title word only it has; #140188 is 5547's Job work
    assert out[-2:] == [
        "disagree: this reading: 6089 #140188 names the KEP and its stage; the watch does not count it",
        "1 disagreements",
    ]
    assert "13 notes name a KEP planned in v1.37 by its title" in out
