"""Commands in comments on the bot's pull request: what they say, who may give them, the replies. Pure.

A comment whose body starts with ``/kep-sync`` is a command (its first line; the rest is free text):

- ``/kep-sync ignore <KEP> [fields...]``: add the in-page marker (:func:`bot.wiki.ignore.marker_text`) to the
  KEP's rows in the bot's commit; fields as :data:`bot.wiki.ignore.IGNORABLE` names them (none: the whole row);
- ``/kep-sync regenerate``: replace the bot branch with a fresh commit from the base (as the
  :data:`bot.plan.changelog.controls.REGENERATE_LABEL` label does);
- ``/kep-sync explain <KEP>``: reply with the KEP's field history (``kep-sync history N``).
- ``/kep-sync automerge off``: never merge this pull request (only where ``pull_request.automerge`` is
  enabled; elsewhere it is an unknown command, as before that setting).

Only users whose role on the wiki repository is admin, maintain or write may give them (GitHub's
collaborator permission API: ``role_name``, else the legacy ``permission``), asked for every author of a
command whatever the comment's ``author_association`` says (:data:`MAX_ROLE_READS`). What was carried out is kept in
the pull request's hidden state marker (:class:`bot.publish.pull_request.PrState` ``seen``, ``since`` and
``ignore``: :func:`encode_ignores`), so each command is carried out once.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from bot.plan.changelog.markdown import code, code_block, inline
from bot.wiki.ignore import IGNORABLE, field_name, marker_text

PREFIX = "/kep-sync"
#: Roles (``role_name``) and legacy permissions (``permission``) that may give commands.
ALLOWED = frozenset({"admin", "maintain", "write"})
USAGE = "`/kep-sync ignore <KEP> [fields...]`, `/kep-sync regenerate`, `/kep-sync explain <KEP>`"
#: Most characters of a comment's own words a reply quotes (the rest is cut, ``…``).
MAX_QUOTE = 80
#: Most characters of a reply (GitHub refuses a comment over 65,536); a longer field history is cut.
MAX_REPLY = 60_000
#: Most refusals (commands from users who may not give them) answered per run, one per author.
MAX_REFUSALS = 3
#: Most authors whose role is read per run (one request each). The ``author_association`` of a comment
#: never decides: a member whose organisation membership is private shows as ``CONTRIBUTOR`` or ``NONE``
#: with write access, so every author of a command is asked about; commands from further authors wait for
#: the next run (neither answered nor marked as read).
MAX_ROLE_READS = 10
_KEP_RE = re.compile(r"(?:KEP-?)?#?(\d{1,6})", re.IGNORECASE)


class Command(NamedTuple):
    """One command comment: comment ``id``, its author ``user``, ``updated`` (ISO 8601, as GitHub gives
    ``updated_at``), the command ``line`` as written, the ``verb`` (``ignore``, ``regenerate``, ``explain``;
    ``""`` when unknown), the ``kep`` number (0: none), the ``fields`` named (:data:`IGNORABLE` order;
    empty: the whole row) and ``error``: why it is not carried out (``""``: it may be)."""

    id: int
    user: str
    updated: str
    line: str
    verb: str = ""
    kep: int = 0
    fields: tuple[str, ...] = ()
    error: str = ""


def parse_comment(cid: int, user: str, updated: str, body: str | None, automerge: bool = False) -> Command | None:
    """The :class:`Command` of a comment body, or ``None`` when the body does not start with ``/kep-sync``.
    ``automerge``: ``pull_request.automerge`` is enabled, so ``automerge off`` is a command."""
    body = (body or "").lstrip("\ufeff")
    first = body.split("\n", 1)[0].strip()
    words = first.split()
    if not body.startswith(PREFIX) or words[0] != PREFIX:
        return None
    base = Command(cid, user, updated, first)
    verb, args = (words[1].casefold(), words[2:]) if len(words) > 1 else ("", [])
    if verb == "regenerate":
        return base._replace(
            verb=verb, error=f"`regenerate` takes no arguments; got {quoted(' '.join(args))}" if args else ""
        )
    if verb == "automerge" and automerge:
        return base._replace(
            verb=verb,
            error="" if [a.casefold() for a in args] == ["off"] else "the command is `/kep-sync automerge off`",
        )
    if verb not in ("ignore", "explain"):
        what = f"unknown command {quoted(verb)}" if verb else "no command given"
        return base._replace(error=f"{what}; the commands are {USAGE}")
    match = _KEP_RE.fullmatch(args[0]) if args else None
    if match is None:
        return base._replace(verb=verb, error=f"`{verb}` needs a KEP number, e.g. `/kep-sync {verb} 4671`")
    kep, rest = int(match.group(1)), args[1:]
    if verb == "explain":
        return base._replace(
            verb=verb, kep=kep, error=f"`explain` takes one KEP; got {quoted(' '.join(rest))} after it" if rest else ""
        )
    words = [w for part in rest for w in part.split(",") if w]
    unknown = [w for w in words if not field_name(w)]
    if unknown:
        return base._replace(
            verb=verb, kep=kep, error=f"unknown field {quoted(unknown[0])}; fields: " + ", ".join(IGNORABLE)
        )
    named = {field_name(w) for w in words}
    return base._replace(verb=verb, kep=kep, fields=tuple(f for f in IGNORABLE if f in named))


def may_command(permission: str, role_name: str) -> bool:
    """True when a user with this ``role_name`` / legacy ``permission`` on the wiki repository may give commands."""
    return role_name in ALLOWED or permission in ALLOWED


def unchecked(user: str, status: int, repo: str) -> str:
    """Why ``user``'s command is not carried out when GitHub would not tell the user's role (the collaborator
    permission API answered HTTP ``status``, 403 for a token or App that may not read it): a role that
    cannot be read is no write role. The command is not read again on a later run."""
    return (
        f"GitHub did not tell the role of @{user} on {repo} (HTTP {status}), so kep-sync cannot check it; commands "
        "need write, maintain or admin access to the wiki repository, and the token kep-sync runs with must be "
        "able to read collaborator permissions"
    )


def refusal(user: str, permission: str, role_name: str, repo: str) -> str:
    """Why ``user``'s command is not carried out: the role the collaborator permission API gave (not admin,
    maintain or write; ``none`` or no answer, HTTP 404: no role)."""
    role = role_name or permission
    has = f"has the {code(role)} role" if role and role != "none" else "has no role"
    return f"@{user} {has} on {inline(repo)}; commands need write, maintain or admin access to the wiki repository"


def ignored_rule(command: Command) -> tuple[int, tuple[str, ...]]:
    """``(KEP, fields)`` an ignore command records."""
    return command.kep, command.fields


def encode_ignores(rules: Iterable[tuple[int, Sequence[str]]]) -> str:
    """``4671.stable.beta-5598`` for ``[(4671, ("stable", "beta")), (5598, ())]`` (no field: the whole row);
    rules in the order given, a repeated one once."""
    return "-".join(dict.fromkeys(".".join([str(kep), *fields]) for kep, fields in rules))


def decode_ignores(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """The rules of :func:`encode_ignores`; a part that is not ``KEP[.field...]`` with known fields is skipped."""
    out = []
    for part in filter(None, text.split("-")):
        kep, *fields = part.split(".")
        if kep.isdigit() and all(f in IGNORABLE for f in fields):
            out.append((int(kep), tuple(fields)))
    return out


def compact_time(iso: str) -> str:
    """``20240102T030405Z`` for ``2024-01-02T03:04:05Z`` (the state marker holds no ``:``); ``""`` for ``""``."""
    return iso.replace("-", "").replace(":", "")


def since_query(compact: str) -> str | None:
    """The ``since`` query value for a :func:`compact_time` (one second earlier, so a comment updated in the
    same second is never missed); ``None`` for ``""`` or a value that is no such time."""
    try:
        when = datetime.datetime.strptime(compact, "%Y%m%dT%H%M%SZ")
    except ValueError:
        return None
    return (when - datetime.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def reply(command: Command, text: str) -> str:
    """A reply comment: the command quoted (its first line, as code), then ``text``. Never starts with
    ``/kep-sync``, so a reply is no command."""
    return f"> {quoted(command.line, 200)} (@{command.user})\n\n{text}"


def not_done(command: Command, why: str) -> str:
    """The reply to a command that was not carried out; ``why`` is markdown (foreign text in it made inert by
    the caller: :func:`bot.plan.changelog.markdown.inline`)."""
    return reply(command, f"**Not carried out**: {why}.")


def ignore_done(command: Command, where: Sequence[str], head: str) -> str:
    """The reply to an ignore command: the marker added to the rows ``where`` (``"page line N"``) in commit
    ``head`` (``""``: not committed yet, the branch is blocked)."""
    marker = marker_text(command.fields)
    rows = ", ".join(where)
    if not head:
        return reply(
            command,
            f"**Recorded**: kep-sync adds `{marker}` to the row of KEP {command.kep} ({rows}) "
            "when it next updates this branch (a commit it did not make stops it now).",
        )
    return reply(
        command,
        f"**Done**: kep-sync added `{marker}` to the row of KEP {command.kep} ({rows}) in "
        f"commit `{head[:12]}`. The cell stays as the page has it, its drift is listed under "
        '"Ignored", and the marker lands in the page with this pull request.',
    )


def regenerate_done(command: Command, head: str) -> str:
    """The reply to a regenerate command: the branch now points at ``head`` (``""``: no commit was needed)."""
    if not head:
        return reply(
            command,
            "**Done**: nothing to rebuild; the base branch already has every change, so "
            "kep-sync closed this pull request.",
        )
    return reply(command, f"**Done**: kep-sync replaced the branch with a fresh commit from the base: `{head[:12]}`.")


def automerge_off_done(command: Command) -> str:
    """The reply to ``/kep-sync automerge off``."""
    return reply(command, "**Done**: kep-sync will not merge this pull request; a reviewer merges it.")


def explain_done(command: Command, history: str) -> str:
    """The reply to an explain command: ``history`` as ``kep-sync history N`` prints it, in a code block."""
    if len(history) > MAX_REPLY:
        history = history[:MAX_REPLY] + "\n… (cut; run kep-sync history for the rest)"
    return reply(
        command,
        f"Field history of KEP {command.kep} (as `kep-sync history {command.kep}` prints it):\n\n"
        + code_block(history.rstrip()),
    )


def quoted(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` (a user's words) as one inert inline code span (:func:`bot.plan.changelog.markdown.code`: no
    mention, link or markup, whatever backticks it holds): at most ``limit`` characters, ``…`` after a cut."""
    text = text.replace("\r", "")
    return code(text[:limit] + "…" if len(text) > limit else text)
