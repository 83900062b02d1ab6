"""No credential leaves the process: redaction by value, tokens that cannot go in a header, state without them."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import structlog

from bot import redact as redaction
from bot.cli.main import main
from bot.config import load_config
from bot.errors import ConfigError
from bot.http import make_client
from bot.publish.auth import connect
from bot.redact import add_secret, header_problem, redact, secret_variants, without_userinfo
from bot.service.job import run_job
from bot.service.state import read_state
from tests.servehelp import write_setup

#: A classic 40-hex personal access token: no GitHub prefix, so only redaction by value can hide it.
CLASSIC = "0123456789abcdef0123456789abcdef01234567"
NEWLINE_MESSAGE = "GITHUB_TOKEN contains a newline, which an HTTP header cannot carry (strip it from the secret)"


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in redaction.SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(redaction, "_added", set())
    yield
    structlog.reset_defaults()


def test_a_token_from_the_environment_is_redacted_by_value_in_every_form(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", CLASSIC + "\n")
    text = f"Illegal header value b'Bearer {CLASSIC}\\n' | raw {CLASSIC}\n | quoted {CLASSIC}%0A"
    assert redact(text) == "Illegal header value b'Bearer ***' | raw *** | quoted ***"
    assert redact(f"repr {CLASSIC!r}, stripped {CLASSIC}.") == "repr '***', stripped ***."


def test_a_multi_line_private_key_is_redacted_line_by_line(monkeypatch):
    key = "-----BEGIN KEY-----\nAAAABBBBCCCCDDDD\nEEEEFFFFGGGGHHHH\n-----END KEY-----\n"
    monkeypatch.setenv("KEP_SYNC_APP_PRIVATE_KEY", key)
    assert redact("jwt failed near EEEEFFFFGGGGHHHH; whole: " + key) == "jwt failed near ***; whole: ***"


def test_added_secrets_and_url_userinfo_are_redacted_and_short_values_are_not():
    add_secret("installation-token-value")
    assert redact("got installation-token-value") == "got ***"
    assert redact("https://bob:pw@host/r.git") == "https://***@host/r.git"
    assert secret_variants("short") == set()
    assert secret_variants(" 12345678 \n") == {" 12345678 \n", "12345678", "' 12345678 \\n'"[1:-1], "%2012345678%20%0A"}


def test_without_userinfo():
    assert without_userinfo("https://x:tok@github.com/k/e.git") == "https://github.com/k/e.git"
    assert without_userinfo("github:kubernetes/enhancements@master") == "github:kubernetes/enhancements@master"


@pytest.mark.parametrize(
    "value, expected",
    [
        (CLASSIC + "\n", NEWLINE_MESSAGE),
        (
            " " + CLASSIC,
            "GITHUB_TOKEN starts or ends with whitespace, which an HTTP header cannot carry (strip it from the secret)",
        ),
        (CLASSIC + "é", "GITHUB_TOKEN contains a character that is not ASCII, which an HTTP header cannot carry"),
        (
            CLASSIC[:10] + "\x01" + CLASSIC[10:],
            "GITHUB_TOKEN contains a control character or space, which an HTTP header cannot carry",
        ),
        (CLASSIC, ""),
    ],
)
def test_header_problem_names_the_variable_never_the_value(value, expected):
    assert header_problem("GITHUB_TOKEN", value) == expected


def test_an_unsendable_token_fails_before_any_request_without_retries():
    sent = []
    transport = httpx.MockTransport(lambda request: sent.append(request) or httpx.Response(200))
    with pytest.raises(ConfigError) as caught:
        make_client(CLASSIC + "\n", transport=transport)
    assert (str(caught.value), sent) == (NEWLINE_MESSAGE, [])
    with pytest.raises(ConfigError) as caught:
        connect("http://127.0.0.1:9", "o/wiki", {"GITHUB_TOKEN": CLASSIC + "\n"})
    assert str(caught.value) == NEWLINE_MESSAGE


def test_cli_sync_with_a_newline_token_prints_one_error_without_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", CLASSIC + "\n")
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    report = tmp_path / "report.json"
    assert main(["sync", "--config", str(config), "--report", str(report)]) == 2
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if not line.startswith("{")] == [f"kep-sync: error: {NEWLINE_MESSAGE}"]
    assert CLASSIC not in err and (not report.exists() or CLASSIC not in report.read_text())


def test_serve_state_last_run_files_logs_and_health_hold_no_credential(tmp_path, monkeypatch, capsys):
    from bot.log import configure

    configure()
    monkeypatch.setenv("GITHUB_TOKEN", CLASSIC)
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    data = json.loads(config.read_text())
    config.write_text(json.dumps({**data, "enhancements": f"https://x:{CLASSIC}@127.0.0.1:9/enh.git"}))
    cfg = load_config(config)

    def leaky_sync(*_args, **_kwargs):
        raise RuntimeError(f"Illegal header value b'Bearer {CLASSIC}\\n' for {cfg.enhancements}")

    record = run_job(
        cfg, tmp_path / "st", sync=leaky_sync, transport=httpx.MockTransport(lambda request: httpx.Response(404))
    )
    assert record.result == "failed" and CLASSIC not in record.error
    files = [p for p in (tmp_path / "st").rglob("*") if p.is_file()]
    assert sorted(p.relative_to(tmp_path / "st").as_posix() for p in files) == [
        "last-run/changelog.md",
        "last-run/report.json",
        "state.json",
    ]
    assert [p.name for p in files if CLASSIC in p.read_text()] == []
    assert main(["health", "--config", str(config), "--state-dir", str(tmp_path / "st")]) == 1
    out, err = capsys.readouterr()
    assert re.fullmatch(
        r"unhealthy: last run [0-9a-f]{12} failed at \S+: git ls-remote https://\*\*\*@127\.0\.0\.1:9/enh\.git "
        r"failed: fatal: unable to access 'https://127\.0\.0\.1:9/enh\.git/': [^\n]*\n",
        out,
    )
    failure = "git ls-remote https://***@127.0.0.1:9/enh.git failed: fatal: unable to access"
    events = [json.loads(line) for line in err.splitlines()]  # the run's log; health writes only stdout
    assert [(e["event"], e.get("error", "")[: len(failure)]) for e in events] == [
        ("run started", ""),
        ("run failed", failure),
        ("run finished", failure),
    ]
    assert CLASSIC not in out + err


def test_the_state_keeps_a_source_url_without_its_credentials(tmp_path, monkeypatch):
    import bot.service.job
    from bot.commands.sync import run_sync
    from bot.sources.enhancements import Revision
    from tests.servehelp import KEP_PATH, KEP_YAML

    (tmp_path / "enh" / KEP_PATH).parent.mkdir(parents=True)
    (tmp_path / "enh" / KEP_PATH).write_bytes(KEP_YAML)
    config = write_setup(tmp_path, "http://127.0.0.1:9")
    url = f"https://x:{CLASSIC}@127.0.0.1:9/enh.git"
    config.write_text(json.dumps({**json.loads(config.read_text()), "enhancements": url}))
    cfg = load_config(config)
    monkeypatch.setattr(bot.service.job, "current_revision", lambda *_a, **_k: Revision("b" * 40))

    def local_sync(config, **kwargs):  # the same settings, the KEPs read from a local copy
        return run_sync(config.model_copy(update={"enhancements": str(tmp_path / "enh")}), **kwargs)

    assert run_job(cfg, tmp_path / "st", sync=local_sync).result == "ok"
    assert read_state(tmp_path / "st").source == "https://127.0.0.1:9/enh.git"
    assert CLASSIC not in (tmp_path / "st" / "state.json").read_text()
    assert run_job(cfg, tmp_path / "st", sync=local_sync).result == "ok"  # the same revision is synced again


def test_links_enhancements_drops_its_userinfo_since_links_are_published():
    from bot.config import LinksConfig

    assert LinksConfig(enhancements="https://bot:s3cr3t-value@example.test/k/enh").enhancements == (
        "https://example.test/k/enh"
    )
