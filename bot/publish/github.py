"""The wiki as a GitHub repository (PyGithub): read the pages at the base; publish = one commit + one pull request.

:meth:`GitHubWiki.read` lists the bot's pull requests (one request), reads the
base branch head and the pages at it through the API (no clone);
:meth:`GitHubWiki.publish` then acts on the open bot pull request, if any:

- same proposal on the same page blobs -> nothing (zero writes);
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

import base64
import datetime
import hashlib
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from github import GitCommit, GithubException, GitRef, GitTree, InputGitTreeElement
from github.GithubObject import NotSet, Opt
from github.IssueComment import IssueComment
from github.NamedUser import NamedUser
from github.PaginatedList import PaginatedList

from bot.errors import ConfigError, KepSyncError
from bot.fileread import PAGE_BYTES
from bot.http import RequestCounter
from bot.log import get_logger
from bot.plan.controls import CONTROLS_SUMMARY
from bot.publish import auth
from bot.publish import comment_commands as cmd
from bot.publish import pull_request as prmod
from bot.publish.auth import GitHubApiError, GitHubSession, connect
from bot.publish.backend import PagesAtBase, Publication, Replan, page_error
from bot.publish.ownership import is_own_head
from bot.publish.pull_request import PrState
from bot.publish.settings import PublishSettings
from bot.wiki.marking import mark_kep

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

    from bot.plan.planner import SyncPlan


class GitHubWiki:
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
        self.explain = explain
        self.repo_name = _wiki_repo(config)
        self.repo: Repository = session.client.get_repo(self.repo_name)
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
            self.pulls = self.call(
                "list the bot's pull requests",
                lambda: self.repo.get_pulls(
                    state="all", head=f"{self.owner}:{branch}", sort="created", direction="desc"
                ).get_page(0),
            )
        self.base_name = self._base_name()
        self.open_pr = next((p for p in self.pulls if p.state == "open" and p.base.ref == self.base_name), None)
        self.base_sha, self.base_tree = self._base_head(self.base_name)
        self.original, self.blobs = self._read_pages(self.base_name, self.base_sha)
        self.commands: list[cmd.Command] = []
        self.newest = (0, "")
        if self.open_pr is not None:
            self.commands, self.newest = self._read_commands(self.open_pr)
        pages, self.ignores = self._mark(self.original, prmod.parse_state(self.open_pr.body if self.open_pr else ""))
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
        if self.open_pr is None:
            publication = self._open(self.pulls, plan, proposal, self.base_name, self.base_tree)
            return publication._replace(operation="created" if publication.url else "none")
        self.head_after = ""
        publication = self._update(self.open_pr, plan, proposal, self.base_tree)
        self._answer(self.open_pr, publication)
        operation = (
            "blocked"
            if publication.blocked
            else "closed"
            if not publication.url
            else "updated"
            if publication.written
            else "none"
        )
        return publication._replace(operation=operation)

    # -------------------------------------------------- commands in comments
    def _read_commands(self, pr: PullRequest) -> tuple[list[cmd.Command], tuple[int, str]]:
        """``(new commands, (highest comment id, updated_at to list from next time) of the comments read)``: the
        comments updated since the state's ``since`` (one request), those after ``seen`` that are commands, each
        with ``error`` set when its author may not give it (the collaborator permission API, one request per
        author, whatever ``author_association`` says). Refusals beyond one per author and
        :data:`~bot.publish.comment_commands.MAX_REFUSALS` per run are left out (logged). Once
        :data:`~bot.publish.comment_commands.MAX_ROLE_READS` authors were asked about, the first command of
        another author and every comment after it wait for the next run: the watermark stops before it."""
        state = prmod.parse_state(pr.body) or PrState()
        since, seen = cmd.since_query(state.since), int(state.seen) if state.seen.isdigit() else 0
        comments = self.call(
            f"list comments of #{pr.number}",
            lambda: list(
                PaginatedList(
                    IssueComment, self.repo.requester, f"{pr.issue_url}/comments", {"since": since} if since else None
                )
            ),
        )
        found: list[cmd.Command] = []
        roles: dict[str, tuple[str, str]] = {}
        top_id, top_time = seen, ""
        refused: set[str] = set()
        comments.sort(key=lambda c: c.id)
        for k, c in enumerate(comments):
            updated = _iso(c.updated_at)
            login = c.user.login if c.user else ""
            command = cmd.parse_comment(c.id, login, updated, c.body) if c.id > seen else None
            if command is not None and login not in roles and len(roles) >= cmd.MAX_ROLE_READS:
                waiting = [_iso(later.updated_at) for later in comments[k:]]  # listed again next run
                self.log.info("commands of more authors than are checked per run wait", comment=c.id)
                return found, (top_id, min([*waiting, top_time] if top_time else waiting))
            top_id, top_time = max(top_id, c.id), max(top_time, updated)
            if command is None:
                continue
            if login not in roles:
                roles[login] = self._role(login)
            if not cmd.may_command(*roles[login]):
                if login in refused or len(refused) >= cmd.MAX_REFUSALS:
                    self.log.info("command from a user without write access left unanswered", comment=c.id)
                    continue
                refused.add(login)
                command = command._replace(error=cmd.refusal(login, *roles[login], self.repo_name))
            found.append(command)
        return found, (top_id, top_time)

    def _role(self, login: str) -> tuple[str, str]:
        """``(permission, role_name)`` of ``login`` on the wiki repository (``("", "")`` for no such user)."""
        url = f"{self.repo.url}/collaborators/{quote(login, safe='')}/permission"
        try:
            _, data = self.call(f"read the role of @{login}", self.repo.requester.requestJsonAndCheck, "GET", url)
        except GitHubApiError as exc:
            if exc.status == 404:
                return "", ""
            raise
        return str(data.get("permission") or ""), str(data.get("role_name") or "")

    def _mark(
        self, pages: dict[str, bytes], state: PrState | None
    ) -> tuple[dict[str, bytes], dict[tuple[int, tuple[str, ...]], list[str]]]:
        """``(pages with the markers of every ignore command carried out, {(KEP, fields): ["page line N"]})``;
        a new ignore command whose KEP is in no row gets its ``error``."""
        rules = cmd.decode_ignores(state.ignore if state else "")
        rules += [cmd.ignored_rule(c) for c in self.commands if c.verb == "ignore" and not c.error]
        out = dict(pages)
        found: dict[tuple[int, tuple[str, ...]], list[str]] = {}
        for kep, fields in dict.fromkeys(rules):
            for path in (p for p in self.config.wiki.pages if p in out):
                try:
                    text, lines = mark_kep(path, out[path].decode("utf-8"), self.config.aliases(), kep, fields)
                except UnicodeDecodeError:
                    continue  # planning names the page
                out[path] = text.encode("utf-8")
                found.setdefault((kep, fields), []).extend(f"{path} line {n + 1}" for n in lines)
        found = {rule: where for rule, where in found.items() if where}
        pages_named = ", ".join(self.config.wiki.pages)
        self.commands = [
            c._replace(error=f"KEP {c.kep} is in no row of {pages_named}")
            if c.verb == "ignore" and not c.error and cmd.ignored_rule(c) not in found
            else c
            for c in self.commands
        ]
        return out, found

    def _ignore_block(self) -> str:
        """The body lines listing the ignore markers commands added (``""`` when none)."""
        if not self.ignores:
            return ""
        lines = [
            f"- KEP {kep}: `{cmd.marker_text(fields)}` ({', '.join(where)})"
            for (kep, fields), where in self.ignores.items()
        ]
        return "**Ignore markers added by `/kep-sync ignore`**\n\n" + "\n".join(lines) + "\n\n"

    def _commands_state(self) -> dict[str, str]:
        """The ``seen``, ``since`` and ``ignore`` fields of the new state marker: the read position moves past
        every comment listed (commands or not), so a write this run makes anyway saves it."""
        old = (prmod.parse_state(self.open_pr.body) if self.open_pr else None) or PrState()
        seen, since = old.seen, old.since
        if self.newest[0] > (int(old.seen) if old.seen.isdigit() else 0):
            seen, since = str(self.newest[0]), cmd.compact_time(self.newest[1]) or old.since
        return dict(seen=seen, since=since, ignore=cmd.encode_ignores(self.ignores))

    def _record(self, pr: PullRequest, state: PrState) -> None:
        """Write ``state`` into the body's state marker when commands were read (one request)."""
        if self.commands and state != prmod.parse_state(pr.body):
            self.call(f"update pull request #{pr.number}", pr.edit, body=prmod.with_state(pr.body, state))

    def _answer(self, pr: PullRequest, publication: Publication) -> None:
        """One reply comment per command read this run; a reply GitHub refuses is logged and the others are
        still posted (the state marker already records the commands)."""
        for command in self.commands:
            try:
                self._comment(pr, self._reply(command, publication))
            except KepSyncError as exc:
                self.log.warning("a reply to a command was not posted", comment=command.id, error=str(exc))

    def _reply(self, c: cmd.Command, publication: Publication) -> str:
        if c.error:
            return cmd.not_done(c, c.error)
        head = "" if publication.blocked else self.head_after
        if c.verb == "ignore":
            return cmd.ignore_done(c, self.ignores[cmd.ignored_rule(c)], head)
        if c.verb == "regenerate":
            return cmd.regenerate_done(c, head)
        if self.explain is None:
            return cmd.not_done(c, "this kep-sync run has no access to the KEP history")
        try:
            return cmd.explain_done(c, self.explain(c.kep))
        except KepSyncError as exc:
            return cmd.not_done(c, str(exc).rstrip("."))

    def _base_name(self) -> str:
        """``wiki.base``, else the default branch: as a listed pull request's base repository gives it (no
        request), else read from the repository (one request)."""
        if self.config.wiki.base:
            return self.config.wiki.base
        listed = next((p.base.repo.default_branch for p in self.pulls if p.base.repo), None)
        return listed or self.call("read the default branch", lambda: self.repo.default_branch)

    def _base_head(self, base_name: str) -> tuple[str, str]:
        """``(commit SHA, tree SHA)`` of the head of branch ``base_name``."""
        head = self.call(f"read branch {base_name}", self.repo.get_branch, base_name).commit
        return head.sha, head.commit.tree.sha

    def _read_pages(self, base_name: str, sha: str) -> tuple[dict[str, bytes], dict[str, str]]:
        pages, blobs = {}, {}
        where = f"at {base_name} of {self.config.wiki.repo}"
        for path in self.config.pages_to_read():
            if path.endswith("/") or not path:
                raise page_error(path, "must name a file, not a directory (no trailing '/')", where)
            try:
                item = self.call(f"read {path} at {base_name}", self.repo.get_contents, path, ref=sha)
            except GitHubApiError as exc:
                if exc.status == 404:
                    raise page_error(path, "no such file", where) from None
                raise
            if isinstance(item, list) or item.type != "file":
                raise page_error(path, "not a file", where)
            if item.size > PAGE_BYTES:
                raise page_error(path, f"larger than {PAGE_BYTES} bytes, refused", where)
            if item.encoding == "base64":
                pages[path] = item.decoded_content
            else:  # over 1 MB the contents API leaves the content out
                blob = self.call(f"read {path} at {base_name}", self.repo.get_git_blob, item.sha)
                pages[path] = base64.b64decode(blob.content)
            blobs[path] = item.sha
        return pages, blobs

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
            self.log.info("pull request is up to date", pull_request=pr.number)
            self._record(pr, recorded)
            self.head_after = pr.head.sha
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

    def _is_ours(self, head: str, recorded: str, bot_identity: Callable[[], str], base: str, plan: SyncPlan) -> bool:
        """True when branch head ``head`` is the bot's commit (:mod:`bot.publish.ownership`).

        ``recorded``: the head the bot recorded (``""``: none); ``bot_identity()``: the bot's
        ``"Name <email>"``; the tree test compares ``base...head`` (one request) with ``plan``.
        """
        if head == recorded:
            return True
        commit = self.call("read the bot branch head", self.repo.get_git_commit, head)
        return is_own_head(
            head,
            recorded,
            [p.sha for p in commit.parents],
            [_who(commit.author), _who(commit.committer)],
            bot_identity,
            lambda: self._same_tree(base, head, plan),
        )

    def _identity_of(self, sha: str) -> Callable[[], str]:
        """A lazy ``"Name <email>"`` of commit ``sha`` (a commit the bot recorded; ``""`` when it is gone)."""

        def read() -> str:
            if not sha:
                return ""
            try:
                return _who(self.call("read the recorded bot commit", self.repo.get_git_commit, sha).committer)
            except GitHubApiError as exc:
                if exc.status in (404, 422):
                    return ""
                raise

        return read

    def _same_tree(self, base: str, head: str, plan: SyncPlan) -> bool:
        """True when ``head`` changes exactly this run's pages, to exactly this run's bytes, against ``base``."""
        files = self.call("compare the bot branch with the base", self.repo.compare, base, head).files
        want = {path: _blob_sha(data) for path, data in plan.changed_pages().items()}
        return len(files) < 300 and {f.filename: f.sha for f in files if f.status == "modified"} == want == {
            f.filename: f.sha for f in files
        }

    def _move_branch(self, sha: str, force: bool) -> None:
        """Point the bot branch at ``sha``; a branch deleted under an open pull request is created again."""
        try:
            self.call("move the bot branch", self._branch_ref().edit, sha, force=force)
        except GitHubApiError as exc:
            if exc.status != 422:
                raise
            try:  # "Reference does not exist": create it (never overwrites; an existing branch fails again)
                self.call(
                    "recreate the bot branch",
                    self.repo.create_git_ref,
                    f"refs/heads/{self.pr_config.branch}",
                    sha,
                    recover=lambda: self._branch_at(sha),
                )
            except GitHubApiError:
                raise exc from None
            self.log.warning("the bot branch was deleted under the open pull request; created it again", head=sha)

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

    def _delete_branch(self) -> None:
        try:
            self.call("delete the bot branch", self._branch_ref().delete)
        except GitHubApiError as exc:
            if exc.status != 422:  # already gone
                raise

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
            new_head, {s.head for _, s in closed if s is not None}, _who(made.committer), plan, proposal.base
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
        self.log.info("pull request opened", pull_request=pr.number, head=new_head)
        return Publication(plan, sorted(plan.changed_pages()), pr.html_url)

    def _create_branch(self, sha: str, known_heads: set[str], identity: str, plan: SyncPlan, base: str) -> None:
        """Create the bot branch at ``sha``; a leftover branch is moved only when its head is the bot's.

        The bot's: a head some closed bot pull request recorded, or a commit by ``identity`` (the
        committer of the commit just made) whose tree is this run's (:mod:`bot.publish.ownership`).
        """
        ref = f"refs/heads/{self.pr_config.branch}"
        try:
            self.call("create the bot branch", self.repo.create_git_ref, ref, sha, recover=lambda: self._branch_at(sha))
            return
        except GitHubApiError as exc:
            if exc.status != 422:
                raise
        old = self.call(
            "read the bot branch", lambda: self.repo.get_git_ref(f"heads/{self.pr_config.branch}").object.sha
        )
        if old not in known_heads:
            if not self._is_ours(old, "", lambda: identity, base, plan):
                raise GitHubApiError(
                    f"{self.config.wiki.repo}: branch {self.pr_config.branch} exists with a commit "
                    f"kep-sync did not make ({old[:12]}); not overwriting it. Delete the branch "
                    "or set pull_request.branch to another name"
                )
        self.call("move the bot branch", self._branch_ref().edit, sha, force=True)

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

    def _branch_at(self, sha: str) -> GitRef.GitRef | None:
        """The bot branch's ref when it exists and points at ``sha`` (found by name), else ``None``."""
        try:  # the client is lazy: the request is made when .object is read
            ref = self.repo.get_git_ref(f"heads/{self.pr_config.branch}")
            found = ref.object.sha
        except GithubException as exc:
            if exc.status == 404:
                return None
            raise
        return ref if found == sha else None

    def _comment(self, pr: PullRequest, body: str) -> None:
        """One comment on ``pr``; after a lost response the comment is looked for by its text, never posted twice."""

        def posted():
            return next((c for c in pr.get_issue_comments() if c.body == body), None)

        self.call(f"comment on #{pr.number}", pr.create_issue_comment, body, recover=posted)

    # ------------------------------------------------------------------ helpers
    def _commit(self, plan: SyncPlan, proposal: PrState, base_tree: str, parent: str) -> GitCommit.GitCommit:
        """Blobs, tree and commit for the changed pages on ``base_tree``; returns the commit (no ref moved)."""
        elements = []
        for path, data in sorted(plan.changed_pages().items()):
            blob = self.call(
                f"upload {path}", self.repo.create_git_blob, base64.b64encode(data).decode("ascii"), "base64"
            )
            elements.append(InputGitTreeElement(path, "100644", "blob", sha=blob.sha))
        requester, url = self.repo.requester, self.repo.url
        tree = self.call(
            "create the tree",
            self.repo.create_git_tree,
            elements,
            GitTree.GitTree(requester, url=f"{url}/git/trees/{base_tree}", attributes={"sha": base_tree}),
        )
        parents = [GitCommit.GitCommit(requester, url=f"{url}/git/commits/{parent}", attributes={"sha": parent})]
        message = prmod.with_trailers(plan.changelog.commit_message, proposal)
        return self.call("create the commit", self.repo.create_git_commit, message, tree, parents)

    def _branch_ref(self) -> GitRef.GitRef:
        """The bot branch's ref at the documented ``git/refs/heads/...`` URL (PATCH and DELETE), without a request."""
        ref = f"refs/heads/{self.pr_config.branch}"
        return GitRef.GitRef(self.repo.requester, url=f"{self.repo.url}/git/{quote(ref)}", attributes={"ref": ref})

    def _title(self, plan: SyncPlan) -> str:
        return self.pr_config.title or plan.changelog.title


def _wiki_repo(config: PublishSettings) -> str:
    """``wiki.repo`` (``OWNER/NAME``); raises :class:`ConfigError` when it is not set."""
    if not config.wiki.repo:
        raise ConfigError("wiki.repo: required for --publish github (OWNER/NAME of the wiki repository)")
    return config.wiki.repo


def _who(person) -> str:
    """``"Name <email>"`` of a PyGithub ``GitAuthor`` (``""`` when missing)."""
    return f"{person.name} <{person.email}>" if person is not None else ""


def _before_controls(body: str, block: str) -> str:
    """``body`` with ``block`` inserted before its Controls footer (appended when it has none)."""
    at = body.find(CONTROLS_SUMMARY)
    return body[:at] + block + body[at:] if at >= 0 else body.rstrip("\n") + "\n\n" + block


def _iso(when) -> str:
    """``2024-01-02T03:04:05Z`` for an aware ``datetime`` (``""`` for ``None``)."""
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else ""


def _blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of ``data`` (what GitHub reports as a file's ``sha``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
