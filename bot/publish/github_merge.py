"""Automerge of the bot's own pull request (``pull_request.automerge``; a mixin of
:class:`bot.publish.github.GitHubWiki`).

After the pull request is opened or updated, kep-sync merges it when, and only when, every rule holds, read in
this order (the first that fails is the reason, one line in the body, the report and the dashboard):

1. not turned off by ``/kep-sync automerge off`` on this pull request;
2. the plan may be merged (:func:`bot.plan.automerge.plan_holds`: nothing needs a look, allowed kinds);
3. the head is the commit kep-sync wrote and recorded this run, and every commit of the pull request
   (``GET /pulls/{n}/commits``) carries kep-sync's ``Kep-Sync-Fingerprint`` trailer and the head's committer;
4. the base branch's protection (``GET /branches/{base}/protection``; ``404``: not protected; any other
   refusal, such as the ``403`` a token without admin rights gets, leaves it open: never assumed) and the head's
   checks: every commit status (``GET /commits/{sha}/status``) and check run (``GET /commits/{sha}/check-runs``)
   is done and passed (``success``, ``neutral``, ``skipped``), each required context reported one, and the
   required approving reviews (``GET /pulls/{n}/reviews``, the latest review of each user) are given;
5. a merge method: ``pull_request.automerge.method``, else the first of merge, squash, rebase the repository
   allows (``GET /repos/{owner}/{repo}``);
6. ``PUT /pulls/{n}/merge`` with ``sha`` = the head kep-sync wrote: GitHub merges only that commit. A refusal
   (``405`` protection or a check still running, ``409`` head moved, ``422``, ``403``) leaves the pull request
   open with GitHub's message; the next run tries again.

Every read is conditional (:mod:`bot.publish.conditional`). After a merge the bot branch is deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from structlog.typing import FilteringBoundLogger

from bot.plan.automerge import plan_holds
from bot.plan.changelog.markdown import table_cell
from bot.publish import pull_request as prmod
from bot.publish.auth import PER_PAGE, GitHubApiError
from bot.publish.conditional import ConditionalReads
from bot.publish.settings import PublishSettings

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

    from bot.plan.planner import SyncPlan

#: Conclusions of a check run (and states of a commit status) that pass.
PASSING = ("success", "neutral", "skipped")
METHODS = ("merge", "squash", "rebase")
_ALLOWS = {"merge": "allow_merge_commit", "squash": "allow_squash_merge", "rebase": "allow_rebase_merge"}


class Automerge:
    """The automerge rules and the merge; part of :class:`~bot.publish.github.GitHubWiki`."""

    # Set by GitHubWiki (its __init__, read() and publish()).
    config: PublishSettings
    call: Callable[..., Any]
    log: FilteringBoundLogger
    repo: Repository
    reads: ConditionalReads
    base_name: str

    def _automerge_step(self, pr: PullRequest, plan: SyncPlan, written: bool, blocked: bool, head: str) -> str:
        """Merge ``pr`` or say why not: ``"merged"`` or ``"left open: REASON"``; the reason goes on the body's
        automerge line (one edit, only when the line changes). ``written``: this run committed (its checks have
        not run yet: merged on a later run); ``blocked``: a commit kep-sync did not make is on the branch;
        ``head``: the head kep-sync read or wrote this run."""
        state = prmod.parse_state(pr.body) or prmod.PrState()
        if blocked:
            reason = "the branch holds a commit kep-sync did not make"
        elif written:
            reason = "waiting for the checks of the new commit; merged on a later run when every rule holds"
        else:
            reason = self._automerge(pr, plan, head, state.automerge == "off")
        if reason == "merged":
            return reason
        body = prmod.with_automerge(pr.body, reason_line(reason))
        if body != pr.body:
            self.call(f"update pull request #{pr.number}", pr.edit, body=body)
        self.log.info("pull request left open by automerge", pull_request=pr.number, reason=reason)
        return f"left open: {reason}"

    def _automerge(self, pr: PullRequest, plan: SyncPlan, head: str, off: bool) -> str:
        """``"merged"``, or why ``pr`` was left open (one line of plain text); ``head``: the commit at the head
        this run (``""``: none); ``off``: turned off by a command."""
        rules = self.config.pull_request.automerge
        if off:
            return "turned off by /kep-sync automerge off"
        reasons = plan_holds(plan, rules.kinds, rules.confirmed)
        if reasons:
            return reasons[0]
        state = prmod.parse_state(pr.body) or prmod.PrState()
        if not head or head != state.head:
            return "the head of the branch is not the commit kep-sync recorded"
        why = self._foreign_commits(pr, head) or self._checks(pr, head)
        if why:
            return why
        method = rules.method if rules.method != "repository" else self._repository_method()
        if not method:
            return "the repository allows no merge method kep-sync may use (or hides its settings from the token)"
        url = f"{self.repo.url}/pulls/{pr.number}/merge"
        try:
            self.call(
                f"merge #{pr.number}",
                self.repo.requester.requestJsonAndCheck,
                "PUT",
                url,
                input={"sha": head, "merge_method": method},
            )
        except GitHubApiError as exc:
            if exc.status in (403, 405, 409, 422):
                return f"GitHub refused the merge (HTTP {exc.status}: {_message(str(exc))}); tried again next run"
            raise
        self.log.info("pull request merged by automerge", pull_request=pr.number, head=head, method=method)
        self._delete_merged_branch()
        return "merged"

    def _foreign_commits(self, pr: PullRequest, head: str) -> str:
        """Why the commits of ``pr`` are not all kep-sync's (``""``: they are)."""
        commits = self.call(
            f"list the commits of #{pr.number}",
            self.reads.get_list,
            f"{self.repo.url}/pulls/{pr.number}/commits",
            {"per_page": PER_PAGE},
        )
        ident = next((_person(c["commit"].get("committer")) for c in commits if c.get("sha") == head), None)
        if ident is None:
            return "the head commit is not among the pull request's commits"
        for c in commits:
            message = str(c["commit"].get("message") or "")
            if prmod.parse_trailers(message) is None or _person(c["commit"].get("committer")) != ident:
                return f"the branch holds a commit kep-sync did not make ({str(c.get('sha'))[:12]})"
        return ""

    def _checks(self, pr: PullRequest, head: str) -> str:
        """Why the base's protection or the checks of ``head`` stop the merge (``""``: they pass)."""
        base = quote(self.base_name)
        try:
            rule = self.call(
                f"read the protection of {self.base_name}",
                self.reads.get,
                f"{self.repo.url}/branches/{base}/protection",
            )
        except GitHubApiError as exc:
            if exc.status != 404:
                return f"cannot read the protection of {self.base_name} (HTTP {exc.status})"
            rule = {}
        required = list(((rule.get("required_status_checks") or {}).get("contexts")) or [])
        reviews = int(((rule.get("required_pull_request_reviews") or {}).get("required_approving_review_count")) or 0)
        combined, statuses = self._statuses(head)
        runs = self.call(
            "read the check runs",
            self.reads.get,
            f"{self.repo.url}/commits/{head}/check-runs",
            {"per_page": PER_PAGE},
        )
        seen: dict[str, str] = {}
        for s in statuses:
            seen[str(s.get("context"))] = "success" if s.get("state") == "success" else str(s.get("state"))
        for c in runs.get("check_runs") or []:
            done = c.get("status") == "completed"
            seen[str(c.get("name"))] = (str(c.get("conclusion")) if done else str(c.get("status"))) or "pending"
        if int(runs.get("total_count") or 0) > len(runs.get("check_runs") or []):
            return "more check runs than one page lists; not read in full"
        for name, state in sorted(seen.items()):
            if state not in PASSING:
                return f"check {name} is {state}"
        if statuses and combined.get("state") != "success":  # GitHub's own reading of the statuses
            return f"the combined commit status is {combined.get('state')}"
        missing = [name for name in required if name not in seen]
        if missing:
            return f"required check {missing[0]} has not reported"
        if reviews:
            given = self._approvals(pr)
            if given < reviews:
                return f"{reviews} approving review{'s' if reviews != 1 else ''} required, {given} given"
        return ""

    def _statuses(self, head: str) -> tuple[dict, list[dict]]:
        """``(combined status, every status)`` of commit ``head``: ``GET /commits/{sha}/status`` page by page
        (``per_page`` 100, ``page`` from 1) until ``total_count`` statuses are read or a page comes back empty."""
        url = f"{self.repo.url}/commits/{head}/status"
        combined: dict = {}
        statuses: list[dict] = []
        page = 1
        while True:
            got = self.call("read the commit statuses", self.reads.get, url, {"per_page": PER_PAGE, "page": page})
            combined = got if page == 1 else combined
            listed = [s for s in got.get("statuses") or [] if isinstance(s, dict)]
            statuses += listed
            if not listed or len(statuses) >= int(got.get("total_count") or 0):
                return combined, statuses
            page += 1

    def _approvals(self, pr: PullRequest) -> int:
        """Users whose latest review of ``pr`` approves it."""
        listed = self.call(
            f"list the reviews of #{pr.number}",
            self.reads.get_list,
            f"{self.repo.url}/pulls/{pr.number}/reviews",
            {"per_page": PER_PAGE},
        )
        latest: dict[str, str] = {}
        for review in listed:
            if review.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
                latest[str((review.get("user") or {}).get("login"))] = str(review.get("state"))
        return sum(1 for state in latest.values() if state == "APPROVED")

    def _repository_method(self) -> str:
        """The first of merge, squash, rebase the repository allows (``""``: none, or the settings are hidden)."""
        settings = self.call("read the repository's merge settings", self.reads.get, self.repo.url)
        return next((m for m in METHODS if settings.get(_ALLOWS[m]) is True), "")

    def _delete_merged_branch(self) -> None:
        try:
            self.call(
                "delete the merged bot branch",
                self.repo.requester.requestJsonAndCheck,
                "DELETE",
                f"{self.repo.url}/git/refs/heads/{quote(self.config.pull_request.branch)}",
            )
        except GitHubApiError as exc:
            if exc.status not in (404, 422):  # already gone (the repository deletes merged branches)
                raise


def reason_line(reason: str) -> str:
    """``reason`` as the inert markdown of the body's automerge line."""
    return table_cell(reason)


def _person(person: Any) -> str:
    return f"{person.get('name')} <{person.get('email')}>" if isinstance(person, dict) else ""


def _message(error: str) -> str:
    """GitHub's message in a :class:`GitHubApiError` text (``GitHub API: what: HTTP 405 message``)."""
    tail = error.split(" HTTP ", 1)[-1]
    return tail.split(" ", 1)[-1] if " " in tail else tail
