"""The fake GitHub's handlers of pull requests and their issues: list, open, update, commits, reviewers,
comments, labels and assignees (a mixin of :class:`tests.fakegithub.FakeGitHub`)."""

from __future__ import annotations

from datetime import UTC, datetime

from .common import _invalid, _need, _route


class PullHandlers:
    """Pull request and issue endpoints; part of :class:`~tests.fakegithub.FakeGitHub`."""

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
        n, now = self._number(r), self._tick()
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
        if "/issues/" in self._req.path and n in r.get("issues", {}):
            return self._plain_issue(r, n)
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
