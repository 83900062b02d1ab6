"""Scenario helpers for the publish tests and ``scripts/bench/bench_publish.py``: a wiki page, KEPs, config, one run.

    fake.seed_repo(REPO, {PAGE_PATH: PAGE})
    result = run_github(fake, keps(), github_config(fake))
    assert result.requests == [("GET", "/repos/acme/wiki/pulls"), ...]

Everything is synthetic and small; nothing comes from ../shared.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
import structlog

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover - run from tests/ or scripts/
    from syncutil import kep, snapshot

from bot.commands.inputs import open_wiki
from bot.commands.sync import sync_snapshot
from bot.config import Config
from bot.http import RequestCounter
from bot.model.snapshot import Snapshot
from bot.publish.git import GitWiki

__all__ = [
    "BRANCH",
    "COMMIT",
    "ENV",
    "OPEN",
    "PAGE",
    "PAGE_PATH",
    "PROMOTED",
    "R",
    "README",
    "READS",
    "READS_PR",
    "REPO",
    "UPDATE",
    "Run",
    "fresh_logging",
    "git_config",
    "github_config",
    "keps",
    "opened",
    "page",
    "run_git",
    "run_github",
    "run_preview",
]

REPO = "acme/wiki"
PAGE_PATH = "docs/matrix.md"
#: The repository's README: in the page set of some tests, an empty KEP table with nothing to sync.
README = "wiki\n\n| KEP | Status |\n|---|---|\n"
BRANCH = "kep-sync/matrix"
#: A personal-access-token-shaped value (never a real token).
ENV = {"GITHUB_TOKEN": "ghp_" + "t" * 36}
_HEAD = (
    "# KEP matrix\n\nWritten by people; kep-sync owns status and milestone cells.\n\n"
    "| KEP | SIG | Status | Alpha / Beta / GA | Notes |\n|---|---|---|---|---|\n"
)
_ROW = "| {n}-{slug} | scheduling | implementable / {stage} | {alpha} / {beta} / - | {note} |\n"


@pytest.fixture(autouse=True)
def fresh_logging():
    """Import into a test module: structlog back to its defaults around each test, so a logger configured
    by an earlier CLI test (bound to a since-closed captured stderr) is never written to."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


def page(rows: list[tuple[int, str, str]] | None = None, note: str = "groups", tail: str = "\nEnd.\n") -> str:
    """A matrix page with rows ``(number, stage, beta)`` (default: 4671 at alpha, 5710 at alpha)."""
    rows = rows if rows is not None else [(4671, "alpha", "-"), (5710, "alpha", "-")]
    body = "".join(
        _ROW.format(n=n, slug=f"kep-{n}", stage=stage, alpha="v1.35", beta=beta, note=note) for n, stage, beta in rows
    )
    return _HEAD + body + tail


PAGE = page()


def keps(beta_4671: str = "v1.37", count: int = 0) -> Snapshot:
    """Upstream: 4671 promoted to beta in ``beta_4671``; 5710 still alpha; plus ``count`` extra KEPs 10000.. at beta."""
    files = [
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta=beta_4671),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    ]
    files += [kep(10000 + i, f"kep-{10000 + i}", stage="beta", alpha="v1.35", beta="v1.36") for i in range(count)]
    return snapshot(*files)


#: The API calls of a run, as ``(method, path)`` lists: the reads, a commit, opening and updating the pull request.
R = f"/repos/{REPO}"
READS = [("GET", f"{R}/pulls"), ("GET", f"{R}/branches/main"), ("GET", f"{R}/contents/{PAGE_PATH}")]
#: With the bot's pull request open, a run also lists its comments (commands; ``since`` the last one read).
READS_PR = READS + [("GET", f"{R}/issues/1/comments")]
COMMIT = [("POST", f"{R}/git/blobs"), ("POST", f"{R}/git/trees"), ("POST", f"{R}/git/commits")]
OPEN = COMMIT + [
    ("POST", f"{R}/git/refs"),
    ("POST", f"{R}/pulls"),
    ("PATCH", f"{R}/issues/1"),
    ("POST", f"{R}/pulls/1/requested_reviewers"),
]
UPDATE = COMMIT + [("PATCH", f"{R}/git/refs/heads/{BRANCH}"), ("PATCH", f"{R}/pulls/1")]
PROMOTED = page([(4671, "beta", "v1.37"), (5710, "alpha", "-")])


def git_config(**wiki) -> Config:
    """``publish: git`` of :data:`PAGE_PATH` on :data:`BRANCH`; ``wiki`` adds to the ``wiki`` section."""
    return Config.model_validate(
        {"publish": "git", "wiki": {"pages": [PAGE_PATH], **wiki}, "pull_request": {"branch": BRANCH}}
    )


def run_git(wiki, snap: Snapshot | None = None, cfg: Config | None = None):
    """One ``publish: git`` sync of ``snap`` (default :func:`keps`) into the git wiki at ``wiki`` (a Path)."""
    cfg = cfg or git_config()
    return sync_snapshot(cfg, snap or keps(), GitWiki(cfg, wiki))


def github_config(fake, **pull_request) -> Config:
    """``publish: github`` on :data:`REPO` at the fake's URL; ``pull_request`` overrides (labels, reviewers, ...)."""
    return Config.model_validate(
        {
            "publish": "github",
            "github": {"api_url": fake.url},
            "wiki": {"repo": REPO, "base": "main", "pages": [PAGE_PATH]},
            "pull_request": {"branch": BRANCH, **pull_request},
            "cache_dir": fake.cache_dir,
        }
    )


class Run(NamedTuple):
    """One publish run: the ``plan``, returned ``url``, ``requests`` ``[(method, path)]`` with ``statuses``,
    ``writes`` (non-GET requests), the client's own ``count``, the retry ``sleeps``, the outcome's
    ``written`` pages and ``blocked`` flag, ``sent_bytes``: the bytes of every answer (body and headers), and what ``automerge`` did."""

    plan: object
    url: str
    requests: list[tuple[str, str]]
    statuses: list[int]
    writes: int
    count: int
    sleeps: list[float]
    written: list[str] = []
    blocked: bool = False
    sent_bytes: int = 0
    automerge: str = ""


def run_github(fake, snap: Snapshot, config: Config, env: dict | None = None) -> Run:
    """One :func:`bot.commands.sync.sync_snapshot` on the GitHub backend against ``fake``, counters reset, no real sleeps."""
    return _measure(
        fake,
        lambda counter, sleeps: sync_snapshot(
            config,
            snap,
            open_wiki(config, counter, env=ENV if env is None else env, sleep=sleeps.append, seconds_between_writes=0),
        ),
    )


def opened(fake, config: Config) -> Run:
    """The first run: :func:`run_github` of :func:`keps` into the seeded wiki repository, which opens the pull
    request (number 1 on a fresh fake)."""
    return run_github(fake, keps(), config)


def run_preview(fake, snap: Snapshot, config: Config, env: dict | None = None) -> Run:
    """The dry run (``--publish none`` with ``wiki.repo``: the GitHub backend read-only) against ``fake``,
    like :func:`run_github`."""
    dry = config.model_copy(update={"publish": "none"})
    return _measure(
        fake,
        lambda counter, sleeps: sync_snapshot(
            dry, snap, open_wiki(dry, counter, env=ENV if env is None else env, sleep=sleeps.append)
        ),
    )


def _measure(fake, call) -> Run:
    fake.reset_counters()
    counter, sleeps = RequestCounter(), []
    outcome = call(counter, sleeps)
    return Run(
        outcome.plan,
        outcome.url,
        [(m, p) for m, p, _ in fake.requests],
        [s for _, _, s in fake.requests],
        fake.writes,
        counter.count,
        sleeps,
        outcome.written,
        outcome.blocked,
        sum(fake.sent_bytes),
        outcome.automerge,
    )
