"""What every part of the fake GitHub shares: the route table filled by ``@route``, the API error and its checks,
git object SHAs, timestamps and the ``_links`` GitHub puts in its answers."""

from __future__ import annotations

import functools
import hashlib
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from werkzeug.routing import Map, Rule
from werkzeug.serving import WSGIRequestHandler
from werkzeug.wrappers import Response

_EPOCH = 1_700_000_000

if TYPE_CHECKING:
    from . import FakeGitHub


_DOCS = "https://docs.github.com/rest"


_MODES = {"100644", "100755", "040000", "160000", "120000"}


#: Where the fake serves archives (codeload.github.com at GitHub: the tarball endpoint redirects there).
CODELOAD = "/_codeload"


ROUTES: list[tuple[str, str, str]] = []  # (methods, rule, handler name), filled by @_route


STARTED: list[FakeGitHub] = []  # every server started in this process, in order (tests/conftest.py checks them)


class Exchange(NamedTuple):
    """One request and the fake's answer; ``body``: the answer decoded from JSON (None when empty or not JSON)."""

    method: str
    path: str
    status: int
    body: object


_USER_LINKS = dict(
    followers="followers",
    following="following{/other_user}",
    gists="gists{/gist_id}",
    starred="starred{/owner}{/repo}",
    subscriptions="subscriptions",
    organizations="orgs",
    repos="repos",
    events="events{/privacy}",
    received_events="received_events",
)


_REPO_LINKS = dict(
    forks="forks",
    keys="keys{/key_id}",
    collaborators="collaborators{/collaborator}",
    teams="teams",
    hooks="hooks",
    issue_events="issues/events{/number}",
    events="events",
    assignees="assignees{/user}",
    branches="branches{/branch}",
    tags="tags",
    blobs="git/blobs{/sha}",
    git_tags="git/tags{/sha}",
    git_refs="git/refs{/sha}",
    trees="git/trees{/sha}",
    statuses="statuses/{sha}",
    languages="languages",
    stargazers="stargazers",
    contributors="contributors",
    subscribers="subscribers",
    subscription="subscription",
    commits="commits{/sha}",
    git_commits="git/commits{/sha}",
    comments="comments{/number}",
    issue_comment="issues/comments{/number}",
    contents="contents/{+path}",
    compare="compare/{base}...{head}",
    merges="merges",
    archive="{archive_format}{/ref}",
    downloads="downloads",
    issues="issues{/number}",
    pulls="pulls{/number}",
    milestones="milestones{/number}",
    notifications="notifications{?since,all,participating}",
    labels="labels{/name}",
    releases="releases{/id}",
    deployments="deployments",
)


def _route(methods: str, rule: str):
    """Register a handler; ``{R}`` expands to ``/repos/<owner>/<name>``."""

    def deco(fn):
        ROUTES.append((methods, rule.replace("{R}", "/repos/<owner>/<name>"), fn.__name__))
        return fn

    return deco


#: A role (``FakeGitHub.set_role``) whose collaborator permission answer is HTTP 403: GitHub will not tell it.
REFUSED = "(refused)"


class ApiError(Exception):
    """Raised by handlers; rendered as a GitHub-style JSON error body."""

    def __init__(self, status: int, message: str, errors: list | None = None):
        super().__init__(message)
        self.status, self.message, self.errors = status, message, errors


def _need(ok, status: int, message: str, errors: list | None = None) -> None:
    if not ok:
        raise ApiError(status, message, errors)


def _invalid(resource: str, **error) -> ApiError:
    return ApiError(422, "Validation Failed", [dict(resource=resource, **error)])


def git_sha(kind: str, body: bytes) -> str:
    """The real git object id of ``body`` stored as object type ``kind``."""
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).hexdigest()


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _stable_id(text: str) -> int:
    return int(hashlib.md5(text.encode()).hexdigest()[:7], 16)


def _json_body(resp: Response) -> object:
    """The answer's JSON body decoded (None when it is empty or not JSON)."""
    data = resp.get_data()
    return json.loads(data) if data and resp.mimetype == "application/json" else None


@functools.cache
def _url_map() -> Map:
    """The werkzeug URL map of :data:`ROUTES`, compiled once and shared by every server (a map is read-only once
    built; compiling it costs about 50 ms)."""
    return Map([Rule(rule, methods=m.split(), endpoint=h) for m, rule, h in ROUTES], strict_slashes=False)


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):  # keep test output clean
        pass
