"""The dashboard issue (``dashboard: true``) through the API (a mixin of :class:`bot.publish.github.GitHubWiki`).

:meth:`DashboardIssue._dashboard_read` (in ``read``) reads the issue by the number kept in the cache (one
conditional ``GET /repos/{owner}/{repo}/issues/{number}``), else finds it by :data:`bot.publish.dashboard.MARKER`
(a conditional ``GET /repos/{owner}/{repo}/issues?state=all``), and reads its ticked boxes. A box that lifts an
ignore is carried out only when kep-sync knows who ticked it and that person may give ``/kep-sync`` commands
(the collaborator permission API, as for comments). Who ticked it is the ``sender`` of the ``issues`` event a
workflow runs on (``GITHUB_EVENT_NAME=issues``, payload at ``GITHUB_EVENT_PATH``) for the box that edit ticked;
otherwise (a scheduled run, ``serve``, a box ticked before that edit) the newest edit in the issue's edit history
that ticked the box (one GraphQL query, :data:`EDITS_QUERY`: GitHub's REST API does not name who edited an issue).
A tick that history does not name waits ticked, said so on the dashboard; a refused tick is unticked, the reason
shown. The "run now" box needs no check: any run that sees it ticked is that run.
:meth:`DashboardIssue._dashboard_write` (at the end of ``publish``) renders the section, unticks the boxes, and
creates the issue once or edits it only when its body changes. A closed dashboard is never edited (nor reopened)
until a person reopens it.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structlog.typing import FilteringBoundLogger

from bot.cron import parse_crontab
from bot.fileread import read_regular_text
from bot.publish import comment_commands as cmd
from bot.publish import dashboard as dash
from bot.publish.auth import PER_PAGE, GitHubApiError
from bot.publish.backend import Publication
from bot.publish.conditional import ConditionalReads
from bot.publish.settings import PublishSettings

if TYPE_CHECKING:
    from github.Repository import Repository

#: Bytes of an event payload read at most.
EVENT_BYTES = 8 * 1024 * 1024
#: Who edited the dashboard (GitHub GraphQL ``UserContentEdit``; newest first, the original text last).
EDITS_QUERY = (
    "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) {"
    " issue(number: $number) { userContentEdits(first: 100) { nodes { editor { login } editedAt diff } } } } }"
)
#: The cache entry (in the wiki's ETag directory) keeping the dashboard's issue number.
BOARD_ENTRY = "dashboard-number"


class DashboardIssue:
    """Reading and writing the dashboard issue; part of :class:`~bot.publish.github.GitHubWiki`."""

    # Set by GitHubWiki (its __init__ and read()).
    config: PublishSettings
    call: Callable[..., Any]
    log: FilteringBoundLogger
    repo: Repository
    reads: ConditionalReads
    ignores: dict[tuple[int, tuple[str, ...]], list[str]]
    _role: Callable[[str], tuple[str, str] | int]
    login: str
    #: True once ``GET /user`` was asked this run (its answer, even none, is final for the run).
    _login_asked: bool = False

    def _dashboard_read(self) -> set[tuple[int, tuple[str, ...]]]:
        """Find the dashboard and read its ticks; returns the ignore rules lifted by a permitted tick."""
        self.board: dict | None = None
        self.waiting: list[str] = []
        self.still_ticked: set[str] = set()
        self.unfindable = False
        if not self.config.dashboard:
            return set()
        self.board = self._remembered_board()
        if self.board is None:
            listed = self.call(
                "list the issues (dashboard)",
                self.reads.get_list,
                f"{self.repo.url}/issues",
                {"state": "all", "sort": "created", "direction": "asc", "per_page": PER_PAGE},
            )
            own = self._own_login()
            self.board = next((i for i in listed if _is_board(i, own)), None)
            if self.board is None and not own and self.reads.cache is None:
                self.log.warning(
                    "dashboard not opened: GitHub does not say which login kep-sync acts as, and with no cache "
                    "kep-sync could not find the issue again (it would open a new one each run)"
                )
                self.unfindable = True
            if self.board is not None:
                self._remember_board(int(self.board["number"]))
        if self.board is None or self.board.get("state") != "open":
            return set()
        actions = [a for a in dash.ticked(self.board.get("body")) if dash.lifted(a) is not None]
        if not actions:
            return set()
        editor, before = event_editor(int(self.board["number"]))
        by = {a: editor for a in actions if a not in dash.ticked(before)} if editor else {}
        if len(by) < len(actions):
            by.update(self._tickers(self.board, [a for a in actions if a not in by]))
        self.still_ticked = set(actions) - set(by)
        if self.still_ticked:
            self.waiting = [
                "a ticked box lifts an ignore only when GitHub's edit history of this issue names who ticked it; "
                "untick and tick it again"
            ]
        repo = self.config.wiki.repo or ""
        rules: set[tuple[int, tuple[str, ...]]] = set()
        for login in sorted(set(by.values())):
            role = self._role(login)
            if isinstance(role, int) or not cmd.may_command(*role):
                why = cmd.unchecked(login, role, repo) if isinstance(role, int) else cmd.refusal(login, *role, repo)
                self.waiting.append(why)
                continue
            mine = {rule for a, who in by.items() if who == login and (rule := dash.lifted(a)) is not None}
            self.log.info("dashboard: ignores lifted", by=login, rules=sorted(mine))
            rules |= mine
        return rules

    def _tickers(self, board: dict, actions: list[str]) -> dict[str, str]:
        """``{action: login}`` of who ticked the boxes of ``actions`` on the dashboard ``board``, from its edit
        history: one GitHub GraphQL query (:data:`EDITS_QUERY`; the REST API names no editor), read by
        :func:`bot.publish.dashboard.tickers`. A 4xx answer that is no rate limit (a token that may not use
        GraphQL) credits no one, logged as a warning; any other failure raises :class:`GitHubApiError`."""
        owner, _, name = (self.config.wiki.repo or "").partition("/")
        variables = {"owner": owner, "name": name, "number": int(board["number"])}
        try:
            _, data = self.call(
                "read the dashboard's edit history", self.repo.requester.graphql_query, EDITS_QUERY, variables
            )
        except GitHubApiError as exc:
            if 400 <= exc.status < 500 and exc.status != 401 and not exc.limited:
                self.log.warning("the dashboard's edit history could not be read", error=str(exc))
                return {}
            raise
        issue = ((data.get("data") or {}).get("repository") or {}).get("issue") or {}
        nodes = (issue.get("userContentEdits") or {}).get("nodes") or []
        edits = [
            dash.Edit(str((n.get("editor") or {}).get("login") or ""), str(n.get("editedAt") or ""), n.get("diff"))
            for n in nodes
            if isinstance(n, dict)
        ]
        return dash.tickers(edits, board.get("body"), actions)

    def _remembered_board(self) -> dict | None:
        """The dashboard issue by the number kept in the cache (one conditional read); ``None`` when no number is
        kept or that issue is gone or no longer the dashboard (then the issues are listed)."""
        kept = self.reads.cache.get(BOARD_ENTRY, 64) if self.reads.cache else None
        if not kept or not kept[0].strip().isdigit():
            return None
        try:
            issue = self.call("read the dashboard issue", self.reads.get, f"{self.repo.url}/issues/{int(kept[0])}")
        except GitHubApiError as exc:
            if exc.status in (404, 410):
                return None
            raise
        if not isinstance(issue, dict):
            return None
        own = self._own_login()
        if own:
            return issue if _is_board(issue, own) else None
        # GitHub will not say who kep-sync is (a GITHUB_TOKEN answers 403 to GET /user): the kept number is of
        # the issue kep-sync opened (its own POST answered it), so that issue is taken while it is one and
        # carries the marker; a stranger's issue has another number.
        author = str((issue.get("user") or {}).get("login") or "") if isinstance(issue.get("user"), dict) else ""
        return issue if author and _is_board(issue, author) else None

    def _own_login(self) -> str:
        """The login kep-sync acts as: the session's (an App's ``SLUG[bot]``), else the token's user (``GET /user``,
        read once); ``""`` when GitHub will not say (then no issue is taken for the dashboard)."""
        if not self.login and not self._login_asked:
            self._login_asked = True
            try:
                user = self.call("read the authenticated user", self.reads.get, "/user")
            except GitHubApiError as exc:
                if exc.status not in (401, 403, 404):
                    raise
                user = None
            self.login = str(user.get("login") or "") if isinstance(user, dict) else ""
        return self.login

    def _remember_board(self, number: int) -> None:
        if self.reads.cache is not None:
            self.reads.cache.put(BOARD_ENTRY, str(number).encode(), "")

    def _dashboard_write(self, publication: Publication) -> None:
        """Create or update the dashboard for this run's ``publication`` (only when its body changes)."""
        if not self.config.dashboard or self.unfindable:
            return
        if self.board is not None and self.board.get("state") != "open":
            self.log.info("dashboard is closed; not edited", issue=self.board.get("number"))
            return
        section = dash.render(self._dashboard_inputs(publication), self.still_ticked)
        old = str(self.board.get("body") or "") if self.board else None
        body = dash.merge(old, section)
        if self.board is None:
            made = self.call(
                "open the dashboard issue",
                self.repo.requester.requestJsonAndCheck,
                "POST",
                f"{self.repo.url}/issues",
                input={"title": dash.TITLE, "body": body},
            )[1]
            self._remember_board(int(made["number"]))
            self.log.info("dashboard opened", issue=made.get("number"))
        elif body != old:
            number = self.board["number"]
            self.call(
                f"update the dashboard #{number}",
                self.repo.requester.requestJsonAndCheck,
                "PATCH",
                f"{self.repo.url}/issues/{number}",
                input={"body": body},
            )

    def _dashboard_inputs(self, publication: Publication) -> dash.DashboardInputs:
        plan = publication.plan
        pr = None
        if publication.url:
            applied = [c for c in plan.changes if c.applied]
            keps = len({c.kep_id for c in applied})
            pr = (
                publication.url,
                plan.changelog.title,
                f"{len(applied)} change{'s' if len(applied) != 1 else ''} in {keps} KEP{'s' if keps != 1 else ''}",
            )
        rules = [
            f"KEP {r.kep} {' '.join(r.fields) or 'every field'}" + (f" = {r.value}" if r.value else "")
            for r in self.config.ignore
        ]
        watch = plan.report.get("watch")
        return dash.DashboardInputs(
            pull_request=pr,
            needs_a_look=plan.needs_a_look if pr else (),
            automerge=publication.automerge,
            watch=watch if isinstance(watch, dict) else None,
            ignores=[(kep, fields, ", ".join(where)) for (kep, fields), where in self.ignores.items()] if pr else [],
            config_ignores=rules,
            problems=[f"{p.path}: {p.message}" for p in plan.problems],
            last_run=_minute(utcnow()),
            next_run=self._next_run(),
            waiting=self.waiting,
        )

    def _next_run(self) -> str:
        """The next fire time of ``schedule.cron`` (``kep-sync serve``); under Actions the workflow's schedule."""
        if os.environ.get("GITHUB_ACTIONS") == "true":
            return "as the workflow's schedule says"
        schedule = self.config.schedule
        trigger = parse_crontab(schedule.cron, schedule.timezone)
        fire = trigger.get_next_fire_time(None, utcnow())
        return _minute(fire.astimezone(datetime.UTC)) if fire else ""


def _is_board(issue: dict, own: str) -> bool:
    """True for an issue (not a pull request) opened by ``own`` (kep-sync's login; ``""``: none is) whose body
    carries :data:`bot.publish.dashboard.MARKER`: anyone can write the marker, only kep-sync opens its dashboard."""
    user = issue.get("user")
    author = str(user.get("login") or "") if isinstance(user, dict) else ""
    return bool(own) and author == own and "pull_request" not in issue and dash.MARKER in str(issue.get("body") or "")


def utcnow() -> datetime.datetime:
    """The current time, UTC, timezone-aware (replaced in tests)."""
    return datetime.datetime.now(datetime.UTC)


def event_editor(number: int) -> tuple[str, str]:
    """``(login, body before)`` of the edit of dashboard issue ``number`` the GitHub Actions ``issues`` event
    describes (``GITHUB_EVENT_NAME``, payload at ``GITHUB_EVENT_PATH``: ``sender.login``, ``changes.body.from``);
    ``("", "")`` for another event, another issue, an event that did not edit the body (no ``changes.body.from``:
    a label, a reopen) or no payload."""
    if os.environ.get("GITHUB_EVENT_NAME") != "issues" or not os.environ.get("GITHUB_EVENT_PATH"):
        return "", ""
    try:
        event = json.loads(read_regular_text(Path(os.environ["GITHUB_EVENT_PATH"]), EVENT_BYTES))
    except (OSError, ValueError):
        return "", ""
    if not isinstance(event, dict) or (event.get("issue") or {}).get("number") != number:
        return "", ""
    changes = event.get("changes")
    body = changes.get("body") if isinstance(changes, dict) else None
    before = body.get("from") if isinstance(body, dict) else None
    if not isinstance(before, str):  # not an edit of the body (labeled, reopened...): it ticked nothing
        return "", ""
    sender = event.get("sender")
    return str((sender.get("login") if isinstance(sender, dict) else "") or ""), before


def _minute(when: datetime.datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M UTC")
