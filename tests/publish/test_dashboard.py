"""The dashboard issue (``dashboard: true``) end to end on the fake GitHub: created once, edited only when its
text changes, human text kept, closed stays closed, boxes that lift an ignore (a collaborator's tick, not a
reader's) and run now."""

from __future__ import annotations

import datetime
import json
import shutil

import pytest

from bot.publish import dashboard as dash
from bot.publish import github_dashboard
from bot.publish import pull_request as prmod
from bot.wiki.ignore import marker_text
from tests.publishutil import (
    BRANCH,
    PAGE_PATH,
    REPO,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    keps,
    run_github,
)

NOW = datetime.datetime(2026, 12, 7, 6, 17, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    monkeypatch.setattr(github_dashboard, "utcnow", lambda: NOW)


@pytest.fixture
def board(gh):
    return github_config(gh).model_copy(update={"dashboard": True})


def issue_writes(run) -> list[tuple[str, str]]:
    return [
        (m, p)
        for m, p in run.requests
        if m != "GET" and ("/issues" in p and not p.startswith(f"/repos/{REPO}/issues/1"))
    ]


def test_the_dashboard_is_created_once_and_edited_only_when_its_text_changes(gh, board):
    first = run_github(gh, keps(), board)
    assert issue_writes(first) == [("POST", f"/repos/{REPO}/issues")]
    body = gh.issue(2)["body"]
    assert body.startswith(dash.MARKER + "\n\n" + dash.BEGIN)
    assert f"(https://github.com/{REPO}/pull/1): 2 changes in 1 KEP" in body
    assert "Last run: 2026-12-07 06:17 UTC. Next run: 2026-12-08 06:00 UTC." in body
    assert f"- [ ] Run now <!-- kep-sync:box {dash.RUN_NOW} -->" in body
    second = run_github(gh, keps(), board)
    assert issue_writes(second) == [] and second.writes == 0 and gh.issue(2)["body"] == body
    assert len(gh.repos[REPO]["issues"]) == 1


def test_human_text_outside_the_markers_stays(gh, board, monkeypatch):
    run_github(gh, keps(), board)
    body = gh.issue(2)["body"]
    edited = "Notes by people.\n\n" + body + "\nMore notes.\n"
    gh.edit_issue(2, body=edited)
    monkeypatch.setattr(github_dashboard, "utcnow", lambda: NOW + datetime.timedelta(days=1))
    run_github(gh, keps(), board)
    now = gh.issue(2)["body"]
    assert now.startswith("Notes by people.\n\n" + dash.MARKER) and now.endswith(dash.END + "\n\nMore notes.\n")
    assert "Last run: 2026-12-08 06:17 UTC. Next run: 2026-12-09 06:00 UTC." in now


def test_a_closed_dashboard_stays_closed_and_unedited(gh, board, monkeypatch):
    run_github(gh, keps(), board)
    gh.edit_issue(2, state="closed")
    body = gh.issue(2)["body"]
    monkeypatch.setattr(github_dashboard, "utcnow", lambda: NOW + datetime.timedelta(days=1))
    run = run_github(gh, keps(), board)
    assert issue_writes(run) == [] and (gh.issue(2)["state"], gh.issue(2)["body"]) == ("closed", body)
    gh.edit_issue(2, state="open")
    run_github(gh, keps(), board)
    assert "Last run: 2026-12-08 06:17 UTC." in gh.issue(2)["body"]


def tick(gh, action: str, editor: str | None = "maintainer") -> str:
    """Tick the box of ``action`` as ``editor`` would (``None``: an edit the history does not hold); returns the
    body before."""
    body = gh.issue(2)["body"]
    lines = [
        line.replace("- [ ]", "- [x]", 1) if line.endswith(f"<!-- kep-sync:box {action} -->") else line
        for line in body.split("\n")
    ]
    assert lines != body.split("\n")
    gh.edit_issue(2, body="\n".join(lines), editor=editor)
    return body


def event(monkeypatch, tmp_path, sender: str, before: str = "", number: int = 2) -> None:
    """The ``issues`` event of an edit of issue ``number`` by ``sender`` (``before``: its body before the edit)."""
    path = tmp_path / "event.json"
    payload = {"action": "edited", "issue": {"number": number}, "sender": {"login": sender}}
    payload["changes"] = {"body": {"from": before}}
    path.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issues")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))


@pytest.fixture
def ignored(gh, board):
    """The pull request open with ``/kep-sync ignore 4671 beta`` carried out, the dashboard listing it."""
    run_github(gh, keps(), board)
    gh.set_role(REPO, "maintainer", "write")
    gh.set_role(REPO, "reader", "read")
    gh.add_comment(1, "/kep-sync ignore 4671 beta", user="maintainer")
    run_github(gh, keps(), board)
    assert prmod.parse_state(gh.pull(1)["body"]).ignore == "4671.beta"
    assert "<!-- kep-sync:box lift-4671.beta -->" in gh.issue(2)["body"]
    return board


def test_a_collaborators_tick_lifts_the_ignore(gh, ignored, monkeypatch, tmp_path):
    marked = gh.read_file(REPO, BRANCH, PAGE_PATH)
    event(monkeypatch, tmp_path, "maintainer", tick(gh, "lift-4671.beta"))
    run = run_github(gh, keps(), ignored)
    assert run.written == [PAGE_PATH]
    assert prmod.parse_state(gh.pull(1)["body"]).ignore == ""
    assert marker_text(("beta",)) in marked and marker_text(("beta",)) not in gh.read_file(REPO, BRANCH, PAGE_PATH)
    assert "lift-4671.beta" not in gh.issue(2)["body"] and "- [x]" not in gh.issue(2)["body"]


def test_a_readers_tick_lifts_nothing(gh, ignored, monkeypatch, tmp_path):
    marked = gh.read_file(REPO, BRANCH, PAGE_PATH)
    event(monkeypatch, tmp_path, "reader", tick(gh, "lift-4671.beta", "reader"))
    run = run_github(gh, keps(), ignored)
    assert run.written == [] and gh.read_file(REPO, BRANCH, PAGE_PATH) == marked
    body = gh.issue(2)["body"]
    assert "- [ ] KEP 4671 beta" in body and "- [x]" not in body
    assert "waiting: `@reader` has the `read` role on acme/wiki; commands need write" in body


def test_a_collaborators_tick_is_carried_out_by_the_next_scheduled_run(gh, ignored):
    tick(gh, "lift-4671.beta", "maintainer")
    run = run_github(gh, keps(), ignored)
    assert ("POST", "/graphql") in run.requests and run.written == [PAGE_PATH]
    assert prmod.parse_state(gh.pull(1)["body"]).ignore == ""
    body = gh.issue(2)["body"]
    assert "lift-4671.beta" not in body and "- [x]" not in body and "waiting:" not in body


def test_a_readers_tick_seen_by_a_scheduled_run_is_refused_and_unticked(gh, ignored):
    marked = gh.read_file(REPO, BRANCH, PAGE_PATH)
    gh.edit_issue(2, body=gh.issue(2)["body"] + "\nA note by the maintainer.\n", editor="maintainer")
    tick(gh, "lift-4671.beta", "reader")
    run = run_github(gh, keps(), ignored)
    assert run.written == [] and gh.read_file(REPO, BRANCH, PAGE_PATH) == marked
    assert prmod.parse_state(gh.pull(1)["body"]).ignore == "4671.beta"
    body = gh.issue(2)["body"]
    assert "- [ ] KEP 4671 beta" in body and "- [x]" not in body
    assert "waiting: `@reader` has the `read` role on acme/wiki; commands need write" in body


def test_a_tick_the_edit_history_does_not_name_waits_ticked_until_ticked_again(gh, ignored, monkeypatch, tmp_path):
    tick(gh, "lift-4671.beta", None)
    run = run_github(gh, keps(), ignored)
    assert run.written == [] and prmod.parse_state(gh.pull(1)["body"]).ignore == "4671.beta"
    body = gh.issue(2)["body"]
    assert (
        "- waiting: a ticked box lifts an ignore only when GitHub's edit history of this issue names who ticked it; "
        "untick and tick it again\n" in body
    )
    assert "- [x] KEP 4671 beta" in body
    gh.edit_issue(2, body=body.replace("- [x] KEP 4671", "- [ ] KEP 4671"), editor="maintainer")
    event(monkeypatch, tmp_path, "maintainer", tick(gh, "lift-4671.beta"))
    assert run_github(gh, keps(), ignored).written == [PAGE_PATH]
    assert prmod.parse_state(gh.pull(1)["body"]).ignore == ""


def test_an_edit_history_github_will_not_give_leaves_the_tick_waiting(gh, ignored):
    tick(gh, "lift-4671.beta", "maintainer")
    gh.fail_next("POST", r"^/graphql$", 403, message="Resource not accessible by integration")
    run = run_github(gh, keps(), ignored)
    assert run.written == [] and prmod.parse_state(gh.pull(1)["body"]).ignore == "4671.beta"
    body = gh.issue(2)["body"]
    assert "- [x] KEP 4671 beta" in body and "waiting: a ticked box lifts an ignore only when" in body
    assert run_github(gh, keps(), ignored).written == [PAGE_PATH]  # read on the next run


def test_the_newest_edit_that_ticked_a_box_names_who_ticked_it():
    def body(*ticked: str) -> str:
        return "\n".join(
            [
                dash.BEGIN,
                *(f"- [{'x' if a in ticked else ' '}] {a} <!-- kep-sync:box {a} -->" for a in ("lift-1", "lift-2")),
                dash.END,
            ]
        )

    edits = [
        dash.Edit("bot", "2026-12-01T00:00:00Z", body()),
        dash.Edit("reader", "2026-12-02T00:00:00Z", body("lift-1")),
        dash.Edit("bot", "2026-12-03T00:00:00Z", body()),
        dash.Edit("maintainer", "2026-12-04T00:00:00Z", body("lift-1")),
        dash.Edit("", "2026-12-05T00:00:00Z", body("lift-1", "lift-2")),
    ]
    assert dash.tickers(edits[::-1], body("lift-1", "lift-2"), ["lift-1", "lift-2"]) == {"lift-1": "maintainer"}
    assert dash.tickers(edits[:4], body("lift-1"), ["lift-1"]) == {"lift-1": "maintainer"}
    assert dash.tickers(edits[:2], body("lift-1"), ["lift-1"]) == {"lift-1": "reader"}
    assert dash.tickers(edits[:4], body("lift-1", "lift-2"), ["lift-1", "lift-2"]) == {}  # history ends elsewhere
    assert dash.tickers(edits[1:2], body("lift-1"), ["lift-1"]) == {}  # the original text credits no one
    assert dash.tickers([*edits[:3], edits[3]._replace(body=None)], body("lift-1"), ["lift-1"]) == {}


def test_run_now_is_unticked_by_the_run(gh, board, monkeypatch, tmp_path):
    run_github(gh, keps(), board)
    event(monkeypatch, tmp_path, "maintainer", tick(gh, dash.RUN_NOW))
    run_github(gh, keps(), board)
    assert f"- [ ] Run now <!-- kep-sync:box {dash.RUN_NOW} -->" in gh.issue(2)["body"]


def test_run_now_ticked_is_carried_out_by_the_next_scheduled_run(gh, board, monkeypatch):
    run_github(gh, keps(), board)
    tick(gh, dash.RUN_NOW, "reader")
    monkeypatch.setattr(github_dashboard, "utcnow", lambda: NOW + datetime.timedelta(hours=1))
    run = run_github(gh, keps(), board)
    assert ("PATCH", f"/repos/{REPO}/issues/2") in run.requests and ("POST", "/graphql") not in run.requests
    body = gh.issue(2)["body"]
    assert f"- [ ] Run now <!-- kep-sync:box {dash.RUN_NOW} -->" in body and "Last run: 2026-12-07 07:17 UTC." in body


def test_without_the_key_no_issue_is_read_or_written(gh, cfg):
    run = run_github(gh, keps(), cfg)
    assert not [p for _, p in run.requests if p == f"/repos/{REPO}/issues"]
    assert gh.repos[REPO].get("issues", {}) == {}


def test_the_automerge_reason_is_on_the_dashboard(gh):
    both = github_config(gh, automerge={"enabled": True, "kinds": ["promoted", "retargeted"], "confirmed": []})
    both = both.model_copy(update={"dashboard": True})
    run_github(gh, keps(), both)
    run_github(gh, keps(), both)  # keps() has a kep.yaml that contradicts itself: a flag
    assert "\nAutomerge: left open: KEP 4671 beta carries a flag (kep.yaml" in gh.issue(2)["body"]


def test_text_from_upstream_is_inert_and_the_watch_is_counted_then_listed():
    watch = {
        "release": {"current": "v1.37"},
        "counts": {"contradicted": 1, "slipped": 0, "no sign yet": 0, "on track": 3, "landed": 2},
        "keps": [
            {
                "kep": "4671",
                "title": "Hi @team <!-- kep-sync:dashboard:end --> [x](http://e)",
                "state": "contradicted",
                "reason": "the 1.37 note says alpha",
            },
            {"kep": "5710", "title": "fine", "state": "on track", "reason": ""},
        ],
    }
    text = dash.render(
        dash.DashboardInputs(
            None, (), "", watch, [], ["KEP 5598 stable = v1.38"], ["m.md: line 3 | left as is"], "", ""
        )
    )
    assert "### Release in progress v1.37\n\ncontradicted 1, slipped 0, no sign yet 0, on track 3, landed 2\n" in text
    line = next(x for x in text.split("\n") if x.startswith("- contradicted:"))
    assert "`@team`" in line and "<!--" not in line and "\\[x\\](`http://e`)" in line
    assert "5710" not in text and text.count(dash.END) == 1
    assert "- KEP 5598 stable = v1.38 (the config's `ignore`; lift it there)" in text
    assert "- m.md: line 3 \\| left as is" in text
    assert "No kep-sync pull request is open" in text


def test_without_its_cache_the_dashboard_is_found_by_its_marker_not_created_again(gh, board, monkeypatch):
    run_github(gh, keps(), board)
    shutil.rmtree(gh.cache_dir)
    monkeypatch.setattr(github_dashboard, "utcnow", lambda: NOW + datetime.timedelta(days=1))
    run = run_github(gh, keps(), board)
    assert ("GET", f"/repos/{REPO}/issues") in run.requests and issue_writes(run) == [
        ("PATCH", f"/repos/{REPO}/issues/2")
    ]
    assert len(gh.repos[REPO]["issues"]) == 1
    steady = run_github(gh, keps(), board)  # the number is kept again: the issue is read directly
    assert ("GET", f"/repos/{REPO}/issues/2") in steady.requests and (
        "GET",
        f"/repos/{REPO}/issues",
    ) not in steady.requests


def test_at_risk_and_missed_keps_are_listed_and_needs_a_look_lines_stay_one_line_each():
    watch = {
        "release": {"current": "v1.37"},
        "counts": {},
        "keps": [
            {"kep": "1", "title": "a", "state": "at risk", "reason": "r1"},
            {"kep": "2", "title": "b", "state": "missed", "reason": "r2"},
            {"kep": "3", "title": "c", "state": "planned", "reason": "r3"},
        ],
    }
    look = ["- x\n</details>\n- [x] Run now <!-- kep-sync:box run-now -->\r<!-- kep-sync:dashboard:end -->"]
    text = dash.render(dash.DashboardInputs(("u", "t", "1 change"), look, "", watch, [], [], [], "", ""))
    assert [x for x in text.split("\n") if x.startswith(("- at risk", "- missed", "- planned"))] == [
        "- at risk: [1](https://kep.k8s.io/1) a: r1",
        "- missed: [2](https://kep.k8s.io/2) b: r2",
    ]
    z = "\u200b"
    assert text.split("\n")[6:9] == [
        "Needs a look:",
        "",
        f"- x </details> - [x] Run now <!-{z}- kep-sync:box run-now -{z}-> <!-{z}- kep-sync:dashboard:end -{z}->",
    ]
    assert dash.ticked(dash.merge(None, text)) == [] and text.count(dash.END) == 1


def stranger_issue(gh, number: int, state: str) -> None:
    """An issue ``mallory`` opened whose body carries the dashboard's marker."""
    issues = gh.repos[REPO].setdefault("issues", {})
    issues[number] = dict(
        number=number, id=gh._next_id(), title="hi", body=dash.MARKER + "\nstranger's text", state=state,
        user="mallory", created_at=gh._tick(), updated_at=gh._tick(), closed_at=None,
    )  # fmt: skip


@pytest.mark.parametrize("state", ["closed", "open"])
def test_an_issue_a_stranger_opened_with_the_marker_is_not_the_dashboard(gh, board, state):
    stranger_issue(gh, 1, state)
    run = run_github(gh, keps(), board)
    issues = gh.repos[REPO]["issues"]
    assert (issues[1]["state"], issues[1]["body"]) == (state, dash.MARKER + "\nstranger's text")
    assert (issues[3]["user"], issues[3]["title"], issues[3]["state"]) == ("kep-bot", dash.TITLE, "open")
    assert ("GET", "/user") in run.requests and issue_writes(run) == [("POST", f"/repos/{REPO}/issues")]


def test_an_issues_event_that_did_not_edit_the_body_lifts_nothing(gh, ignored, monkeypatch, tmp_path):
    # the edit history does not name who ticked: the event's sender (a maintainer labelling) is not credited
    tick(gh, "lift-4671.beta", editor=None)
    path = tmp_path / "labeled.json"
    path.write_text(json.dumps({"action": "labeled", "issue": {"number": 2}, "sender": {"login": "maintainer"}}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issues")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    assert github_dashboard.event_editor(2) == ("", "")
    run = run_github(gh, keps(), ignored)
    assert run.written == [] and prmod.parse_state(gh.pull(1)["body"]).ignore == "4671.beta"
    assert "- [x] KEP 4671 beta" in gh.issue(2)["body"]


def test_a_token_github_will_not_name_keeps_one_dashboard_across_runs(gh, board):
    """``GET /user`` refused (HTTP 403, as for a workflow's GITHUB_TOKEN): the first run opens the dashboard and
    keeps its number; later runs take that issue by the kept number, ask ``/user`` once, and open no second one."""
    gh.fail_next("GET", r"^/user$", 403, times=10)
    first = run_github(gh, keps(), board)
    assert [r for r in first.requests if "/issues" in r[1] or r[1] == "/user"] == [
        ("GET", f"/repos/{REPO}/issues"),
        ("GET", "/user"),
        ("POST", f"/repos/{REPO}/issues"),
    ]
    for _ in range(2):
        run = run_github(gh, keps(), board)
        assert [r for r in run.requests if "/issues" in r[1] or r[1] == "/user"] == [
            ("GET", f"/repos/{REPO}/issues/1/comments"),
            ("GET", f"/repos/{REPO}/issues/2"),
            ("GET", "/user"),
        ]
    assert sorted((n, i["title"]) for n, i in gh.repos[REPO]["issues"].items()) == [(2, dash.TITLE)]


def test_with_no_login_and_no_cache_to_keep_its_number_no_dashboard_is_opened(gh, board):
    """``GET /user`` refused and the cache not writable: kep-sync could not find the issue again, so it opens
    none (rather than a new one each run); the pull request is published all the same."""
    from pathlib import Path

    Path(gh.cache_dir).mkdir(parents=True, exist_ok=True)
    (Path(gh.cache_dir) / "github-wiki").write_text("not a directory")
    gh.fail_next("GET", r"^/user$", 403, times=10)
    for _ in range(2):
        run = run_github(gh, keps(), board)
        assert [r for r in run.requests if r[1] == f"/repos/{REPO}/issues" or r[1] == "/user"] == [
            ("GET", f"/repos/{REPO}/issues"),
            ("GET", "/user"),
        ]
    assert (gh.repos[REPO].get("issues", {}), gh.pull(1)["state"]) == ({}, "open")
