"""Credentials in a configured URL go nowhere: user-info in ``github.api_url``, a git source, ``links.enhancements``
reaches no file kep-sync writes (cache, state, report, last-run files, the pull request, commits) and no output;
a clone cut short and a state written before are cleaned."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import httpx
import pytest
import respx

from bot import redact as redaction
from bot.publish import auth
from bot.redact import add_url_secrets, redact_values, url_credentials
from tests.fakegithub import FakeGitHub
from tests.gitutil import git, make_repo
from tests.harness.runner import run_cli

SECRET = "Pw0rdSecretXyz"
TOKEN = "ghp_" + "t" * 36
KEP = (
    'title: KEP 1\nkep-number: 1\nowning-sig: sig-a\nstatus: implementable\nstage: beta\nmilestone:\n  beta: "v1.31"\n'
)


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.setattr(redaction, "_added", set())


def test_url_credentials_are_the_user_info_its_password_and_secret_parameters():
    assert url_credentials(f"http://bot:{SECRET}@host/api/v3") == [f"bot:{SECRET}", SECRET]
    assert url_credentials(f"https://x@host/r.git?token={SECRET}&a=1") == ["x", SECRET]
    assert url_credentials("github:kubernetes/enhancements@master") == []
    add_url_secrets(f"http://bot:{SECRET}@host")
    assert redact_values(f"a {SECRET} b") == "a *** b"


def everything(root: Path, outputs: list[str], fake: FakeGitHub) -> dict[str, str]:
    """``{where: text}`` of every file under ``root`` but the config, the outputs, and what the fake GitHub keeps."""
    texts = {f"output {i}": text for i, text in enumerate(outputs)}
    texts |= {str(p): p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()}
    texts.pop(str(root / "c.json"))
    texts |= {f"pull #{n}": json.dumps(pr, default=str) for r in fake.repos.values() for n, pr in r["pulls"].items()}
    texts |= {f"commit {sha}": c["message"] for sha, c in fake.commits.items()}
    texts |= {f"blob {sha}": b.decode("utf-8", "replace") for sha, b in fake.blobs.items()}
    return texts


def test_user_info_in_every_configured_url_reaches_no_file_and_no_output(tmp_path, monkeypatch):
    from bot.config import load_config
    from bot.service.job import run_job

    monkeypatch.setattr(auth, "SECONDS_BETWEEN_WRITES", 0)  # 4 s of waits; pacing: test_targets_runs.py
    with FakeGitHub() as fake:
        fake.seed_repo("o/enh", {"keps/sig-a/1-one/kep.yaml": KEP})
        fake.seed_repo("acme/wiki", {"m.md": "| KEP | Stage |\n|---|---|\n| 1 | alpha |\n"})
        api = f"http://bot:{SECRET}@{fake.url.removeprefix('http://')}"
        config = {
            "enhancements": "github:o/enh@main",
            "cache_dir": str(tmp_path / "cache"),
            "github": {"api_url": api},
            "links": {"enhancements": f"https://bot:{SECRET}@github.example/o/enh"},
            "wiki": {"repo": "acme/wiki", "pages": ["m.md"], "dir": str(tmp_path / "w")},
            "publish": "github",
        }
        (tmp_path / "c.json").write_text(json.dumps(config), encoding="utf-8")
        env = {"GITHUB_TOKEN": TOKEN}
        first = run_cli(["sync", "--config", str(tmp_path / "c.json"), "--report", str(tmp_path / "r.json")], env)
        checked = run_cli(["validate", "--config", str(tmp_path / "c.json")], env)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            job = run_job(load_config(tmp_path / "c.json"), tmp_path / "st")
        assert (first.code, checked.code, job.result, len(fake.repos["acme/wiki"]["pulls"])) == (0, 0, "ok", 1)
        outputs = [first.stdout, first.stderr, checked.stdout, checked.stderr, out.getvalue(), err.getvalue()]
        texts = everything(tmp_path, outputs, fake)
        pr = fake.repos["acme/wiki"]["pulls"][1]["body"]
        host = fake.url.removeprefix("http://")
    assert f"[L3](http://{host}/acme/wiki/blob/" in pr  # the page link: the API host, no user-info
    assert len(texts) > 10 and [where for where, text in texts.items() if SECRET in text] == []


def test_a_git_source_with_user_info_leaves_no_credential_in_its_clone(tmp_path):
    from bot.sources.git import sync_git_cache

    make_repo(tmp_path / "up", {"keps/sig-a/1-one/kep.yaml": KEP})
    url = f"file://bot:{SECRET}@localhost{tmp_path / 'up'}"
    repo = sync_git_cache(url, tmp_path / "cache")
    git(repo, "config", "remote.origin.url", url)  # a clone cut short before its remote was removed
    (repo / "FETCH_HEAD").write_text(f"x\t\t{url}\n")
    sync_git_cache(url, tmp_path / "cache")
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert (files, (repo / "FETCH_HEAD").exists()) == ([], False)


def test_the_release_notes_poll_keys_its_etag_by_the_url_without_user_info():
    from bot.http import make_client
    from bot.sources.release_notes import current_etags

    api = f"https://bot:{SECRET}@api.example.test"
    url = "https://api.example.test/repos/k/sr/commits?path=releases&sha=master&per_page=1"
    with respx.mock() as router, make_client() as client:
        route = router.get(url).mock(return_value=httpx.Response(200, json=[], headers={"ETag": '"C1"'}))
        first = current_etags("github:k/sr@master", client, {}, api_url=api)
        assert first == {url: '"C1"'}
        route.mock(return_value=httpx.Response(304))
        assert current_etags("github:k/sr@master", client, first, api_url=api) == first
        assert route.calls.last.request.headers["if-none-match"] == '"C1"'


def test_a_state_written_before_keeps_no_credential_once_saved(tmp_path):
    from bot.service.state import State, read_state, save_state

    add_url_secrets(f"https://bot:{SECRET}@api.example.test")
    old = State(release_notes_etags={f"https://bot:{SECRET}@api.example.test/repos/k/sr/commits": '"C1"'})
    save_state(tmp_path, old)
    assert SECRET not in (tmp_path / "state.json").read_text(encoding="utf-8")
    assert list(read_state(tmp_path).release_notes_etags) == ["https://***@api.example.test/repos/k/sr/commits"]
