"""Real-data acceptance: load the upstream enhancements bundle (../shared) in every local form.

Skipped when ``../shared/data/enhancements-keps.bundle`` (relative to the
project root) is absent. The bundle is read in place and cloned to a temporary
directory; nothing from ``../shared`` is copied into the project.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bot.model.kep import TEMPLATE_DIRS, Problem
from bot.model.snapshot import Snapshot, resolve
from bot.sources.enhancements import load_snapshot

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT.parent / "shared" / "data" / "enhancements-keps.bundle"
REVISION = "00dd105d324ef39ef8919957155c6a1ddc4dc352"
STATUSES = "provisional, implementable, implemented, deferred, rejected, withdrawn, replaced"
STAGES = "alpha, beta, stable, deprecated, disabled, removed"

pytestmark = [
    pytest.mark.acceptance,
    pytest.mark.skipif(not BUNDLE.is_file(), reason=f"{BUNDLE} is absent"),
]


@pytest.fixture(scope="module")
def checkout(bundle_clone) -> Path:
    """The session's clone of the bundle, at its ``master``."""
    return bundle_clone


@pytest.fixture(scope="module")
def snapshots(checkout, tmp_path_factory) -> dict[str, Snapshot]:
    cache = tmp_path_factory.mktemp("cache")
    return {
        "dir": load_snapshot(str(checkout), cache),
        "bundle": load_snapshot(str(BUNDLE), cache),
        "file-url": load_snapshot(f"file://{checkout}", cache),
    }


FORMS = ["dir", "bundle", "file-url"]


@pytest.fixture(params=FORMS)
def snap(request, snapshots) -> Snapshot:
    return snapshots[request.param]


def problems(snap: Snapshot) -> list[Problem]:
    return snap.all_problems()


def test_revision_is_the_bundle_head(snapshots, checkout):
    head = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert head == REVISION
    assert snapshots["bundle"].revision == REVISION
    assert snapshots["file-url"].revision == REVISION
    assert snapshots["dir"].revision == REVISION  # the directory is a checkout
    assert snapshots["bundle"].source == str(BUNDLE)  # as given, never the resolved path
    assert snapshots["dir"].source == str(checkout)


def test_every_form_gives_the_same_snapshot(snapshots):
    base = snapshots["dir"]
    for form in FORMS[1:]:
        other = snapshots[form]
        assert other.keps == base.keps, form
        assert other.prr == base.prr, form
        assert other.problems == base.problems, form


def test_exactly_654_kep_files_and_no_templates(snap):
    keps = snap.all_keps()
    assert len(keps) == 654
    assert len({k.path for k in keps}) == 654
    assert not [k.path for k in keps if any(k.path.startswith(t) for t in TEMPLATE_DIRS)]
    assert "keps/NNNN-kep-template/kep.yaml" not in {k.path for k in keps}
    assert "keps/sig-cloud-provider/providers/0000-cloud-provider-template/kep.yaml" not in {k.path for k in keps}
    assert all(k.path.startswith("keps/") and k.path.endswith("/kep.yaml") for k in keps)


def test_prr_files(snap):
    assert sum(len(paths) for paths in snap.prr.values()) == 450
    assert all(p.startswith("keps/prod-readiness/") for paths in snap.prr.values() for p in paths)


def test_cluster_resource_claim_template_is_a_real_kep(snap):
    (kep,) = resolve(snap, 5978)
    assert kep.path == "keps/sig-node/5978-cluster-resource-claim-template/kep.yaml"
    assert kep.slug == "cluster-resource-claim-template"
    assert kep.sig == "sig-node"


@pytest.mark.parametrize(
    "problem",
    [
        Problem(
            "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml",
            "creation-date",
            "'2025-30-01' is not a valid date (YYYY-MM-DD)",
        ),
        Problem(
            "keps/sig-api-machinery/4355-coordinated-leader-election/kep.yaml",
            "creation-date",
            "'2023-14-05' is not a valid date (YYYY-MM-DD)",
        ),
        Problem(
            "keps/sig-node/2625-cpumanager-policies-thread-placement/kep.yaml",
            "status",
            f"'imlpemented' is not a valid status ({STATUSES})",
        ),
        Problem(
            "keps/sig-instrumentation/1753-logs-sanitization/kep.yaml",
            "status",
            f"'implemented (alpha)' is not a valid status ({STATUSES})",
        ),
        Problem(
            "keps/sig-api-machinery/4153-declarative-validation/kep.yaml",
            "status",
            f"'superseded' is not a valid status ({STATUSES})",
        ),
        Problem(
            "keps/sig-node/281-dynamic-kubelet-configuration/kep.yaml",
            "status",
            f"'removed' is not a valid status ({STATUSES})",
        ),
        Problem(
            "keps/sig-instrumentation/1753-logs-sanitization/kep.yaml",
            "stage",
            f"'alpha (deprecated)' is not a valid stage ({STAGES})",
        ),
        Problem(
            "keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml",
            "kep-number",
            "declares '1884' but the directory says 2043",
        ),
        Problem(
            "keps/sig-cli/3515-kubectl-explain-openapiv3/kep.yaml",
            "milestone.alpha",
            "'1.26' lacks the 'v' prefix (read as v1.26)",
        ),
        Problem(
            "keps/sig-storage/1432-volume-health-monitor/kep.yaml",
            "milestone.alpha",
            "'v1.21, v1.37' is not a release milestone (vMAJOR.MINOR)",
        ),
        Problem(
            "keps/sig-instrumentation/3498-extending-stability/kep.yaml",
            "feature-gates[0].name",
            "'n/a' is a placeholder, not a gate",
        ),
        Problem(
            "keps/sig-storage/3314-csi-changed-block-tracking/kep.yaml",
            "feature-gates[0].name",
            "'None' is a placeholder, not a gate",
        ),
        Problem(
            "keps/sig-storage/3141-prevent-volume-mode-conversion/kep.yaml",
            "feature-gates[0].name",
            "'' is a placeholder, not a gate",
        ),
        Problem("keps/sig-network/536-topology-aware-routing/kep.yaml", "stage", "missing or empty"),
    ],
    ids=lambda p: f"{p.path.split('/')[2]}:{p.key}",
)
def test_known_upstream_defects_are_reported(snap, problem):
    assert problem in problems(snap)


def test_duplicate_numbers(snap):
    zero = [
        "keps/sig-architecture/0000-kep-process/kep.yaml",
        "keps/sig-contributor-experience/0000-community-forum/kep.yaml",
        "keps/sig-release/0000-anago-to-krel-migration/kep.yaml",
    ]
    dup = [
        "keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml",
        "keps/sig-node/2133-kubelet-credential-providers/kep.yaml",
    ]
    assert [k.path for k in snap.keps[0]] == zero
    assert [k.path for k in snap.keps[2133]] == dup
    assert snap.problems == (
        Problem(zero[0], "kep-number", f"number 0 is used by 3 KEPs: {', '.join(zero)}"),
        Problem(dup[0], "kep-number", f"number 2133 is used by 2 KEPs: {', '.join(dup)}"),
    )
    assert [k.path for k in resolve(snap, 2133, "kubelet-credential-providers")] == [dup[1]]
    assert len(resolve(snap, 0)) == 3
    assert sum(1 for n, ks in snap.keps.items() if len(ks) > 1) == 2


def test_sig_node_2043_is_filed_under_its_directory_number(snap):
    (kep,) = snap.keps[2043]
    assert kep.slug == "pod-resource-concrete-assigments"


def test_dates_stay_strings_and_every_file_parsed(snap):
    # No file-level problems besides the duplicate numbers: every kep.yaml was loadable.
    assert {p.key for p in snap.problems} == {"kep-number"}
    keys = Counter(p.key for p in problems(snap))
    assert keys["creation-date"] >= 2


def test_placeholder_milestones(snap):
    zero = {p.path for p in problems(snap) if p.message == "'0.0' is not a release milestone (vMAJOR.MINOR)"}
    assert len(zero) == 99
    counts = {
        value: sorted(
            p.path for p in problems(snap) if p.message == f"{value!r} is not a release milestone (vMAJOR.MINOR)"
        )
        for value in ("TBD", "x.y")
    }
    assert len(counts["TBD"]) == 37
    assert counts["x.y"] == ["keps/sig-autoscaling/2021-scale-from-zero/kep.yaml"]
