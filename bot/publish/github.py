"""The wiki as a GitHub repository (PyGithub): read the pages at the base; publish = one commit + one pull request.

:meth:`GitHubWiki.read` lists the bot's pull requests (one request), reads the
base branch head and the pages at it through the API (no clone);
:meth:`GitHubWiki.publish` then acts on the open bot pull request, if any:

- same proposal on the same page blobs -> no commit; the body is edited when anything it says changed
  (the evidence, the watch, the source revision, the problems), else nothing (zero writes);
- new proposal or a page changed on the base -> one commit with all changed
  pages (blobs -> tree -> commit, then the ref moves last), body refreshed;
- the base already has the rows -> comment, close as superseded, delete the branch;
- the branch has a commit kep-sync did not make -> comment once and skip,
  unless the pull request has the label ``kep-sync:regenerate``.

With a bot pull request open, :meth:`GitHubWiki.read` also lists its comments
updated since the newest one read when commands were last carried out (one
request; ``since`` from the hidden state marker) and checks the role of each
author of a new ``/kep-sync`` command (one request per author):
:mod:`bot.publish.comment_commands`. The pages it returns carry the ignore markers of
every ignore command carried out on this pull request (so the plan reads them,
and the commit writes them); :meth:`GitHubWiki.publish` then records the commands
in the state marker and answers each with one reply comment.

Without an open pull request a new one is opened, except when a bot pull
request with the same fingerprint was closed without merge. Commits carry no
custom author or committer, so GitHub App commits are verified. Writes are
made one at a time; every call is retried per :mod:`bot.publish.auth`.

Read-only (``--publish none`` with ``wiki.repo`` set), :meth:`GitHubWiki.read`
reads the pages at the base head the same way without listing pull requests,
and nothing lands. The base is read once per run: a page changed on the base
after that is seen by the next run, which rebuilds the proposal from it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from github.GithubObject import NotSet, Opt
from github.NamedUser import NamedUser
from github.PullRequest import PullRequest

from bot.errors import ConfigError
from bot.http import RequestCounter
from bot.log import get_logger
from bot.plan.changelog.controls import CONTROLS_SUMMARY
from bot.publish import auth
from bot.publish import comment_commands as cmd
from bot.publish import pull_request as prmod
from bot.publish.auth import PER_PAGE, GitHubApiError, GitHubSession, connect
from bot.publish.backend import PagesAtBase, Publication, Replan
from bot.publish.conditional import ConditionalReads, etag_dir
from bot.publish.github_branch import BotBranch, committer_of
from bot.publish.github_commands import CommentCommands
from bot.publish.github_dashboard import DashboardIssue
from bot.publish.github_merge import Automerge
from bot.publish.pull_request import PrState
from bot.publish.settings import PublishSettings

if TYPE_CHECKING:
    from github.Repository import Repository

    from bot.plan.planner import SyncPlan


class GitHubWiki(CommentCommands, BotBranch, Automerge, DashboardIssue):
    """:class:`~bot.publish.backend.Wiki` over ``config.wiki.repo`` through the GitHub API.

    Make it with :meth:`connect`. ``read_only`` (the dry run): :meth:`read` makes only the reads
    of the pages (the default branch when ``wiki.base`` is unset (1), the base branch (1), each
    page (1, 2 over 1 MB)) and credentials are optional (anonymous reads work for a public
    repository); :meth:`publish` is then refused.
    """

    @classmethod
    def connect(
        cls,
        config: PublishSettings,
        counter: RequestCounter | None = None,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        seconds_between_writes: float | None = None,
        read_only: bool = False,
        explain: Callable[[int], str] | None = None,
    ) -> GitHubWiki:
        """A backend with an authenticated session. ``env`` (default ``os.environ``) holds the credentials;
        ``counter`` counts API requests; ``sleep`` (retry waits) and ``seconds_between_writes`` (default
        :data:`bot.publish.auth.SECONDS_BETWEEN_WRITES`) are for tests; ``explain``: KEP number -> its field
        history as ``kep-sync history N`` prints it, for ``/kep-sync explain`` (raises
        :class:`~bot.errors.KepSyncError` when it cannot; ``None``: the command is answered as unavailable). Raises
        :class:`ConfigError` without
        ``wiki.repo`` or (unless ``read_only``) without credentials."""
        repo = _wiki_repo(config)
        pause = (
            0
            if read_only
            else auth.SECONDS_BETWEEN_WRITES
            if seconds_between_writes is None
            else seconds_between_writes
        )
        return cls(
            config,
            connect(
                config.github.api_url,
                repo,
                os.environ if env is None else env,
                counter=counter,
                sleep=sleep,
                seconds_between_writes=pause,
                read_only=read_only,
            ),
            read_only,
            explain,
        )

    def __init__(
        self,
        config: PublishSettings,
        session: GitHubSession,
        read_only: bool = False,
        explain: Callable[[int], str] | None = None,
    ):
        self.config, self.pr_config, self.call, self.read_only = config, config.pull_request, session.call, read_only
        self.login = session.login
        self.explain = explain
        self.repo_name = _wiki_repo(config)
        self.repo: Repository = session.client.get_repo(self.repo_name)
        self.reads = ConditionalReads(
            self.repo.requester, etag_dir(config.cache_dir, config.github.api_url, self.repo_name)
        )
        self.owner = self.repo_name.split("/", 1)[0]
        self.log = get_logger(component="publish", repo=self.repo_name, branch=config.pull_request.branch)

    # ------------------------------------------------------------------ one run
    def read(self) -> PagesAtBase:
        """The pages at the head of ``wiki.base`` (default: the repository's default branch).

        Raises :class:`ConfigError` for a page that is not a file at the base (naming ``wiki.pages``),
        :class:`~bot.errors.PublishError` when the API keeps failing.
        """
        self.pulls, self.open_pr = [], None
        if not self.read_only:
            branch = self.pr_config.branch
            listed = self.call(
                "list the bot's pull requests",
                self.reads.get,
                f"{self.repo.url}/pulls",
                dict(state="all", head=f"{self.owner}:{branch}", sort="created", direction="desc", per_page=PER_PAGE),
            )
            self.pulls = [PullRequest(self.repo.requester, {}, p, completed=False) for p in listed]
        self.base_name = self._base_name()
        self.open_pr = next((p for p in self.pulls if p.state == "open" and p.base.ref == self.base_name), None)
        self.base_sha, self.base_tree = self._base_head(self.base_name)
        self.original, self.blobs = self._read_pages(self.base_name, self.base_sha)
        self.commands: list[cmd.Command] = []
        self.newest = (0, "")
        if self.open_pr is not None:
            self.commands, self.newest = self._read_commands(self.open_pr)
        state = prmod.parse_state(self.open_pr.body if self.open_pr else "")
        lifted = self._dashboard_read() if not self.read_only else set()
        if state is not None and lifted:
            kept = [rule for rule in cmd.decode_ignores(state.ignore) if rule not in lifted]
            state = state._replace(ignore=cmd.encode_ignores(kept))
        pages, self.ignores = self._mark(self.original, state)
        budget = prmod.changelog_budget(self.open_pr.body if self.open_pr else None)
        return PagesAtBase(
            pages, self.base_sha, budget - len(self._ignore_block()) - len(cmd.encode_ignores(self.ignores))
        )

    def publish(self, plan: SyncPlan, replan: Replan) -> Publication:
        """Open or update the bot pull request for ``plan`` (see the module docstring).

        Returns a :class:`~bot.publish.backend.Publication`: ``written`` lists the pages in the commit made
        by this run (``[]`` when none), ``url`` the pull request (``""`` when there is none),
        ``blocked`` is True when a foreign commit on the bot branch stopped the update. Raises
        :class:`~bot.errors.PublishError` when the API keeps failing (the branch never points at a
        partial commit). ``replan`` is not called: the base is read once per run.
        """
        if self.read_only:
            raise ConfigError("--publish none: the GitHub wiki was opened read-only; nothing lands")
        # Pages whose only change is an ignore marker a command added are changed pages too.
        plan = plan._replace(pages=[p._replace(old=self.original.get(p.path, p.old)) for p in plan.pages])
        marks = tuple(
            (page, f"ignore {kep} {' '.join(fields)}")
            for (kep, fields), where in self.ignores.items()
            for page in sorted({w.rsplit(" line ", 1)[0] for w in where})
        )
        if self.ignores:
            plan = plan._replace(
                changelog=plan.changelog._replace(
                    body=_before_controls(plan.changelog.body, self._ignore_block()),
                    commit_message=plan.changelog.commit_message.rstrip("\n")
                    + "\n\n"
                    + "\n".join(
                        f"Ignore marker added on request: KEP {kep} {' '.join(fields) or '(whole row)'}"
                        for kep, fields in self.ignores
                    )
                    + "\n",
                )
            )
        proposal = PrState(
            plan.snapshot.revision,
            prmod.fingerprint(plan.changes, plan.generated + marks),
            self.base_sha,
            prmod.pages_digest(self.blobs),
            **self._commands_state(),
        )
        self.opened, self.head_after = None, ""
        if self.open_pr is None:
            publication = self._open(self.pulls, plan, proposal, self.base_name, self.base_tree)
            publication = self._merged(
                self.opened, publication._replace(operation="created" if publication.url else "none")
            )
            self._dashboard_write(publication)
            return publication
        publication = self._update(self.open_pr, plan, proposal, self.base_tree)
        self._answer(self.open_pr, publication)
        publication = self._merged(self.open_pr if publication.url else None, publication)
        operation = (
            "blocked"
            if publication.blocked
            else "closed"
            if not publication.url
            else "updated"
            if publication.written
            else "none"
        )
        publication = publication._replace(operation=operation)
        self._dashboard_write(publication)
        return publication

    def _merged(self, pr: PullRequest | None, publication: Publication) -> Publication:
        """``publication`` with what automerge did to ``pr`` (only with ``pull_request.automerge`` enabled; with
        it off, an automerge line an earlier run left on the body is removed, once)."""
        if pr is None:
            return publication
        if not self.pr_config.automerge.enabled:
            if prmod.automerge_line(pr.body):
                body = prmod.with_automerge(pr.body, "")
                self.call(f"update pull request #{pr.number}", pr.edit, body=body)
            return publication
        return publication._replace(
            automerge=self._automerge_step(
                pr, publication.plan, bool(publication.written), publication.blocked, self.head_after
            )
        )

    # --------------------------------------------------------- open pull request
    def _update(self, pr: PullRequest, plan: SyncPlan, proposal: PrState, base_tree: str) -> Publication:
        state = prmod.parse_state(pr.body)
        labelled = prmod.REGENERATE_LABEL in {label.name for label in pr.labels}
        regenerate = labelled or any(c.verb == "regenerate" and not c.error for c in self.commands)
        ours = state is not None and self._is_ours(
            pr.head.sha, state.head, self._identity_of(state.head), proposal.base, plan
        )
        recorded = (state or PrState())._replace(**self._commands_state())
        if not ours and not regenerate:
            self._note_foreign(pr)
            self._record(pr, recorded)
            return Publication(plan, [], pr.html_url, blocked=True)
        if not plan.changed_pages():
            self._close_superseded(pr, recorded, proposal.base)
            return Publication(plan, [], "")
        if (
            ours
            and state is not None
            and not regenerate
            and (state.fingerprint, state.pages) == (proposal.fingerprint, proposal.pages)
        ):
            self.head_after = pr.head.sha
            # The same changes on the same pages: no commit. Whatever else the body says (the evidence, the
            # watch, the source revision, the problems) is this run's and replaces a stale one. Its links to
            # page lines keep the base the branch was built on: the pages there are these very bytes.
            text = plan.changelog.body
            if state.base and proposal.base:
                text = text.replace(f"/blob/{proposal.base}/", f"/blob/{state.base}/")
            if pr.title == self._title(plan) and prmod.same_section(
                pr.body, prmod.render_section(text, recorded if self.commands else state)
            ):
                self.log.info("pull request is up to date", pull_request=pr.number)
                self._record(pr, recorded)
            else:
                body = prmod.merge_body(pr.body, prmod.render_section(text, recorded))
                self.call(f"update pull request #{pr.number}", pr.edit, title=self._title(plan), body=body)
                self.log.info("pull request body refreshed; no commit", pull_request=pr.number)
            return Publication(plan, [], pr.html_url)
        fast_forward = ours and state is not None and not regenerate and state.base == proposal.base
        if (
            fast_forward
            and state is not None
            and state.fingerprint == proposal.fingerprint
            and self._same_tree(proposal.base, pr.head.sha, plan)
        ):
            # Same changes on the same base, only the page set differs: a commit would be empty.
            new_state = proposal._replace(head=pr.head.sha, follows=state.follows)
            body = prmod.merge_body(pr.body, prmod.render_section(plan.changelog.body, new_state))
            self.call(f"update pull request #{pr.number}", pr.edit, title=self._title(plan), body=body)
            self.log.info("bot branch already has these pages; no commit", pull_request=pr.number)
            self.head_after = pr.head.sha
            return Publication(plan, [], pr.html_url)
        parent = pr.head.sha if fast_forward else proposal.base
        new_head = self._commit(plan, proposal, base_tree, parent).sha
        self._move_branch(new_head, force=not fast_forward)
        new_state = proposal._replace(head=new_head, follows=state.follows if state else "")
        body = prmod.merge_body(pr.body, prmod.render_section(plan.changelog.body, new_state))
        self.call(f"update pull request #{pr.number}", pr.edit, title=self._title(plan), body=body)
        self.head_after = new_head
        if labelled:
            self.call(
                "remove the regenerate label",
                pr.remove_from_labels,
                prmod.REGENERATE_LABEL,
                recover=lambda: (
                    None if any(label.name == prmod.REGENERATE_LABEL for label in pr.get_labels()) else True
                ),
            )
        self.log.info("pull request updated", pull_request=pr.number, head=new_head, fast_forward=fast_forward)
        return Publication(plan, sorted(plan.changed_pages()), pr.html_url)

    def _note_foreign(self, pr: PullRequest) -> None:
        self.log.warning(
            "the bot branch has commits kep-sync did not make; not updating",
            pull_request=pr.number,
            label=prmod.REGENERATE_LABEL,
        )
        comments = self.call(f"list comments of #{pr.number}", lambda: list(pr.get_issue_comments()))
        if any(prmod.FOREIGN_COMMENT_TAG in (c.body or "") for c in comments):
            return
        self._comment(
            pr,
            (
                f"{prmod.FOREIGN_COMMENT_TAG}\nkep-sync found commits on `{self.pr_config.branch}` that it did not "
                f"make (head `{pr.head.sha[:12]}`), so it leaves this pull request alone. To replace the branch with "
                f"a fresh commit from the base (dropping those commits), add the label `{prmod.REGENERATE_LABEL}`."
            ),
        )

    def _close_superseded(self, pr: PullRequest, state: PrState, base: str) -> None:
        self._comment(
            pr,
            f"The base branch `{pr.base.ref}` already has these rows (at `{base[:12]}`), so this pull "
            "request is superseded. Closing it; kep-sync opens a new one when upstream changes again.",
        )
        body = prmod.merge_body(
            pr.body,
            prmod.render_section(
                "**kep-sync**: superseded; the base branch already has these rows.", state._replace(status="superseded")
            ),
        )
        self.call(f"close #{pr.number}", pr.edit, state="closed", body=body)
        self._delete_branch()
        self.log.info("pull request closed as superseded", pull_request=pr.number)

    # ---------------------------------------------------------- new pull request
    def _open(
        self, pulls: list[PullRequest], plan: SyncPlan, proposal: PrState, base_name: str, base_tree: str
    ) -> Publication:
        if not plan.changed_pages():
            self.log.info("wiki is up to date; no pull request needed")
            return Publication(plan, [], "")
        closed = [(p, prmod.parse_state(p.body)) for p in pulls if p.state == "closed" and p.merged_at is None]
        rejected = [(p, s) for p, s in closed if s is not None and s.status != "superseded"]
        same = next((p for p, s in rejected if s.fingerprint == proposal.fingerprint), None)
        if same is not None:
            self.log.warning(
                "this proposal was closed without merge; not reopening it",
                pull_request=same.number,
                fingerprint=proposal.fingerprint,
            )
            return Publication(plan, [], "")
        made = self._commit(plan, proposal, base_tree, proposal.base)
        new_head = made.sha
        self._create_branch(
            new_head, {s.head for _, s in closed if s is not None}, committer_of(made.committer), plan, proposal.base
        )
        state = proposal._replace(head=new_head, follows=str(rejected[0][0].number) if rejected else "")
        pr = self.call(
            "open the pull request",
            self.repo.create_pull,
            base=base_name,
            head=self.pr_config.branch,
            title=self._title(plan),
            draft=self.pr_config.draft,
            body=prmod.render_section(plan.changelog.body, state),
            recover=lambda: self._open_pull(base_name, new_head),
        )
        self._decorate(pr)
        self.opened = pr
        self.log.info("pull request opened", pull_request=pr.number, head=new_head)
        return Publication(plan, sorted(plan.changed_pages()), pr.html_url)

    def _decorate(self, pr: PullRequest) -> None:
        """Labels and assignees (one issue edit), then reviewers; a refused name is logged, not fatal."""
        cfg = self.pr_config
        steps: list[tuple[str, Callable[[], None]]] = []
        if cfg.labels or cfg.assignees:
            issue = self.repo.get_issue(pr.number)
            labels: Opt[list[str]] = list(cfg.labels) if cfg.labels else NotSet
            assignees: Opt[list[NamedUser | str]] = list(cfg.assignees) if cfg.assignees else NotSet
            steps.append(("set labels and assignees", lambda: issue.edit(labels=labels, assignees=assignees)))
        if cfg.reviewers or cfg.team_reviewers:
            steps.append(
                (
                    "request reviewers",
                    lambda: pr.create_review_request(
                        reviewers=list(cfg.reviewers), team_reviewers=list(cfg.team_reviewers)
                    ),
                )
            )
        for what, step in steps:
            try:
                self.call(f"{what} on #{pr.number}", step)
            except GitHubApiError as exc:
                if exc.status != 422:
                    raise
                self.log.warning("GitHub refused a pull request setting", what=what, error=str(exc))

    # ------------------------------------------- after a lost response: was it done?
    def _open_pull(self, base_name: str, head: str) -> PullRequest | None:
        """The open pull request from the bot branch (at ``head``) into ``base_name``, found by head branch."""
        pulls = self.repo.get_pulls(state="open", head=f"{self.owner}:{self.pr_config.branch}", base=base_name)
        return next((p for p in pulls.get_page(0) if p.head.sha == head), None)

    def _title(self, plan: SyncPlan) -> str:
        return self.pr_config.title or plan.changelog.title


def _wiki_repo(config: PublishSettings) -> str:
    """``wiki.repo`` (``OWNER/NAME``); raises :class:`ConfigError` when it is not set."""
    if not config.wiki.repo:
        raise ConfigError("wiki.repo: required for --publish github (OWNER/NAME of the wiki repository)")
    return config.wiki.repo


def _before_controls(body: str, block: str) -> str:
    """``body`` with ``block`` inserted before its Controls footer (appended when it has none)."""
    at = body.find(CONTROLS_SUMMARY)
    return body[:at] + block + body[at:] if at >= 0 else body.rstrip("\n") + "\n\n" + block
