"""A git URL's credentials reach git through the environment, never a command line or the disk
(bot/sources/git.py: ``remote``): a real clone, fetch and ls-remote against a loopback dumb-HTTP git server that
asks for HTTP Basic auth and, while it answers each request of git, reads ``/proc/*/cmdline`` of every process."""

from __future__ import annotations

import base64
import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.sources.git import remote, remote_head, sync_git_cache
from tests.gitutil import commit, git, make_repo
from tests.sourcesutil import UPSTREAM

pytestmark = pytest.mark.usefixtures("_isolated_git")

USER = "kep-bot-user-canary-5c1e"
#: The password as the server expects it; the URL carries it percent-encoded (``@`` as ``%40``), as git decodes it.
PASSWORD = "pw@canary-2b7f-0d93"


def command_lines() -> list[str]:
    """The command line of every process this user can see now, arguments joined by spaces."""
    lines = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue
    return lines


class BasicAuthGitServer:
    """Serves the bare repositories under ``root`` over git's dumb HTTP protocol on 127.0.0.1; a request without
    ``Authorization: Basic USER:PASSWORD`` gets 401 and a ``WWW-Authenticate`` challenge. While it answers each
    request, it records every process's command line (git, waiting for the answer, is running then)."""

    def __init__(self, root: Path):
        self.seen: list[str] = []
        self.refused = self.served = 0
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                server.seen += command_lines()
                if self.headers.get("Authorization") != expected:
                    server.refused += 1
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                server.served += 1
                super().do_GET()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True)

    def __enter__(self) -> BasicAuthGitServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]


def _serve_bare(up: Path, srv: Path) -> None:
    if not srv.exists():
        git(up.parent, "clone", "-q", "--bare", str(up), str(srv))
    else:
        git(srv, "fetch", "-q", str(up), "+refs/heads/*:refs/heads/*")
    git(srv, "update-server-info")


def _leaks(texts: list[str]) -> list[str]:
    secrets = (USER, PASSWORD, "pw%40canary-2b7f-0d93", "canary-2b7f")
    return [t for t in texts if any(s in t for s in secrets)]


def test_clone_fetch_and_ls_remote_put_no_credential_on_a_command_line_or_disk(tmp_path):
    up = tmp_path / "up"
    first = make_repo(up, UPSTREAM)
    _serve_bare(up, tmp_path / "srv" / "enh.git")
    cache = tmp_path / "cache"
    with BasicAuthGitServer(tmp_path / "srv") as server:
        plain = f"http://127.0.0.1:{server.port}/enh.git"
        url = f"http://{USER}:pw%40canary-2b7f-0d93@127.0.0.1:{server.port}/enh.git"

        repo = sync_git_cache(url, cache)  # the clone
        assert git(repo, "rev-parse", "HEAD") == first
        cloned = (server.refused, server.served)
        second = commit(up, {"keps/sig-c/3-third/kep.yaml": "title: Third\n"}, "add 3")
        _serve_bare(up, tmp_path / "srv" / "enh.git")
        assert sync_git_cache(url, cache) == repo  # the fetch
        assert git(repo, "rev-parse", "HEAD") == second
        assert remote_head(url) == second  # what validate --online and the service's probe run

    assert _leaks(server.seen) == []
    assert cloned[0] >= 1 and cloned[1] >= 3  # git was challenged, then sent the credential the URL carries
    assert server.served > cloned[1]
    helpers = [line for line in server.seen if "remote-http" in line]
    assert any(plain in line for line in helpers)  # the samples caught git at work, with the URL it was given
    assert any(line.startswith("git clone --bare --quiet " + plain) for line in server.seen)
    assert any(line.startswith(f"git -C {repo} fetch --quiet --prune {plain}") for line in server.seen)
    assert any(line.startswith("git ls-remote " + plain) for line in server.seen)
    stored = [p.read_bytes().decode(errors="replace") for p in tmp_path.joinpath("cache").rglob("*") if p.is_file()]
    assert _leaks(stored) == []
    assert "[remote" not in (repo / "config").read_text()


def test_a_wrong_password_fails_without_prompting_or_storing(tmp_path, _isolated_git):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    _serve_bare(up, tmp_path / "srv" / "enh.git")
    store = tmp_path / "stored-credentials"
    _isolated_git.write_text(f"[credential]\n\thelper = store --file={store}\n")  # dropped for kep-sync's clone
    with BasicAuthGitServer(tmp_path / "srv") as server:
        with pytest.raises(Exception, match="Authentication failed") as failed:
            sync_git_cache(f"http://{USER}:wrong-password-0000@127.0.0.1:{server.port}/enh.git", tmp_path / "c1")
        sync_git_cache(f"http://{USER}:pw%40canary-2b7f-0d93@127.0.0.1:{server.port}/enh.git", tmp_path / "c2")
    assert "wrong-password-0000" not in str(failed.value)
    assert not store.exists()  # the user's own credential helper never saw the credential


def test_remote_moves_user_info_to_the_environment():
    where = remote("https://x-access-token:t%3Ak@example.com:8443/kubernetes/enhancements.git")
    assert where.url == "https://example.com:8443/kubernetes/enhancements.git"
    assert where.env is not None
    assert (where.env["KEP_SYNC_GIT_USERNAME"], where.env["KEP_SYNC_GIT_PASSWORD"]) == ("x-access-token", "t:k")
    count = int(where.env["GIT_CONFIG_COUNT"])
    assert [where.env[f"GIT_CONFIG_VALUE_{i}"] for i in range(count - 2, count)][0] == ""
    only_user = remote("https://tokenAsUser@example.com/r.git")
    assert only_user.url == "https://example.com/r.git"
    assert only_user.env is not None and "KEP_SYNC_GIT_PASSWORD" not in only_user.env
    assert remote("https://example.com/r.git") == ("https://example.com/r.git", None)
    assert remote("ssh://git@example.com/r.git") == ("ssh://git@example.com/r.git", None)
    with pytest.raises(ConfigError, match="carries no password"):
        remote("ssh://git:secret-password@example.com/r.git")
