"""``kep-sync audit``: every check on every row, the implementable + stable rule, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.commands.audit import plan_audit, stable_verdicts
from bot.config import Config
from bot.cron import parse_crontab
from bot.model.kep import parse_kep
from bot.model.notes import ReleaseNotes
from bot.plan.evidence import build_index
from bot.service.job import run_audit_job
from bot.service.serve import AUDIT_JOB_ID, JOB_ID, build_scheduler

try:
    from tests.notesutil import cli_tree, entry, kep_yaml
except ImportError:  # pragma: no cover
    from notesutil import cli_tree, entry, kep_yaml

URL = "https://github.com/kubernetes/kubernetes/pull/"
SHARED = Path(__file__).resolve().parents[3] / "shared"


def _kep(number: int, **kw):
    return parse_kep(f"keps/sig-node/{number}-k/kep.yaml", kep_yaml(number, **kw).encode())


DONE = _kep(1, stage="stable", beta="v1.34", stable="v1.35", gates=("DoneGate",))
SILENT = _kep(2, stage="stable", beta="v1.33", stable="v1.34", gates=("SilentGate",))
MAKING = _kep(3, stage="stable", beta="v1.35", stable="v1.37", gates=("MakingGate",))
LATER = _kep(4, stage="stable", beta="v1.36", stable="v1.38")
NO_GA = _kep(5, stage="stable", beta="v1.36")
IMPLEMENTED = _kep(6, status="implemented", stage="stable", stable="v1.35")
BETA = _kep(7, stage="beta", beta="v1.36", stable="v1.35")
KEPS = [DONE, SILENT, MAKING, LATER, NO_GA, IMPLEMENTED, BETA]
NOTES = {
    "v1.34": {"1": entry(1, "Fixed `SilentGate` docs.")},
    "v1.35": {"2": entry(2, "Promoted the `DoneGate` feature gate to GA. It is locked to enabled.")},
    "v1.36": {},
    "v1.37": {"3": entry(3, "Promoted the `MakingGate` feature gate to GA.")},
}
AVAILABLE = ("v1.34", "v1.35", "v1.36", "v1.37")


def test_implementable_stable_verdicts():
    got = stable_verdicts(KEPS, build_index(NOTES, KEPS), AVAILABLE, {})
    assert [(v.kep, v.stable, v.shipped, v.confirmed, [e.pr for e in v.evidence]) for v in got] == [
        ("1", "v1.35", "shipped", True, [2]),
        ("2", "v1.34", "shipped", False, []),
        ("3", "v1.37", "in progress", True, [3]),
        ("4", "v1.38", "planned", False, []),
        ("5", "", "unknown", False, []),
    ]
    assert [v.verdict for v in got] == [
        "GA shipped in v1.35 (the release notes confirm it); still implementable upstream: done in practice, "
        "not marked implemented",
        "GA milestone v1.34 shipped, but no release note announces GA for this KEP (check the notes' prose and the "
        "KEP's history); still implementable upstream: likely done, not marked implemented",
        "v1.37 is the release being made: GA in progress (its draft notes announce GA)",
        "v1.38 is not out yet: GA planned",
        "no stable milestone in kep.yaml: cannot tell when GA ships",
    ]
    without = stable_verdicts([DONE], None, (), {"keps/sig-node/1-k/kep.yaml": "1-k"})
    assert [(v.kep, v.shipped, v.verdict) for v in without] == [
        ("1-k", "unknown", "unknown: no release notes (--release-notes) to tell whether GA shipped")
    ]


PAGE = (
    "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
    "| [100](https://kep.k8s.io/100) | implementable / beta | v1.35 | v1.36 | - |\n"
    "| [500](https://kep.k8s.io/500) | implementable / stable | v1.33 | v1.34 | v1.35 |\n"
)


def test_plan_audit_checks_every_row_and_reports_in_the_sync_shape():
    from tests.notesutil import fixture_snapshot, notes_135, notes_136, notes_137

    notes = ReleaseNotes(
        "fixture", ("v1.35", "v1.36", "v1.37"), {"v1.35": notes_135(), "v1.36": notes_136(), "v1.37": notes_137()}, ()
    )
    audit = plan_audit(Config(), fixture_snapshot(), {"m.md": PAGE.encode()}, notes)
    assert [p.changed for p in audit.pages] == [False]  # in sync: a sync would change nothing
    assert audit.rows == 2
    # both rows are reviewed although neither changes (a sync reviews only the KEPs it changes)
    assert [(d.kind, d.kep_id, d.release) for d in audit.discrepancies] == [
        ("stage-mismatch", "100", "v1.36"),
        ("ready-to-implement", "500", "v1.35"),
    ]
    assert [(v.kep, v.shipped, v.confirmed, [e.pr for e in v.evidence]) for v in audit.stable] == [
        ("500", "shipped", True, [9001])
    ]
    from bot.plan.planner import plan_sync

    sync = plan_sync(Config(), fixture_snapshot(), {"m.md": PAGE.encode()}, release_notes=notes)
    assert sorted(audit.report) == sorted([*sync.report, "audit"])  # the sync's shape, one key added
    assert {"changes", "discrepancies", "problems", "revision"} <= set(audit.report)
    assert audit.report["audit"]["rows"] == 2
    assert audit.report["audit"]["implementable_stable"][0]["verdict"] == (
        "GA shipped in v1.35 (the release notes confirm it); still implementable upstream: done in practice, "
        "not marked implemented"
    )
    assert audit.markdown.splitlines()[0] == (
        "# KEP audit: 2 rows, 1 implementable with their GA milestone shipped (1 confirmed by the release notes)"
    )
    assert (
        "| [500](https://kep.k8s.io/500) | v1.35 | shipped | v1.35 [#9001](" + URL + "9001): Promoted the "
        "`DoneGate` feature gate to GA. | GA shipped in v1.35" in audit.markdown
    )
    lines = audit.markdown.splitlines()
    start = lines.index("### Needs review (2): 2 on v1.37 (in progress) and v1.35-v1.36")
    assert (
        lines[start + 1 : start + 9]
        == [
            "",
            "Release notes and kep.yaml disagree; nothing here was applied.",  # nothing older: nothing folded
            "",
            "| KEP | Release | Finding | Release note |",
            "|---|---|---|---|",
            "| [100](https://kep.k8s.io/100) | v1.36 | stage-mismatch: v1.36 notes say stable reached in v1.36; kep.yaml "
            "milestone.stable is not set | [#9105](" + URL + "9105): Promoted the `MysteryGate` and `WidgetGate` "
            "feature gates to GA. |",
            "| [500](https://kep.k8s.io/500) | v1.35 | ready-to-implement: status implementable, but the stable milestone "
            "v1.35 is released: ready to mark implemented? | - |",
            "",
        ][:8]
    )
    assert lines[start + 9] == "<details><summary>Problems (2)</summary>"
    assert "<summary>Needs review" not in audit.markdown  # the sync's collapsed block is replaced, not repeated
    assert sync.changelog.body == "**kep-sync**: 0 changes in 0 KEPs, from `fixture` at `abc123`.\n"


def test_needs_review_of_an_audit_puts_recent_releases_first_and_folds_older_ones_by_kind():
    """43 findings for 43 rows, most about alpha releases years ago: the release in progress and the three
    releases still maintained first, newest first; the rest folded, one table per kind."""
    from bot.commands.audit import recent_releases, review_lines
    from bot.model.finding import Finding

    def f(kind: str, kep: str, release: str, pr: int = 0) -> Finding:
        url = f"{URL}{pr}" if pr else ""
        return Finding(
            kind, kep, f"keps/sig-x/{kep}-x/kep.yaml", release, f"{kind} of {kep}", pr, url, "note" * bool(pr)
        )

    available = [f"v1.{n}" for n in range(20, 38)]
    assert recent_releases(available) == ["v1.37", "v1.36", "v1.35", "v1.34"]
    findings = [
        f("not-in-notes", "1610", "v1.20"),
        f("not-in-notes", "5030", "v1.35"),
        f("stage-mismatch", "127", "v1.31", 124997),
        f("not-in-notes", "1769", "v1.21"),
        f("stage-mismatch", "6132", "v1.37", 138916),
        f("gate-typo", "3695", "v1.34", 132940),
        f("ready-to-implement", "2254", "v1.25"),
        f("not-in-notes", "9", ""),
    ]
    assert review_lines(findings, available) == [
        "### Needs review (8): 4 on v1.37 (in progress) and v1.34-v1.36; 4 on older releases, folded",
        "",
        "Release notes and kep.yaml disagree; nothing here was applied. The release in progress and the releases "
        "still maintained come first; older releases are folded below, by kind.",
        "",
        "| KEP | Release | Finding | Release note |",
        "|---|---|---|---|",
        "| [9](https://kep.k8s.io/9) | - | not-in-notes: not-in-notes of 9 | - |",
        f"| [6132](https://kep.k8s.io/6132) | v1.37 | stage-mismatch: stage-mismatch of 6132 | [#138916]({URL}138916): "
        "note |",
        "| [5030](https://kep.k8s.io/5030) | v1.35 | not-in-notes: not-in-notes of 5030 | - |",
        f"| [3695](https://kep.k8s.io/3695) | v1.34 | gate-typo: gate-typo of 3695 | [#132940]({URL}132940): note |",
        "",
        "<details><summary>Older releases (4): stage-mismatch 1, ready-to-implement 1, not-in-notes 2</summary>",
        "",
        "**stage-mismatch** (1)",
        "",
        "| KEP | Release | Finding | Release note |",
        "|---|---|---|---|",
        f"| [127](https://kep.k8s.io/127) | v1.31 | stage-mismatch: stage-mismatch of 127 | [#124997]({URL}124997): "
        "note |",
        "",
        "**ready-to-implement** (1)",
        "",
        "| KEP | Release | Finding | Release note |",
        "|---|---|---|---|",
        "| [2254](https://kep.k8s.io/2254) | v1.25 | ready-to-implement: ready-to-implement of 2254 | - |",
        "",
        "**not-in-notes** (2)",
        "",
        "| KEP | Release | Finding | Release note |",
        "|---|---|---|---|",
        "| [1769](https://kep.k8s.io/1769) | v1.21 | not-in-notes: not-in-notes of 1769 | - |",
        "| [1610](https://kep.k8s.io/1610) | v1.20 | not-in-notes: not-in-notes of 1610 | - |",
        "",
        "</details>",
    ]


def test_cli_audit_writes_nothing_but_the_report_and_exits_0(tmp_path, monkeypatch, capsys, _reset_structlog):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "release-notes-1.35.json").write_text(json.dumps({"9002": entry(9002, "Added `WidgetGate` (alpha).")}))
    (notes / "release-notes-1.36.json").write_text("{}")
    before = (wiki / "m.md").read_bytes()
    report = tmp_path / "audit.json"
    rc = main(
        [
            "audit",
            "--enhancements",
            str(enh),
            "--wiki",
            str(wiki),
            "--page",
            "m.md",
            "--publish",
            "files",
            "--release-notes",
            str(notes),
            "--report",
            str(report),
        ]
    )
    out = capsys.readouterr()
    assert rc == 0
    assert (wiki / "m.md").read_bytes() == before  # --publish files is accepted, nothing is written
    assert sorted(os.listdir(wiki)) == ["m.md"]
    assert (
        out.out.splitlines()[0] == "# KEP audit: 1 rows, 0 implementable with their GA milestone shipped (0 "
        "confirmed by the release notes)"
    )
    data = json.loads(report.read_text())
    assert [(c["kep"], c["field"], c["proposed"], c["applied"]) for c in data["changes"]] == [
        ("100", "stage", True, False),
        ("100", "beta", True, False),
    ]  # proposed, never applied: as --publish none
    assert (data["result"], data["publish"], data["pages_written"], data["pull_request"]) == ("ok", "none", [], None)
    assert "error" not in data
    assert data["audit"] == {"rows": 1, "implementable_stable": [], "consistency": []}
    line = json.loads(out.err.splitlines()[-1])
    assert {
        k: line[k] for k in ("event", "revision", "rows", "changes", "discrepancies", "shipped_not_implemented")
    } == {
        "event": "audit finished",
        "revision": data["revision"],
        "rows": 1,
        "changes": 2,
        "discrepancies": 0,
        "shipped_not_implemented": 0,
    }


def test_the_audit_lists_every_row_left_as_is_and_its_closing_line_counts_them(
    tmp_path, monkeypatch, capsys, _reset_structlog
):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    with (wiki / "m.md").open("a") as page:
        page.write("| #12x | implementable / alpha | v1.35 | - | - |\n")
    assert main(["audit", "--enhancements", str(enh), "--wiki", str(wiki), "--page", "m.md"]) == 0
    out, err = capsys.readouterr()
    assert "| m.md | line 4 | KEP cell '#12x' names no KEP; left as is |" in out.splitlines()
    assert "[100](https://kep.k8s.io/100)" in out  # the changed row is there too
    line = json.loads(err.splitlines()[-1])
    assert (line["event"], line["rows_with_problems"], line["rows_listed_in"]) == (
        "audit finished",
        1,
        "the Problems section of the audit (stdout)",
    )


def test_a_failed_audit_writes_a_failed_report_as_sync_does(tmp_path, monkeypatch, capsys, _reset_structlog):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    got = {}
    for cmd in ("sync", "audit"):  # exit 2: a source that does not exist is a config error, for both commands
        report = tmp_path / f"{cmd}.json"
        rc = main(
            [
                cmd,
                "--enhancements",
                str(tmp_path / "gone"),
                "--wiki",
                str(wiki),
                "--page",
                "m.md",
                "--report",
                str(report),
            ]
        )
        got[cmd] = (rc, json.loads(report.read_text()))
    assert got["audit"] == got["sync"]
    rc, data = got["audit"]
    assert (rc, data["result"], data["publish"], data["changes"]) == (2, "failed", "none", [])
    assert data["error"] == capsys.readouterr().err.splitlines()[-1].removeprefix("kep-sync: error: ")
    (wiki / "bad.md").write_bytes(b"| KEP |\n\xff\n")  # a page that is not UTF-8: the audit fails, exit 1
    report = tmp_path / "bad.json"
    assert (
        main(["audit", "--enhancements", str(enh), "--wiki", str(wiki), "--page", "bad.md", "--report", str(report)])
        == 1
    )
    why = "bad.md: not UTF-8 (invalid start byte at byte 8); page not touched"
    assert capsys.readouterr().err.splitlines()[-1] == f"kep-sync: error: {why}"
    data = json.loads(report.read_text())
    assert (data["result"], data["error"], data["revision"]) == ("failed", why, "")


def test_audit_cron_is_off_by_default_and_validated():
    assert Config().audit.cron == ""
    assert Config.model_validate({"audit": {"cron": "0 7 * * 1"}}).audit.cron == "0 7 * * 1"
    with pytest.raises(ValueError, match="audit.cron"):
        Config.model_validate({"audit": {"cron": "61 * * * *"}})


def test_serve_schedules_the_audit_as_a_second_job_only_when_asked():
    import datetime

    utc = datetime.UTC
    plain = build_scheduler(lambda: None, parse_crontab("0 6 * * *"), utc)
    assert [j.id for j in plain.get_jobs()] == [JOB_ID]
    both = build_scheduler(
        lambda: None, parse_crontab("0 6 * * *"), utc, audit=(lambda: None, parse_crontab("0 7 * * 1"))
    )
    assert [j.id for j in both.get_jobs()] == [JOB_ID, AUDIT_JOB_ID]
    job = both.get_job(AUDIT_JOB_ID)
    assert (job.name, job.coalesce, job.max_instances) == ("kep-sync audit", True, 1)


def test_the_scheduled_audit_writes_its_files_to_the_state_dir_and_never_raises(tmp_path, _reset_structlog):
    class Done:
        markdown = "# KEP audit: 0 rows\n"
        rows, changes, discrepancies, stable, problems = 0, (), (), (), ()

        class snapshot:
            revision = "abc"

    seen = []

    def audit(config, report_path, counter):
        seen.append(report_path)
        report_path.write_text("{}")
        return Done()

    assert run_audit_job(Config(), tmp_path, audit=audit) is True
    assert seen == [tmp_path / "audit.json"]
    assert (tmp_path / "audit.md").read_text() == "# KEP audit: 0 rows\n"

    def broken(config, report_path, counter):
        raise RuntimeError("source down")

    assert run_audit_job(Config(), tmp_path, audit=broken) is False


@pytest.mark.acceptance
def test_audit_of_the_current_page_pins_the_implementable_stable_verdicts(tmp_path, request):
    bundle, notes = SHARED / "data" / "enhancements-keps.bundle", SHARED / "data" / "release-notes"
    if not bundle.is_file():
        if os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1":
            pytest.fail(f"{SHARED} is required (KEP_SYNC_REQUIRE_SHARED=1) but missing")
        pytest.skip(f"{SHARED} not present")
    from bot.sources.enhancements import load_snapshot
    from bot.sources.release_notes import load_release_notes

    snapshot = load_snapshot(str(request.getfixturevalue("bundle_clone")), tmp_path / "cache")
    page = (SHARED / "wiki" / "kubernetes-keps-implementation-matrix.md").read_bytes()
    audit = plan_audit(
        Config(), snapshot, {"matrix.md": page}, load_release_notes(str(notes), tmp_path / "cache", None)
    )
    assert audit.rows == 73
    assert [(v.kep, v.stable, v.shipped, v.confirmed, [e.pr for e in v.evidence]) for v in audit.stable] == [
        ("2254", "v1.25", "shipped", False, []),  # cgroup v2: the 1.25 notes never announce its GA
        ("2413", "v1.27", "shipped", True, [115719]),
        ("2837", "v1.37", "in progress", False, []),
        ("2862", "v1.36", "shipped", True, [136116]),
        ("4816", "v1.36", "shipped", True, [136924, 139110]),  # #139110 (v1.37): "reached GA in `v1.36`"
        ("4817", "v1.37", "in progress", True, [137546]),
        ("4951", "v1.37", "in progress", True, [140107]),
        ("5055", "v1.37", "in progress", False, []),
        ("5328", "v1.37", "in progress", True, [139763]),
        ("6072", "v1.37", "in progress", False, []),
    ]
    assert audit.markdown.splitlines()[0] == (
        "# KEP audit: 73 rows, 4 implementable with their GA milestone shipped (3 confirmed by the release notes)"
    )
    assert not any(p.changed for p in audit.pages)


def test_a_row_in_sync_still_gets_its_kep_yaml_consistency_checked():
    from bot.model.snapshot import build_snapshot

    path = "keps/sig-node/700-odd/kep.yaml"
    snap = build_snapshot(
        [(path, kep_yaml(700, status="implemented", stage="beta", alpha="v1.35", beta="v1.36").encode())],
        "fixture",
        "abc123",
    )
    page = (
        "| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
        "| [700](https://kep.k8s.io/700) | implemented / beta | v1.35 | v1.36 | - |\n"
    )
    audit = plan_audit(Config(), snap, {"m.md": page.encode()}, None)
    assert audit.changes == []  # a sync has nothing to say about this row
    assert [(c.kep_id, c.fields, c.message) for c in audit.consistency] == [
        ("700", ("status", "stage"), "kep.yaml says status implemented but stage beta")
    ]
    assert audit.report["audit"]["consistency"] == [
        {
            "kep": "700",
            "kep_path": path,
            "fields": ["status", "stage"],
            "message": "kep.yaml says status implemented but stage beta",
        }
    ]
    assert (
        "| [700](https://kep.k8s.io/700) | status, stage | kep.yaml says status implemented but stage beta |"
        in audit.markdown
    )


def test_a_hostile_pr_url_never_reaches_the_audit_markdown_and_the_header_names_the_real_source():
    from tests.notesutil import fixture_snapshot, notes_135, notes_136, notes_137

    n135 = dict(notes_135())
    n135["9001"] = dict(n135["9001"], pr_url="https://x.example/|a|b|@evilhandle\n\n## injected heading\n")
    notes = ReleaseNotes(
        "fixture", ("v1.35", "v1.36", "v1.37"), {"v1.35": n135, "v1.36": notes_136(), "v1.37": notes_137()}, ()
    )
    snapshot = fixture_snapshot()._replace(source="github:example/enh-fork@main")
    audit = plan_audit(Config(), snapshot, {"m.md": PAGE.encode()}, notes)
    assert (
        "| [500](https://kep.k8s.io/500) | v1.35 | shipped | v1.35 [#9001](" + URL + "9001): Promoted the "
        "`DoneGate` feature gate to GA. | GA shipped in v1.35" in audit.markdown
    )
    assert "evil" not in audit.markdown and "injected" not in audit.markdown and "x.example" not in audit.markdown
    assert audit.markdown.splitlines()[2].startswith("**kep-sync audit** of m.md against example/enh-fork at `")
    assert "kubernetes/enhancements" not in audit.markdown.splitlines()[2]
