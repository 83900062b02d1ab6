"""Gate ownership from a real git history: when each kep.yaml first declared its gates
(:meth:`bot.commands.inputs.Inputs.gate_origins`), end to end through ``kep-sync audit`` (a tiny repository
written here; the real bundle: tests/acceptance/test_acceptance_signals.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.commands.inputs import Inputs
from bot.config import Config
from bot.model.history.declared import Declared
from tests.gitutil import commit, make_repo
from tests.syncutil import kep_yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = "keps/sig-node/2837-spec/kep.yaml"
RESIZE = "keps/sig-node/5419-resize/kep.yaml"
LIST = """- name: PodLevelResources
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.32"}
  - {default: true, lockToDefault: false, preRelease: Beta, version: "1.34"}
- name: Later
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.36"}
"""


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    """2837 declares PodLevelResources first (alpha v1.32 then, v1.33 now); 5419 adds it later. Every commit has
    the same date: the first-parent order decides."""
    repo = tmp_path / "enh"
    first = make_repo(
        repo,
        {SPEC: kep_yaml(2837, "spec", sig="sig-node", alpha="v1.32", gates=("PodLevelResources",), latest="v1.32")},
        "Merge pull request #4678 from a/b",
    )
    second = commit(
        repo,
        {
            RESIZE: kep_yaml(5419, "resize", sig="sig-node", alpha="v1.35", gates=("PodLevelResources",)),
            SPEC: kep_yaml(2837, "spec", sig="sig-node", alpha="v1.33", gates=("PodLevelResources",)),
        },
        "Merge pull request #5420 from c/d",
    )
    return repo, first, second


def _config(tmp_path: Path, enhancements: str) -> Config:
    return Config.model_validate(
        {"enhancements": enhancements, "cache_dir": str(tmp_path / "cache"), "wiki": {"dir": str(tmp_path)}}
    )


def test_the_loader_gives_each_file_s_first_declaration_in_first_parent_order(tmp_path):
    repo, first, second = _repo(tmp_path)
    load = Inputs(_config(tmp_path, str(repo))).gate_origins()
    assert load is not None
    assert load([SPEC, RESIZE]) == {
        SPEC: {"PodLevelResources": Declared("2026-01-02T03:04:05Z", first, 4678, "v1.32", 0)},
        RESIZE: {"PodLevelResources": Declared("2026-01-02T03:04:05Z", second, 5420, "v1.35", 1)},
    }
    (tmp_path / "x.tar.gz").write_bytes(b"")
    assert Inputs(_config(tmp_path, str(tmp_path / "x.tar.gz"))).gate_origins() is None  # no history: no owner


def test_the_audit_names_the_owner_and_gives_it_the_finding(tmp_path):
    repo, _, _ = _repo(tmp_path)
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "m.md").write_text(
        "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
        "| 2837-spec | implementable / alpha | v1.33 / - / - |\n| 5419-resize | implementable / alpha | v1.35 / - / - |\n"
    )
    (tmp_path / "list.yaml").write_text(LIST)
    run = subprocess.run(
        [sys.executable, "-m", "bot.cli", "audit", "--enhancements", str(repo), "--wiki", str(wiki), "--page", "m.md"]
        + ["--gate-lifecycle", str(tmp_path / "list.yaml"), "--report", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "KEP_SYNC_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["gate_ownership"] == [
        {
            "gate": "PodLevelResources",
            "owner": "2837",
            "borrowers": ["5419"],
            "declarers": ["2837", "5419"],
            "why": "declared first by KEP 2837 (#4678 2026-01-02); KEP 5419 added it later",
        }
    ]
    assert [(f["kind"], f["kep"], f["release"]) for f in report["gate_lifecycle"]["findings"]] == [
        ("gate-stage-mismatch", "2837", "v1.33")
    ]
    assert "- ✗ [2837](https://kep.k8s.io/2837) alpha v1.33: the gate list shows PodLevelResources alpha in v1.32" in (
        run.stdout
    )
