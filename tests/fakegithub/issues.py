"""The fake GitHub's issues that are not pull requests (the dashboard): list, open, read, edit, close (a mixin of
:class:`tests.fakegithub.FakeGitHub`). Issues and pull requests share one numbering, as on GitHub; the list
answers both, a pull request with its ``pull_request`` field. State: ``repos[...]["issues"]`` {number: {number,
id, title, body, state, user, created_at, updated_at, closed_at, edits}}, ``edits`` [{editor, edited_at, before,
after}] of each change of the body, oldest first.

``POST /graphql`` answers one query only, the edit history of an issue (``repository(owner:, name:) { issue(number:)
{ userContentEdits(first: N) { nodes { editor { login } editedAt diff } } } }``, with the variables ``owner``,
``name``, ``number``), from the stored edits: newest first, then the original text by its author, as GitHub lists
them once a body has been edited (``diff``: the whole body after that edit). GraphQL is outside GitHub's REST
description, so its answers are not checked against tests/github-openapi (:data:`GRAPHQL` is left out of
``exchanges``)."""

from __future__ import annotations

import re

from .common import _iso, _need, _route

#: The path of GitHub's GraphQL endpoint (``https://api.github.com/graphql``).
GRAPHQL = "/graphql"


class IssueHandlers:
    """Issue endpoints; part of :class:`~tests.fakegithub.FakeGitHub`."""

    # ------------------------------------------------------------- test helpers
    def issue(self, number: int, repo: str | None = None) -> dict:
        """The stored issue record (a live dict); ``repo`` defaults to the first repository with issues."""
        r = self.repos[repo] if repo else next(r for r in self.repos.values() if r.get("issues"))
        return r["issues"][number]

    def edit_issue(
        self,
        number: int,
        body: str | None = None,
        state: str | None = None,
        repo: str | None = None,
        editor: str | None = "human",
    ):
        """Edit an issue as ``editor`` would in the web page (new ``updated_at``); ``editor=None``: a body change
        its edit history does not hold (as after the edit was deleted from it)."""
        with self.lock:
            issue = self.issue(number, repo)
            if body is not None and editor is not None:
                self._record_edit(issue, editor, body)
            issue.update(
                {k: v for k, v in (("body", body), ("state", state)) if v is not None}, updated_at=self._tick()
            )
            if state:
                issue["closed_at"] = issue["updated_at"] if state == "closed" else None

    def _record_edit(self, issue: dict, editor: str, body: str | None) -> None:
        """Keep a change of ``issue``'s body to ``body`` by ``editor`` in its edit history."""
        if body != issue["body"]:
            issue.setdefault("edits", []).append(
                dict(editor=editor, edited_at=self._clock + 1, before=issue["body"], after=body)
            )

    def _number(self, r: dict) -> int:
        """The next issue or pull request number of ``r``."""
        return 1 + max([0, *r["pulls"], *r.setdefault("issues", {})])

    # ---------------------------------------------------------------- handlers
    @_route("GET POST", "{R}/issues")
    def h_issues(self, r):
        """GET: issues and pull requests, ``state`` open|closed|all, oldest first with ``direction=asc``. POST: open."""
        issues = r.setdefault("issues", {})
        if self._req.method == "POST":
            body = self._body()
            _need(body.get("title"), 422, "Validation Failed", [dict(resource="Issue", field="title", code="missing")])
            self._check_body(body.get("body"), "Issue")
            n, now = self._number(r), self._tick()
            issues[n] = dict(
                number=n,
                id=self._next_id(),
                title=body["title"],
                body=body.get("body"),
                state="open",
                user=self._login,
                created_at=now,
                updated_at=now,
                closed_at=None,
            )
            return 201, self._plain_issue_json(r, issues[n])
        state, args = self._req.args.get("state", "open"), self._req.args
        out = [(n, self._plain_issue_json(r, i)) for n, i in issues.items()]
        out += [(n, self._issue_json(r, p)) for n, p in r["pulls"].items()]
        out.sort(key=lambda item: item[0], reverse=args.get("direction", "desc") != "asc")
        return [i for _, i in out if state == "all" or i["state"] == state]

    def _plain_issue(self, r: dict, n: int):
        """GET or PATCH of issue ``n`` (title, body, state)."""
        issue = r["issues"][n]
        if self._req.method == "PATCH":
            body = self._body()
            self._check_body(body.get("body"), "Issue")
            if "body" in body:
                self._record_edit(issue, self._login, body["body"])
            if body.get("state") in ("open", "closed") and body["state"] != issue["state"]:
                issue["closed_at"] = self._tick() if body["state"] == "closed" else None
            issue.update({k: body[k] for k in ("title", "body", "state") if k in body}, updated_at=self._tick())
        return self._plain_issue_json(r, issue)

    def _plain_issue_json(self, r: dict, i: dict) -> dict:
        api = f"{self.url}/repos/{r['full_name']}/issues/{i['number']}"
        return dict(
            id=i["id"],
            node_id=f"I_{i['id']}",
            url=api,
            repository_url=f"{self.url}/repos/{r['full_name']}",
            labels_url=f"{api}/labels{{/name}}",
            comments_url=f"{api}/comments",
            events_url=f"{api}/events",
            html_url=f"https://github.com/{r['full_name']}/issues/{i['number']}",
            number=i["number"],
            state=i["state"],
            title=i["title"],
            body=i["body"],
            user=self._user(i["user"]),
            labels=[],
            assignee=None,
            assignees=[],
            milestone=None,
            locked=False,
            active_lock_reason=None,
            comments=0,
            created_at=_iso(i["created_at"]),
            updated_at=_iso(i["updated_at"]),
            closed_at=_iso(i["closed_at"]),
            author_association="MEMBER",
        )

    @_route("POST", GRAPHQL)
    def h_graphql(self):
        """The edit history of an issue (the module docstring's query); any other query gets a GraphQL error."""
        query, variables = self._body().get("query") or "", self._body().get("variables") or {}
        if "userContentEdits" not in query:
            return {"errors": [{"message": "the fake GitHub answers only the userContentEdits query"}]}
        full = f"{variables.get('owner')}/{variables.get('name')}"
        issue = (self.repos.get(full) or {}).get("issues", {}).get(variables.get("number"))
        if issue is None:
            what = "Repository" if full not in self.repos else "Issue"
            return {
                "data": {"repository": None},
                "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": f"Could not resolve {what}"}],
            }
        edits = issue.get("edits", [])
        nodes = [dict(editor={"login": e["editor"]}, editedAt=_iso(e["edited_at"]), diff=e["after"]) for e in edits]
        if edits:
            original = dict(
                editor={"login": issue["user"]}, editedAt=_iso(issue["created_at"]), diff=edits[0]["before"]
            )
            nodes = [*reversed(nodes), original]
        first = re.search(r"userContentEdits\(first: *(\d+)", query)
        nodes = nodes[: int(first.group(1))] if first else nodes
        return {"data": {"repository": {"issue": {"userContentEdits": {"nodes": nodes}}}}}
