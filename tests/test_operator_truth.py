"""Operator truth (issue 12 breaker findings): secrets with ``@`` in passwords, reports that cannot be written,
bounded config and state readers, sources without keps/, clock skew in health, dry-run counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import structlog

from bot.cli import main
from tests.test_cli import PAGE, PAGE_KEPS, SYNC, _error, _log  # noqa: F401
from tests.test_cli import work  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def _reset_structlog():
    yield
    structlog.reset_defaults()


# --- 2. a password holding "@" is redacted whole ---------------------------------------------------------------

def test_retry_log_line_hides_a_password_with_at_signs(capsys):
    import httpx

    from bot.http import make_client, send
    from bot.log import configure

    configure()
    answers = iter([httpx.Response(502), httpx.Response(200, text="ok")])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    assert send(client, "GET", "https://bob:s3cr@t-pass@h.test/a", sleep=lambda s: None).text == "ok"
    err = capsys.readouterr().err
    assert _log(err)["url"] == "https://***@h.test/a"
    assert "s3cr" not in err and "t-pass" not in err


def test_report_error_field_hides_a_password_with_at_signs(tmp_path):
    from bot.config import Config
    from bot.errors import SourceError
    from bot.sync import write_failure_report

    config = Config(enhancements="enh", wiki={"dir": "wiki", "pages": ["m.md"]})
    exc = SourceError("git clone https://user:p@ss@w0rd@github.com/x failed: fatal: "
                      "unable to access 'https://user:p@ss@w0rd@github.com/x/'")
    write_failure_report(tmp_path / "r.json", config, None, None, exc)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["error"] == ("git clone https://***@github.com/x failed: fatal: "
                               "unable to access 'https://***@github.com/x/'")


def test_validate_output_hides_a_password_with_at_signs(work, capsys):
    (work / "c.yaml").write_text('publish: none\nenhancements: enh\nlinks:\n  enhancements: '
                                 '"ftp://user:p@ss@w0rd@github.com/x"\nwiki:\n  dir: wiki\n  pages: [m.md]\n')
    assert main(["validate", "--config", "c.yaml"]) == 2
    assert _error(capsys) == ("kep-sync: error: c.yaml: links.enhancements: 'ftp://***@github.com/x': expected an "
                              "http(s) URL such as https://github.com/kubernetes/enhancements")
