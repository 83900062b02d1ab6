"""One exit-code rule for every command: 0 success, 1 the run failed, 2 usage or configuration (``health``: 1,
as Docker reserves 2). The same problem gives the same code from every command that meets it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from bot.cli.main import main

#: A port nothing listens on: every request to it is refused (a network failure).
CLOSED = "http://127.0.0.1:1"


pytestmark = pytest.mark.usefixtures("_reset_structlog")


@pytest.fixture
def work(work, monkeypatch) -> Path:
    """The commands' ``work`` directory (conftest.py) plus one config per case, ``NAME.yaml``; requests never sleep between retries."""
    import bot.http
    import bot.sources.github_tarball

    tmp_path = work
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(bot.sources.github_tarball, "send", functools.partial(bot.http.send, sleep=lambda s: None))
    (tmp_path / "wiki" / "latin1.md").write_bytes("| KEP |\n|---|\n| caf\xe9 |\n".encode("latin-1"))
    settings = {
        "ok": {"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md"]}},
        "not-git": {"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["m.md"]}, "publish": "git"},
        "unknown-key": {"enhancements": "enh", "wiki": {"dir": "wiki", "pagse": ["m.md"]}},
        "offline": {
            "enhancements": "github:o/enh@main",
            "github": {"api_url": CLOSED},
            "wiki": {"dir": "wiki", "pages": ["m.md"]},
        },
        "not-utf8": {"enhancements": "enh", "wiki": {"dir": "wiki", "pages": ["latin1.md"]}},
    }
    for name, data in settings.items():
        (tmp_path / f"{name}.yaml").write_text(json.dumps(data))
    return tmp_path


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["sync", "--config", "ok.yaml"], 0),
        (["validate", "--config", "ok.yaml"], 0),
        (["audit", "--config", "ok.yaml"], 0),
        # a configured path that is not what the setting needs is configuration: 2 from every command
        (["sync", "--config", "not-git.yaml"], 2),
        (["validate", "--config", "not-git.yaml"], 2),
        (["sync", "--config", "ok.yaml", "--publish", "git"], 2),
        (["validate", "--config", "ok.yaml", "--publish", "git"], 2),
        (["sync", "--config", "unknown-key.yaml"], 2),
        (["validate", "--config", "unknown-key.yaml"], 2),
        (["audit", "--config", "unknown-key.yaml"], 2),
        (["history", "1", "--config", "unknown-key.yaml"], 2),
        (["serve", "--config", "unknown-key.yaml"], 2),
        (["sync", "--config", "missing.yaml"], 2),
        (["validate", "--config", "missing.yaml"], 2),
        (["health", "--config", "missing.yaml"], 1),  # Docker reserves 2 in health checks
        (["sync", "--config", "ok.yaml", "--kep", "x"], 2),
        (["init"], 2),
        # the network did not answer: the run failed (1), validate --online included
        (["sync", "--config", "offline.yaml"], 1),
        (["validate", "--config", "offline.yaml"], 0),  # offline validation only parses the github: form
        (["validate", "--config", "offline.yaml", "--online"], 1),
        # a page that cannot be read as text: the run failed
        (["sync", "--config", "not-utf8.yaml"], 1),
    ],
)
def test_exit_codes(work, capsys, args, code):
    assert exit_code(args) == code
    assert "Traceback" not in capsys.readouterr().err


def exit_code(args: list[str]) -> int:
    """``main(args)``, or the code of the ``SystemExit`` argparse raises for a usage error."""
    try:
        return main(args)
    except SystemExit as exc:
        return exc.code


def test_not_a_git_checkout_reads_the_same_from_sync_and_validate(work, capsys):
    assert main(["sync", "--config", "not-git.yaml"]) == 2
    from_sync = capsys.readouterr().err.splitlines()[-1]
    assert main(["validate", "--config", "not-git.yaml"]) == 2
    from_validate = capsys.readouterr().err.splitlines()[-1]
    assert from_sync == (
        f"kep-sync: error: wiki.dir 'wiki': not a git checkout (relative to {work}); publish git "
        "commits in a clone of the wiki"
    )
    assert from_validate == from_sync.replace("error: ", "error: not-git.yaml: ", 1)


def test_the_offline_default_run_suggests_a_local_copy(work, capsys):
    assert main(["sync", "--config", "offline.yaml"]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("kep-sync: error: ")]
    assert errors == [
        f"kep-sync: error: GET {CLOSED}/repos/o/enh/commits/main: ConnectError: [Errno 111] Connection refused",
        "kep-sync: error: offline, or GitHub unreachable? read the KEPs from a copy on this machine with "
        "--enhancements PATH: a clone of kubernetes/enhancements, a git bundle, or a snapshot tarball such as "
        "examples/enhancements-*.tar.gz in the kep-sync repository",
    ]


def test_validate_online_names_the_network_failure_and_exits_1(work, capsys):
    assert main(["validate", "--config", "offline.yaml", "--online"]) == 1
    assert [line for line in capsys.readouterr().err.splitlines() if line.startswith("kep-sync: error: ")] == [
        f"kep-sync: error: offline.yaml: enhancements 'github:o/enh@main': GET {CLOSED}/repos/o/enh/commits/main: "
        "ConnectError: [Errno 111] Connection refused",
        "kep-sync: error: could not check online; try again, or check the network",
    ]


def test_an_unknown_key_suggests_the_known_one(work, capsys):
    assert main(["validate", "--config", "unknown-key.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "kep-sync: error: unknown-key.yaml: wiki.pagse: unknown key (value ['m.md']); did you mean 'pages'?"
    ]
