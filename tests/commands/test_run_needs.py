"""What a run needs from the machine is checked before it runs, by ``validate``, ``serve`` at start and ``sync``
alike (one check each, one exit code): credentials for ``publish: github``, git and ssh for a git source, a
token file the running user can read, a wiki mount that is not read-only; and the log format the docs promise."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import load_token_file, main
from tests.servehelp import GUARD_SECONDS, REPO_ROOT

pytestmark = pytest.mark.usefixtures("_reset_structlog")

NO_CREDENTIALS = (
    "--publish github needs credentials in the environment: GITHUB_TOKEN, or KEP_SYNC_APP_ID with "
    "KEP_SYNC_APP_PRIVATE_KEY or KEP_SYNC_APP_PRIVATE_KEY_FILE"
)
NO_SSH = (
    "git reads an ssh:// URL with ssh, which is not installed (not on PATH; the container image has none): use an "
    "https:// URL (credentials in it are passed to git through the environment), or install an ssh client and "
    "mount its key"
)


@pytest.fixture
def no_credentials(work, monkeypatch) -> Path:
    for name in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE", "KEP_SYNC_APP_ID", "GH_TOKEN", "KEP_SYNC_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    (work / "gh.yaml").write_text(
        json.dumps({"enhancements": "enh", "publish": "github", "wiki": {"repo": "o/wiki", "pages": ["m.md"]}})
    )
    return work


def _serve(work: Path, config: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve", "--config", config, "--state-dir", str(work / "st")],
        cwd=work,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
    )


def test_publish_github_without_a_token_is_refused_by_validate_serve_and_sync(no_credentials, capsys):
    assert main(["validate", "--config", "gh.yaml"]) == 2
    assert capsys.readouterr().err == f"kep-sync: error: gh.yaml: publish: {NO_CREDENTIALS}\n"
    assert main(["sync", "--config", "gh.yaml"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"kep-sync: error: {NO_CREDENTIALS}"
    served = _serve(no_credentials, "gh.yaml", dict(os.environ))
    assert (served.returncode, served.stderr.splitlines()) == (
        2,
        [
            f"kep-sync: error: gh.yaml: publish: {NO_CREDENTIALS}",
            "kep-sync: error: the service did not start (kep-sync validate names the same)",
        ],
    )
    assert not (no_credentials / "st").exists()  # it never started: no state, no health to report


def test_an_empty_token_file_is_named(no_credentials, monkeypatch, capsys):
    (no_credentials / "token").write_text("\n")
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(no_credentials / "token"))
    assert main(["validate", "--config", "gh.yaml"]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: gh.yaml: publish: {NO_CREDENTIALS} (GITHUB_TOKEN_FILE {no_credentials / 'token'} holds "
        "no token: it is empty)\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_aGoodLookingToken0000000000000000")
    monkeypatch.delenv("GITHUB_TOKEN_FILE")
    assert main(["validate", "--config", "gh.yaml"]) == 0


def test_a_token_file_the_running_user_cannot_read_names_the_uid_and_the_fix(tmp_path, monkeypatch):
    token = tmp_path / "github_token"
    token.write_text("ghp_secretSecretSecret000000000000000\n")
    token.chmod(0o600)
    monkeypatch.setenv("GITHUB_TOKEN_FILE", str(token))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    other = 12345 if os.geteuid() == 0 else os.geteuid()
    if os.geteuid() == 0:
        os.chmod(tmp_path, 0o755)
        os.seteuid(other)
    else:
        token.chmod(0)
    try:
        with pytest.raises(Exception) as failed:
            load_token_file()
    finally:
        if other != os.getuid():
            os.seteuid(0)
    assert str(failed.value) == (
        f"GITHUB_TOKEN_FILE {token}: cannot read: Permission denied; kep-sync runs as uid {other} (10001 in the "
        f"container image), which must be able to read it: give the file to that user where it is mounted from "
        f"(chown {other} FILE on the host; it may stay chmod 600)"
    )
    assert "GITHUB_TOKEN" not in os.environ


def _path_with_only_git(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    return str(bin_dir)


def test_an_ssh_url_without_ssh_is_refused_before_the_run(work, monkeypatch, capsys):
    (work / "ssh.yaml").write_text(
        json.dumps({"enhancements": "ssh://git@example.invalid/enh.git", "wiki": {"dir": "wiki", "pages": ["m.md"]}})
    )
    monkeypatch.setenv("PATH", _path_with_only_git(work))
    for name in ("GIT_SSH", "GIT_SSH_COMMAND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(work / "no-gitconfig"))
    assert main(["validate", "--config", "ssh.yaml"]) == 2
    assert capsys.readouterr().err == (
        f"kep-sync: error: ssh.yaml: enhancements 'ssh://***@example.invalid/enh.git': {NO_SSH}\n"
    )
    assert main(["sync", "--config", "ssh.yaml"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kep-sync: error: enhancements 'ssh://***@example.invalid/enh.git': {NO_SSH}"
    )
    monkeypatch.setenv("GIT_SSH_COMMAND", "my-ssh -i key")  # git is told which program to use: not refused
    assert main(["validate", "--config", "ssh.yaml"]) == 0


def test_publish_git_and_a_git_source_without_git_are_refused(work, monkeypatch, capsys):
    (work / "git.yaml").write_text(
        json.dumps({"enhancements": "file:///nowhere/enh.git", "publish": "git", "wiki": {"dir": "wiki"}})
    )
    (work / "bin").mkdir()
    monkeypatch.setenv("PATH", str(work / "bin"))
    assert main(["validate", "--config", "git.yaml"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "kep-sync: error: git.yaml: enhancements 'file:///nowhere/enh.git': git is not installed (not on PATH); a "
        "git source needs it: install git, or use github:OWNER/REPO@REF"
    )
    assert err[-1] == (
        "kep-sync: error: git.yaml: publish: git is not installed (not on PATH); publish git commits with it: "
        "install git"
    )


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="no user and mount namespaces here for a read-only bind mount")
def test_a_read_only_wiki_mount_is_named_read_only_with_advice_that_helps(work):
    (work / "files.yaml").write_text(
        json.dumps({"enhancements": "enh", "publish": "files", "wiki": {"dir": "wiki", "pages": ["m.md"]}})
    )
    cli = f"{sys.executable} -m bot.cli"
    script = (
        "mount --bind -o ro wiki wiki || exit 99; "
        f"{cli} validate --config files.yaml; echo validate=$?; {cli} sync --config files.yaml; echo sync=$?"
    )
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
    )
    if "validate=" not in proc.stdout:
        pytest.skip(f"the bind mount failed: {proc.stderr.strip()}")
    advice = "mount it read-write (a container volume without :ro, a pod volumeMount without readOnly)"
    errors = [line for line in proc.stderr.splitlines() if line.startswith("kep-sync: error: ")]
    assert errors == [
        f"kep-sync: error: files.yaml: wiki.dir 'wiki': on a read-only mount (publish files writes there); {advice}",
        f"kep-sync: error: wiki/m.md: on a read-only mount; refusing to replace it; {advice}",
    ]
    assert proc.stdout.split()[-1] == "sync=1" and "validate=2" in proc.stdout
    assert "give that user write access" not in proc.stderr


def _on_a_terminal(work: Path, env: dict[str, str]) -> str:
    """What ``kep-sync sync`` writes on stderr when stderr is a terminal (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    try:
        subprocess.run(
            [sys.executable, "-m", "bot.cli", "sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md"],
            cwd=work,
            env={**env, "PYTHONPATH": str(REPO_ROOT), "NO_COLOR": "1"},
            stdout=subprocess.DEVNULL,
            stderr=follower,
            timeout=GUARD_SECONDS,
            check=True,
        )
    finally:
        os.close(follower)
    out = b""
    try:
        while chunk := os.read(leader, 65536):
            out += chunk
    except OSError:  # EIO: the terminal's other side is closed and read
        pass
    os.close(leader)
    return out.decode()


def test_the_log_format_the_environment_names_holds_on_a_terminal(work):
    env = {k: v for k, v in os.environ.items() if k != "KEP_SYNC_LOG_FORMAT"}
    text = _on_a_terminal(work, env)
    assert "[info     ] sync finished" in text and not text.lstrip().startswith("{")
    lines = [line for line in _on_a_terminal(work, {**env, "KEP_SYNC_LOG_FORMAT": "json"}).splitlines() if line]
    assert [json.loads(line)["event"] for line in lines] == ["sync finished"]  # no progress lines either


def test_an_unknown_log_format_in_the_environment_is_a_usage_error(work, monkeypatch, capsys):
    monkeypatch.setenv("KEP_SYNC_LOG_FORMAT", "yaml")
    assert main(["validate"]) == 2
    assert capsys.readouterr().err == "kep-sync: error: KEP_SYNC_LOG_FORMAT 'yaml': not one of auto, json, text\n"
    assert main(["health"]) == 1  # Docker reserves 2 in health checks
