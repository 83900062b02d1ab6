"""The fake GitHub's handlers of users, repositories, permissions, GitHub App installations and their tokens,
branches, refs and contents (a mixin of :class:`tests.fakegithub.FakeGitHub`)."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta

from .common import _EPOCH, REFUSED, _iso, _need, _route


class RepoHandlers:
    """Repository, auth and ref endpoints; part of :class:`~tests.fakegithub.FakeGitHub`."""

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
        ``author_association`` of the user's comments says. A user whose role is :data:`REFUSED` gets HTTP 403,
        as GitHub answers a token or App installation that may not read collaborator permissions."""
        role = r["roles"].get(login, "read")
        _need(role != REFUSED, 403, "Resource not accessible by integration")
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
        rule = r.get("protection", {}).get(branch)
        contexts = rule["contexts"] if rule else []
        checks = dict(
            enforcement_level="non_admins" if rule else "off",
            contexts=contexts,
            checks=[dict(context=c, app_id=None) for c in contexts],
        )
        return dict(
            name=branch,
            commit=self._commit_json(r, sha),
            protected=rule is not None,
            protection_url=f"{url}/protection",
            protection=dict(enabled=rule is not None, required_status_checks=checks),
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
