"""The state directory (JSON written atomically, instance lock) and the health verdict."""

from __future__ import annotations

import datetime
import json
import os

import pytest

from bot.cron import parse_crontab
from bot.service.health import LATE_ALLOWANCE, check_health
from bot.service.state import InstanceLock, RunRecord, State, StateError, default_state_dir, load_state, save_state

UTC = datetime.UTC


def record(result: str = "ok", started: str = "2026-03-02T06:00:00+00:00", **extra) -> RunRecord:
    return RunRecord(run_id="r1", started=started, finished=started, result=result, **extra)


def test_state_round_trips_as_sorted_json(tmp_path):
    state = State(
        source="github:o/enh@main",
        revision="a" * 40,
        revision_etag='"e1"',
        release_notes_etags={"https://x/1.37.json": '"n1"'},
        last_run=record(changes=2),
    )
    save_state(tmp_path / "st", state)
    assert load_state(tmp_path / "st") == state
    raw = json.loads((tmp_path / "st" / "state.json").read_text())
    assert raw["revision"] == "a" * 40 and raw["last_run"]["changes"] == 2 and raw["last_success"] is None
    assert sorted(p.name for p in (tmp_path / "st").iterdir()) == ["state.json"]  # no temp file left behind


def test_save_replaces_the_file_instead_of_rewriting_it(tmp_path):
    save_state(tmp_path, State(revision="1" * 40))
    before = os.stat(tmp_path / "state.json").st_ino
    save_state(tmp_path, State(revision="2" * 40))
    assert os.stat(tmp_path / "state.json").st_ino != before
    assert load_state(tmp_path).revision == "2" * 40


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"last_run": {"result": 1}}', b"\xff\xfe", b"[]"])
def test_a_damaged_state_file_is_an_empty_state(tmp_path, content):
    (tmp_path / "state.json").write_bytes(content)
    assert load_state(tmp_path) == State()


def test_missing_state_dir_is_an_empty_state(tmp_path):
    assert load_state(tmp_path / "absent") == State()


def test_unwritable_state_dir_is_a_state_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StateError) as err:
        save_state(tmp_path / "file" / "st", State())
    assert str(err.value) == f"{tmp_path / 'file' / 'st'}: cannot create the state directory: Not a directory"


def test_a_state_dir_that_is_a_regular_file_says_not_a_directory(tmp_path):
    (tmp_path / "file").write_text("x")
    want = f"{tmp_path / 'file'}: not a directory (the state directory: --state-dir or $KEP_SYNC_STATE_DIR)"
    for act in (lambda: save_state(tmp_path / "file", State()), lambda: InstanceLock(tmp_path / "file").acquire()):
        with pytest.raises(StateError) as err:
            act()
        assert str(err.value) == want
    assert (tmp_path / "file").read_text() == "x"


def test_default_state_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KEP_SYNC_STATE_DIR", str(tmp_path / "a"))
    assert default_state_dir() == tmp_path / "a"
    monkeypatch.delenv("KEP_SYNC_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "kep-sync"


def test_a_second_lock_on_the_same_state_dir_fails_naming_the_holder(tmp_path):
    with InstanceLock(tmp_path) as first:
        assert (tmp_path / "lock").read_text() == f"{os.getpid()}\n"
        with pytest.raises(StateError) as err:
            InstanceLock(tmp_path).acquire()
        assert str(err.value) == (
            f"{tmp_path / 'lock'}: another kep-sync instance (pid {os.getpid()}) holds the lock of this state directory"
        )
        first.release()
        with InstanceLock(tmp_path):  # released: the next instance may start
            pass


# -- health --------------------------------------------------------------------------------------

DAILY = parse_crontab("0 6 * * *")
MONDAY_6 = datetime.datetime(2026, 3, 2, 6, 0, tzinfo=UTC)


def test_healthy_after_a_good_run_until_the_next_run_is_overdue():
    state = State(last_run=record(), last_success=record(), service_started="2026-03-01T00:00:00+00:00")
    healthy = (True, "last run r1 ok at 2026-03-02T06:00:00+00:00, revision -")
    assert check_health(state, DAILY, MONDAY_6 + datetime.timedelta(hours=23)) == healthy
    next_due = MONDAY_6 + datetime.timedelta(days=1)
    assert check_health(state, DAILY, next_due + LATE_ALLOWANCE - datetime.timedelta(seconds=1)) == healthy
    verdict = check_health(state, DAILY, next_due + LATE_ALLOWANCE)
    assert verdict == (
        False,
        "run due at 2026-03-03T06:00:00+00:00 has not succeeded (last good run or start: 2026-03-02T06:00:00+00:00)",
    )


def test_a_skipped_run_counts_as_success():
    state = State(last_run=record("skipped"), last_success=record("skipped"))
    assert check_health(state, DAILY, MONDAY_6 + datetime.timedelta(hours=1)).ok


def test_a_blocked_run_keeps_the_service_healthy():
    state = State(last_run=record("blocked"), last_success=record("blocked"))
    assert check_health(state, DAILY, MONDAY_6 + datetime.timedelta(hours=1)) == (
        True,
        "last run r1 blocked at 2026-03-02T06:00:00+00:00, revision -",
    )


def test_unhealthy_when_the_last_run_failed():
    state = State(last_run=record("failed", error="SourceError: HTTP 502"), last_success=record())
    assert check_health(state, DAILY, MONDAY_6) == (
        False,
        "last run r1 failed at 2026-03-02T06:00:00+00:00: SourceError: HTTP 502",
    )


def test_a_fresh_service_is_healthy_until_its_first_run_is_overdue():
    state = State(service_started="2026-03-02T07:00:00+00:00")
    assert check_health(state, DAILY, MONDAY_6 + datetime.timedelta(hours=20)) == (
        True,
        "service started at 2026-03-02T07:00:00+00:00; no run due yet",
    )
    assert not check_health(state, DAILY, MONDAY_6 + datetime.timedelta(days=1) + LATE_ALLOWANCE).ok


def test_no_state_is_unhealthy():
    assert check_health(State(), DAILY, MONDAY_6) == (
        False,
        "no service start and no run recorded in the state directory",
    )


def test_health_with_a_time_that_is_not_iso_8601_is_unhealthy_not_a_crash():
    state = State(service_started="yesterday")
    health = check_health(state, parse_crontab("0 6 * * *"), datetime.datetime(2026, 3, 2, tzinfo=datetime.UTC))
    assert health == (
        False,
        "the state directory holds a time that is not a usable ISO 8601 time (Invalid isoformat string: 'yesterday')",
    )
    late = State(service_started="9999-12-31T23:59:59+00:00")
    assert check_health(late, parse_crontab("0 6 * * *"), datetime.datetime(2026, 3, 2, tzinfo=datetime.UTC)) == (
        False,
        "the state directory records a service start time in the future: "
        "9999-12-31T23:59:59+00:00 is after now (2026-03-02T00:00:00+00:00) by more than 5 "
        "minutes (a wrong clock?)",
    )
