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
from bot.commands.sync import history_loader
from bot.config import Config
from bot.plan.planner import page_url, plan_sync
from bot.sources.enhancements import load_snapshot

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
    release notes nor a gate list: byte for byte what b26b635 gave (sha256 pinned from that revision)."""
    config = _config(clone, tmp_path)
    snapshot = load_snapshot(str(clone), tmp_path / "cache")
    plan = plan_sync(
        config,
        snapshot,
        {"matrix.md": STALE.read_bytes()},
        history=history_loader(config, snapshot)[0],
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
    assert got == {
        "body": "af6c3d383d3ce0694aec14f632d3cf726be86dfd97951c114173375e2f4daddf",
        "report": "03edd503dc908d058f921f0501ce9ee6c946656c73d4cbb1453eee07aff727d3",
        "audit": "b9517dadaa799d3675e9fc85a57e4214a933d2c4ccd270b4a5224a500242e60f",
        "audit_report": "edd41eed8490cfcea677cf492c34b357fa4ba4d515ff92cb2707499b66c08947",
    }
