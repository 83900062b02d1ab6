"""Shared pytest fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# pytest keeps the assertion-rewritten test modules in __pycache__ (ignored by git) only while bytecode may be
# written: with PYTHONDONTWRITEBYTECODE set, every run and each of its xdist workers would rewrite and compile
# all ~200 test modules again (about 5 s of CPU per process).
sys.dont_write_bytecode = False

# Every git process of the run (the tests', the scripts' and kep-sync's own, which inherit this environment) reads
# no user or system git config: a contributor's init.defaultBranch, commit.gpgsign or core.autocrlf would
# otherwise change what the tests see. Set before any worker or subprocess starts.
os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

try:  # works whether or not ``tests`` is importable as a package
    from tests import fakegithub, github_conformance
    from tests.fakegithub import FakeGitHub
except ImportError:  # pragma: no cover
    import fakegithub
    import github_conformance
    from fakegithub import FakeGitHub

#: Answers of the fake GitHub checked against GitHub's description this session (printed at the end).
CONFORMANCE = {"answers": 0}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """With ``KEP_SYNC_REQUIRE_SHARED=1`` (CI), a test marked ``acceptance`` fails when ../shared's bundle is
    absent, before any module's own ``skipif`` could skip it."""
    if item.get_closest_marker("acceptance") and os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1":
        if not BUNDLE.is_file():
            pytest.fail(f"{BUNDLE} is required (KEP_SYNC_REQUIRE_SHARED=1) but missing", pytrace=False)


@pytest.fixture
def fake_github():
    """A running FakeGitHub server on 127.0.0.1 (stopped after the test)."""
    with FakeGitHub() as server:
        yield server


@pytest.fixture(autouse=True)
def github_conformance_check():
    """Every exchange of every FakeGitHub started by the test matches GitHub's description
    (tests/github_conformance.py): the test errors in teardown, listing the first 20 faults."""
    first = len(fakegithub.STARTED)
    yield
    servers = fakegithub.STARTED[first:]
    del fakegithub.STARTED[first:]
    exchanges = [e for server in servers for e in server.exchanges]
    CONFORMANCE["answers"] += len(exchanges)
    faults = github_conformance.problems(exchanges)
    assert not faults, f"{len(faults)} answers of the fake GitHub differ from GitHub's description:\n" + "\n".join(
        faults[:20]
    )


def pytest_sessionfinish(session):
    """Under pytest-xdist a worker hands its count to the controller (:func:`pytest_testnodedown`)."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fake_github_answers"] = CONFORMANCE["answers"]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: add up the answers each worker checked."""
    CONFORMANCE["answers"] += getattr(node, "workeroutput", {}).get("fake_github_answers", 0)


def pytest_terminal_summary(terminalreporter):
    if CONFORMANCE["answers"]:
        terminalreporter.write_line(
            f"fake GitHub: {CONFORMANCE['answers']} answers checked against "
            f"{github_conformance.SUBSET.relative_to(github_conformance.SUBSET.parents[2])}"
        )


@pytest.fixture
def no_http_sleep(monkeypatch):
    """Retries in ``bot.http.send`` (as the release-notes modules call it) never sleep."""
    import functools

    import bot.http
    import bot.sources.etag_cache
    import bot.sources.release_notes

    no_sleep = functools.partial(bot.http.send, sleep=lambda seconds: None)
    monkeypatch.setattr(bot.sources.release_notes, "send", no_sleep)
    monkeypatch.setattr(bot.sources.etag_cache, "send", no_sleep)


#: The real enhancements history (read-only, never copied into the project): see ../shared/README.md.
ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT.parent / "shared" / "data" / "enhancements-keps.bundle"


@pytest.fixture(scope="session")
def bundle_clone(tmp_path_factory) -> Path:
    """A git clone (a directory with ``keps/``) of ``../shared/data/enhancements-keps.bundle``, made once a run.

    Shared by the acceptance modules, and by the pytest-xdist workers of one run (the first to take the lock
    clones into the run's base temporary directory, the others wait and reuse it): tests read it and must not
    write into it (caches and wikis go under their own ``tmp_path``). Fails the test when the bundle is absent
    (modules skip before asking for it unless ``KEP_SYNC_REQUIRE_SHARED=1``).
    """
    import fcntl

    if not BUNDLE.is_file():
        pytest.fail(f"{BUNDLE} is absent")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory, above the workers' own (popen-gw0, ...)
    target = base / "bundle" / "enhancements"
    with open(base / "bundle.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / ".git").is_dir():
            partial = base / "bundle" / "partial"
            subprocess.run(["git", "clone", "-q", str(BUNDLE), str(partial)], check=True, capture_output=True)
            partial.rename(target)
    return target


@pytest.fixture
def _reset_structlog():
    """main() points structlog at capsys' stderr; later tests must not log into that closed stream."""
    yield
    import structlog

    structlog.reset_defaults()


#: kep-sync's settings from the environment (bot/config, bot/publish/auth.py, bot/service/state.py): a
#: contributor's own (a ``KEP_SYNC_CONFIG`` in their shell) must not reach a test.
KEP_SYNC_SETTINGS = (
    "KEP_SYNC_CONFIG",
    "KEP_SYNC_CACHE_DIR",
    "KEP_SYNC_STATE_DIR",
    "KEP_SYNC_TOKEN",
    "KEP_SYNC_APP_ID",
    "KEP_SYNC_APP_PRIVATE_KEY",
    "KEP_SYNC_APP_PRIVATE_KEY_FILE",
)


@pytest.fixture(autouse=True)
def _not_under_github_actions(monkeypatch):
    """Tests run as on a workstation, also in CI: under Actions ``wiki.repo`` defaults to ``$GITHUB_REPOSITORY``
    and kep-sync writes ``$GITHUB_OUTPUT``; tests that want that set the variables themselves. The caller's
    kep-sync settings (:data:`KEP_SYNC_SETTINGS`) are dropped the same way, and each test starts in the
    repository's root."""
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", *KEP_SYNC_SETTINGS):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT)  # whatever directory pytest was started from: defaults like examples/wiki are relative


def _git_database(files: dict[str, bytes]) -> dict[str, dict]:
    """``{path regex: JSON answer}`` of ``git/commits/{sha}`` and ``git/trees`` for a tree of ``files`` (below keps/)."""
    from bot.sources.git_tree import blob_id, root_id, subtree_id

    keps = {path: ("100644", blob_id(data)) for path, data in files.items()}
    keps_tree = subtree_id(keps, "keps")
    root = root_id({}, keps_tree)
    below = [{"path": p[len("keps/") :], "mode": m, "type": "blob", "sha": s} for p, (m, s) in keps.items()]
    return {
        r"/repos/o/enh/git/commits/[0-9a-f]{40}$": {"sha": "0" * 40, "tree": {"sha": root}},
        rf"/repos/o/enh/git/trees/{root}(\?|$)": {
            "sha": root,
            "tree": [{"path": "keps", "mode": "040000", "type": "tree", "sha": keps_tree}],
            "truncated": False,
        },
        rf"/repos/o/enh/git/trees/{keps_tree}(\?|$)": {"sha": keps_tree, "tree": below, "truncated": False},
    }


@pytest.fixture
def github():
    """respx routes for ``github:o/enh@main`` at ``tests.servehelp.API``, as ``(mock, state)``: the revision moves
    when ``state['sha']`` does; commits answer 304 to the current ETag, compare 404, tarballs the one KEP, and the
    Git database the tree of that one KEP for every commit."""
    import httpx
    import respx

    from tests.servehelp import API, KEP_PATH, KEP_YAML, SHA, tarball

    state = {"sha": SHA, "etag": '"e1"'}

    def commits(request: httpx.Request) -> httpx.Response:
        if request.headers.get("If-None-Match") == state["etag"]:
            return httpx.Response(304, headers={"ETag": state["etag"]})
        return httpx.Response(200, text=state["sha"], headers={"ETag": state["etag"]})

    with respx.mock(base_url=API, assert_all_called=False) as mock:
        mock.get("/repos/o/enh/commits/main").mock(side_effect=commits)
        mock.get(url__regex=r"/repos/o/enh/compare/").mock(return_value=httpx.Response(404))  # the tarball then
        for path, answer in _git_database({KEP_PATH: KEP_YAML}).items():
            mock.get(url__regex=path).mock(return_value=httpx.Response(200, json=answer))
        mock.get(url__regex=r"/repos/o/enh/tarball/[0-9a-f]{40}$").mock(
            side_effect=lambda request: httpx.Response(
                200, content=tarball({KEP_PATH: KEP_YAML}, request.url.path[-40:])
            )
        )
        yield mock, state
