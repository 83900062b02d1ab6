"""The JSON answers of the fake GitHub, shaped as GitHub's REST description types them: users, repositories,
commits, refs, labels, pull requests, issues and comments (a mixin of :class:`tests.fakegithub.FakeGitHub`)."""

from __future__ import annotations

from .common import _EPOCH, _REPO_LINKS, _USER_LINKS, _iso, _stable_id


class JsonViews:
    """JSON views of the fake's state; part of :class:`~tests.fakegithub.FakeGitHub`."""

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
        # the newest commit a branch points at: the repository changes with a push, not with an issue edit
        pushed = max((self.commits[sha]["ts"] for sha in r["refs"].values() if sha in self.commits), default=_EPOCH)
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
            pushed_at=_iso(pushed),
            created_at=_iso(_EPOCH),
            updated_at=_iso(pushed),
            permissions=dict(admin=False, maintain=False, push=True, triage=True, pull=True),
        )
        methods = r.get("merge_methods", dict(merge=True, squash=True, rebase=True))
        merging = dict(
            allow_merge_commit=methods["merge"],
            allow_squash_merge=methods["squash"],
            allow_rebase_merge=methods["rebase"],
        )
        return dict(out, has_discussions=False, network_count=0, subscribers_count=0, **merging) if full else out

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
