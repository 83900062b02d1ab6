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
import functools
import hashlib
import json
import re
import threading
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

try:
    from tests.fakecompare import CompareStyle, diff_files
except ImportError:  # pragma: no cover
    from fakecompare import CompareStyle, diff_files

_EPOCH = 1_700_000_000
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


class FakeGitHub:
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

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> FakeGitHub:
        """Start serving on 127.0.0.1:<random port>; sets ``self.url``."""
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, request_handler=_QuietHandler)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
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
        """Give ``login`` the repository role ``role`` (admin, maintain, write, triage, read)."""
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

    # --------------------------------------------------------------- git model
    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _commit_on(self, full_name, branch, files, message, login, parents=None, modes=None) -> str:
        """Commit {path: text | None} on ``branch`` (or on the default branch if it does not exist yet)."""
        r = self.repos[full_name]
        refs = r["refs"]
        if parents is None:
            parents = [refs.get(f"refs/heads/{branch}") or refs[f"refs/heads/{r['default_branch']}"]]
        flat = self._flatten(self.commits[parents[0]]["tree"]) if parents else {}
        for path, content in files.items():
            if content is None:
                flat.pop(path, None)
            else:
                mode = (modes or {}).get(path) or flat.get(path, ("100644",))[0]  # a change keeps the mode
                if mode == "160000":  # a submodule: the text is the commit it points at
                    flat[path] = (mode, "commit", content)
                else:
                    flat[path] = (mode, "blob", self._put_blob(content.encode()))
        refs[f"refs/heads/{branch}"] = sha = self._new_commit(self._build(flat), parents, message, login, False)
        return sha

    def _put_blob(self, data: bytes) -> str:
        sha = git_sha("blob", data)
        self.blobs[sha] = data
        return sha

    def _put_tree(self, entries: dict[str, tuple[str, str, str]]) -> str:
        order = sorted(entries, key=lambda n: n + "/" if entries[n][1] == "tree" else n)  # git's sort order
        body = b"".join(f"{entries[n][0].lstrip('0')} {n}\0".encode() + bytes.fromhex(entries[n][2]) for n in order)
        sha = git_sha("tree", body)
        self.trees[sha] = dict(entries)
        return sha

    def _walk(self, tree_sha: str, prefix: str = ""):
        """Yield (path, mode, type, sha) for every entry below ``tree_sha``, depth first."""
        for name, (mode, typ, sha) in sorted(self.trees[tree_sha].items()):
            yield prefix + name, mode, typ, sha
            if typ == "tree":
                yield from self._walk(sha, prefix + name + "/")

    def _flatten(self, tree_sha: str) -> dict[str, tuple[str, str, str]]:
        return {p: (m, t, s) for p, m, t, s in self._walk(tree_sha) if t != "tree"}

    def _build(self, flat: dict[str, tuple[str, str, str]]) -> str:
        """Build nested trees from {path: (mode, type, sha)}; returns the root tree sha."""
        entries, groups = {}, {}
        for path, entry in flat.items():
            head, _, rest = path.partition("/")
            if rest:
                groups.setdefault(head, {})[rest] = entry
            else:
                entries[head] = entry
        entries.update({name: ("040000", "tree", self._build(sub)) for name, sub in groups.items()})
        return self._put_tree(entries)

    def _lookup(self, tree_sha: str, path: str) -> tuple[str, str, str] | None:
        entry = ("040000", "tree", tree_sha)
        for part in filter(None, path.split("/")):
            if entry[1] != "tree" or part not in self.trees[entry[2]]:
                return None
            entry = self.trees[entry[2]][part]
        return entry

    def _new_commit(
        self,
        tree: str,
        parents: list[str],
        message: str,
        login: str | None,
        verified: bool,
        author: dict | None = None,
        committer: dict | None = None,
    ) -> str:
        ident = {"name": login, "email": f"{login}@users.noreply.github.com", "date": _iso(self._tick())}
        author = {**ident, **(author or {})}
        committer = {**ident, **committer} if committer else dict(author)  # GitHub: defaults to the author

        lines = (
            [f"tree {tree}"]
            + [f"parent {p}" for p in parents]
            + [
                f"{role} {who['name']} <{who['email']}> {int(datetime.fromisoformat(who['date']).timestamp())} +0000"
                for role, who in (("author", author), ("committer", committer))
            ]
        )
        sha = git_sha("commit", ("\n".join(lines) + "\n\n" + message).encode())
        self.commits[sha] = dict(
            sha=sha,
            tree=tree,
            parents=list(parents),
            message=message,
            author=author,
            committer=committer,
            login=login,
            verified=verified,
            ts=self._clock,
        )
        return sha

    def _resolve(self, repo: dict, ref: str) -> str | None:
        """Resolve a branch, ``refs/...``, ``heads/...``, ``owner:branch`` or (short) sha to a commit sha."""
        ref = ref.split(":", 1)[-1]
        for cand in (ref, f"refs/{ref}", f"refs/heads/{ref}"):
            if cand in repo["refs"]:
                return repo["refs"][cand]
        hits = [s for s in self.commits if s.startswith(ref)] if re.fullmatch(r"[0-9a-f]{7,40}", ref) else []
        return hits[0] if len(hits) == 1 else None

    def _ancestors(self, sha: str) -> list[str]:
        """``sha`` and everything reachable from it, breadth first."""
        order, seen = [sha], {sha}
        for cur in order:
            fresh = [p for p in self.commits[cur]["parents"] if p not in seen]
            order += fresh
            seen.update(fresh)
        return order

    def _compare(self, base: str, head: str) -> dict:
        head_anc, base_anc = self._ancestors(head), self._ancestors(base)
        hs, bs = set(head_anc), set(base_anc)
        ahead = sorted((c for c in head_anc if c not in bs), key=lambda c: self.commits[c]["ts"])
        behind = [c for c in base_anc if c not in hs]
        status = "identical" if base == head else "ahead" if not behind else "behind" if not ahead else "diverged"
        merge_base = next((c for c in head_anc if c in bs), None)
        return dict(status=status, ahead=ahead, behind=behind, merge_base=merge_base)

    def _diff(self, r: dict, old_tree: str | None, new_tree: str, ref: str) -> list[dict]:
        """Changed files between two trees, shaped like GitHub's ``diff-entry`` (no line stats) at commit ``ref``."""
        old, new = self._flatten(old_tree) if old_tree else {}, self._flatten(new_tree)
        api, web = f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        return [
            dict(
                filename=p,
                sha=(new.get(p) or old[p])[2],
                additions=0,
                deletions=0,
                changes=0,
                status="added" if p not in old else "removed" if p not in new else "modified",
                blob_url=f"{web}/blob/{ref}/{p}",
                raw_url=f"{web}/raw/{ref}/{p}",
                contents_url=f"{api}/contents/{p}?ref={ref}",
            )
            for p in sorted(set(old) | set(new))
            if old.get(p) != new.get(p)
        ]

    def _head_sha(self, repo: dict, pr: dict) -> str:
        """Open PRs follow their head branch; closed ones keep the sha they were closed at."""
        live = pr["state"] == "open"
        return repo["refs"].get(f"refs/heads/{pr['head_ref']}", pr["head_sha"]) if live else pr["head_sha"]

    def _repo_for_pull(self, full_name: str | None) -> dict:
        return self.repos[full_name] if full_name else next(r for r in self.repos.values() if r["pulls"])

    # ---------------------------------------------------------------- JSON views
    def _user(self, login: str | None) -> dict | None:
        """A ``simple-user`` (None for no login)."""
        if not login:
            return None
        uid, api = _stable_id(login), f"{self.url}/users/{login}"
        return dict(
            login=login,
            id=uid,
            node_id=f"U_{uid}",
            gravatar_id="",
            avatar_url=f"https://avatars.githubusercontent.com/u/{uid}",
            url=api,
            html_url=f"https://github.com/{login}",
            type="Bot" if login.endswith("[bot]") else "User",
            site_admin=False,
            **{f"{key}_url": f"{api}/{tail}" for key, tail in _USER_LINKS.items()},
        )

    def _repo_json(self, r: dict, full: bool = False) -> dict:
        """A ``repository`` (``full``: a ``full-repository``, as ``GET /repos/{owner}/{repo}`` answers)."""
        api, web, host = f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}", "github.com"
        opened = sum(1 for p in r["pulls"].values() if p["state"] == "open")
        out = dict(
            id=r["id"],
            node_id=f"R_{r['id']}",
            name=r["name"],
            full_name=r["full_name"],
            private=False,
            owner=self._user(r["owner"]),
            html_url=web,
            description=None,
            fork=False,
            url=api,
            **{f"{key}_url": f"{api}/{tail}" for key, tail in _REPO_LINKS.items()},
            git_url=f"git://{host}/{r['full_name']}.git",
            ssh_url=f"git@{host}:{r['full_name']}.git",
            clone_url=f"{web}.git",
            svn_url=web,
            mirror_url=None,
            homepage=None,
            language=None,
            forks_count=0,
            forks=0,
            stargazers_count=0,
            watchers_count=0,
            watchers=0,
            size=0,
            default_branch=r["default_branch"],
            open_issues_count=opened,
            open_issues=opened,
            has_issues=True,
            has_projects=True,
            has_wiki=True,
            has_pages=False,
            has_downloads=True,
            archived=False,
            disabled=False,
            license=None,
            visibility="public",
            pushed_at=_iso(self._clock),
            created_at=_iso(_EPOCH),
            updated_at=_iso(self._clock),
            permissions=dict(admin=False, maintain=False, push=True, triage=True, pull=True),
        )
        return dict(out, has_discussions=False, network_count=0, subscribers_count=0) if full else out

    def _git_commit_json(self, r: dict, sha: str) -> dict:
        """A ``git-commit``."""
        c, api = self.commits[sha], f"{self.url}/repos/{r['full_name']}/git"
        web = f"https://github.com/{r['full_name']}/commit"
        return dict(
            sha=sha,
            node_id=f"C_{sha[:12]}",
            url=f"{api}/commits/{sha}",
            message=c["message"],
            html_url=f"{web}/{sha}",
            author=c["author"],
            committer=c["committer"],
            tree=dict(sha=c["tree"], url=f"{api}/trees/{c['tree']}"),
            parents=[dict(sha=p, url=f"{api}/commits/{p}", html_url=f"{web}/{p}") for p in c["parents"]],
            verification=dict(
                verified=c["verified"],
                reason="valid" if c["verified"] else "unsigned",
                signature=None,
                payload=None,
                verified_at=None,
            ),
        )

    def _commit_json(self, r: dict, sha: str, files: bool = False) -> dict:
        """A ``commit`` (``files``: with the ``diff-entry`` list against the first parent)."""
        c, api, web = self.commits[sha], f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        git = self._git_commit_json(r, sha)
        out = dict(
            sha=sha,
            node_id=f"C_{sha[:12]}",
            url=f"{api}/commits/{sha}",
            html_url=f"{web}/commit/{sha}",
            comments_url=f"{api}/commits/{sha}/comments",
            commit=dict(
                url=git["url"],
                author=git["author"],
                committer=git["committer"],
                message=git["message"],
                tree=git["tree"],
                comment_count=0,
                verification=git["verification"],
            ),
            author=self._user(c["login"]),
            committer=self._user(c["login"]),
            parents=[dict(sha=p, url=f"{api}/commits/{p}", html_url=f"{web}/commit/{p}") for p in c["parents"]],
        )
        if files:
            parent_tree = self.commits[c["parents"][0]]["tree"] if c["parents"] else None
            out["files"] = self._diff(r, parent_tree, c["tree"], sha)
        return out

    def _ref_json(self, r: dict, ref: str) -> dict:
        sha, api = r["refs"][ref], f"{self.url}/repos/{r['full_name']}/git"
        return dict(
            ref=ref,
            node_id=f"REF_{_stable_id(ref)}",
            url=f"{api}/{ref}",
            object=dict(sha=sha, type="commit", url=f"{api}/commits/{sha}"),
        )

    def _label_json(self, r: dict, name: str) -> dict:
        """Labels are created on first use, like GitHub does when adding an unknown label to an issue; their
        ``description`` is "" (GitHub answers null, but its description types a listed pull request's label
        ``description`` as a string)."""
        lab = r["labels"].setdefault(name, dict(id=self._next_id(), name=name, color="ededed", description=""))
        return dict(
            lab, node_id=f"L_{lab['id']}", default=False, url=f"{self.url}/repos/{r['full_name']}/labels/{name}"
        )

    def _pull_json(self, r: dict, pr: dict, full: bool = True) -> dict:
        """A ``pull-request``; ``full=False``: a ``pull-request-simple``, as lists carry them (no ``merged``,
        ``mergeable``, ``comments``, ``commits``, line counts...)."""
        n, api, web = pr["number"], f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        head_sha, base_sha = self._head_sha(r, pr), r["refs"].get(f"refs/heads/{pr['base_ref']}", "")

        def part(ref, sha):
            return dict(
                label=f"{r['owner']}:{ref}",
                ref=ref,
                sha=sha,
                user=self._user(r["owner"]),
                repo=self._repo_json(r),
            )

        links = dict(
            self=f"{api}/pulls/{n}",
            html=f"{web}/pull/{n}",
            issue=f"{api}/issues/{n}",
            comments=f"{api}/issues/{n}/comments",
            review_comments=f"{api}/pulls/{n}/comments",
            review_comment=f"{api}/pulls/comments{{/number}}",
            commits=f"{api}/pulls/{n}/commits",
            statuses=f"{api}/statuses/{head_sha}",
        )
        out = dict(
            url=links["self"],
            id=pr["id"],
            node_id=f"PR_{pr['id']}",
            html_url=links["html"],
            diff_url=f"{web}/pull/{n}.diff",
            patch_url=f"{web}/pull/{n}.patch",
            issue_url=links["issue"],
            commits_url=links["commits"],
            review_comments_url=links["review_comments"],
            review_comment_url=links["review_comment"],
            comments_url=links["comments"],
            statuses_url=links["statuses"],
            number=n,
            state=pr["state"],
            locked=False,
            title=pr["title"],
            user=self._user(pr["user"]),
            body=pr["body"],
            labels=[self._label_json(r, lab) for lab in pr["labels"]],
            milestone=None,
            active_lock_reason=None,
            created_at=_iso(pr["created_at"]),
            updated_at=_iso(pr["updated_at"]),
            closed_at=_iso(pr["closed_at"]),
            merged_at=_iso(pr["merged_at"]),
            merge_commit_sha=pr["merge_commit_sha"],
            assignee=self._user(pr["assignees"][0]) if pr["assignees"] else None,
            assignees=[self._user(a) for a in pr["assignees"]],
            requested_reviewers=[self._user(u) for u in pr["reviewers"]],
            requested_teams=[dict(self._team(r, t), **({} if full else {"parent": None})) for t in pr["teams"]],
            head=part(pr["head_ref"], head_sha),
            base=part(pr["base_ref"], base_sha),
            _links={key: dict(href=url) for key, url in links.items()},
            author_association="MEMBER",
            auto_merge=None,
            draft=pr["draft"],
        )
        return dict(out, **self._pull_counts(r, pr, head_sha, base_sha)) if full else out

    def _pull_counts(self, r: dict, pr: dict, head_sha: str, base_sha: str) -> dict:
        """The fields only a single ``pull-request`` carries."""
        cmp = self._compare(base_sha, head_sha) if base_sha else dict(ahead=[], merge_base=None)
        mb, open_ = cmp["merge_base"], pr["state"] == "open"
        changed = self._diff(r, self.commits[mb]["tree"], self.commits[head_sha]["tree"], head_sha) if mb else []
        return dict(
            merged=pr["merged"],
            mergeable=open_,
            mergeable_state="clean",
            merged_by=self._user("human") if pr["merged"] else None,
            comments=sum(
                1 for c in self.comments.values() if (c["repo"], c["number"]) == (r["full_name"], pr["number"])
            ),
            review_comments=0,
            maintainer_can_modify=False,
            commits=len(cmp["ahead"]),
            additions=0,
            deletions=0,
            changed_files=len(changed),
        )

    def _team(self, r: dict, slug: str) -> dict:
        """A ``team-simple`` of the repository's owner."""
        tid, api = _stable_id(slug), f"{self.url}/organizations/{_stable_id(r['owner'])}/team/{_stable_id(slug)}"
        return dict(
            id=tid,
            node_id=f"T_{tid}",
            url=api,
            members_url=f"{api}/members{{/member}}",
            name=slug,
            description=None,
            permission="pull",
            html_url=f"https://github.com/orgs/{r['owner']}/teams/{slug}",
            repositories_url=f"{api}/repos",
            slug=slug,
            type="organization",
        )

    def _issue_json(self, r: dict, pr: dict) -> dict:
        """An ``issue`` (the pull request seen as an issue)."""
        p, api = self._pull_json(r, pr), f"{self.url}/repos/{r['full_name']}/issues/{pr['number']}"
        keys = (
            "id",
            "number",
            "title",
            "body",
            "state",
            "locked",
            "active_lock_reason",
            "user",
            "labels",
            "assignee",
            "assignees",
            "milestone",
            "comments",
            "created_at",
            "updated_at",
            "closed_at",
            "html_url",
            "author_association",
            "draft",
        )
        return dict(
            {k: p[k] for k in keys},
            url=p["issue_url"],
            node_id=f"I_{pr['id']}",
            repository_url=f"{self.url}/repos/{r['full_name']}",
            labels_url=f"{api}/labels{{/name}}",
            comments_url=f"{api}/comments",
            events_url=f"{api}/events",
            timeline_url=f"{api}/timeline",
            pull_request=dict(
                url=p["url"],
                html_url=p["html_url"],
                diff_url=p["diff_url"],
                patch_url=p["patch_url"],
                merged_at=p["merged_at"],
            ),
        )

    def _comment_json(self, r: dict, c: dict) -> dict:
        api = f"{self.url}/repos/{r['full_name']}/issues"
        return dict(
            id=c["id"],
            node_id=f"IC_{c['id']}",
            url=f"{api}/comments/{c['id']}",
            body=c["body"],
            html_url=f"https://github.com/{r['full_name']}/pull/{c['number']}#issuecomment-{c['id']}",
            issue_url=f"{api}/{c['number']}",
            user=self._user(c["user"]),
            author_association=c.get("association", "MEMBER"),
            created_at=_iso(c["created_at"]),
            updated_at=_iso(c["updated_at"]),
        )

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
            if not req.path.startswith(CODELOAD):  # another host at GitHub, not the REST API
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
            return self._json(body, status)
        except ApiError as e:
            body = dict(message=e.message, documentation_url=_DOCS)
            return self._json(dict(body, errors=e.errors) if e.errors else body, e.status)
        except HTTPException as e:
            return self._json({"message": "Not Found" if e.code == 404 else e.name}, e.code or 500)
        except Exception as e:  # a bug in the fake (or an unexpected body shape): surface it, don't hang
            return self._json({"message": f"fakegithub error: {e!r}"}, 500)

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

    # ------------------------------------------------------------------ handlers
    @_route("GET", "/user")
    def h_user(self):
        _need(self._kind != "installation", 403, "Resource not accessible by integration")
        user = self._user(self._login)
        return dict(
            user,
            name=None,
            company=None,
            blog="",
            location=None,
            email=None,
            hireable=None,
            bio=None,
            public_repos=0,
            public_gists=0,
            followers=0,
            following=0,
            created_at=_iso(_EPOCH),
            updated_at=_iso(_EPOCH),
        )

    @_route("GET", "{R}")
    def h_repo(self, r):
        return self._repo_json(r, full=True)

    @_route("GET", "{R}/collaborators/<login>/permission")
    def h_permission(self, r, login):
        """The ``repository-collaborator-permission`` of ``login``: its role (``set_role``; a user without one
        reads a public repository: ``read``; ``none``: no access, as on a private repository) and the legacy
        ``permission`` (admin, write, read or none: maintain -> write, triage -> read), whatever the
        ``author_association`` of the user's comments says."""
        role = r["roles"].get(login, "read")
        legacy = {"maintain": "write", "triage": "read"}.get(role, role)
        flags = dict(
            admin=role == "admin",
            maintain=role in ("admin", "maintain"),
            push=role in ("admin", "maintain", "write"),
            triage=role in ("admin", "maintain", "write", "triage"),
            pull=role != "none",
        )
        user = dict(self._user(login), email=None, name=None, permissions=flags, role_name=role)
        return dict(permission=legacy, role_name=role, user=user)

    @_route("GET", "{R}/installation")
    def h_installation(self, r):
        iid = self.installation_id
        account = self._user(r["owner"])
        return dict(
            id=iid,
            app_id=1,
            app_slug=self.app_slug,
            client_id="Iv1.fake",
            account=account,
            access_tokens_url=f"{self.url}/app/installations/{iid}/access_tokens",
            repositories_url=f"{self.url}/installation/repositories",
            html_url=f"https://github.com/organizations/{r['owner']}/settings/installations/{iid}",
            target_id=account["id"],
            target_type="Organization",
            repository_selection="selected",
            permissions=dict(contents="write", pull_requests="write"),
            events=[],
            single_file_name=None,
            created_at=_iso(_EPOCH),
            updated_at=_iso(_EPOCH),
            suspended_by=None,
            suspended_at=None,
        )

    @_route("POST", "/app/installations/<int:iid>/access_tokens")
    def h_access_token(self, iid):
        _need(iid == self.installation_id, 404, "Not Found")
        token = f"ghs_fake{len(self.installation_tokens) + 1:028d}"
        self.installation_tokens.add(token)
        expires = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return 201, dict(
            token=token,
            expires_at=expires,
            repository_selection="selected",
            permissions=dict(contents="write", pull_requests="write"),
        )

    @_route("GET", "{R}/branches/<path:branch>")
    def h_branch(self, r, branch):
        sha = r["refs"].get(f"refs/heads/{branch}")
        _need(sha, 404, "Branch not found")
        url = f"{self.url}/repos/{r['full_name']}/branches/{branch}"
        checks = dict(enforcement_level="off", contexts=[], checks=[])
        return dict(
            name=branch,
            commit=self._commit_json(r, sha),
            protected=False,
            protection_url=f"{url}/protection",
            protection=dict(enabled=False, required_status_checks=checks),
            _links=dict(self=url, html=f"https://github.com/{r['full_name']}/tree/{branch}"),
        )

    @_route("GET", "{R}/git/ref/<path:ref>")
    @_route("PATCH DELETE", "{R}/git/refs/<path:ref>")
    def h_ref(self, r, ref):
        """GET one ref (exact match), PATCH it (fast-forward unless ``force``), or DELETE it."""
        full = f"refs/{ref}"
        if self._req.method == "GET":
            _need(full in r["refs"], 404, "Not Found")
            return self._ref_json(r, full)
        _need(full in r["refs"], 422, "Reference does not exist")
        if self._req.method == "DELETE":
            for pr in r["pulls"].values():  # GitHub closes open PRs whose head branch disappears
                if pr["state"] == "open" and f"refs/heads/{pr['head_ref']}" == full:
                    pr.update(head_sha=r["refs"][full], state="closed", closed_at=self._tick())
            del r["refs"][full]
            return 204, None
        body = self._body()
        _need(body.get("sha") in self.commits, 422, "Object does not exist")
        fast_forward = r["refs"][full] in self._ancestors(body["sha"])
        _need(body.get("force") or fast_forward, 422, "Update is not a fast forward")
        r["refs"][full] = body["sha"]
        return self._ref_json(r, full)

    @_route("POST", "{R}/git/refs")
    def h_create_ref(self, r):
        body = self._body()
        ref, sha = body.get("ref") or "", body.get("sha")
        _need(re.fullmatch(r"refs/[^/]+/.*[^/]", ref) and ".." not in ref, 422, "Reference name invalid")
        _need(ref not in r["refs"], 422, "Reference already exists")
        _need(sha in self.commits, 422, "Object does not exist")
        r["refs"][ref] = sha
        return 201, self._ref_json(r, ref)

    @_route("GET", "{R}/contents/")
    @_route("GET", "{R}/contents/<path:path>")
    def h_contents(self, r, path=""):
        """A file (base64 ``content``) or a directory listing, at ``?ref=`` (default branch)."""
        ref = self._req.args.get("ref") or r["default_branch"]
        sha = self._resolve(r, ref)
        _need(sha, 404, f"No commit found for the ref {ref}")
        path = path.strip("/")
        entry = self._lookup(self.commits[sha]["tree"], path)
        _need(entry, 404, "Not Found")
        api = f"{self.url}/repos/{r['full_name']}"

        def item(p: str, e: tuple) -> dict:
            links = dict(
                self=f"{api}/contents/{p}?ref={ref}",
                git=f"{api}/git/{e[1]}s/{e[2]}",
                html=f"https://github.com/{r['full_name']}/blob/{ref}/{p}",
            )
            raw = f"https://raw.githubusercontent.com/{r['full_name']}/{ref}/{p}" if e[1] == "blob" else None
            return dict(
                type={"tree": "dir", "commit": "submodule"}.get(e[1], "file"),
                name=p.rsplit("/", 1)[-1],
                path=p,
                sha=e[2],
                size=len(self.blobs[e[2]]) if e[1] == "blob" else 0,
                url=links["self"],
                git_url=links["git"],
                html_url=links["html"],
                download_url=raw,
                _links=links,
            )

        if entry[1] == "tree":
            return [item(f"{path}/{n}".lstrip("/"), e) for n, e in sorted(self.trees[entry[2]].items())]
        return dict(item(path, entry), content=base64.encodebytes(self.blobs[entry[2]]).decode(), encoding="base64")

    @_route("POST", "{R}/git/blobs")
    def h_create_blob(self, r):
        body = self._body()
        _need(isinstance(body.get("content"), str), 422, 'Invalid request.\n\n"content" wasn\'t supplied.')
        raw = body["content"].encode()
        sha = self._put_blob(base64.b64decode(raw) if body.get("encoding") == "base64" else raw)
        return 201, dict(sha=sha, url=f"{self.url}/repos/{r['full_name']}/git/blobs/{sha}")

    @_route("GET", "{R}/git/blobs/<sha>")
    def h_get_blob(self, r, sha):
        """JSON with base64 ``content``; ``Accept: application/vnd.github.raw`` returns the bytes as they are."""
        _need(sha in self.blobs, 404, "Not Found")
        data = self.blobs[sha]
        if "application/vnd.github.raw" in self._req.headers.get("Accept", ""):
            return Response(data, status=200, mimetype="application/vnd.github.raw")
        return dict(
            sha=sha,
            node_id=f"B_{sha[:12]}",
            size=len(data),
            content=base64.encodebytes(data).decode(),
            encoding="base64",
            url=f"{self.url}/repos/{r['full_name']}/git/blobs/{sha}",
        )

    def _tree_json(self, r: dict, sha: str, recursive: bool = False) -> dict:
        api = f"{self.url}/repos/{r['full_name']}/git"
        rows = self._walk(sha) if recursive else ((n, *e) for n, e in sorted(self.trees[sha].items()))
        entries = [
            dict(
                path=p,
                mode=m,
                type=t,
                sha=s,
                url=f"{api}/{t}s/{s}",
                **({"size": len(self.blobs[s])} if t == "blob" else {}),
            )
            for p, m, t, s in rows
        ]
        return dict(sha=sha, url=f"{api}/trees/{sha}", tree=entries, truncated=False)

    @_route("POST", "{R}/git/trees")
    def h_create_tree(self, r):
        """Entries may use nested paths, inline ``content``, a ``sha``, or ``sha: null`` to delete."""
        body = self._body()
        base_tree = body.get("base_tree")
        _need(not base_tree or base_tree in self.trees, 422, "Invalid tree info")
        flat = self._flatten(base_tree) if base_tree else {}
        for e in body.get("tree", []):
            path, mode, typ, sha = e.get("path", "").strip("/"), e.get("mode"), e.get("type"), e.get("sha")
            _need(
                path and mode in _MODES and typ in ("blob", "tree", "commit"),
                422,
                "Invalid tree info",
                [dict(resource="Tree", field="tree", code="invalid")],
            )
            for p in [p for p in flat if p == path or p.startswith(path + "/")]:
                del flat[p]
            if e.get("content") is not None:
                flat[path] = (mode, "blob", self._put_blob(e["content"].encode()))
            elif sha is not None:  # (sha: null just deletes the path)
                _need(sha in {"tree": self.trees, "blob": self.blobs}.get(typ, {sha}), 422, "GitRPC::BadObjectState")
                if typ == "tree":
                    flat.update({f"{path}/{p}": v for p, v in self._flatten(sha).items()})
                else:
                    flat[path] = (mode, typ, sha)
        return 201, self._tree_json(r, self._build(flat))

    @_route("GET", "{R}/git/trees/<sha>")
    def h_get_tree(self, r, sha):
        _need(sha in self.trees, 404, "Not Found")
        return self._tree_json(r, sha, self._req.args.get("recursive") not in (None, "", "0", "false"))

    @_route("POST", "{R}/git/commits")
    def h_create_commit(self, r):
        body = self._body()
        _need(body.get("tree") in self.trees, 422, "Tree SHA does not exist")
        _need(
            all(p in self.commits for p in body.get("parents", [])),
            422,
            "Parent SHA does not exist or is not a commit object",
        )
        sha = self._new_commit(
            body["tree"],
            body.get("parents", []),
            body.get("message", ""),
            self._login,
            verified=self._kind == "installation",
            author=body.get("author"),
            committer=body.get("committer"),
        )
        return 201, self._git_commit_json(r, sha)

    @_route("GET", "{R}/git/commits/<sha>")
    def h_get_git_commit(self, r, sha):
        _need(sha in self.commits, 404, "Not Found")
        return self._git_commit_json(r, sha)

    @_route("GET", "{R}/commits/<path:ref>")
    def h_get_commit(self, r, ref):
        """Full commit with ``files``; ``Accept: application/vnd.github.sha`` returns just the sha."""
        sha = self._resolve(r, ref)
        _need(sha, 422, f"No commit found for SHA: {ref}")
        if "application/vnd.github.sha" in self._req.headers.get("Accept", ""):
            etag = f'"{hashlib.sha1(sha.encode()).hexdigest()}"'  # If-None-Match: 304 while the ref stays
            if self._req.headers.get("If-None-Match") == etag:
                return Response(status=304, headers={"ETag": etag})
            return Response(sha, status=200, mimetype="text/plain", headers={"ETag": etag})
        return self._commit_json(r, sha, files=True)

    @_route("GET", "{R}/commits")
    def h_list_commits(self, r):
        """Commits reachable from ``sha`` (default: the default branch), newest first, at most ``per_page``;
        with ``path`` only those whose first parent held that path otherwise (GitHub's history simplification,
        for a linear history)."""
        args = self._req.args
        head = self._resolve(r, args.get("sha") or r["default_branch"])
        _need(head, 404, "Not Found")
        path, limit, out = args.get("path"), int(args.get("per_page", 30)), []
        for sha in sorted(self._ancestors(head), key=lambda c: self.commits[c]["ts"], reverse=True):
            parents = self.commits[sha]["parents"]
            old = self._lookup(self.commits[parents[0]]["tree"], path) if path and parents else None
            if path is None or self._lookup(self.commits[sha]["tree"], path) != old:
                out.append(self._commit_json(r, sha))
            if len(out) >= limit:
                break
        return out

    @_route("GET", "{R}/compare/<path:spec>")
    def h_compare(self, r, spec):
        base_ref, _, head_ref = spec.partition("...")
        base, head = self._resolve(r, base_ref), self._resolve(r, head_ref)
        _need(base and head, 404, "Not Found")
        cmp = self._compare(base, head)
        _need(cmp["merge_base"], 404, f"No common ancestor between {base_ref} and {head_ref}.")
        web = f"https://github.com/{r['full_name']}/compare"
        return dict(
            url=f"{self.url}/repos/{r['full_name']}/compare/{spec}",
            status=cmp["status"],
            html_url=f"{web}/{spec}",
            diff_url=f"{web}/{spec}.diff",
            patch_url=f"{web}/{spec}.patch",
            permalink_url=f"{web}/{r['owner']}:{base[:7]}...{r['owner']}:{head[:7]}",
            ahead_by=len(cmp["ahead"]),
            behind_by=len(cmp["behind"]),
            total_commits=len(cmp["ahead"]),
            base_commit=self._commit_json(r, base),
            merge_base_commit=self._commit_json(r, cmp["merge_base"]),
            commits=[self._commit_json(r, c) for c in cmp["ahead"][: int(self._req.args.get("per_page", 250))]],
            files=self._compare_files(r, self.commits[cmp["merge_base"]]["tree"], self.commits[head]["tree"], head),
        )

    def _compare_files(self, r: dict, old_tree: str, new_tree: str, ref: str) -> list[dict]:
        """The ``files`` of a compare, statuses as :attr:`compare_style` picks (tests/fakecompare.py)."""
        api, web = f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        out = []
        for path, status, sha, previous in diff_files(
            self._flatten(old_tree), self._flatten(new_tree), self.compare_style
        ):
            entry = dict(
                filename=path,
                sha=sha,
                additions=0,
                deletions=0,
                changes=0,
                status=status,
                blob_url=f"{web}/blob/{ref}/{path}",
                raw_url=f"{web}/raw/{ref}/{path}",
                contents_url=f"{api}/contents/{path}?ref={ref}",
            )
            out.append({**entry, "previous_filename": previous} if previous else entry)
        return out

    @_route("GET", "{R}/tarball/<path:ref>")
    def h_tarball(self, r, ref):
        """``302`` to the archive of the commit ``ref`` names, as GitHub redirects to codeload."""
        sha = self._resolve(r, ref)
        _need(sha, 404, "Not Found")
        return Response(status=302, headers={"Location": f"{self.url}{CODELOAD}/{r['full_name']}/legacy.tar.gz/{sha}"})

    @_route("GET", CODELOAD + "/<owner>/<name>/legacy.tar.gz/<sha>")
    def h_codeload(self, r, sha):
        """The tree at commit ``sha`` as GitHub's tar.gz: top folder ``OWNER-REPO-SHA7/``, the commit SHA in the
        pax global header ``comment``."""
        import io
        import tarfile

        _need(sha in self.commits, 404, "Not Found")
        top, buf = f"{r['owner']}-{r['name']}-{sha[:7]}", io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": sha}) as tar:
            for path, mode, typ, blob in self._walk(self.commits[sha]["tree"]):
                info = tarfile.TarInfo(f"{top}/{path}")
                if typ in ("tree", "commit"):  # git archive writes a submodule as an empty directory
                    info.type, info.mode = tarfile.DIRTYPE, 0o775
                    tar.addfile(info)
                elif mode == "120000":
                    info.type, info.linkname = tarfile.SYMTYPE, self.blobs[blob].decode("utf-8", "surrogateescape")
                    tar.addfile(info)
                else:
                    info.size, info.mode = len(self.blobs[blob]), 0o775 if mode == "100755" else 0o664
                    tar.addfile(info, io.BytesIO(self.blobs[blob]))
        return Response(buf.getvalue(), status=200, mimetype="application/x-gzip")

    @_route("GET", "{R}/pulls")
    def h_list_pulls(self, r):
        """Filters: state (open|closed|all), head (``owner:branch`` only), base, direction."""
        args = self._req.args
        state, head, base = args.get("state", "open"), args.get("head"), args.get("base")
        pulls = sorted(r["pulls"].values(), key=lambda p: p["number"], reverse=args.get("direction") != "asc")
        pulls = [p for p in pulls if state == "all" or p["state"] == state]
        if head and ":" in head:  # like GitHub, a bare branch name (no "owner:") is silently ignored
            pulls = [p for p in pulls if head == f"{r['owner']}:{p['head_ref']}"]
        return [self._pull_json(r, p, full=False) for p in pulls if not base or p["base_ref"] == base]

    @_route("POST", "{R}/pulls")
    def h_create_pull(self, r):
        body = self._body()
        head, base = (body.get("head") or "").split(":", 1)[-1], body.get("base") or ""
        if not body.get("title"):
            raise _invalid("PullRequest", field="title", code="missing")
        for field, branch in (("head", head), ("base", base)):
            if f"refs/heads/{branch}" not in r["refs"]:
                raise _invalid("PullRequest", field=field, code="invalid")
        self._check_body(body.get("body"), "PullRequest")
        if any((p["state"], p["head_ref"], p["base_ref"]) == ("open", head, base) for p in r["pulls"].values()):
            raise _invalid(
                "PullRequest", code="custom", message=f"A pull request already exists for {r['owner']}:{head}."
            )
        if not self._compare(r["refs"][f"refs/heads/{base}"], r["refs"][f"refs/heads/{head}"])["ahead"]:
            raise _invalid("PullRequest", code="custom", message=f"No commits between {base} and {head}")
        n, now = len(r["pulls"]) + 1, self._tick()
        r["pulls"][n] = dict(
            number=n,
            id=self._next_id(),
            title=body["title"],
            body=body.get("body"),
            state="open",
            draft=bool(body.get("draft")),
            merged=False,
            merged_at=None,
            closed_at=None,
            merge_commit_sha=None,
            created_at=now,
            updated_at=now,
            head_ref=head,
            base_ref=base,
            head_sha=r["refs"][f"refs/heads/{head}"],
            user=self._login,
            labels=[],
            reviewers=[],
            teams=[],
            assignees=[],
        )
        return 201, self._pull_json(r, r["pulls"][n])

    @_route("GET PATCH", "{R}/pulls/<int:n>")
    @_route("GET PATCH", "{R}/issues/<int:n>")
    def h_pull(self, r, n):
        """A PR as a pull or as an issue; PATCH edits title/body/state/base (issues also labels/assignees)."""
        pr, as_issue = self._pr(r, n), "/issues/" in self._req.path
        if self._req.method == "PATCH":
            body = self._body()
            self._check_body(body.get("body"), "Issue" if as_issue else "PullRequest")
            if body.get("state") == "closed" and pr["state"] == "open":
                pr.update(head_sha=self._head_sha(r, pr), closed_at=self._tick())
            elif body.get("state") == "open" and pr["state"] == "closed":
                _need(
                    not pr["merged"],
                    422,
                    "Validation Failed",
                    [dict(resource="PullRequest", code="custom", message="state cannot be changed.")],
                )
                pr["closed_at"] = None
            pr.update({k: body[k] for k in ("title", "body", "state") if k in body}, updated_at=self._tick())
            pr["base_ref"] = body.get("base", pr["base_ref"])
            for key in ("labels", "assignees") if as_issue else ():
                pr[key] = [x["name"] if isinstance(x, dict) else x for x in body.get(key, pr[key])]
        return self._issue_json(r, pr) if as_issue else self._pull_json(r, pr)

    @_route("GET", "{R}/pulls/<int:n>/commits")
    def h_pull_commits(self, r, n):
        pr = self._pr(r, n)
        base = r["refs"].get(f"refs/heads/{pr['base_ref']}")
        ahead = self._compare(base, self._head_sha(r, pr))["ahead"] if base else []
        return [self._commit_json(r, c) for c in ahead]

    @_route("POST", "{R}/pulls/<int:n>/requested_reviewers")
    def h_request_reviewers(self, r, n):
        pr, body = self._pr(r, n), self._body()
        _need(pr["user"] not in body.get("reviewers", []), 422, "Review cannot be requested from pull request author.")
        pr["reviewers"] += [u for u in body.get("reviewers", []) if u not in pr["reviewers"]]
        pr["teams"] += [t for t in body.get("team_reviewers", []) if t not in pr["teams"]]
        return 201, self._pull_json(r, pr, full=False)

    @_route("GET POST", "{R}/issues/<int:n>/comments")
    def h_comments(self, r, n):
        """GET: oldest first; ``since`` (ISO 8601) keeps those updated at or after it. POST: a new comment."""
        self._pr(r, n)
        if self._req.method == "GET":
            since = self._req.args.get("since")
            if since:
                try:
                    since_ts = datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
                except ValueError:
                    raise _invalid("IssueComment", field="since", code="invalid") from None
            return [
                self._comment_json(r, c)
                for c in sorted(self.comments.values(), key=lambda c: c["id"])
                if (c["repo"], c["number"]) == (r["full_name"], n) and (not since or c["updated_at"] >= since_ts)
            ]
        text = self._body().get("body")
        _need(text, 422, "Validation Failed", [dict(resource="IssueComment", field="body", code="missing")])
        self._check_body(text, "IssueComment")
        cid = self._next_id()
        now = self._tick()
        self.comments[cid] = dict(
            id=cid, repo=r["full_name"], number=n, body=text, user=self._login, created_at=now, updated_at=now
        )
        return 201, self._comment_json(r, self.comments[cid])

    @_route("GET POST PUT", "{R}/issues/<int:n>/labels")
    def h_labels(self, r, n):
        """GET lists, POST adds, PUT replaces; bodies may be ``[names]`` or ``{"labels": [...]}``."""
        pr = self._pr(r, n)
        if self._req.method != "GET":
            body = self._body()
            body = body.get("labels", []) if isinstance(body, dict) else body
            names = [x["name"] if isinstance(x, dict) else x for x in body]
            pr["labels"] = list(dict.fromkeys((pr["labels"] if self._req.method == "POST" else []) + names))
        return [self._label_json(r, lab) for lab in pr["labels"]]

    @_route("DELETE", "{R}/issues/<int:n>/labels/<path:label>")
    def h_remove_label(self, r, n, label):
        """Remove one label; 404 when the pull request does not have it (as GitHub does)."""
        pr = self._pr(r, n)
        _need(label in pr["labels"], 404, "Label does not exist")
        pr["labels"].remove(label)
        return [self._label_json(r, lab) for lab in pr["labels"]]

    @_route("POST", "{R}/issues/<int:n>/assignees")
    def h_add_assignees(self, r, n):
        pr = self._pr(r, n)
        pr["assignees"] += [a for a in self._body().get("assignees", []) if a not in pr["assignees"]]
        return 201, self._issue_json(r, pr)
