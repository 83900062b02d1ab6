"""A stateful, in-memory fake of the GitHub REST API for end-to-end tests.

``FakeGitHub`` serves a small werkzeug WSGI app on 127.0.0.1 (random port) in a
background thread.  Point the *real* PyGithub client at it::

    with FakeGitHub() as gh:
        gh.seed_repo("kubernetes/wiki", {"README.md": "hi\\n"})
        client = github.Github(base_url=gh.url, auth=github.Auth.Token("t"),
                               retry=None, seconds_between_requests=0, seconds_between_writes=0)
        client.get_repo("kubernetes/wiki").get_contents("README.md")

Git objects get real git SHA-1s; a fake clock (one second per event) keeps them deterministic.
State is plain dicts/lists (guarded by ``lock``): ``repos[full_name]`` = {owner, name, id,
default_branch, refs{"refs/heads/x": sha}, labels, pulls{number: pull}}; ``blobs``/``trees``/
``commits`` by sha; ``comments`` by id (``add_comment`` writes one as a human); ``repos[...]["roles"]``
{login: role} for the collaborator permission endpoint (``set_role``); ``requests`` = [(method, path, status)]; ``exchanges`` = every
answer as an :class:`Exchange`; ``auth_headers``.

Answers are shaped as GitHub's REST description types them (tests/github_conformance.py checks each one
in every test): lists carry the list schema (``pull-request-simple``, not ``pull-request``).

Auth: any unknown token is the user ``user_login``; tokens minted by ``POST /app/installations/
{id}/access_tokens`` act as ``<app_slug>[bot]`` and their commits are ``verification.verified``;
a three-part token is a GitHub App JWT (payload decoded, unverified, into ``jwt_claims``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import tempfile
import threading

from werkzeug.exceptions import HTTPException
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

try:
    from tests.fakecompare import CompareStyle
except ImportError:  # pragma: no cover
    from fakecompare import CompareStyle


from .common import (
    _DOCS,
    _EPOCH,
    CODELOAD,
    REFUSED,
    ROUTES,
    STARTED,
    ApiError,
    Exchange,
    _invalid,
    _json_body,
    _need,
    _QuietHandler,
    _url_map,
    git_sha,
)
from .gitmodel import GitModel
from .views import JsonViews

# isort: split
# The handlers register their routes in this order (repositories, git database, pull requests, merging,
# issues).
from .repos import RepoHandlers

# isort: split
from .gitdata import GitDataHandlers

# isort: split
from .pulls import PullHandlers

# isort: split
from .merging import MergeHandlers

# isort: split
from .issues import GRAPHQL, IssueHandlers

__all__ = ["CODELOAD", "GRAPHQL", "REFUSED", "ROUTES", "STARTED", "ApiError", "Exchange", "FakeGitHub", "git_sha"]

#: How often (seconds) the serving thread looks at its shutdown flag between requests: :meth:`FakeGitHub.stop`
#: waits up to this long (at 0.05 s, about 45 ms a server, 5 s of the suite's time).
POLL_SECONDS = 0.005


class FakeGitHub(GitModel, JsonViews, RepoHandlers, GitDataHandlers, PullHandlers, MergeHandlers, IssueHandlers):
    """Stateful fake GitHub API server.  See the module docstring for the state layout."""

    def __init__(
        self,
        user_login: str = "kep-bot",
        app_slug: str = "kep-sync",
        installation_id: int = 4242,
        body_limit: int = 65536,
        require_auth: bool = True,
    ):
        self.user_login, self.app_slug, self.installation_id = user_login, app_slug, installation_id
        self.body_limit, self.require_auth = body_limit, require_auth
        self.lock = threading.RLock()
        self.repos: dict[str, dict] = {}
        self.blobs: dict[str, bytes] = {}
        self.trees: dict[str, dict[str, tuple[str, str, str]]] = {}  # name -> (mode, type, sha)
        self.commits, self.comments = {}, {}  # sha -> commit record; id -> comment record
        self.requests: list[tuple[str, str, int]] = []
        self.sent_bytes: list[int] = []  # per answer in ``requests``: its body and header bytes
        self.exchanges: list[Exchange] = []  # every answer, for tests/github_conformance.py
        self.auth_headers: list[str | None] = []  # never printed; tests may assert on it
        self.jwt_claims: list[dict] = []  # decoded (unverified) payloads of app JWTs seen
        self.installation_tokens: set[str] = set()
        self._faults: list[dict] = []
        self.compare_style = CompareStyle()  # which diff-entry statuses compare answers use (tests/fakecompare.py)
        self._clock, self._ids = _EPOCH, 1000
        self._server = self._thread = None
        self._map = _url_map()
        self.url = ""
        #: A ``cache_dir`` for the runs of one test against this fake (the ETags of conditional reads), removed on stop.
        self.cache_dir = tempfile.mkdtemp(prefix="fakegithub-cache-")

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> FakeGitHub:
        """Start serving on 127.0.0.1:<random port>; sets ``self.url``."""
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, request_handler=_QuietHandler)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(POLL_SECONDS,), daemon=True)
        self._thread.start()
        STARTED.append(self)
        return self

    def stop(self) -> None:
        """Stop the server thread and close the socket (idempotent)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None
        shutil.rmtree(self.cache_dir, ignore_errors=True)

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------- test helpers
    @property
    def writes(self) -> int:
        """Number of non-GET requests received (including failed/injected ones)."""
        return sum(1 for m, _, _ in self.requests if m != "GET")

    def reset_counters(self) -> None:
        """Forget recorded requests and auth headers."""
        with self.lock:
            self.requests.clear()
            self.sent_bytes.clear()
            self.auth_headers.clear()

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int,
        headers: dict | None = None,
        times: int = 1,
        message: str = "Injected failure",
        applied: bool = False,
    ) -> None:
        """Make the next ``times`` requests matching ``method`` ("*" = any) and ``path_regex`` fail.

        ``applied=True``: a lost response; the request is carried out (the pull request, ref or comment is
        created) and only then answered with ``status``, as a proxy timing out after GitHub did the work.
        """
        with self.lock:
            self._faults.append(
                dict(
                    method=method.upper(),
                    rx=re.compile(path_regex),
                    status=status,
                    headers=dict(headers or {}),
                    times=times,
                    message=message,
                    applied=applied,
                )
            )

    def seed_repo(
        self, full_name: str, files: dict[str, str], branch: str = "main", modes: dict[str, str] | None = None
    ) -> str:
        """Create the repo if needed and point ``branch`` at a new root commit holding ``files`` (``modes``: as
        :meth:`commit_files` takes them); on an existing branch, a force-push."""
        with self.lock:
            if full_name not in self.repos:
                owner, name = full_name.split("/")
                self.repos[full_name] = dict(
                    full_name=full_name,
                    owner=owner,
                    name=name,
                    id=self._next_id(),
                    default_branch=branch,
                    refs={},
                    labels={},
                    pulls={},
                    roles={},
                )
            return self._commit_on(full_name, branch, files, "Initial commit", "human", parents=[], modes=modes)

    def commit_files(
        self,
        full_name: str,
        branch: str,
        files: dict[str, str | None],
        message: str = "Human edit",
        author: str = "human",
        modes: dict[str, str] | None = None,
    ) -> str:
        """Commit ``files`` (None deletes) on top of ``branch`` as a foreign user; returns the sha. ``modes``:
        ``{path: git mode}`` of files that are not ``100644`` (``100755``, ``120000``: the text is the link target,
        ``160000``: the commit a submodule points at); a file changed without one keeps its mode."""
        with self.lock:
            return self._commit_on(full_name, branch, files, message, author, modes=modes)

    def set_role(self, full_name: str, login: str, role: str) -> None:
        """Give ``login`` the repository role ``role`` (admin, maintain, write, triage, read; :data:`REFUSED`: the
        permission endpoint answers HTTP 403 for that user)."""
        with self.lock:
            self.repos[full_name]["roles"][login] = role

    def add_comment(
        self, number: int, body: str, user: str = "human", repo: str | None = None, association: str = "MEMBER"
    ) -> int:
        """A comment by ``user`` on pull request ``number`` (as the web page posts it), with the author's
        ``author_association`` to the repository; returns its id."""
        with self.lock:
            r = self._repo_for_pull(repo)
            cid, now = self._next_id(), self._tick()
            self.comments[cid] = dict(
                id=cid,
                repo=r["full_name"],
                number=number,
                body=body,
                user=user,
                created_at=now,
                updated_at=now,
                association=association,
            )
            return cid

    def edit_comment(self, cid: int, body: str) -> None:
        """Edit comment ``cid`` as its author would: new body, new ``updated_at``."""
        with self.lock:
            self.comments[cid].update(body=body, updated_at=self._tick())

    def read_file(self, full_name: str, ref: str, path: str) -> str:
        """Decoded text of ``path`` at ``ref`` (branch, ref or sha); KeyError if missing."""
        with self.lock:
            sha = self._resolve(self.repos[full_name], ref)
            entry = sha and self._lookup(self.commits[sha]["tree"], path)
            if not entry or entry[1] != "blob":
                raise KeyError(f"{full_name}@{ref}:{path}")
            return self.blobs[entry[2]].decode()

    def branch_sha(self, full_name: str, branch: str) -> str | None:
        """Current tip of ``branch`` or None."""
        return self.repos[full_name]["refs"].get(f"refs/heads/{branch}")

    def pull(self, number: int, repo: str | None = None) -> dict:
        """The stored pull-request record (a live dict); ``repo`` defaults to the first repo with pulls."""
        return self._repo_for_pull(repo)["pulls"][number]

    def close_pull(self, number: int, merged: bool = False, repo: str | None = None) -> None:
        """Close a PR as a human would; ``merged`` adds a merge commit (with head's tree) on base."""
        with self.lock:
            r = self._repo_for_pull(repo)
            pr = r["pulls"][number]
            pr["head_sha"] = self._head_sha(r, pr)
            if merged:
                base_ref = f"refs/heads/{pr['base_ref']}"
                msg = f"Merge pull request #{number} from {r['owner']}/{pr['head_ref']}\n\n{pr['title']}"
                sha = self._new_commit(
                    self.commits[pr["head_sha"]]["tree"],
                    [r["refs"][base_ref], pr["head_sha"]],
                    msg,
                    "human",
                    verified=True,
                )
                r["refs"][base_ref] = sha
                pr.update(merged=True, merged_at=self._tick(), merge_commit_sha=sha)
            pr.update(state="closed", closed_at=self._tick())

    # ------------------------------------------------------------------ plumbing
    def _identity(self, req: Request) -> tuple[str, str | None]:
        """('anonymous' | 'user' | 'installation' | 'app', login) from the Authorization header."""
        token = (req.headers.get("Authorization") or " ").split(" ", 1)[-1].strip()
        if token in self.installation_tokens:
            return "installation", f"{self.app_slug}[bot]"
        if token.count(".") != 2:
            return ("user", self.user_login) if token else ("anonymous", None)
        try:
            seg = token.split(".")[1]
            self.jwt_claims.append(json.loads(base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4))))
        except ValueError:
            raise ApiError(401, "A JSON web token could not be decoded") from None
        return "app", None

    def _wsgi(self, environ, start_response):
        req = Request(environ)
        with self.lock:
            self.auth_headers.append(req.headers.get("Authorization"))
            resp = self._dispatch(req)
            self.requests.append((req.method, req.path, resp.status_code))
            self.sent_bytes.append(len(resp.get_data()) + sum(len(f"{k}: {v}\r\n") for k, v in resp.headers.items()))
            if not req.path.startswith(CODELOAD) and req.path != GRAPHQL:  # another host, or not the REST API
                self.exchanges.append(Exchange(req.method, req.path, resp.status_code, _json_body(resp)))
        return resp(environ, start_response)

    def _dispatch(self, req: Request) -> Response:
        for fault in self._faults:
            if fault["method"] in ("*", req.method) and fault["rx"].search(req.path):
                fault["times"] -= 1
                if fault["times"] <= 0:
                    self._faults.remove(fault)
                if fault["applied"]:
                    self._handle(req)  # done, but the answer is lost
                return self._json(
                    dict(message=fault["message"], documentation_url=_DOCS), fault["status"], fault["headers"]
                )
        return self._handle(req)

    def _handle(self, req: Request) -> Response:
        try:
            endpoint, args = self._map.bind_to_environ(req.environ).match()
            kind, login = self._identity(req)
            _need(kind != "anonymous" or not self.require_auth, 401, "Requires authentication")
            app_only = endpoint in ("h_installation", "h_access_token")
            _need(kind != "app" or app_only, 403, "Resource not accessible by integration")
            _need(kind in ("app", "anonymous") or not app_only, 401, "A JSON web token could not be decoded")
            if "owner" in args:
                full = f"{args.pop('owner')}/{args.pop('name')}"
                _need(full in self.repos, 404, "Not Found")
                args["r"] = self.repos[full]
            self._req, self._login, self._kind = req, login, kind
            result = getattr(self, endpoint)(**args)
            if isinstance(result, Response):
                return result
            status, body = result if isinstance(result, tuple) else (200, result)
            return self._conditional(req, self._json(body, status))
        except ApiError as e:
            body = dict(message=e.message, documentation_url=_DOCS)
            return self._json(dict(body, errors=e.errors) if e.errors else body, e.status)
        except HTTPException as e:
            return self._json({"message": "Not Found" if e.code == 404 else e.name}, e.code or 500)
        except Exception as e:  # a bug in the fake (or an unexpected body shape): surface it, don't hang
            return self._json({"message": f"fakegithub error: {e!r}"}, 500)

    @staticmethod
    def _conditional(req: Request, resp: Response) -> Response:
        """A GET's ``200`` with its weak ``ETag`` (a hash of the body, as GitHub's); ``304`` with no body when the
        request's ``If-None-Match`` names it (RFC 9110 13.1.2: a weak comparison, ``*`` or a list)."""
        if req.method != "GET" or resp.status_code != 200:
            return resp
        etag = f'W/"{hashlib.sha256(resp.get_data()).hexdigest()[:40]}"'
        asked = [t.strip().removeprefix("W/") for t in (req.headers.get("If-None-Match") or "").split(",")]
        if etag.removeprefix("W/") in asked or "*" in asked:
            return Response(status=304, headers={"ETag": etag})
        resp.headers["ETag"] = etag
        return resp

    @staticmethod
    def _json(body, status: int = 200, headers: dict | None = None) -> Response:
        data = "" if status == 204 else json.dumps(body)
        return Response(data, status=status, headers=headers or {}, mimetype="application/json")

    def _body(self) -> dict | list:
        try:
            return json.loads(self._req.get_data(as_text=True) or "{}")
        except ValueError:
            raise ApiError(400, "Problems parsing JSON") from None

    def _check_body(self, text: str | None, resource: str) -> None:
        if text is not None and len(text) > self.body_limit:
            raise _invalid(
                resource,
                code="custom",
                field="body",
                message=f"body is too long (maximum is {self.body_limit} characters)",
            )

    def _pr(self, r: dict, n: int) -> dict:
        _need(n in r["pulls"], 404, "Not Found")
        return r["pulls"][n]
