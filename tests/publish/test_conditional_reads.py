"""Conditional reads of the wiki repository (bot/publish/conditional.py) against the fake GitHub: ETags kept in
``cache_dir``, ``304`` answers used, a damaged or unwritable cache never changes what a run reads."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from bot import redact
from bot.redact import add_secret
from tests.publishutil import (
    PAGE_PATH,
    PROMOTED,
    READS,
    READS_PR,
    REPO,
    fresh_logging,  # noqa: F401  (autouse fixture)
    keps,
    opened,
    page,
    run_github,
)


def test_a_run_after_a_run_with_no_change_reads_only_304s(gh, cfg):
    opened(gh, cfg)
    second = run_github(gh, keps(), cfg)
    assert (second.requests, second.statuses) == (READS_PR, [200, 304, 304, 200])
    body = gh.pull(1)["body"]
    steady = run_github(gh, keps(), cfg)
    assert (steady.requests, steady.statuses, steady.writes, steady.written) == (READS_PR, [304] * 4, 0, [])
    assert steady.sent_bytes < 1024 and gh.pull(1)["body"] == body
    assert steady.plan.changes == second.plan.changes and steady.url == second.url


def test_what_changed_is_read_in_full_and_the_rest_answered_304(gh, cfg):
    opened(gh, cfg)
    run_github(gh, keps(), cfg)
    gh.commit_files(REPO, "main", {PAGE_PATH: page(note="edited")})
    moved = run_github(gh, keps(), cfg)
    assert moved.requests[:4] == READS_PR and moved.statuses[:4] == [
        200,
        200,
        200,
        304,
    ]  # the listed PR names the base head
    assert gh.read_file(REPO, "kep-sync/matrix", PAGE_PATH) == page(
        [(4671, "beta", "v1.37"), (5710, "alpha", "-")], note="edited"
    )
    assert run_github(gh, keps(), cfg).statuses == [200, 304, 304, 304]  # the run before edited the PR
    gh.add_comment(1, "just a note")
    noted = run_github(gh, keps(), cfg)
    assert noted.statuses[:4] == [304, 304, 304, 200]  # only the comments changed


def test_a_damaged_kept_answer_is_read_again_without_if_none_match(gh, cfg):
    opened(gh, cfg)
    run_github(gh, keps(), cfg)
    bodies = sorted(Path(gh.cache_dir).rglob("*.body"))
    assert len(bodies) == 4
    for path in bodies:
        path.write_bytes(b'{"data": ')  # cut short
    again = run_github(gh, keps(), cfg)
    assert again.requests == [r for r in READS_PR for _ in (1, 2)] and again.statuses == [304, 200] * 4
    assert (again.writes, again.written, again.url) == (0, [], f"https://github.com/{REPO}/pull/1")
    assert run_github(gh, keps(), cfg).statuses == [304] * 4


def test_an_unwritable_cache_leaves_the_run_as_without_one(gh, cfg, tmp_path):
    blocked = tmp_path / "cache"
    blocked.write_text("a file, not a directory\n")
    cfg = cfg.model_copy(update={"cache_dir": str(blocked)})
    first = opened(gh, cfg)
    assert (first.requests[:3], first.written) == (READS, [PAGE_PATH])
    assert gh.read_file(REPO, "kep-sync/matrix", PAGE_PATH) == PROMOTED
    second = run_github(gh, keps(), cfg)
    assert (second.statuses, second.writes) == ([200] * 4, 0)
    assert blocked.read_text() == "a file, not a directory\n"


def test_a_kept_page_whose_content_is_not_its_blob_is_read_again(gh, cfg):
    opened(gh, cfg)
    run_github(gh, keps(), cfg)
    for path in Path(gh.cache_dir).rglob("*.body"):
        entry = json.loads(path.read_bytes())
        if isinstance(entry["data"], dict) and entry["data"].get("encoding") == "base64":
            entry["data"]["content"] = base64.b64encode(b"| KEP |\n|---|\n| 1-x |\n").decode()
            path.write_text(json.dumps(entry))
    again = run_github(gh, keps(), cfg)
    assert again.statuses == [304, 304, 304, 200, 304] and again.requests[2:4] == [READS[2]] * 2
    assert (again.writes, again.written) == (0, [])


def test_an_answer_holding_a_secret_is_not_kept(gh, cfg, monkeypatch):
    monkeypatch.setattr(redact, "_added", set())  # the canary stays this test's
    opened(gh, cfg)
    canary = "kep-sync-canary-" + "7" * 20
    add_secret(canary)
    gh.pull(1)["body"] += f"\n\nA human pasted {canary} here.\n"
    run_github(gh, keps(), cfg)
    kept = b"".join(path.read_bytes() for path in Path(gh.cache_dir).rglob("*.body"))
    assert canary.encode() not in kept and len(list(Path(gh.cache_dir).rglob("*.body"))) == 3
    assert run_github(gh, keps(), cfg).statuses[0] == 200  # the list is read in full again
