"""Benchmark: GitHub API requests per ``--publish github`` scenario, measured against the loopback fake.

    .venv/bin/python scripts/bench/bench_publish.py

Runs the real PyGithub client over HTTP against ``tests/fakegithub/`` (no
network) and prints, per scenario, the requests the server saw (total and
writes) next to the count kep-sync's own counter reported, how many of them
GitHub counts against the rate limit (every answer but a ``304 Not Modified``
to a conditional read, :mod:`bot.publish.conditional`), the ``304`` answers and
the bytes of all answers (bodies and headers). Targets: a no-change run
<= 4 requests and 0 writes, and when nothing changed on the wiki since the
last run either (a routine scheduled run) <= 2 counted and <= 10 KB (with
``dashboard: true``: <= 6 requests, one of them the dashboard's edit); a run
that opens a pull request for one page <= 12 requests. Exit code 1 when a
target is missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.log import configure  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.publishutil import BRANCH, PAGE, PAGE_PATH, REPO, github_config, keps, page, run_github, run_preview  # noqa: E402

FULL = dict(labels=["kep-sync"], reviewers=["alice"], team_reviewers=["sig-arch"], assignees=["bob"])
PROMOTED = page([(4671, "beta", "v1.37"), (5710, "alpha", "-")])


def scenarios(fake: FakeGitHub):
    """Yield ``(name, run, target)`` in order; each step changes the fake's state like real life would."""
    cfg = github_config(fake, **FULL)
    yield "first run opens the PR (labels, assignees, reviewers)", run_github(fake, keps(), cfg), "open"
    yield "second run, no change", run_github(fake, keps(), cfg), "no-change"
    yield "scheduled run, nothing changed since the last run", run_github(fake, keps(), cfg), "steady"
    yield "upstream changed: same PR updated", run_github(fake, keps("v1.36"), cfg), None
    yield (
        "base moved elsewhere (README): nothing to do",
        (fake.commit_files(REPO, "main", {"README.md": "edited\n"}) and run_github(fake, keps("v1.36"), cfg)),
        "no-change",
    )
    yield (
        "base moved on the page: regenerated",
        (fake.commit_files(REPO, "main", {PAGE_PATH: page(note="edited")}) and run_github(fake, keps("v1.36"), cfg)),
        None,
    )
    fake.commit_files(REPO, BRANCH, {"notes.md": "human\n"})
    yield "foreign commit: comment once, skip", run_github(fake, keps("v1.36"), cfg), None
    yield "foreign commit: later runs", run_github(fake, keps("v1.36"), cfg), None
    fake.pull(1)["labels"].append("kep-sync:regenerate")
    yield "label kep-sync:regenerate: replaced", run_github(fake, keps("v1.36"), cfg), None
    fake.close_pull(1)
    yield "PR closed without merge: not recreated", run_github(fake, keps("v1.36"), cfg), "no-change"
    yield "new upstream change after a closed PR: new PR", run_github(fake, keps("v1.38"), cfg), "open"
    fake.commit_files(REPO, "main", {PAGE_PATH: page([(4671, "beta", "v1.38"), (5710, "alpha", "-")], note="edited")})
    yield "base already has the rows: PR closed", run_github(fake, keps("v1.38"), cfg), None
    yield "after the close, no change", run_github(fake, keps("v1.38"), cfg), "no-change"
    yield "after the close, scheduled run, nothing changed", run_github(fake, keps("v1.38"), cfg), "steady"


def fresh(fake: FakeGitHub, **pull_request):
    fake.seed_repo(REPO, {PAGE_PATH: PAGE, "README.md": "wiki\n"})
    return github_config(fake, **pull_request)


def single_runs():
    """Scenarios that need a fresh repository each."""
    with FakeGitHub() as fake:
        yield "first run, no labels/reviewers configured", run_github(fake, keps(), fresh(fake)), "open"
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL)
        fake.fail_next("POST", r"/git/commits$", 502)
        yield "first run with one 502 (retried)", run_github(fake, keps(), cfg), None
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL)
        fake.fail_next("POST", r"/pulls$", 429, headers={"Retry-After": "7"})
        yield "first run with one 429 Retry-After: 7", run_github(fake, keps(), cfg), None
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL).model_copy(update={"wiki": fresh(fake).wiki.model_copy(update={"base": None})})
        run_github(fake, keps(), cfg)
        yield (
            "no change, wiki.base unset (default branch from the listed PR)",
            run_github(fake, keps(), cfg),
            "no-change",
        )
        yield "wiki.base unset, nothing changed since the last run", run_github(fake, keps(), cfg), "steady"
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL)
        env = {"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY": _pem()}
        yield "first run as a GitHub App (installation lookup + token)", run_github(fake, keps(), cfg, env), None
        yield "no change as a GitHub App", run_github(fake, keps(), cfg, env), None
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL).model_copy(update={"dashboard": True})
        yield "dashboard: first run opens the PR and the dashboard", run_github(fake, keps(), cfg), None
        _later(fake, cfg, 1)  # a day later: edits the dashboard (its "last run" time)
        yield "dashboard: scheduled run, nothing changed", _later(fake, cfg, 2), "steady-dashboard"
    with FakeGitHub() as fake:
        cfg = fresh(fake, **FULL)
        yield "dry run (--publish none with wiki.repo): read-only", run_preview(fake, keps(), cfg), "no-change"
        cfg = cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"base": None})})
        yield "dry run, wiki.base unset", run_preview(fake, keps(), cfg), "no-change"


def _later(fake: FakeGitHub, cfg, days: int):
    """A run ``days`` later (the dashboard's "last run" time differs, so it is edited)."""
    import datetime

    from bot.publish import github_dashboard

    now = github_dashboard.utcnow
    github_dashboard.utcnow = lambda: now() + datetime.timedelta(days=days)
    try:
        return run_github(fake, keps(), cfg)
    finally:
        github_dashboard.utcnow = now


def _pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def main() -> int:
    configure("error")  # the runs' own log lines would drown the table
    failed = []
    print(f"{'scenario':<58} {'requests':>8} {'writes':>6} {'client':>6} {'counted':>7} {'304':>4} {'KB':>6}  sleeps")
    with FakeGitHub() as fake:
        fake.seed_repo(REPO, {PAGE_PATH: PAGE, "README.md": "wiki\n"})
        rows = list(scenarios(fake))
    rows += list(single_runs())
    for name, run, target in rows:
        kept = run.statuses.count(304)
        counted, kb = len(run.requests) - kept, run.sent_bytes / 1024
        print(
            f"{name:<58} {len(run.requests):>8} {run.writes:>6} {run.count:>6} {counted:>7} {kept:>4} {kb:>6.1f}"
            f"  {run.sleeps or ''}"
        )
        if target in ("no-change", "steady") and (len(run.requests) > 4 or run.writes):
            failed.append(name)
        if target in ("steady", "steady-dashboard") and (counted > 2 or kb > 10):
            failed.append(name)
        if target == "steady-dashboard" and (len(run.requests) > 6 or run.writes > 1):
            failed.append(name)
        if target == "open" and len(run.requests) > 12:
            failed.append(name)
    print(
        "targets: no-change <= 4 requests, 0 writes; and nothing changed since the last run: <= 2 counted, "
        "<= 10 KB (with the dashboard: <= 6 requests, 1 write); opening a PR for one page <= 12 requests: "
        + ("MISSED by " + "; ".join(failed) if failed else "met")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
