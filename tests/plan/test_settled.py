"""A ``not-in-notes`` finding the gate list settles: the speaking gate, or the first of several own gates,
reached the stage in that release (bot/plan/evidence/settled.py)."""

from __future__ import annotations

from bot.model.finding import Finding
from bot.model.gates import lifecycle, parse_gate_list
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence.settled import list_confirms, settle
from tests.syncutil import kep, snapshot

LIST = b"""
- name: KubeletPSI
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.33"}
- name: DRADeviceTaints
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.33"}
- name: DRADeviceTaintRules
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.35"}
- name: Shared
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.33"}
- name: Late
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.34"}
- name: Later
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.35"}
- name: Newest
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.37"}
"""
SAYS = "kep.yaml says alpha in v1.33, but the v1.33 release notes never name it"


def _setup():
    snap = snapshot(
        kep(4205, "psi", alpha="v1.33", gates=("KubeletPSI",)),
        kep(5055, "taints", alpha="v1.33", gates=("DRADeviceTaints", "DRADeviceTaintRules")),
        kep(5056, "late", alpha="v1.33", gates=("Late", "Later")),
        kep(1, "one", alpha="v1.33", gates=("Shared",)),
        kep(2, "two", alpha="v1.33", gates=("Shared",)),
        kep(6, "open", alpha="v1.37", gates=("Newest",)),
    )
    lc = lifecycle("list.yaml", [parse_gate_list("list.yaml", LIST)[0]])
    keps = {k.path: k for k in snap.all_keps()}
    return keps, gates_mod.joins(keps.values(), list(keps.values()), lc), lc


def _path(keps, number: int) -> str:
    return next(p for p, k in keps.items() if k.number == number)


def test_the_list_confirms_a_stage_by_the_speaking_gate_or_the_first_own_gate_to_reach_it():
    keps, joins, lc = _setup()
    why = {n: list_confirms(keps[_path(keps, n)], "v1.33", joins[_path(keps, n)], lc) for n in (4205, 5055, 5056, 1)}
    assert why == {
        4205: "KubeletPSI alpha in v1.33",
        5055: "DRADeviceTaints alpha in v1.33",  # DRADeviceTaintRules was born alpha later, in v1.35
        5056: "",  # its first own gate reached alpha in v1.34, not v1.33
        1: "",  # a gate another live KEP declares settles nothing
    }
    assert list_confirms(keps[_path(keps, 6)], "v1.37", joins[_path(keps, 6)], lc) == ""  # not closed
    assert list_confirms(keps[_path(keps, 4205)], "v1.34", joins[_path(keps, 4205)], lc) == ""  # plans nothing


def test_settle_says_so_in_the_message_and_names_the_rows_settled():
    keps, joins, lc = _setup()
    psi, shared = _path(keps, 4205), _path(keps, 1)
    found = [
        Finding("not-in-notes", "4205", psi, "v1.33", SAYS),
        Finding("stage-mismatch", "4205", psi, "v1.33", "v1.33 notes say beta"),
        Finding("not-in-notes", "1", shared, "v1.33", SAYS),
    ]
    out, settled = settle(found, keps, joins, lc)
    assert [f.message for f in out] == [
        f"{SAYS}; the gate list confirms it: KubeletPSI alpha in v1.33",
        "v1.33 notes say beta",
        SAYS,
    ]
    assert settled == frozenset({(psi, "v1.33")})
