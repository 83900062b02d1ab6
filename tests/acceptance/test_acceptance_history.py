"""Real-data acceptance: provenance, ``history`` and ``digest`` on the enhancements bundle.

Every expected value was computed by hand from ``git log --first-parent -p`` of the bundle
(e.g. KEP-5732's stage went beta in 0c1e4494 (#6134), while the newest commit touching its
kep.yaml is 00dd105d (#6234)) and, for the digest, by ``scripts/check/check_digest.py``, which reads
the tree with its own parser. Skipped when ../shared is absent, failed when
``KEP_SYNC_REQUIRE_SHARED=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import structlog

from bot.cli.main import main
from bot.commands.sync import run_sync
from bot.config import Config

SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
OLD_PAGE = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"
PRESENT = BUNDLE.is_file() and OLD_PAGE.is_file()
REQUIRED = os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1"

pytestmark = [pytest.mark.acceptance, pytest.mark.skipif(not PRESENT and not REQUIRED, reason=f"{SHARED} is absent")]

HISTORY_4671 = "KEP 4671: keps/sig-scheduling/4671-gang-scheduling/kep.yaml (14 changes)\n2025-10-08   #5558  fd2be728fb94  path: - -> keps/sig-scheduling/4671-gang-scheduling/kep.yaml\n2025-10-08   #5558  fd2be728fb94  status: - -> implementable\n2025-10-08   #5558  fd2be728fb94  stage: - -> alpha\n2025-10-08   #5558  fd2be728fb94  latest-milestone: - -> v1.35\n2025-10-08   #5558  fd2be728fb94  milestone.alpha: - -> v1.35\n2025-10-08   #5558  fd2be728fb94  milestone.beta: - -> v1.36\n2025-10-08   #5558  fd2be728fb94  milestone.stable: - -> v1.38\n2025-10-08   #5558  fd2be728fb94  feature-gates: - -> GangScheduling, GenericWorkload\n2026-02-05   #5730  49b65b660f65  latest-milestone: v1.35 -> v1.36\n2026-02-05   #5730  49b65b660f65  feature-gates: GangScheduling, GenericWorkload -> DelayedPreemption, GangScheduling, GenericWorkload\n2026-02-11   #5893  9f5b2963f7d4  milestone.beta: v1.36 -> v1.37\n2026-05-28   #6076  a1c57693d8c9  stage: alpha -> beta\n2026-05-28   #6076  a1c57693d8c9  latest-milestone: v1.36 -> v1.37\n2026-05-28   #6076  a1c57693d8c9  feature-gates: DelayedPreemption, GangScheduling, GenericWorkload -> GenericWorkload\n"
HISTORY_4815 = "KEP 4815: keps/sig-scheduling/4815-dra-partitionable-devices/kep.yaml (19 changes)\n2024-10-10   #4874  0aac7755a5b2  path: - -> keps/sig-node/4815-dra-partitionable-devices/kep.yaml\n2024-10-10   #4874  0aac7755a5b2  status: - -> implementable\n2024-10-10   #4874  0aac7755a5b2  stage: - -> alpha\n2024-10-10   #4874  0aac7755a5b2  latest-milestone: - -> v1.32\n2024-10-10   #4874  0aac7755a5b2  milestone.alpha: - -> v1.32\n2024-10-10   #4874  0aac7755a5b2  milestone.beta: - -> v1.33\n2024-10-10   #4874  0aac7755a5b2  milestone.stable: - -> v1.34\n2024-10-10   #4874  0aac7755a5b2  feature-gates: - -> DRAPartitionableDevices\n2025-02-12   #5066  b64858bad9c3  path: keps/sig-node/4815-dra-partitionable-devices/kep.yaml -> keps/sig-scheduling/4815-dra-partitionable-devices/kep.yaml\n2025-02-12   #5066  b64858bad9c3  latest-milestone: v1.32 -> v1.33\n2025-02-12   #5066  b64858bad9c3  milestone.alpha: v1.32 -> v1.33\n2025-02-12   #5066  b64858bad9c3  milestone.beta: v1.33 -> v1.34\n2025-02-12   #5066  b64858bad9c3  milestone.stable: v1.34 -> v1.35\n2025-10-15   #5515  76a0fdcf84c1  latest-milestone: v1.33 -> v1.35\n2025-10-15   #5515  76a0fdcf84c1  milestone.beta: v1.34 -> -\n2025-10-15   #5515  76a0fdcf84c1  milestone.stable: v1.35 -> -\n2026-01-29   #5767  166a065398f5  stage: alpha -> beta\n2026-01-29   #5767  166a065398f5  latest-milestone: v1.35 -> v1.36\n2026-01-29   #5767  166a065398f5  milestone.beta: - -> v1.36\n"
#: scripts/check/check_digest.py /tmp/enh --sig node --from v1.33 --to v1.35 --at 2026-01-01 (revision 1aa5ddaf08b9).
DIGEST_NODE = {
    "stable": [
        753,
        1287,
        2008,
        2400,
        2625,
        2902,
        3288,
        3619,
        3673,
        3857,
        3960,
        3983,
        4033,
        4176,
        4210,
        4216,
        4369,
        4381,
        4438,
        4540,
        4622,
        4639,
        4817,
        4818,
        5067,
    ],
    "beta": [127, 2033, 2371, 2535, 2837, 2862, 3695, 3721, 4205, 4265, 4680, 4742, 4800, 5307, 5573, 5593],
    "alpha": [4188, 4960, 5328, 5394, 5419, 5526, 5532, 5607],
}
#: (kep, field) -> (commit, pr), read by hand from git log --first-parent -p of each kep.yaml.
BY_HAND = {
    ("4671", "stage"): ("a1c57693d8c94b84f12788d31c9dd5eea5949e15", 6076),
    ("5732", "stage"): ("0c1e449431b0aae0fd7014f6b7b0bf043f2e1732", 6134),
    ("2033", "beta"): ("8ecaaa9bbe4ba3dbb2e19f14ef33f0b860e43e16", 5694),
    ("3695", "status"): ("f35a88d0dc5fb859efcef00392156f3e74eb6a12", 6095),
    ("127", "status"): ("eae72998e185455ff5727f0cfc08dbfea1def8f7", 5968),
}


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KEP_SYNC_CONFIG", "/dev/null")
    yield
    structlog.reset_defaults()


@pytest.fixture(scope="module")
def clone(bundle_clone) -> Path:
    if not PRESENT:
        pytest.fail(f"{BUNDLE} or {OLD_PAGE} is absent and KEP_SYNC_REQUIRE_SHARED=1")
    return bundle_clone


def test_history_4671(clone, capsys):
    assert main(["history", "4671", "--enhancements", str(clone)]) == 0
    assert capsys.readouterr().out == HISTORY_4671


def test_history_4815_moved_from_sig_node_to_sig_scheduling(clone, capsys):
    assert main(["history", "4815", "--enhancements", str(clone)]) == 0
    assert capsys.readouterr().out == HISTORY_4815
    assert main(["history", "4815", "--enhancements", str(clone), "--format", "json"]) == 0
    moves = [e for e in json.loads(capsys.readouterr().out) if e["field"] == "path" and e["old"]]
    assert moves == [
        {
            "commit": "b64858bad9c37b97b24f3649c97c976d326fccdf",
            "date": "2025-02-12T07:32:06-08:00",
            "pr": 5066,
            "subject": "KEP-4815 DRA Partitionable devices design update",
            "path": "keps/sig-scheduling/4815-dra-partitionable-devices/kep.yaml",
            "field": "path",
            "old": "keps/sig-node/4815-dra-partitionable-devices/kep.yaml",
            "new": "keps/sig-scheduling/4815-dra-partitionable-devices/kep.yaml",
        }
    ]


def test_history_from_the_bundle_file_itself(capsys):
    assert main(["history", "4671", "--enhancements", str(BUNDLE)]) == 0
    assert capsys.readouterr().out == HISTORY_4671


def test_digest_sig_node_133_135_at_2026_01_01(clone, capsys):
    assert (
        main(
            [
                "digest",
                "--enhancements",
                str(clone),
                "--sig",
                "node",
                "--from",
                "v1.33",
                "--to",
                "v1.35",
                "--at",
                "2026-01-01",
                "--format",
                "json",
            ]
        )
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    assert {k: [e["kep"] for e in v] for k, v in got.items()} == {
        k: DIGEST_NODE[k] for k in ("alpha", "beta", "stable")
    }


def test_provenance_on_the_2026_03_01_page(clone, tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "matrix.md").write_bytes(OLD_PAGE.read_bytes())
    config = Config.model_validate(
        {
            "enhancements": str(clone),
            "cache_dir": str(tmp_path / "cache"),
            "wiki": {"dir": str(tmp_path / "wiki"), "pages": ["matrix.md"]},
        }
    )
    plan = run_sync(config).plan
    applied = [c for c in plan.changes if c.applied]
    assert plan.report["provenance"] == {"source": "git", "requests": 0, "proposed": 32, "with_upstream": 32}
    assert (len(applied), [c.kep_id for c in applied if c.upstream is None]) == (32, [])
    got = {
        (c.kep_id, c.field): (c.upstream.commit, c.upstream.pr) for c in plan.changes if (c.kep_id, c.field) in BY_HAND
    }
    assert got == BY_HAND
    # the Upstream column gives the pull request's number and day; its subject is under the rewrites
    assert ("| [#6134](https://github.com/kubernetes/enhancements/pull/6134) 2026-06-11 |") in plan.changelog.body
