"""Real-data acceptance for the release team's records (``--sig-release ../shared/data/sig-release``): the key
dates of 1.20-1.37 as the release team wrote them, the freeze exceptions, and the watch of v1.37 at the bundle's
HEAD (2026-07-22, v1.37's Code Freeze day) following the calendar. Dates checked by hand against each README's
Summary list and Timeline table (``scripts/check/check_calendar.py`` reads the table with its own rules).
Skipped when ../shared is absent, failed when ``KEP_SYNC_REQUIRE_SHARED=1``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.commands.watch import run_watch
from bot.config import Config
from bot.model.release_calendar import KEY_DATES
from bot.sources.sig_release import load_records

SHARED = Path(__file__).resolve().parents[3] / "shared"
RECORDS = SHARED / "data" / "sig-release"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
NOTES = SHARED / "data" / "release-notes"
LIST = SHARED / "data" / "feature-gates" / "versioned_feature_list.openshift-0b0e324c.yaml"
WIKI = SHARED / "wiki"
PAGE = "kubernetes-keps-implementation-matrix.md"
PRESENT = RECORDS.is_dir() and BUNDLE.is_file() and NOTES.is_dir() and LIST.is_file()
REQUIRED = os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1"

pytestmark = [pytest.mark.acceptance, pytest.mark.skipif(not PRESENT and not REQUIRED, reason=f"{SHARED} is absent")]


def records_config(bundle_clone: Path, tmp_path: Path) -> Config:
    """The shared page read against the bundle, the release notes, the feature gate list and the SIG Release
    records, with a cache of its own under ``tmp_path``."""
    return Config(
        enhancements=str(bundle_clone),
        cache_dir=str(tmp_path / "cache"),
        wiki={"dir": str(WIKI), "pages": [PAGE]},
        release_notes={"source": str(NOTES)},
        gate_lifecycle={"source": str(LIST)},
        release={"sig_release": str(RECORDS)},
    )


def test_every_key_date_of_1_23_to_1_37_is_read_and_1_20_to_1_22_say_they_have_no_year(tmp_path):
    records = load_records(str(RECORDS), tmp_path)
    assert sorted(records.calendars, key=lambda r: int(r.split(".")[1])) == [f"v1.{m}" for m in range(20, 38)]
    full = [r for r, c in records.calendars.items() if set(c.dates) == set(KEY_DATES)]
    assert sorted(full, key=lambda r: int(r.split(".")[1])) == [f"v1.{m}" for m in range(23, 38)]
    readme = [p for p in records.problems if p.path.endswith("README.md")]
    assert len(readme) == 15 and all("no year in" in p.message for p in readme)
    assert {p.path for p in readme} == {f"release-1.{m}/README.md" for m in (20, 21, 22)}
    days = {r: [c.day(k) for k in KEY_DATES] for r, c in records.calendars.items()}
    assert days["v1.37"] == ["2026-05-18", "2026-06-09", "2026-06-16", "2026-07-22", "2026-08-05", "2026-08-26"]
    assert days["v1.34"] == ["2025-05-19", "2025-06-12", "2025-06-20", "2025-07-25", "2025-08-06", "2025-08-27"]
    assert days["v1.24"] == ["2022-01-10", "2022-01-27", "2022-02-04", "2022-03-30", "2022-04-12", "2022-05-03"]
    assert days["v1.23"] == ["2021-08-23", "2021-09-02", "2021-09-09", "2021-11-16", "2021-11-30", "2021-12-07"]


def test_the_freeze_exceptions_the_issue_names(tmp_path):
    records = load_records(str(RECORDS), tmp_path)
    assert [(e.release, e.kind, e.status, e.reviewed) for e in records.of_kep(2033)] == [
        ("v1.22", "enhancementFreeze", "approved", "2021-05-21"),
        ("v1.35", "codeFreeze", "rejected", "2025-11-10"),
        ("v1.36", "enhancementFreeze", "rejected", "2026-02-18"),
    ]
    assert [(e.release, e.kind, e.status) for e in records.of_kep(5526)] == [("v1.35", "codeFreeze", "rejected")]
    assert sum(len(v) for v in records.exceptions.values()) == 171
    exc = [p for p in records.problems if p.path.endswith("exceptions.yaml")]
    assert [(p.path, p.key) for p in exc] == [("release-1.20/exceptions.yaml", "line 26")]  # a trailing comma


def test_v1_37_at_the_bundles_head_follows_the_calendar_named_with_its_source(bundle_clone, tmp_path):
    config = records_config(bundle_clone, tmp_path)
    done = run_watch(config)
    c = done.watch.cycle
    assert (c.started, c.started_from, c.calendar.day("code_freeze"), c.as_of) == (
        "2026-05-18",
        "release-1.37/README.md",
        "2026-07-22",
        "2026-07-22",
    )
    lines = done.text.splitlines()
    assert lines[2:7] == [
        "Cycle began: 2026-05-18, from release-1.37/README.md (the release team's schedule, line 32)",
        "Enhancements Freeze: 2026-06-16, from release-1.37/README.md",
        "Code Freeze: 2026-07-22, from release-1.37/README.md",
        "Release: 2026-08-26, from release-1.37/README.md",
        "As of: 2026-07-22 (UTC), code freeze",
    ]
    states = {s: [e.kep for e in done.watch.entries if e.state == s] for s in ("contradicted", "slipped", "landed")}
    assert states == {
        "contradicted": ["5732", "6132"],
        "slipped": ["5075", "5598"],
        "landed": ["2021", "2033", "2371", "4563", "4671", "4817", "4951", "5030", "5055", "5328", "5526", "5710",
                   "5729", "5836", "5945", "5963", "6012", "6072", "6080", "6089"],
    }  # fmt: skip
    at_risk = {e.kep: e.reason for e in done.watch.entries if e.state == "at risk"}
    assert sorted(at_risk) == ["2837", "4438", "4680", "5007", "5304", "5325", "5554", "5679", "5941", "6122"]
    assert at_risk["4680"] == (
        "Code Freeze 2026-07-22 (release-1.37/README.md) reached and no note or gate entry says GA yet; "
        "no Code Freeze exception"
    )
    [managers] = [e for e in done.watch.entries if e.kep == "5526"]
    assert managers.reason == "the v1.37 note #140573 announces beta; but the v1.37 note #141209 turns its default off"
    assert done.report["watch"]["release"]["calendar"]["code_freeze"] == {
        "day": "2026-07-22",
        "source": "release-1.37/README.md",
        "line": 37,
    }
    assert not [line for line in lines if line.startswith("Could not see")]
    # the 16 problems of the records are 1.20-1.22's (no year): a v1.37 watch reads none of those files
    assert f"Release team's records: {RECORDS / 'releases'} (18 releases)" in lines
    assert done.report["problems"] == []
    assert "data_until" not in done.report["watch"]["release"]
    earlier = run_watch(
        config.model_copy(update={"release": config.release.model_copy(update={"today": "2026-06-01"})})
    )
    assert earlier.text.splitlines()[6:8] == [
        "As of: 2026-06-01 (UTC), before enhancements freeze",
        "Data newer than the day: the kep.yaml history reaches 2026-07-22, after 2026-06-01; signs dated after "
        "2026-06-01 are counted as read",
    ]
    assert (earlier.report["watch"]["release"]["as_of"], earlier.report["watch"]["release"]["data_until"]) == (
        "2026-06-01",
        "2026-07-22",
    )


def test_a_rewritten_released_milestone_names_the_exception_that_explains_it(bundle_clone, tmp_path, capsys):
    from bot.cli.main import main

    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / PAGE).write_bytes((WIKI / "kubernetes-keps-implementation-matrix.2026-03-01.md").read_bytes())
    args = ["sync", "--enhancements", str(bundle_clone), "--wiki", str(wiki), "--page", PAGE, "--publish", "none"]
    args += ["--release-notes", str(NOTES), "--gate-lifecycle", str(LIST), "--sig-release", str(RECORDS)]
    assert main(args) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("- ↺")]
    [line] = [x for x in lines if x.startswith("- ↺ [2033](https://kep.k8s.io/2033)")]
    assert line.startswith(
        "- ↺ [2033](https://kep.k8s.io/2033) beta v1.35 → v1.37 (v1.35 rejected its Code Freeze exception, "
    )
    [line] = [x for x in lines if x.startswith("- ↺ [4817](https://kep.k8s.io/4817)")]
    assert line.startswith(
        "- ↺ [4817](https://kep.k8s.io/4817) GA v1.36 → v1.37: slip confirmed"
    )  # no exception of 4817 in v1.36


def test_the_report_names_the_records_read_and_the_pull_request_folds_the_same_reading(
    bundle_clone, tmp_path, capsys, _reset_structlog
):
    from bot.cli.main import main
    from bot.plan.watch.render import headline

    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / PAGE).write_bytes((WIKI / PAGE).read_bytes())
    config = tmp_path / "c.yaml"
    config.write_text(
        f"enhancements: {bundle_clone}\nwiki: {{dir: {wiki}, pages: [{PAGE}]}}\nrelease_notes: {{source: {NOTES}}}\n"
        f"gate_lifecycle: {{source: {LIST}}}\nrelease: {{watch: true, sig_release: {RECORDS}}}\n"
        f"cache_dir: {tmp_path / 'cache'}\n"
    )
    watched = run_watch(Config(
        enhancements=str(bundle_clone),
        cache_dir=str(tmp_path / "cache2"),
        wiki={"dir": str(wiki), "pages": [PAGE]},
        release_notes={"source": str(NOTES)},
        gate_lifecycle={"source": str(LIST)},
        release={"sig_release": str(RECORDS)},
    ))  # fmt: skip
    read = watched.report["watch"]["read"]["records"]
    assert (read["source"], read["releases"][0], read["releases"][-1], len(read["releases"]), read["problems"]) == (
        str(RECORDS / "releases"),
        "v1.20",
        "v1.37",
        18,
        16,
    )
    report = tmp_path / "sync.json"
    assert main(["sync", "--config", str(config), "--publish", "none", "--report", str(report)]) == 0
    body = capsys.readouterr().out
    folded = body[body.index("<details><summary>Watch of v1.37") :].split("</details>")[0].split("\n")
    assert folded[0] == f"<details><summary>{headline(watched.watch)}</summary>"
    assert "- Code Freeze: 2026-07-22, from release-1.37/README.md" in folded
    rows = [line.split(" | ") for line in folded if line.startswith("| [")]
    assert [(r[0].split("]")[0][3:], r[1]) for r in rows] == [(e.kep, e.state) for e in watched.watch.entries]
    in_sync = json.loads(report.read_text(encoding="utf-8"))["watch"]
    assert (in_sync["counts"], in_sync["keps"]) == (watched.report["watch"]["counts"], watched.report["watch"]["keps"])


def test_all_with_the_records_lists_every_kep_yaml_planning_v1_37_with_its_sig(bundle_clone, tmp_path):
    from bot.model.kep import STAGES, normalize_milestone
    from bot.sources.enhancements import load_snapshot

    config = records_config(bundle_clone, tmp_path)
    done = run_watch(config, whole=True)
    snapshot = load_snapshot(str(bundle_clone), tmp_path / "nocache")
    planning = {k.path: k.sig for k in snapshot.all_keps() if any(normalize_milestone(k.milestone(s)) == "v1.37" for s in STAGES)}  # fmt: skip
    listed = {e.kep_path: e.sig for e in done.watch.entries}
    assert len(planning) == 88 and {p: listed.get(p) for p in planning} == planning
    assert done.text.splitlines()[0] == "Watch of v1.37: 91 KEPs (2 contradicted, 4 slipped, 43 at risk, 42 landed)"
    assert "Code Freeze: 2026-07-22, from release-1.37/README.md" in done.text.splitlines()
