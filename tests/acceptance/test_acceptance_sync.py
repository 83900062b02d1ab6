"""Real-data acceptance: sync the 2026-03-01 matrix page against the bundle's HEAD.

Runs the real CLI in a subprocess on a clone of ``../shared/data/enhancements-keps.bundle``
and a copy of ``../shared/wiki/kubernetes-keps-implementation-matrix.2026-03-01.md``; every
row must come out equal to the same KEP's row on the 2026-07-07 page and every other line
equal to the input. Skipped when ../shared is absent, failed instead when
``KEP_SYNC_REQUIRE_SHARED=1``. Nothing from ../shared is copied into the project.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.sources.enhancements import load_snapshot

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
OLD_PAGE = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"
NEW_PAGE = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.md"
PRESENT = BUNDLE.is_file() and OLD_PAGE.is_file() and NEW_PAGE.is_file()
REQUIRED = os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1"
REVISION = "00dd105d324ef39ef8919957155c6a1ddc4dc352"
# Computed once from the real data (bundle HEAD vs the 2026-03-01 page): 32 applied changes
# (12 promoted, 3 status, 17 retargeted) in 23 KEPs, plus 2 report-only feature gate drifts
# (2837, 3695) because feature_gates defaults to "report".
APPLIED, FINDINGS = 32, 2
TITLE = "# Update KEP matrix: 32 changes in 23 KEPs (12 promoted, 3 status changes, 17 retargeted)"
ROW = re.compile(r"^\| (\d+-[^ |]+) \|")

pytestmark = [pytest.mark.acceptance, pytest.mark.skipif(not PRESENT and not REQUIRED, reason=f"{SHARED} is absent")]


@pytest.fixture(scope="session")
def enhancements(bundle_clone) -> Path:
    """A clone of the bundle (a directory with keps/ that is a git checkout)."""
    if not PRESENT:
        pytest.fail(f"{BUNDLE}, {OLD_PAGE} or {NEW_PAGE} is absent and KEP_SYNC_REQUIRE_SHARED=1")
    return bundle_clone


def sync(enhancements: Path, tmp: Path, page: bytes) -> tuple[bytes, dict, str]:
    """Copy ``page`` into a fresh wiki under ``tmp``, run ``kep-sync sync --publish files``; (new bytes, report, stdout)."""
    wiki = tmp / "wiki"
    wiki.mkdir(exist_ok=True)
    (wiki / "matrix.md").write_bytes(page)
    return resync(enhancements, tmp)


def resync(enhancements: Path, tmp: Path) -> tuple[bytes, dict, str]:
    """Run the CLI again on ``tmp/wiki/matrix.md`` (cwd ``tmp``: built-in defaults, no config file)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KEP_SYNC_", "GITHUB_"))}
    env["KEP_SYNC_CACHE_DIR"] = str(tmp / "cache")
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.cli.main",
            "sync",
            "--enhancements",
            str(enhancements),
            "--wiki",
            "wiki",
            "--page",
            "matrix.md",
            "--publish",
            "files",
            "--report",
            "r.json",
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return (tmp / "wiki" / "matrix.md").read_bytes(), json.loads((tmp / "r.json").read_text()), proc.stdout


def rows_by_kep(lines: list[str]) -> dict[str, str]:
    """``{"4671-gang-scheduling": line}`` for every KEP row (first cell ``NNNN-slug``)."""
    out = {}
    for line in lines:
        m = ROW.match(line)
        if m:
            assert m.group(1) not in out, f"KEP {m.group(1)} twice"
            out[m.group(1)] = line
    return out


def assert_matches_target(result: str) -> None:
    """Acceptance 1: every row equals the same KEP's 2026-07-07 row; every other line equals the input."""
    old = OLD_PAGE.read_text(encoding="utf-8").split("\n")
    new = result.split("\n")
    target = rows_by_kep(NEW_PAGE.read_text(encoding="utf-8").split("\n"))
    assert len(new) == len(old)
    rows = 0
    for i, (before, after) in enumerate(zip(old, new, strict=False)):
        m = ROW.match(before)
        if m:
            rows += 1
            assert ROW.match(after) and ROW.match(after).group(1) == m.group(1), f"line {i + 1}"
            assert after == target[m.group(1)], f"line {i + 1}"
        else:
            assert after == before, f"line {i + 1}"
    assert rows == 62


@pytest.fixture(scope="module")
def first_run(enhancements, tmp_path_factory) -> tuple[Path, bytes, dict, str]:
    tmp = tmp_path_factory.mktemp("lf")
    return (tmp, *sync(enhancements, tmp, OLD_PAGE.read_bytes()))


def test_1_rows_equal_the_2026_07_07_page(first_run):
    _, result, report, stdout = first_run
    assert_matches_target(result.decode("utf-8"))
    assert result != OLD_PAGE.read_bytes()
    assert b"date: 2026-03-01" in result  # front matter untouched by default


def test_1_report_and_changelog(first_run):
    _, _, report, stdout = first_run
    assert set(report) == {
        "revision",
        "changes",
        "problems",
        "provenance",
        "candidates",
        "publish",
        "result",
        "pull_request",
        "pull_request_file",
        "pages_written",
        "rows_with_problems",
    }  # a git checkout has history
    assert report["rows_with_problems"] == 0  # every one of the 62 rows is read and written
    assert report["provenance"] == {"source": "git", "requests": 0, "proposed": APPLIED, "with_upstream": APPLIED}
    assert (report["publish"], report["result"], report["pull_request"]) == ("files", "ok", None)
    assert report["revision"] == REVISION
    applied = [c for c in report["changes"] if c["applied"]]
    assert (len(applied), len(report["changes"])) == (APPLIED, APPLIED + FINDINGS)
    assert {c["kind"] for c in applied} == {"promoted", "status", "retargeted"}
    assert sorted((c["kep"], c["field"]) for c in report["changes"] if not c["applied"]) == [
        ("2837", "feature_gates"),
        ("3695", "feature_gates"),
    ]
    assert all(c["proposed"] == c["applied"] for c in report["changes"])
    assert all(
        set(c) == {"kep", "page", "line", "field", "old", "new", "kind", "applied", "proposed", "kep_path", "upstream"}
        for c in report["changes"]
    )
    assert all(set(p) == {"path", "message"} for p in report["problems"])
    assert stdout.startswith(TITLE + "\n")
    assert f"/blob/{REVISION}/keps/sig-scheduling/4671-gang-scheduling/kep.yaml" in stdout


def test_2_second_run_changes_nothing(first_run, enhancements):
    tmp, result, report, _ = first_run
    again, report2, stdout = resync(enhancements, tmp)
    assert again == result
    assert [c for c in report2["changes"] if c["applied"]] == []
    assert report2["changes"] == [c for c in report["changes"] if not c["applied"]]  # report-only drifts stay
    assert stdout.startswith("# KEP matrix: no changes\n")


def test_3_crlf_page(enhancements, first_run, tmp_path):
    crlf = OLD_PAGE.read_bytes().replace(b"\n", b"\r\n")
    result, report, _ = sync(enhancements, tmp_path, crlf)
    assert result == first_run[1].replace(b"\n", b"\r\n")
    assert_matches_target(result.decode("utf-8").replace("\r\n", "\n"))
    assert sum(c["applied"] for c in report["changes"]) == APPLIED
    again, report2, _ = resync(enhancements, tmp_path)
    assert again == result
    assert not any(c["applied"] for c in report2["changes"])


def test_4_head_loads_654_keps_and_reports_the_real_defects(enhancements, first_run, tmp_path):
    snap = load_snapshot(str(enhancements), tmp_path)
    assert snap.revision == REVISION
    assert len(snap.all_keps()) == 654
    assert (len(snap.keps[0]), len(snap.keps[2133])) == (3, 2)
    problems = {(p["path"], p["message"]) for p in first_run[2]["problems"]}
    for path, message in [
        (
            "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml",
            "creation-date: '2025-30-01' is not a valid date (YYYY-MM-DD)",
        ),
        (
            "keps/sig-api-machinery/4355-coordinated-leader-election/kep.yaml",
            "creation-date: '2023-14-05' is not a valid date (YYYY-MM-DD)",
        ),
        (
            "keps/sig-node/2625-cpumanager-policies-thread-placement/kep.yaml",
            "status: 'imlpemented' is not a valid status "
            "(provisional, implementable, implemented, deferred, rejected, withdrawn, replaced)",
        ),
        (
            "keps/sig-instrumentation/1753-logs-sanitization/kep.yaml",
            "stage: 'alpha (deprecated)' is not a valid stage (alpha, beta, stable, deprecated, disabled, removed)",
        ),
        (
            "keps/sig-storage/1432-volume-health-monitor/kep.yaml",
            "milestone.alpha: 'v1.21, v1.37' is not a release milestone (vMAJOR.MINOR)",
        ),
        (
            "keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml",
            "kep-number: declares '1884' but the directory says 2043",
        ),
        (
            "keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml",
            "kep-number: number 2133 is used by 2 KEPs: "
            "keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml, "
            "keps/sig-node/2133-kubelet-credential-providers/kep.yaml",
        ),
    ]:
        assert (path, message) in problems
    assert sum(1 for _, m in problems if m.endswith("'0.0' is not a release milestone (vMAJOR.MINOR)")) == 99
