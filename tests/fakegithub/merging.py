"""The fake GitHub's merging of pull requests and what gates it: commit statuses, check runs, reviews and branch
protection (a mixin of :class:`tests.fakegithub.FakeGitHub`).

State on the repository record, made on first use: ``statuses`` {sha: [{context, state}]}, ``check_runs``
{sha: [{name, status, conclusion}]}, ``reviews`` {number: [{user, state, commit_id}]}, ``protection``
{branch: {contexts: [...], reviews: N}} and ``merge_methods`` {merge, squash, rebase: allowed}. A merge is
refused as GitHub refuses it: ``409`` when ``sha`` is not the head, ``405`` when the pull request is not open,
the method is not allowed, a required context is not ``success`` or too few approving reviews are on it.
"""

from __future__ import annotations

from .common import _iso, _need, _route

_OK = ("success", "neutral", "skipped")


class MergeHandlers:
    """Merge, statuses, check runs, reviews and branch protection; part of :class:`~tests.fakegithub.FakeGitHub`."""

    # ------------------------------------------------------------- test helpers
    def set_status(self, full_name: str, sha: str, context: str, state: str) -> None:
        """A commit status (``success``, ``failure``, ``error``, ``pending``) of ``context`` on ``sha``."""
        with self.lock:
            found = self.repos[full_name].setdefault("statuses", {}).setdefault(sha, [])
            found[:] = [s for s in found if s["context"] != context] + [
                dict(context=context, state=state, id=self._next_id(), at=self._tick())
            ]

    def add_check_run(
        self, full_name: str, sha: str, name: str, status: str = "completed", conclusion: str | None = "success"
    ) -> None:
        """A check run ``name`` on ``sha`` (``status`` queued/in_progress/completed, ``conclusion`` when completed)."""
        with self.lock:
            runs = self.repos[full_name].setdefault("check_runs", {}).setdefault(sha, [])
            runs[:] = [c for c in runs if c["name"] != name] + [
                dict(name=name, status=status, conclusion=conclusion, id=self._next_id(), at=self._tick())
            ]

    def protect(self, full_name: str, branch: str, contexts: list[str] = (), reviews: int = 0) -> None:
        """Classic branch protection on ``branch``: required status ``contexts`` and approving ``reviews``."""
        with self.lock:
            self.repos[full_name].setdefault("protection", {})[branch] = dict(contexts=list(contexts), reviews=reviews)

    def add_review(self, number: int, user: str, state: str = "APPROVED", repo: str | None = None) -> None:
        """A review by ``user`` on the pull request's current head."""
        with self.lock:
            r = self._repo_for_pull(repo)
            pr = r["pulls"][number]
            r.setdefault("reviews", {}).setdefault(number, []).append(
                dict(user=user, state=state, commit_id=self._head_sha(r, pr), id=self._next_id(), at=self._tick())
            )

    # ---------------------------------------------------------------- handlers
    @_route("GET", "{R}/commits/<path:ref>/status")
    def h_combined_status(self, r, ref):
        """The combined status: ``failure`` if any is failure/error, ``pending`` if any is pending or there are none;
        ``statuses`` one page of them (``per_page``, default 30, at most 100; ``page`` from 1), ``total_count`` all."""
        sha = self._resolve(r, ref)
        _need(sha, 404, "No commit found for SHA: " + ref)
        found = r.get("statuses", {}).get(sha, [])
        states = {s["state"] for s in found}
        state = (
            "failure" if states & {"failure", "error"} else "pending" if "pending" in states or not found else "success"
        )
        api = f"{self.url}/repos/{r['full_name']}"
        per_page = min(100, int(self._req.args.get("per_page", 30)))
        page = max(1, int(self._req.args.get("page", 1)))
        return dict(
            state=state,
            sha=sha,
            total_count=len(found),
            statuses=[self._status_json(r, s) for s in found[(page - 1) * per_page : page * per_page]],
            repository=self._repo_json(r),
            commit_url=f"{api}/commits/{sha}",
            url=f"{api}/commits/{sha}/status",
        )

    @_route("GET", "{R}/commits/<path:ref>/check-runs")
    def h_check_runs(self, r, ref):
        sha = self._resolve(r, ref)
        _need(sha, 404, "No commit found for SHA: " + ref)
        runs = r.get("check_runs", {}).get(sha, [])
        return dict(total_count=len(runs), check_runs=[self._check_run_json(r, sha, c) for c in runs])

    @_route("GET", "{R}/branches/<path:branch>/protection")
    def h_protection(self, r, branch):
        rule = r.get("protection", {}).get(branch)
        _need(rule is not None, 404, "Branch not protected")
        url = f"{self.url}/repos/{r['full_name']}/branches/{branch}/protection"
        out = dict(
            url=url,
            required_status_checks=dict(
                url=f"{url}/required_status_checks",
                strict=False,
                contexts=rule["contexts"],
                contexts_url=f"{url}/required_status_checks/contexts",
                checks=[dict(context=c, app_id=None) for c in rule["contexts"]],
            ),
        )
        if rule["reviews"]:
            out["required_pull_request_reviews"] = dict(
                url=f"{url}/required_pull_request_reviews",
                dismiss_stale_reviews=False,
                require_code_owner_reviews=False,
                required_approving_review_count=rule["reviews"],
            )
        return out

    @_route("GET", "{R}/pulls/<int:n>/reviews")
    def h_reviews(self, r, n):
        self._pr(r, n)
        api, web = f"{self.url}/repos/{r['full_name']}/pulls/{n}", f"https://github.com/{r['full_name']}/pull/{n}"
        return [
            dict(
                id=v["id"],
                node_id=f"PRR_{v['id']}",
                user=self._user(v["user"]),
                body="",
                state=v["state"],
                commit_id=v["commit_id"],
                html_url=f"{web}#pullrequestreview-{v['id']}",
                pull_request_url=api,
                _links=dict(html=dict(href=f"{web}#pullrequestreview-{v['id']}"), pull_request=dict(href=api)),
                author_association="MEMBER",
                submitted_at=_iso(v["at"]),
            )
            for v in r.get("reviews", {}).get(n, [])
        ]

    @_route("PUT", "{R}/pulls/<int:n>/merge")
    def h_merge(self, r, n):
        pr, body = self._pr(r, n), self._body()
        _need(pr["state"] == "open", 405, "Pull Request is not mergeable")
        head = self._head_sha(r, pr)
        _need(body.get("sha") in (None, head), 409, "Head branch was modified. Review and try the merge again.")
        method = body.get("merge_method") or "merge"
        allowed = r.get("merge_methods", dict(merge=True, squash=True, rebase=True))
        _need(allowed.get(method), 405, f"{method.capitalize()} merges are not allowed on this repository.")
        rule = r.get("protection", {}).get(pr["base_ref"])
        if rule:
            for context in rule["contexts"]:
                states = [s["state"] for s in r.get("statuses", {}).get(head, []) if s["context"] == context]
                runs = [c["conclusion"] for c in r.get("check_runs", {}).get(head, []) if c["name"] == context]
                _need(
                    "success" in states or "success" in runs,
                    405,
                    f'Required status check "{context}" is expected.',
                )
            latest = {v["user"]: v["state"] for v in r.get("reviews", {}).get(n, [])}
            approved = sum(1 for state in latest.values() if state == "APPROVED")
            _need(
                approved >= rule["reviews"],
                405,
                "At least 1 approving review is required by reviewers with write access.",
            )
        base_ref = f"refs/heads/{pr['base_ref']}"
        tree, title = self.commits[head]["tree"], body.get("commit_title") or pr["title"]
        if method == "merge":
            msg = f"Merge pull request #{n} from {r['owner']}/{pr['head_ref']}\n\n{title}"
            parents = [r["refs"][base_ref], head]
        else:  # squash and rebase: one commit with the head's tree on the base (the fake's pull requests are one commit)
            msg, parents = f"{title} (#{n})", [r["refs"][base_ref]]
        sha = self._new_commit(tree, parents, msg, self._login or "human", verified=True)
        r["refs"][base_ref] = sha
        pr.update(head_sha=head, merged=True, merged_at=self._tick(), merge_commit_sha=sha, state="closed")
        pr["closed_at"] = pr["merged_at"]
        return dict(sha=sha, merged=True, message="Pull Request successfully merged")

    # ------------------------------------------------------------------- views
    def _status_json(self, r: dict, s: dict) -> dict:
        return dict(
            id=s["id"],
            node_id=f"SC_{s['id']}",
            url=f"{self.url}/repos/{r['full_name']}/statuses/{s['id']}",
            avatar_url=None,
            state=s["state"],
            description=None,
            target_url=None,
            context=s["context"],
            created_at=_iso(s["at"]),
            updated_at=_iso(s["at"]),
        )

    def _check_run_json(self, r: dict, sha: str, c: dict) -> dict:
        api, done = f"{self.url}/repos/{r['full_name']}/check-runs/{c['id']}", c["status"] == "completed"
        return dict(
            id=c["id"],
            node_id=f"CR_{c['id']}",
            head_sha=sha,
            name=c["name"],
            url=api,
            html_url=f"https://github.com/{r['full_name']}/runs/{c['id']}",
            details_url=None,
            status=c["status"],
            conclusion=c["conclusion"] if done else None,
            started_at=_iso(c["at"]),
            completed_at=_iso(c["at"]) if done else None,
            external_id=None,
            check_suite=dict(id=c["id"] + 1),
            output=dict(title=None, summary=None, text=None, annotations_count=0, annotations_url=f"{api}/annotations"),
            app=None,
            pull_requests=[],
        )
