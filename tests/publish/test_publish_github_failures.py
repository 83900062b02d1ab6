"""End to end against the stateful fake GitHub (tests/fakegithub/): server errors and retries, rate limits, the body
size limit, credentials and GitHub App auth (the pull request's life is tests/publish/test_publish_github.py's)."""

from __future__ import annotations

import json
import shutil
import time

import pytest
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.errors import ConfigError, PublishError
from bot.publish import pull_request as prmod
from tests.publishutil import (
    BRANCH,
    COMMIT,
    OPEN,
    PAGE,
    PAGE_PATH,
    PROMOTED,
    READS,
    REPO,
    R,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    keps,
    opened,
    page,
    run_github,
)


def test_502_then_success(gh, cfg):
    gh.fail_next("POST", r"/git/commits$", 502)
    run = opened(gh, cfg)
    assert run.sleeps == [2.0] and run.statuses.count(502) == 1
    assert run.requests == READS + COMMIT + OPEN[2:] and run.count == 11
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED and gh.pull(1)["state"] == "open"


def test_persistent_5xx_fails_with_nothing_half_done(gh, cfg):
    gh.fail_next("POST", r"/git/refs$", 503, times=99)
    with pytest.raises(PublishError, match=r"GitHub API: create the bot branch: HTTP 503 Injected failure"):
        run_github(gh, keps(), cfg)
    assert gh.branch_sha(REPO, BRANCH) is None and gh.repos[REPO]["pulls"] == {}
    assert [p for m, p, _ in gh.requests].count(f"{R}/git/refs") == 5


def test_failed_pull_request_creation_is_recovered_by_the_next_run(gh, cfg):
    gh.fail_next("POST", r"/pulls$", 500, times=5)
    with pytest.raises(PublishError, match="open the pull request: HTTP 500"):
        opened(gh, cfg)
    left = gh.branch_sha(REPO, BRANCH)  # a complete bot commit, no pull request
    assert gh.read_file(REPO, left, PAGE_PATH) == PROMOTED and gh.repos[REPO]["pulls"] == {}
    run = opened(gh, cfg)
    assert (
        run.requests
        == READS
        + COMMIT
        + [
            ("POST", f"{R}/git/refs"),
            ("GET", f"{R}/git/ref/heads/{BRANCH}"),
            ("GET", f"{R}/git/commits/{left}"),
            ("GET", f"{R}/compare/{gh.base}...{left}"),
            ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ]
        + OPEN[4:]
    )
    assert run.url.endswith("/pull/1") and sorted(gh.repos[REPO]["pulls"]) == [1]


def test_429_with_retry_after_is_waited_out(gh, cfg):
    gh.fail_next("POST", r"/pulls$", 429, headers={"Retry-After": "7"}, message="secondary rate limit")
    run = opened(gh, cfg)
    assert run.sleeps == [7.0] and run.count == 11 and gh.pull(1)["state"] == "open"


def test_403_rate_limit_reset_in_the_past_retries_at_once(gh, cfg):
    reset = str(int(time.time()) - 60)
    gh.fail_next(
        "GET",
        r"/pulls$",
        403,
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        message="API rate limit exceeded",
    )
    run = opened(gh, cfg)
    assert run.sleeps == [0.0] and run.url.endswith("/pull/1")


def test_rate_limit_wait_over_the_budget_fails_clearly(gh, cfg):
    gh.fail_next("GET", r"/pulls$", 429, headers={"Retry-After": "3600"}, message="slow down")
    with pytest.raises(
        PublishError, match=r"HTTP 429 slow down \(rate limited; the wait of 3600s is over the budget\)"
    ):
        opened(gh, cfg)
    assert len(gh.requests) == 1


def test_body_over_the_limit_is_cut_at_a_row_boundary(gh, cfg):
    # 601 KEPs promoted (1202 changes), plus a row no kep.yaml has (1 report-only finding, cut with the rest)
    rows = [(4671, "alpha", "-"), (5710, "alpha", "-")] + [(10000 + i, "alpha", "-") for i in range(600)]
    gh.commit_files(REPO, "main", {PAGE_PATH: page(rows + [(99999, "alpha", "-")])})
    run = run_github(gh, keps(count=600), cfg)
    body = gh.pull(1)["body"]
    assert len(body) <= prmod.BODY_LIMIT == 60_000 and run.url.endswith("/pull/1")
    table = [line for line in body.split("\n") if line.startswith("| [")]
    assert table and all(line.endswith(" |") for line in table)
    assert 0 < len(table) < 601  # one table row per page row (stage and beta of each)
    assert (
        f"\n\n_{601 - len(table)} more changes left out to keep this text short enough for a pull request; "
        "see the JSON report._\n\n<details><summary>Report only (not applied) (1)</summary>\n\n_1 more "
        "findings left out to keep this text short enough for a pull request; see the JSON report._\n\n"
        "</details>\n<details><summary>Controls</summary>\n\n_5 more controls left out" in body
    )
    # a collapsed section that lost all its rows keeps its summary line and its "left out" line
    assert [line for line in body.split("\n") if line.startswith("### ")] == ["### Graduations", "### Changes"]
    assert body.count("<details>") == body.count("</details>") == 2
    assert gh.read_file(REPO, BRANCH, PAGE_PATH).count("implementable / beta") == 601


def test_human_text_shrinks_the_changelog_budget(gh, cfg):
    opened(gh, cfg)
    human = "h" * 50_000
    gh.pull(1)["body"] = human + "\n\n" + gh.pull(1)["body"]
    rows = [(4671, "alpha", "-")] + [(10000 + i, "alpha", "-") for i in range(300)]
    gh.commit_files(REPO, "main", {PAGE_PATH: page(rows)})
    run_github(gh, keps(count=300), cfg)
    body = gh.pull(1)["body"]
    assert body.startswith(human + "\n\n") and len(body) <= prmod.BODY_LIMIT
    assert "left out to keep this text short enough for a pull request" in body


def _pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.mark.parametrize("as_file", [False, True])
def test_github_app_auth(gh, cfg, tmp_path, as_file):
    pem = _pem()
    env = {"KEP_SYNC_APP_ID": "123"}
    if as_file:
        (tmp_path / "app.pem").write_text(pem)
        env["KEP_SYNC_APP_PRIVATE_KEY_FILE"] = str(tmp_path / "app.pem")
    else:
        env["KEP_SYNC_APP_PRIVATE_KEY"] = pem
    run = run_github(gh, keps(), cfg, env=env)
    assert (
        run.requests == [("GET", f"{R}/installation"), ("POST", "/app/installations/4242/access_tokens")] + READS + OPEN
        and run.count == 12
    )
    assert gh.jwt_claims[0]["iss"] == "123"
    assert all(h.startswith("token ghs_fake") or h.startswith("Bearer ghs_fake") for h in gh.auth_headers[2:])
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["verified"] is True and gh.pull(1)["user"] == "kep-sync[bot]"


def test_missing_credentials_is_a_config_error(gh, cfg):
    with pytest.raises(ConfigError, match="GITHUB_TOKEN, or KEP_SYNC_APP_ID"):
        run_github(gh, keps(), cfg, env={})
    with pytest.raises(ConfigError, match="KEP_SYNC_APP_PRIVATE_KEY_FILE"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1"})
    with pytest.raises(ConfigError, match=r"not a usable RSA private key \(InvalidKeyError\)$"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY": "not-a-key"})
    with pytest.raises(ConfigError, match="nope.pem: cannot read"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY_FILE": "/nope.pem"})
    assert gh.requests == []


def test_an_unusable_key_file_is_named_by_its_variable_and_path(gh, cfg, tmp_path):
    (tmp_path / "k.pem").write_text("not-a-key")
    env = {"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY_FILE": str(tmp_path / "k.pem")}
    with pytest.raises(ConfigError) as err:
        run_github(gh, keps(), cfg, env=env)
    assert str(err.value) == (
        f"KEP_SYNC_APP_PRIVATE_KEY_FILE: {tmp_path / 'k.pem'}: not a usable RSA private key (InvalidKeyError)"
    )


def test_actions_token_warns_that_workflows_will_not_run(gh, cfg):
    env = {"GITHUB_ACTIONS": "true", "GITHUB_TOKEN": "ghs_" + "a" * 36}
    with structlog.testing.capture_logs() as logs:
        run_github(gh, keps(), cfg, env=env)
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert len(warnings) == 1 and "do not trigger other workflows" in warnings[0]["event"]
    assert "ghs_" not in repr(logs)
    with structlog.testing.capture_logs() as logs:
        run_github(gh, keps(), cfg)  # a PAT: no warning
    assert [e for e in logs if e["log_level"] == "warning"] == []


def test_cli_publish_github(gh, tmp_path, monkeypatch, capsys):
    from bot.cli.main import main
    from bot.publish import auth
    from tests.syncutil import kep, write_keps

    write_keps(
        tmp_path / "up",
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )
    (tmp_path / "kep-sync.yaml").write_text(
        f"enhancements: {tmp_path / 'up'}\nwiki:\n  repo: {REPO}\n  pages: [{PAGE_PATH}]\n"
        f"github:\n  api_url: {gh.url}\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "c" * 36)
    monkeypatch.setattr(auth, "SECONDS_BETWEEN_WRITES", 0)
    args = ["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", "github"]

    def finished() -> dict:
        captured = capsys.readouterr()
        assert "# Update KEP matrix" in captured.out
        lines = [json.loads(line) for line in captured.err.splitlines()]
        summary = [e for e in lines if e["event"] == "sync finished"]
        return {
            "first": captured.out.splitlines()[0],
            **{k: summary[0][k] for k in ("pages_written", "blocked", "pull_request")},
        }

    url = f"https://github.com/{REPO}/pull/1"
    assert main(args) == 0
    assert gh.pull(1)["state"] == "open" and gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED
    assert ("GET", f"{R}") in [(m, p) for m, p, _ in gh.requests]  # default branch looked up
    title = "# Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)"
    assert finished() == {"first": title, "pages_written": 1, "blocked": False, "pull_request": url}
    assert main(args) == 0  # idempotent: nothing committed
    assert finished() == {"first": title, "pages_written": 0, "blocked": False, "pull_request": url}
    gh.commit_files(REPO, BRANCH, {"notes.md": "human\n"}, "human fix")
    assert main(args) == 0  # blocked by the foreign commit: nothing committed
    assert finished() == {
        "first": f"> **Blocked: nothing was published.** The bot branch `{BRANCH}` has commits "
        "kep-sync did not make (see the log); below is what this run would have "
        "published.",
        "pages_written": 0,
        "blocked": True,
        "pull_request": url,
    }


def test_draft_title_and_config_errors(gh):
    cfg = github_config(gh, draft=True, title="KEP matrix refresh")
    run_github(gh, keps(), cfg)
    assert (gh.pull(1)["draft"], gh.pull(1)["title"]) == (True, "KEP matrix refresh")
    with pytest.raises(ConfigError, match="wiki.repo: required for --publish github"):
        run_github(gh, keps(), cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"repo": None})}))
    missing = cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"pages": ["nope.md"]})})
    with pytest.raises(ConfigError) as err:
        run_github(gh, keps(), missing)
    assert str(err.value) == f"wiki.pages (--page) 'nope.md': no such file at main of {REPO}"
    for bad, what in (("docs/", "must name a file, not a directory (no trailing '/')"), ("docs", "not a file")):
        gh.commit_files(REPO, "main", {"docs/a.md": "a\n"})
        with pytest.raises(ConfigError) as err:
            run_github(gh, keps(), cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"pages": [bad]})}))
        assert str(err.value) == f"wiki.pages (--page) {bad!r}: {what} at main of {REPO}"


# -- --publish none with wiki.repo: a read-only preview through the API ----------------------------------


def _upstream(tmp_path) -> str:
    from tests.syncutil import kep, write_keps

    return str(
        write_keps(
            tmp_path / "up",
            kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
            kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
        )
    )


def test_dry_run_reads_the_pages_from_the_repository_with_zero_writes(gh, cfg, tmp_path, monkeypatch):
    from bot.commands.sync import run_sync
    from bot.http import RequestCounter

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "r" * 36)
    dry = cfg.model_copy(
        update={
            "publish": "none",
            "enhancements": _upstream(tmp_path),
            "wiki": cfg.wiki.model_copy(update={"dir": str(tmp_path / "no-such-wiki")}),
        }
    )
    counter = RequestCounter()
    gh.reset_counters()
    outcome = run_sync(dry, report_path=tmp_path / "report.json", counter=counter)
    assert [(m, p) for m, p, _ in gh.requests] == [("GET", f"{R}/branches/main"), ("GET", f"{R}/contents/{PAGE_PATH}")]
    assert (gh.writes, counter.count, outcome.written, outcome.url, outcome.blocked) == (0, 2, [], "", False)
    assert outcome.plan.changed_pages() == {PAGE_PATH: PROMOTED.encode()}
    assert outcome.plan.changelog.title == "Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)"
    assert gh.branch_sha(REPO, BRANCH) is None and gh.repos[REPO]["pulls"] == {}
    assert (tmp_path / "report.json").is_file() and not (tmp_path / "no-such-wiki").exists()


def test_cli_dry_run_of_a_github_wiki_prints_the_changelog_anonymously(tmp_path, monkeypatch, capsys):
    from bot.cli.main import main
    from tests.fakegithub import FakeGitHub

    for name in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE", "KEP_SYNC_APP_ID"):
        monkeypatch.delenv(name, raising=False)
    with FakeGitHub(require_auth=False) as fake:
        fake.seed_repo(REPO, {PAGE_PATH: PAGE})
        (tmp_path / "kep-sync.yaml").write_text(
            f"enhancements: {_upstream(tmp_path)}\nwiki:\n  repo: {REPO}\n  pages: [{PAGE_PATH}]\n"
            f"github:\n  api_url: {fake.url}\n"
        )
        assert main(["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", "none"]) == 0
        assert [(m, p) for m, p, _ in fake.requests] == [
            ("GET", R),
            ("GET", f"{R}/branches/main"),
            ("GET", f"{R}/contents/{PAGE_PATH}"),
        ]
        assert fake.writes == 0 and set(fake.auth_headers) == {None}
    out = capsys.readouterr().out
    assert out.startswith("# Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)\n\n")
    assert "[4671](https://kep.k8s.io/4671)" in out


@pytest.mark.parametrize("publish", ["github", "none"])
def test_cli_missing_page_exits_2_naming_wiki_pages(gh, tmp_path, monkeypatch, capsys, publish):
    from bot.cli.main import main
    from tests.syncutil import kep, write_keps

    write_keps(tmp_path / "up", kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"))
    (tmp_path / "kep-sync.yaml").write_text(
        f"enhancements: {tmp_path / 'up'}\nwiki:\n  repo: {REPO}\n  base: main\n  pages: [gone.md]\n"
        f"github:\n  api_url: {gh.url}\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "c" * 36)
    assert main(["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", publish]) == 2
    assert capsys.readouterr().err.endswith(f"wiki.pages (--page) 'gone.md': no such file at main of {REPO}\n")
    assert gh.writes == 0


def test_an_app_finds_its_own_dashboard_by_its_login_without_asking_for_the_user(gh, cfg):
    env = {"KEP_SYNC_APP_ID": "123", "KEP_SYNC_APP_PRIVATE_KEY": _pem()}
    board = cfg.model_copy(update={"dashboard": True})
    run_github(gh, keps(), board, env=env)
    shutil.rmtree(gh.cache_dir)  # the issue number is forgotten: the issues are listed
    again = run_github(gh, keps(), board, env=env)
    issues = gh.repos[REPO]["issues"]
    assert sorted((n, i["user"]) for n, i in issues.items()) == [(2, "kep-sync[bot]")]
    assert ("GET", f"{R}/issues") in again.requests and ("GET", "/user") not in again.requests
