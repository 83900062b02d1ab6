"""The ``/kep-sync`` commands in the comments of the bot pull request, as :class:`bot.publish.github.GitHubWiki`
reads, carries out and answers them (a mixin of it)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from github.IssueComment import IssueComment
from structlog.typing import FilteringBoundLogger

from bot.errors import KepSyncError
from bot.plan.changelog.markdown import inline
from bot.publish import comment_commands as cmd
from bot.publish import pull_request as prmod
from bot.publish.auth import PER_PAGE, GitHubApiError
from bot.publish.backend import Publication
from bot.publish.conditional import ConditionalReads
from bot.publish.pull_request import PrState
from bot.publish.settings import PublishSettings
from bot.wiki.marking import mark_kep

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository


class CommentCommands:
    """Reading, checking, carrying out and answering comment commands; part of :class:`~bot.publish.github.GitHubWiki`."""

    # Set by GitHubWiki (its __init__ and read()).
    config: PublishSettings
    call: Callable[..., Any]
    log: FilteringBoundLogger
    repo: Repository
    repo_name: str
    reads: ConditionalReads
    explain: Callable[[int], str] | None
    open_pr: PullRequest | None
    commands: list[cmd.Command]
    newest: tuple[int, str]
    ignores: dict[tuple[int, tuple[str, ...]], list[str]]
    head_after: str

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
        listed = self.call(
            f"list comments of #{pr.number}",
            self.reads.get_list,
            f"{pr.issue_url}/comments",
            {"since": since, "per_page": PER_PAGE} if since else {"per_page": PER_PAGE},
        )
        comments = [IssueComment(self.repo.requester, {}, c, completed=True) for c in listed]
        found: list[cmd.Command] = []
        roles: dict[str, tuple[str, str] | int] = {}
        top_id, top_time = seen, ""
        refused: set[str] = set()
        comments.sort(key=lambda c: c.id)
        for k, c in enumerate(comments):
            updated = _iso(c.updated_at)
            login = c.user.login if c.user else ""
            automerge = self.config.pull_request.automerge.enabled
            command = cmd.parse_comment(c.id, login, updated, c.body, automerge) if c.id > seen else None
            if command is not None and login not in roles and len(roles) >= cmd.MAX_ROLE_READS:
                waiting = [_iso(later.updated_at) for later in comments[k:]]  # listed again next run
                self.log.info("commands of more authors than are checked per run wait", comment=c.id)
                return found, (top_id, min([*waiting, top_time] if top_time else waiting))
            top_id, top_time = max(top_id, c.id), max(top_time, updated)
            if command is None:
                continue
            if login not in roles:
                roles[login] = self._role(login)
            role = roles[login]
            if isinstance(role, int) or not cmd.may_command(*role):
                if login in refused or len(refused) >= cmd.MAX_REFUSALS:
                    self.log.info("command from a user without write access left unanswered", comment=c.id)
                    continue
                refused.add(login)
                why = (
                    cmd.unchecked(login, role, self.repo_name)
                    if isinstance(role, int)
                    else cmd.refusal(login, *role, self.repo_name)
                )
                command = command._replace(error=why)
            found.append(command)
        return found, (top_id, top_time)

    def _role(self, login: str) -> tuple[str, str] | int:
        """``(permission, role_name)`` of ``login`` on the wiki repository (``("", "")`` for no such user), or
        the HTTP status when GitHub refuses to tell (a 4xx other than 404 and 401 that is no rate limit: 403 for
        a token or App installation that may not read collaborator permissions, an organisation's SSO), logged
        as a warning. Raises :class:`GitHubApiError` for any other failure (a refused token, a rate limit, 5xx
        or a connection error after retries): the command waits for a later run."""
        url = f"{self.repo.url}/collaborators/{quote(login, safe='')}/permission"
        try:
            _, data = self.call(f"read the role of @{login}", self.repo.requester.requestJsonAndCheck, "GET", url)
        except GitHubApiError as exc:
            if exc.status == 404:
                return "", ""
            if 400 <= exc.status < 500 and exc.status != 401 and not exc.limited:
                self.log.warning("the role of a command's author could not be read", user=login, error=str(exc))
                return exc.status
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
                found.setdefault((kep, fields), []).extend(f"{inline(path)} line {n + 1}" for n in lines)
        found = {rule: where for rule, where in found.items() if where}
        pages_named = ", ".join(inline(p) for p in self.config.wiki.pages)
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
        off = old.automerge == "off" or any(c.verb == "automerge" and not c.error for c in self.commands)
        return dict(seen=seen, since=since, ignore=cmd.encode_ignores(self.ignores), automerge="off" if off else "")

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
        if c.verb == "automerge":
            return cmd.automerge_off_done(c)
        if self.explain is None:
            return cmd.not_done(c, "this kep-sync run has no access to the KEP history")
        try:
            return cmd.explain_done(c, self.explain(c.kep))
        except KepSyncError as exc:
            return cmd.not_done(c, inline(str(exc).rstrip(".")))

    def _comment(self, pr: PullRequest, body: str) -> None:
        """One comment on ``pr``; after a lost response the comment is looked for by its text, never posted twice."""

        def posted():
            return next((c for c in pr.get_issue_comments() if c.body == body), None)

        self.call(f"comment on #{pr.number}", pr.create_issue_comment, body, recover=posted)


def _iso(when) -> str:
    """``2024-01-02T03:04:05Z`` for an aware ``datetime`` (``""`` for ``None``)."""
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else ""
