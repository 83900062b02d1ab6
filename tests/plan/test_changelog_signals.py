"""The pull request body with release notes and a gate list: "Needs a look" first, one sign per meaning, one
message per row, the gate list named once, excerpts folded; the report's planned stages and gate owners.
Hand-written KEPs, notes and a list (the real data: tests/acceptance/test_acceptance_signals.py)."""

from __future__ import annotations

from bot.config import validate_config
from bot.model.gates import blob_sha, lifecycle, parse_gate_list
from bot.model.history.declared import Declared
from bot.model.notes import ReleaseNotes
from bot.plan.changelog.signals import visible_text
from bot.plan.planner import plan_sync
from bot.sources.gate_lifecycle import load_gate_lifecycle
from tests.plan.gatecases import LIST as GATES_LIST
from tests.plan.gatecases import PAGE as GATES_PAGE
from tests.plan.gatecases import gates_config
from tests.syncutil import kep, snapshot

LIST = b"""
- name: PodLevelResources
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.32"}
  - {default: true, lockToDefault: false, preRelease: Beta, version: "1.34"}
- name: TopologyAware
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.36"}
- name: PodLevelResourceManagers
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.36"}
- name: BindMountOptions
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.37"}
"""
PAGE = """| KEP | Status | Alpha / Beta / GA |
|---|---|---|
| 2837-spec | implementable / alpha | v1.32 / - / - |
| 5732-topo | implementable / alpha | v1.36 / - / - |
| 4563-EvictionRequest | implementable / alpha | v1.36 / - / - |
| 5526-managers | implementable / alpha | v1.36 / - / - |
"""
SPEC = "keps/sig-scheduling/2837-spec/kep.yaml"
RESIZE = "keps/sig-scheduling/5419-resize/kep.yaml"
NOTES = {
    "v1.36": {"1": {"text": "Fixed a bug.", "pr_number": 1}},
    "v1.37": {
        "138274": {
            "text": "Added `PlacementCycleState`, under the Alpha `TopologyAware` feature gate.",
            "pr_number": 138274,
        },
        "137050": {"text": "Added the EvictionRequest and Eviction resources.", "pr_number": 137050},
        "140573": {
            "text": "Promoted the `PodLevelResourceManagers` feature gate to Beta, enabled by default.",
            "pr_number": 140573,
        },
        "141209": {
            "text": "Disabled the `PodLevelResourceManagers` feature gate by default because of critical issues.",
            "pr_number": 141209,
        },
    },
}


def _plan():
    snap = snapshot(
        kep(2837, "spec", stage="beta", alpha="v1.33", beta="v1.34", gates=("PodLevelResources",), latest="v1.37"),
        kep(5419, "resize", alpha="v1.35", gates=("PodLevelResources",), latest="v1.37"),
        kep(5732, "topo", stage="beta", alpha="v1.36", beta="v1.37", gates=("TopologyAware",), latest="v1.37"),
        kep(4563, "EvictionRequest", alpha="v1.37", gates=("EvictionRequestAPI",), latest="v1.37"),
        kep(
            5526,
            "managers",
            stage="beta",
            alpha="v1.36",
            beta="v1.37",
            gates=("PodLevelResourceManagers",),
            latest="v1.37",
        ),
    )
    gl, _ = parse_gate_list("gates/list.yaml", LIST)
    origins = {
        SPEC: {"PodLevelResources": Declared("2024-10-09T10:00:00Z", "c1", 4678, "v1.32", 1)},
        RESIZE: {"PodLevelResources": Declared("2025-06-01T10:00:00Z", "c2", 5420, "v1.35", 2)},
    }
    return plan_sync(
        validate_config({}, "t"),
        snap,
        {"p.md": PAGE.encode()},
        release_notes=ReleaseNotes("notes", ("v1.36", "v1.37"), NOTES, ()),
        gates=lifecycle("gates/list.yaml", [gl]),
        gate_history=lambda paths: {p: origins[p] for p in paths if p in origins},
    )


KY = "https://github.com/kubernetes/enhancements/blob/0123456789abcdef0123456789abcdef01234567/keps/sig-scheduling"
PR = "https://github.com/kubernetes/kubernetes/pull"


def test_the_body_leads_with_what_needs_a_look_and_names_each_sign_and_the_gate_list_once():
    plan = _plan()
    body = plan.changelog.body
    blob = plan.report["gate_lifecycle"]["lists"][0]["revision"][:12]
    shown = body.split("\n<details>")[0]
    assert shown + "\n" == (
        "**kep-sync**: 8 changes in 4 KEPs (3 promoted, 5 retargeted), from `test` at `0123456789ab`.\n"
        "\n"
        "### Needs a look\n"
        # the notes alone contradict 5732's beta: the list's reading of v1.37, not closed, is no second source
        f"- ✗ [5732](https://kep.k8s.io/5732) beta v1.37: the v1.37 note [#138274]({PR}/138274) says alpha\n"
        "- ✗ [2837](https://kep.k8s.io/2837) alpha v1.33: the gate list shows PodLevelResources alpha in v1.32\n"
        f"- off [5526](https://kep.k8s.io/5526) beta v1.37: the v1.37 note [#141209]({PR}/141209) turned it off by "
        "default before release\n"
        "- ↺ 1 released milestone rewritten in 1 KEP, no source shows the slip: [2837](https://kep.k8s.io/2837) "
        "alpha v1.32 (kep.yaml history below)\n"
        "\n"
        "Signs: ↺ a released milestone rewritten; off a default turned off before release; possible: matched by "
        "title words only, never a confirmation; ≠ a note of that release names another stage; Shipped, per the "
        f"gate list `gates/list.yaml` (blob {blob}) and the notes: ✓ confirmed, pending (release not closed), ✗ "
        "contradicted, unknown.\n"
        "\n"
    )
    # 4563's alpha v1.36 is a slip the list proves (no EvictionRequestAPI by v1.36, alpha now v1.37): folded
    assert body.split("<details><summary>Settled by the sources or unchanged here (1)</summary>\n\n")[1].split("\n")[
        :3
    ] == [
        "- ↺ [4563](https://kep.k8s.io/4563) alpha v1.36 → v1.37: slip confirmed, the gate list has no "
        "EvictionRequestAPI by v1.36; kep.yaml now plans alpha in v1.37",
        "",
        "</details>",
    ]
    assert body.split("</details>\n\n### Graduations\n")[1].split("\n<details>")[0] == (
        "- alpha → **beta**: [2837](https://kep.k8s.io/2837), [5732](https://kep.k8s.io/5732), "
        "[5526](https://kep.k8s.io/5526)\n"
        "\n"
        "### Changes\n"
        "| KEP | p.md | Change | kep.yaml | Evidence | Shipped |\n"
        "|---|---|---|---|---|---|\n"
        "| [2837](https://kep.k8s.io/2837) KEP 2837 spec | L3 | stage: alpha → **beta**<br>alpha: v1.32 → "
        f"**v1.33** ↺<br>beta: - → **v1.34** | [kep.yaml]({KY}/2837-spec/kep.yaml) [L7]({KY}/2837-spec/kep.yaml#L7) "
        f"[L11]({KY}/2837-spec/kep.yaml#L11) [L12]({KY}/2837-spec/kep.yaml#L12) | none found | ✓ v1.34; ✗ v1.33 |\n"
        "| [5732](https://kep.k8s.io/5732) KEP 5732 topo | L4 | stage: alpha → **beta**<br>beta: - → **v1.37** "
        f"| [kep.yaml]({KY}/5732-topo/kep.yaml) [L7]({KY}/5732-topo/kep.yaml#L7) [L12]({KY}/5732-topo/kep.yaml#L12) "
        f"| no v1.37 note announces beta<br>≠ v1.37 [#138274]({PR}/138274) says alpha | ✗ v1.37 |\n"
        "| [4563](https://kep.k8s.io/4563) KEP 4563 EvictionRequest | L5 | alpha: v1.36 → **v1.37** ↺ | "
        f"[kep.yaml]({KY}/4563-EvictionRequest/kep.yaml) [L11]({KY}/4563-EvictionRequest/kep.yaml#L11) | "
        f"possible: v1.37 [#137050]({PR}/137050) | pending v1.37 |\n"
        "| [5526](https://kep.k8s.io/5526) KEP 5526 managers | L6 | stage: alpha → **beta**<br>beta: - → "
        f"**v1.37** | [kep.yaml]({KY}/5526-managers/kep.yaml) [L7]({KY}/5526-managers/kep.yaml#L7) "
        f"[L12]({KY}/5526-managers/kep.yaml#L12) | v1.37 [#140573]({PR}/140573)<br>off v1.37 [#141209]({PR}/141209) "
        "| pending v1.37 |\n"
    )
    assert body.count("gates/list.yaml") == 1  # the findings never name it again
    assert [line for line in body.split("\n") if line.startswith("<details>")] == [
        "<details><summary>Settled by the sources or unchanged here (1)</summary>",
        "<details><summary>Released milestones rewritten (2)</summary>",
        "<details><summary>Needs review (2)</summary>",
        "<details><summary>Needs review: feature-gate lifecycle (1)</summary>",
        "<details><summary>New KEPs to consider (1)</summary>",
        "<details><summary>Release notes cited (4)</summary>",
        "<details><summary>Problems (2)</summary>",
    ]
    assert (
        "\n".join(body.split("<details><summary>Release notes cited (4)</summary>\n\n")[1].split("\n")[:4])
        == f"- [5732](https://kep.k8s.io/5732) ≠ v1.37 [#138274]({PR}/138274): Added `PlacementCycleState`, under the "
        "Alpha `TopologyAware` feature gate.\n"
        f"- [4563](https://kep.k8s.io/4563) possible: v1.37 [#137050]({PR}/137050): Added the EvictionRequest and "
        "Eviction resources.\n"
        f"- [5526](https://kep.k8s.io/5526) v1.37 [#140573]({PR}/140573): Promoted the `PodLevelResourceManagers` "
        "feature gate to Beta, enabled by default.\n"
        # the note the Evidence column marks off is cited too
        # the note's own text, inert, as every other cited note
        f"- [5526](https://kep.k8s.io/5526) off v1.37 [#141209]({PR}/141209): Disabled the "
        "`PodLevelResourceManagers` feature gate by default because of critical issues."
    )
    assert len(visible_text(body)) == 1543
    # the gate list confirms both alphas no v1.36 note names: under Needs review, saying so; not in Needs a look
    assert [(f.kep_id, f.message.split("; ")[-1]) for f in plan.discrepancies] == [
        ("5526", "the gate list confirms it: PodLevelResourceManagers alpha in v1.36"),
        ("5732", "the gate list confirms it: TopologyAware alpha in v1.36"),
    ]


def test_the_report_carries_each_planned_stage_and_the_gate_owners():
    report = _plan().report
    assert [
        (s["kep"], s["stage"], s["release"], s["state"], s["source"], s["reason"]) for s in report["planned_stages"]
    ] == [
        ("2837", "alpha", "v1.33", "contradicted", "gate list", "the gate list shows PodLevelResources alpha in v1.32"),
        ("2837", "beta", "v1.34", "confirmed", "gate list", "the gate list shows PodLevelResources beta in v1.34"),
        ("5732", "alpha", "v1.36", "confirmed", "gate list", "the gate list shows TopologyAware alpha in v1.36"),
        (
            "5732",
            "beta",
            "v1.37",
            "contradicted",
            "release notes",
            "the v1.37 note #138274 says alpha",
        ),
        (
            "4563",
            "alpha",
            "v1.37",
            "pending",
            "release",
            "v1.37 is the release in progress; possible evidence: #137050 (matched by title words)",
        ),
        (
            "5526",
            "alpha",
            "v1.36",
            "confirmed",
            "gate list",
            "the gate list shows PodLevelResourceManagers alpha in v1.36",
        ),
        (
            "5526",
            "beta",
            "v1.37",
            "pending",
            "release",
            "v1.37 is the release in progress; the v1.37 notes announce it (#140573); the v1.37 note #141209 turned "
            "it off by default",
        ),
    ]
    assert report["planned_stages"][3]["notes"] == [
        {"release": "v1.37", "pr": 138274, "url": f"{PR}/138274", "role": "counter", "said": "alpha"}
    ]
    assert report["gate_ownership"] == [
        {
            "gate": "PodLevelResources",
            "owner": "2837",
            "borrowers": ["5419"],
            "declarers": ["2837", "5419"],
            "why": "declared first by KEP 2837 (#4678 2024-10-09); KEP 5419 added it later",
        }
    ]
    evict = next(c for c in report["changes"] if c["kep"] == "4563")
    assert (evict["evidence"], [e["pr"] for e in evict["possible_evidence"]]) == ([], [137050])


def test_visible_text_is_what_a_reader_sees_with_the_blocks_collapsed():
    body = (
        "**kep-sync**: 1 change, from `x`.\n\n| KEP | Evidence |\n|---|---|\n"
        "| [4671](https://kep.k8s.io/4671) Gang | v1.37 [#1](https://e/1)<br>none found |\n\n"
        "<details><summary>Problems (2)</summary>\n\n| a | b |\n|---|---|\n| hidden | hidden |\n\n</details>\n"
    )
    assert visible_text(body) == "kep-sync: 1 change, from x. KEP Evidence 4671 Gang v1.37 #1 none found Problems (2)"


def test_the_signs_follow_needs_a_look_or_else_the_table(tmp_path):
    config, list_file = gates_config(tmp_path)
    where = f"`{list_file}` (blob {blob_sha(GATES_LIST)[:12]})"
    signs = f"Signs: Shipped, per the gate list {where}: ✓ confirmed, pending (release not closed), ✗ contradicted, unknown."
    both = snapshot(
        kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"),
        kep(700, "notyet", gates=("Later",), stage="beta", alpha="v1.35", beta="v1.36"),
    )
    lines = plan_sync(
        config, both, {"p.md": GATES_PAGE.encode()}, gates=load_gate_lifecycle(str(list_file), tmp_path)
    ).changelog.body.split("\n")
    # 700's alpha v1.35 is no cell this pull request changes: folded, nothing needs a look
    assert lines[2:8] == [
        "<details><summary>Settled by the sources or unchanged here (1)</summary>",
        "",
        "- ✗ [700](https://kep.k8s.io/700) alpha v1.35, unchanged here: the gate list shows Later not yet in v1.35, "
        "alpha in v1.36",
        "",
        "</details>",
        "",
    ]
    assert "### Needs a look" not in "\n".join(lines)
    assert "\n".join(lines).split("### Changes\n")[1].split("\n\n")[1] == signs
    alone = snapshot(kep(100, "live", gates=("Alpha1",), stage="beta", alpha="v1.33", beta="v1.35"))
    body = plan_sync(
        config, alone, {"p.md": GATES_PAGE.encode()}, gates=load_gate_lifecycle(str(list_file), tmp_path)
    ).changelog.body
    assert "### Needs a look" not in body
    table = body.split("### Changes\n")[1].split("\n\n")
    assert table[1] == signs  # nothing needs a look: the signs follow the table
