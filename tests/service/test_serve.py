"""``kep-sync serve``, ``health`` and ``validate`` as users run them, and the cheap no-change poll.

The service runs as a real subprocess against a loopback GitHub API (tests/servehelp.py);
the poll's request counts are checked with respx.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from bot.cli.main import main
from bot.config import load_config
from bot.service.job import run_job
from bot.service.state import State, load_state
from tests.servehelp import (
    API,
    GUARD_SECONDS,
    KEP_PATH,
    KEP_YAML,
    PAGE,
    PAGE_SYNCED,
    REPO_ROOT,
    SHA,
    FakeApi,
    ServeProcess,
    write_setup,
)


def test_sigterm_finishes_the_run_in_progress_then_exits_0(tmp_path):
    with FakeApi() as api:
        config = write_setup(tmp_path, api.url)
        api.hold.set()
        serve = ServeProcess(
            "serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), "--run-now", tmp=tmp_path
        )
        assert api.arrived.wait(GUARD_SECONDS), "the run never fetched the tarball"
        serve.proc.send_signal(signal.SIGTERM)
        serve.wait_for("stop requested; finishing the run in progress")
        api.release.set()
        assert serve.finish() == 0
    events = [e["event"] for e in serve.events]
    assert events == [
        "service started",
        "run started",
        "stop requested; finishing the run in progress",
        "run finished",
        "service stopped",
    ]
    summary = serve.events[3]
    assert {k: summary[k] for k in ("result", "revision", "changes", "pull_request", "http_requests", "level")} == {
        "result": "ok",
        "revision": SHA,
        "changes": 2,
        "pull_request": None,
        "http_requests": 3,  # the ref, the commit's tree (not served: no cache), the tarball
        "level": "info",
    }
    assert summary["run_id"] == serve.events[1]["run_id"] and len(summary["run_id"]) == 12
    assert (tmp_path / "wiki" / "matrix.md").read_text(encoding="utf-8") == PAGE_SYNCED
    state = load_state(tmp_path / "st")
    assert (state.revision, state.revision_etag, state.last_run.result) == (SHA, '"e1"', "ok")


def test_sighup_stops_the_service_cleanly_like_sigterm(tmp_path):
    config = write_setup(tmp_path, "http://127.0.0.1:9")  # the cron never fires during the test
    serve = ServeProcess("serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), tmp=tmp_path)
    serve.wait_for("service started")
    serve.proc.send_signal(signal.SIGHUP)
    assert serve.finish() == 0
    assert [(e["event"], e.get("signal")) for e in serve.events] == [
        ("service started", None),
        ("stop requested", "SIGHUP"),
        ("service stopped", None),
    ]
    assert load_state(tmp_path / "st").service_started  # the service really ran before it stopped


def test_a_failed_run_is_logged_and_the_service_keeps_going(tmp_path):
    with FakeApi() as api:
        config = write_setup(tmp_path, api.url)
        api.body = b"not a tarball"  # the run fails reading upstream (the config itself is fine)
        serve = ServeProcess(
            "serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), "--run-now", tmp=tmp_path
        )
        failed = serve.wait_for("run failed")
        summary = serve.wait_for("run finished")
        assert serve.proc.poll() is None  # still serving
        serve.proc.send_signal(signal.SIGINT)
        assert serve.finish() == 0
    assert failed["error"].split("\n")[0] == (
        f"GET {api.url}/repos/o/enh/tarball/{SHA}: not a readable tar.gz archive (Not a gzipped file (b'no'))"
    )
    assert (summary["result"], summary["error"], summary["level"]) == ("failed", failed["error"], "error")
    assert main(["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]) == 1


def test_a_second_instance_on_the_same_state_dir_exits_1(tmp_path):
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    first = ServeProcess("serve", "--config", str(config), "--state-dir", str(tmp_path / "st"), tmp=tmp_path)
    first.wait_for("service started")
    second = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve", "--config", str(config), "--state-dir", str(tmp_path / "st")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
    )
    first.proc.send_signal(signal.SIGTERM)
    assert first.finish() == 0
    assert [e["event"] for e in first.events] == ["service started", "stop requested", "service stopped"]
    assert second.returncode == 1
    assert second.stderr == (
        f"kep-sync: error: {tmp_path / 'st' / 'lock'}: another kep-sync instance "
        f"(pid {first.proc.pid}) holds the lock of this state directory\n"
    )


def test_health_exit_codes(tmp_path, capsys):
    config = write_setup(tmp_path, "http://127.0.0.1:9", cron="0 6 * * *")
    args = ["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]
    assert main(args) == 1
    assert capsys.readouterr().out == "unhealthy: no service start and no run recorded in the state directory\n"
    with FakeApi() as api:
        config.write_text(config.read_text().replace("http://127.0.0.1:9", api.url))
        record = run_job(load_config(config), tmp_path / "st")
    assert record.result == "ok"
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(f"healthy: last run {record.run_id} ok at ")


def test_validate_prints_every_error_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("publish: sometimes\ncolour: blue\nschedule:\n  cron: '0 6 * * 1-8'\n  timezone: Mars/Olympus\n")
    assert main(["validate", "--config", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"kep-sync: error: {bad}: publish: 'sometimes' is not one of 'none', 'files', 'git' or 'github'",
        f"kep-sync: error: {bad}: schedule.cron: '0 6 * * 1-8': day of week value '8' is out of range 0-7",
        f"kep-sync: error: {bad}: schedule.timezone: unknown time zone 'Mars/Olympus' (expected an IANA name such "
        "as UTC or Europe/Berlin)",
        f"kep-sync: error: {bad}: colour: unknown key (value 'blue'); did you mean 'columns'?",
    ]
    assert main(["validate", "--config", str(REPO_ROOT / "config" / "kep-sync.yaml")]) == 0
    assert capsys.readouterr().out == "ok\n"


def test_token_file_is_read_when_the_variable_is_unset(tmp_path, monkeypatch):
    from bot.cli.main import load_token_file

    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "token").write_text("ghp_" + "x" * 36 + "\n")
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(tmp_path / "token"))
    load_token_file()
    assert os.environ["GITHUB_TOKEN"] == "ghp_" + "x" * 36


# -- the no-change poll, counted with respx -----------------------------------------------------


def test_an_unchanged_poll_makes_one_conditional_request_and_no_github_calls(tmp_path, github):
    mock, upstream = github
    config = load_config(write_setup(tmp_path, API))
    first = run_job(config, tmp_path / "st")
    assert (first.result, first.revision, first.changes, first.http_requests) == ("ok", SHA, 2, 3)
    assert len(mock.calls) == 3  # poll (the sync reuses its answer), the commit's tree id, tarball

    second = run_job(config, tmp_path / "st")  # the page is as the first run left it
    assert (second.result, second.revision, second.http_requests) == ("skipped", SHA, 1)
    assert (second.changes, second.applied, second.pull_request, second.error) == (0, 0, None, "")
    assert len(mock.calls) == 4
    request = mock.calls[-1].request
    assert (request.url.path, request.headers["If-None-Match"], request.headers["Accept"]) == (
        "/repos/o/enh/commits/main",
        '"e1"',
        "application/vnd.github.sha",
    )

    upstream.update(sha="b" * 40, etag='"e2"')  # upstream moved: a full run again
    (tmp_path / "wiki" / "matrix.md").write_text(PAGE, encoding="utf-8")
    third = run_job(config, tmp_path / "st")
    # poll, the commit's tree id, compare (not served here: the tarball instead), tarball
    assert (third.result, third.revision, third.changes, third.http_requests) == ("ok", "b" * 40, 2, 4)
    assert load_state(tmp_path / "st").revision_etag == '"e2"'


def test_a_new_config_or_a_failed_run_is_never_skipped(tmp_path, github):
    _, upstream = github
    config = load_config(write_setup(tmp_path, API))
    assert run_job(config, tmp_path / "st").result == "ok"
    changed = config.model_copy(update={"feature_gates": "owned"})
    # settings changed: a full run, upstream from the cache (the ref: 304 to the state's ETag; the commit's tree id)
    assert run_job(changed, tmp_path / "st").http_requests == 2
    upstream.update(sha="b" * 40, etag='"e2"')
    page = tmp_path / "wiki" / "matrix.md"
    page.rename(page.with_suffix(".away"))
    assert run_job(changed, tmp_path / "st").result == "failed"
    page.with_suffix(".away").rename(page)
    retry = run_job(changed, tmp_path / "st")  # same upstream revision, but the last run at it failed
    # the state keeps the ETag of its last good run, so the ref is a 200; the files from the cache the failed run
    # filled
    assert (retry.result, retry.revision, retry.http_requests) == ("ok", "b" * 40, 2)
    assert run_job(changed, tmp_path / "st").result == "skipped"


def test_a_poll_after_a_blocked_run_is_never_skipped(tmp_path, github):
    from bot.service.state import save_state

    config = load_config(write_setup(tmp_path, API))
    assert run_job(config, tmp_path / "st").result == "ok"
    state = load_state(tmp_path / "st")  # same revision, settings and ETags, but the last run was blocked
    state.last_run = state.last_run.model_copy(update={"result": "blocked"})
    save_state(tmp_path / "st", state)
    again = run_job(config, tmp_path / "st")
    assert (again.result, again.http_requests) == ("ok", 2)  # a full run; upstream from the cache, checked
    assert run_job(config, tmp_path / "st").result == "skipped"


def test_release_notes_without_a_probe_force_a_full_run(tmp_path, github, monkeypatch):
    import bot.service.job

    config = load_config(write_setup(tmp_path, API))
    assert run_job(config, tmp_path / "st").result == "ok"
    monkeypatch.setattr(bot.service.job, "release_notes_etags", lambda config, client, known: None)
    assert run_job(config, tmp_path / "st").result == "ok"
    monkeypatch.setattr(bot.service.job, "release_notes_etags", lambda config, client, known: {"u": '"n1"'})
    assert run_job(config, tmp_path / "st").result == "ok"  # ETags differ from the stored {}
    assert load_state(tmp_path / "st").release_notes_etags == {"u": '"n1"'}
    assert run_job(config, tmp_path / "st").result == "skipped"


def test_release_notes_directory_unchanged_is_skipped_and_a_changed_file_forces_a_run(tmp_path, github):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "release-notes-1.37.json").write_text("{}", encoding="utf-8")
    base = load_config(write_setup(tmp_path, API))
    config = base.model_copy(update={"release_notes": base.release_notes.model_copy(update={"source": str(notes)})})
    assert run_job(config, tmp_path / "st").result == "ok"
    skipped = run_job(config, tmp_path / "st")
    assert (skipped.result, skipped.http_requests) == ("skipped", 1)
    (notes / "release-notes-1.37.json").write_text('{"1": {"text": "Added `X`."}}', encoding="utf-8")
    assert run_job(config, tmp_path / "st").result == "ok"
    assert run_job(config, tmp_path / "st").result == "skipped"


def test_a_local_checkout_with_uncommitted_kep_changes_is_never_skipped(tmp_path):
    from tests.gitutil import git, make_repo

    sha = make_repo(tmp_path / "enh", {KEP_PATH: KEP_YAML})
    base = load_config(write_setup(tmp_path, "http://127.0.0.1:9"))
    config = base.model_copy(update={"enhancements": str(tmp_path / "enh")})
    page, kep_file = tmp_path / "wiki" / "matrix.md", tmp_path / "enh" / KEP_PATH
    results = []

    def poll():
        summary = run_job(config, tmp_path / "st")
        results.append((summary.result, load_state(tmp_path / "st").revision, page.read_text()))

    poll()
    poll()
    kep_file.write_bytes(KEP_YAML.replace(b"stage: beta", b"stage: stable"))  # an edit not committed
    poll()
    poll()
    git(tmp_path / "enh", "checkout", "--", KEP_PATH)  # put back: the page must follow
    poll()
    poll()
    (kep_file.parent.parent / "9-new").mkdir()
    (kep_file.parent.parent / "9-new" / "kep.yaml").write_bytes(b"title: n\n")  # untracked counts too
    poll()
    stable = PAGE_SYNCED.replace("implementable / beta", "implementable / stable")
    assert results == [
        ("ok", sha, PAGE_SYNCED),
        ("skipped", sha, PAGE_SYNCED),
        ("ok", "", stable),
        ("ok", "", stable),
        ("ok", sha, PAGE_SYNCED),
        ("skipped", sha, PAGE_SYNCED),
        ("ok", "", PAGE_SYNCED),
    ]


def test_lost_state_costs_one_full_run(tmp_path, github):
    config = load_config(write_setup(tmp_path, API))
    assert run_job(config, tmp_path / "st").result == "ok"
    (tmp_path / "st" / "state.json").unlink()
    assert run_job(config, tmp_path / "st").result == "ok"
    assert run_job(config, tmp_path / "st").result == "skipped"
    assert load_state(tmp_path / "st") != State()


# -- config: environment precedence and settings that can never work ---------------------------------------

SHIPPED = REPO_ROOT / "config" / "kep-sync.yaml"


def test_the_shipped_config_honours_github_api_url_and_the_cache_dir_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3")
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", "/srv/kep-sync-cache")
    config = load_config(SHIPPED)
    assert (config.github.api_url, config.cache_dir) == ("https://ghe.example.com/api/v3", "/srv/kep-sync-cache")
    pinned = tmp_path / "pinned.yaml"  # an explicit value wins over the variable
    pinned.write_text("cache_dir: /pinned\ngithub:\n  api_url: https://api.github.com\n")
    assert (load_config(pinned).github.api_url, load_config(pinned).cache_dir) == ("https://api.github.com", "/pinned")
    monkeypatch.delenv("GITHUB_API_URL")
    monkeypatch.delenv("KEP_SYNC_CACHE_DIR")
    config = load_config(SHIPPED)
    assert (config.github.api_url, config.cache_dir) == ("https://api.github.com", "~/.cache/kep-sync")


def test_validate_lists_configs_that_can_never_work(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    bad = tmp_path / "bad.yaml"
    bad.write_text("publish: github\ngithub:\n  api_url: ftp://ghe.example.com\npull_request:\n  branch: bad..name\n")
    assert main(["validate", "--config", str(bad)]) == 2
    assert [line.removeprefix("kep-sync: error: ") for line in capsys.readouterr().err.splitlines()] == [
        f"{bad}: wiki.repo: required when publish is github (OWNER/NAME of the wiki repository)",
        f"{bad}: github.api_url: 'ftp://ghe.example.com': expected an http(s) URL such as https://api.github.com "
        "or https://HOST/api/v3",
        f"{bad}: pull_request.branch: 'bad..name' is not a valid git branch name: must not contain '..'",
    ]
    empty = tmp_path / "empty.yaml"
    empty.write_text("wiki:\n  repo: acme/wiki\npull_request:\n  branch: ''\n")
    monkeypatch.setenv("GITHUB_API_URL", "api.github.com")  # no scheme: a bad variable is reported too
    assert main(["validate", "--config", str(empty)]) == 2
    assert [line.removeprefix("kep-sync: error: ") for line in capsys.readouterr().err.splitlines()] == [
        f"{empty}: github.api_url: 'api.github.com' (from $GITHUB_API_URL): expected an http(s) URL such as "
        "https://api.github.com or https://HOST/api/v3",
        f"{empty}: pull_request.branch: '' is not a valid git branch name: must not be empty",
    ]
    good = tmp_path / "good.yaml"
    good.write_text("publish: github\nwiki:\n  repo: acme/wiki\ngithub:\n  api_url: http://127.0.0.1:8080/api/v3\n")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_aGoodLookingToken0000000000000000")  # publish github needs one
    assert main(["validate", "--config", str(good)]) == 0


BRANCH_NAMES = [
    "kep-sync/matrix",
    "bots/kep-sync_2026.03",
    "é/ü",
    "feat/x.lockx",
    "bad..name",
    "has space",
    "tab\there",
    "x.lock",
    "a/b.lock/c",
    "a/.hidden",
    ".hidden",
    "-dash",
    "a//b",
    "/a",
    "a/",
    "a.",
    "a@{1}",
    "a~1",
    "a^",
    "a:b",
    "a?",
    "a*",
    "a[b",
    "a\\b",
    "HEAD",
    "del\x7f",
    "ok@name",
]


def test_branch_names_are_judged_as_git_check_ref_format_does(tmp_path):
    from bot.sources import ref_name_problem

    def git_accepts(name: str) -> bool:
        return (
            subprocess.run(
                ["git", "check-ref-format", "--branch", name], cwd=tmp_path, capture_output=True, check=False
            ).returncode
            == 0
        )

    assert {n: ref_name_problem(n) is None for n in BRANCH_NAMES} == {n: git_accepts(n) for n in BRANCH_NAMES}
    assert ref_name_problem("x.lock") == "no path component may end with '.lock'"
    assert ref_name_problem("has space") == "must not contain spaces, control characters or any of ~ ^ : ? * [ \\"


# -- a publish blocked by a foreign commit: recorded, and the next poll is a full run ----------------------


def test_a_blocked_run_is_recorded_and_the_next_poll_sees_the_regenerate_label(tmp_path, fake_github, monkeypatch):
    import structlog

    from bot.publish import auth
    from bot.publish import pull_request as prmod
    from tests.gitutil import commit, make_repo
    from tests.publishutil import BRANCH, PAGE, PAGE_PATH, REPO, github_config, page
    from tests.syncutil import kep

    gh = fake_github
    gh.seed_repo(REPO, {PAGE_PATH: PAGE})
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "s" * 36)
    monkeypatch.setattr(auth, "SECONDS_BETWEEN_WRITES", 0)
    up = tmp_path / "up"
    make_repo(
        up,
        dict(
            [
                kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
                kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
            ]
        ),
    )
    config = github_config(gh).model_copy(update={"enhancements": str(up), "cache_dir": str(tmp_path / "cache")})
    st, r = tmp_path / "st", f"/repos/{REPO}"

    def job():
        gh.reset_counters()
        with structlog.testing.capture_logs() as logs:
            record = run_job(config, st)
        finished = [e for e in logs if e["event"] == "run finished"]
        assert len(finished) == 1
        return record, finished[0]["log_level"], [(m, p) for m, p, _ in gh.requests]

    first, level, _ = job()
    assert (first.result, first.pull_request, level) == ("ok", f"https://github.com/{REPO}/pull/1", "info")
    assert job()[0].result == "skipped"

    bot_head = gh.branch_sha(REPO, BRANCH)
    foreign = gh.commit_files(REPO, BRANCH, {"notes.md": "a reviewer's fix\n"}, "human fix")
    new_revision = commit(up, dict([kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.36")]))
    blocked, level, calls = job()
    reads = [
        ("GET", f"{r}/pulls"),
        ("GET", f"{r}/branches/main"),
        ("GET", f"{r}/contents/{PAGE_PATH}"),
        ("GET", f"{r}/issues/1/comments"),  # commands
        ("GET", f"{r}/git/commits/{foreign}"),
        ("GET", f"{r}/git/commits/{bot_head}"),
        ("GET", f"{r}/issues/1/comments"),
    ]  # the note about the foreign commit, once
    assert calls == reads + [("POST", f"{r}/issues/1/comments")]
    assert (blocked.result, blocked.revision, blocked.changes, blocked.http_requests, level) == (
        "blocked",
        new_revision,
        2,
        8,
        "warning",
    )
    assert gh.branch_sha(REPO, BRANCH) == foreign and len(gh.comments) == 1
    state = load_state(st)
    assert (state.last_run.result, state.last_success.result) == ("blocked", "blocked")
    assert state.revision == first.revision  # the last completed run, so the next poll is not skipped

    again, level, calls = job()  # no label yet: blocked again, nothing written, no second comment
    assert (again.result, level, calls, gh.writes, len(gh.comments)) == ("blocked", "warning", reads, 0, 1)

    gh.pull(1)["labels"].append(prmod.REGENERATE_LABEL)  # upstream unchanged: the poll must still run in full
    fixed, level, calls = job()
    assert calls == reads[:6] + [
        ("POST", f"{r}/git/blobs"),
        ("POST", f"{r}/git/trees"),
        ("POST", f"{r}/git/commits"),
        ("PATCH", f"{r}/git/refs/heads/{BRANCH}"),
        ("PATCH", f"{r}/pulls/1"),
        ("DELETE", f"{r}/issues/1/labels/{prmod.REGENERATE_LABEL}"),
    ]
    assert (fixed.result, fixed.revision, level) == ("ok", new_revision, "info")
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [gh.branch_sha(REPO, "main")] and gh.pull(1)["labels"] == []
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == page([(4671, "beta", "v1.36"), (5710, "alpha", "-")])
    assert load_state(st).revision == new_revision
    skipped, _, calls = job()
    assert (skipped.result, calls) == ("skipped", [])


def test_the_workflow_writes_and_uploads_the_report_on_every_run():
    import yaml

    workflow = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "kep-sync.yml").read_text(encoding="utf-8"))
    steps = {s.get("name"): s for s in workflow["jobs"]["sync"]["steps"]}
    assert "args=(sync --config config/kep-sync.yaml --report kep-sync-report.json)\n" in steps["Sync"]["run"]
    upload = steps["Upload the JSON report"]
    assert (upload["if"], upload["with"]["path"], upload["with"]["name"]) == (
        "always()",
        "kep-sync-report.json",
        "kep-sync-report",
    )
