"""The bot's pull request text and state: bot-owned body section, hidden state marker, commit trailers.

Pure. The pull request body holds one section between ``<!-- kep-sync:begin -->``
and ``<!-- kep-sync:end -->`` that kep-sync rewrites; text a human writes outside
it is kept byte for byte. Inside the section a hidden marker carries the
:class:`PrState` (source revision, fingerprint of the proposed change, the base
commit and page blobs it was built on, the bot's head commit), so no state on
disk is needed to avoid duplicate commits or pull requests. Bot commits carry
the same facts as git trailers (``Kep-Sync-Fingerprint: ...``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from bot.errors import PublishError
from bot.plan.changelog.body import DEFAULT_MAX_BODY_CHARS
from bot.plan.changelog.controls import REGENERATE_LABEL as REGENERATE_LABEL  # re-exported: pull request words
from bot.plan.diff import Change
from bot.redact import redact_values

#: GitHub rejects pull request and comment bodies over this many characters.
GITHUB_BODY_LIMIT = 65_536
#: The whole body kep-sync writes (human text outside the section included) stays within this many
#: characters, well below :data:`GITHUB_BODY_LIMIT`.
BODY_LIMIT = DEFAULT_MAX_BODY_CHARS
#: Characters reserved for what :func:`render_section` and :func:`merge_body` add around the changelog:
#: markers, state marker, "Follows" line, separators (415 at most, measured in tests).
SECTION_OVERHEAD = 1_000
#: The changelog never gets less room than this; a longer human text is an error.
MIN_CHANGELOG_CHARS = 2_000
#: Hidden tag of the one comment kep-sync leaves on a pull request whose branch has foreign commits.
FOREIGN_COMMENT_TAG = "<!-- kep-sync:foreign-commit -->"

BEGIN = "<!-- kep-sync:begin (this section is rewritten by kep-sync; write outside it) -->"
END = "<!-- kep-sync:end -->"
# Markers count only alone at the start of a line: a quoted ("> <!-- ...") or inline copy is text.
_BEGIN_RE = re.compile(r"^<!-- kep-sync:begin\b[^>\n]*-->[ \t\r]*$", re.M)
_END_RE = re.compile(r"^<!-- kep-sync:end -->[ \t\r]*$", re.M)
_STATE_RE = re.compile(r"^<!-- kep-sync:state ([^>\n]*?) -->[ \t\r]*$", re.M)
#: The hidden start of the line saying why automerge left the pull request open.
AUTOMERGE_TAG = "<!-- kep-sync:automerge -->"
_AUTOMERGE_RE = re.compile(r"^<!-- kep-sync:automerge -->[^\n]*\n\n", re.M)
_TRAILER_RE = re.compile(r"^[A-Za-z0-9-]+: \S")
_TRAILERS = {
    "fingerprint": "Kep-Sync-Fingerprint",
    "revision": "Kep-Sync-Revision",
    "base": "Kep-Sync-Base",
    "pages": "Kep-Sync-Pages",
}


class PrState(NamedTuple):
    """What one bot proposal was built from (all hex strings, ``""`` when unknown).

    ``revision``: enhancements commit; ``fingerprint``: :func:`fingerprint` of
    the applied changes; ``base``: base branch commit the pages were read at;
    ``pages``: :func:`pages_digest` of the page blobs at that base; ``head``:
    the bot's commit; ``status``: ``open`` or ``superseded`` (closed by kep-sync
    because the base already had the rows); ``follows``: number of the bot pull
    request this one follows, which was closed without merge. Commands in comments
    (:mod:`bot.publish.comment_commands`): ``seen``, the id of the newest comment read when
    commands were last carried out; ``since``, its ``updated_at`` (:func:`~bot.publish.comment_commands.compact_time`);
    ``ignore``, the ignore commands carried out (:func:`~bot.publish.comment_commands.encode_ignores`);
    ``automerge``: ``off`` once ``/kep-sync automerge off`` was carried out.
    """

    revision: str = ""
    fingerprint: str = ""
    base: str = ""
    pages: str = ""
    head: str = ""
    status: str = "open"
    follows: str = ""
    seen: str = ""
    since: str = ""
    ignore: str = ""
    automerge: str = ""


def fingerprint(changes: Iterable[Change], generated: Iterable[tuple[str, str]] = ()) -> str:
    """16 hex digits identifying the proposed content: applied changes as (page, KEP, field, new value) and
    ``generated``, ``(page, text)`` of each generated section written (:attr:`bot.plan.planner.SyncPlan.generated`:
    the digest), byte for byte.

    Independent of line numbers, old values and unrelated page text, so the
    same proposal keeps its fingerprint when the base branch moves. The
    ``front_matter.date_key`` date is left out: it follows the rows (written
    only with them), and a new day alone is no new proposal.
    """
    items = sorted({(c.page, c.kep_id, c.field, c.new) for c in changes if c.applied})
    sections = sorted(set(generated))
    return hashlib.sha256(repr((items, sections) if sections else items).encode("utf-8")).hexdigest()[:16]


def pages_digest(blobs: Mapping[str, str]) -> str:
    """16 hex digits over ``{page path: git blob SHA at the base}``: changes when a page changes on the base."""
    return hashlib.sha256(repr(sorted(blobs.items())).encode("utf-8")).hexdigest()[:16]


def state_marker(state: PrState) -> str:
    """The hidden marker line, e.g. ``<!-- kep-sync:state revision=abc fingerprint=... -->``."""
    return "<!-- kep-sync:state " + " ".join(f"{k}={v}" for k, v in state._asdict().items() if v) + " -->"


def parse_state(body: str | None) -> PrState | None:
    """The :class:`PrState` of the bot section of a pull request body (its last state marker), or
    ``None`` when the body has no complete section or the section no marker. A marker elsewhere in
    the body (a quote, a damaged old section) is never read."""
    body = body or ""
    span = _section_span(body)
    matches = list(_STATE_RE.finditer(body, span[0], span[1])) if span else []
    if not matches:
        return None
    match = matches[-1]
    fields = dict(part.split("=", 1) for part in match.group(1).split() if "=" in part)
    known = {k: v for k, v in fields.items() if k in PrState._fields and re.fullmatch(r"[0-9A-Za-z_.-]+", v)}
    return PrState(**known)


def _section_span(body: str) -> tuple[int, int] | None:
    """``(start, end)`` of the bot section: the last begin marker line followed by an end marker line."""
    for begin in reversed(list(_BEGIN_RE.finditer(body))):
        end = _END_RE.search(body, begin.end())
        if end:
            return begin.start(), end.start() + len(END)
    return None


def outside_text(body: str | None) -> str:
    """The human part of a body: everything outside the bot section (all of it when there is no section)."""
    body = body or ""
    span = _section_span(body)
    return body if span is None else body[: span[0]] + body[span[1] :]


def changelog_budget(body: str | None) -> int:
    """Characters the changelog may use so the whole new body (``body``'s human text, markers and
    changelog) stays within :data:`BODY_LIMIT`: the limit minus :data:`SECTION_OVERHEAD` minus the human text.

    Raises :class:`PublishError` when the human text outside the section
    leaves less than :data:`MIN_CHANGELOG_CHARS` (nothing is cut from it).
    """
    human = len(outside_text(body))
    budget = BODY_LIMIT - SECTION_OVERHEAD - human
    if budget < MIN_CHANGELOG_CHARS:
        raise PublishError(
            f"pull request body: the text outside the kep-sync section is {human} characters, "
            f"leaving no room under kep-sync's {BODY_LIMIT} limit; shorten it"
        )
    return budget


def render_section(changelog_body: str, state: PrState) -> str:
    """The bot-owned section: begin marker, changelog (every known credential hidden,
    :func:`bot.redact.redact_values`), a link to the closed pull request it follows (``state.follows``), the state
    marker and the end marker.
    """
    follows = [f"Follows #{state.follows}, which was closed without merge."] if state.follows else []
    blocks = [BEGIN, redact_values(changelog_body).rstrip("\n"), *follows, state_marker(state) + "\n" + END]
    return "\n\n".join(blocks)


def with_state(body: str | None, state: PrState) -> str:
    """``body`` with the state marker of its bot section replaced by ``state``'s (a section holding only the
    marker is added when the body has no marker)."""
    body = body or ""
    span = _section_span(body)
    found = list(_STATE_RE.finditer(body, span[0], span[1])) if span else []
    if not found:
        return merge_body(body, render_section("", state))
    return body[: found[-1].start()] + state_marker(state) + body[found[-1].end() :]


def same_section(body: str | None, section: str) -> bool:
    """True when the bot section of ``body`` is ``section`` (:func:`render_section`), line ends and the automerge
    line (:func:`with_automerge`, kept by :func:`merge_body`) aside (a body edited on GitHub's web page comes back
    with ``\r\n``); False when ``body`` has no section."""
    body = body or ""
    span = _section_span(body)
    if span is None:
        return False
    found = _AUTOMERGE_RE.sub("", body[span[0] : span[1]].replace("\r\n", "\n"))
    return found == section.replace("\r\n", "\n")


def merge_body(existing: str | None, section: str) -> str:
    """``existing`` with its bot section replaced by ``section`` (appended after the human text when absent); the
    automerge line of the old section stays (automerge replaces or removes it, :func:`with_automerge`)."""
    existing = existing or ""
    span = _section_span(existing)
    if span is not None:
        line = automerge_line(existing)
        merged = existing[: span[0]] + section + existing[span[1] :]
        reason = line.removeprefix(f"{AUTOMERGE_TAG}**Automerge**: left open: ").removesuffix("\n\n")
        return with_automerge(merged, reason) if line else merged
    return f"{existing.rstrip()}\n\n{section}" if existing.strip() else section


def automerge_line(body: str | None) -> str:
    """The automerge line of the bot section of ``body`` (``""``: none)."""
    body = body or ""
    span = _section_span(body)
    found = list(_AUTOMERGE_RE.finditer(body, span[0], span[1])) if span else []
    return found[-1].group(0) if found else ""


def with_automerge(body: str | None, reason: str) -> str:
    """``body`` with the line saying why kep-sync left its pull request open (``reason``, markdown made inert
    by the caller) just before the state marker of its section, replacing an earlier one; ``""``: no line."""
    body = body or ""
    span = _section_span(body)
    if span is None:
        return body
    section = body[span[0] : span[1]]
    section = _AUTOMERGE_RE.sub("", section)
    if reason:
        state = list(_STATE_RE.finditer(section))
        at = state[-1].start() if state else len(section) - len(END)
        section = section[:at] + f"{AUTOMERGE_TAG}**Automerge**: left open: {reason}\n\n" + section[at:]
    return body[: span[0]] + section + body[span[1] :]


def with_trailers(message: str, state: PrState) -> str:
    """``message`` plus ``Kep-Sync-*`` git trailers for ``state`` (joined to a trailing trailer paragraph)."""
    text = message.rstrip("\n")
    last = text.rsplit("\n\n", 1)[-1]
    sep = "\n" if text and all(_TRAILER_RE.match(line) for line in last.split("\n")) else "\n\n"
    lines = [f"{name}: {getattr(state, key)}" for key, name in _TRAILERS.items() if getattr(state, key)]
    return text + sep + "\n".join(lines) + "\n"


def parse_trailers(message: str) -> PrState | None:
    """The :class:`PrState` from a commit message's ``Kep-Sync-*`` trailers; ``None`` without a fingerprint."""
    found = {}
    for line in message.split("\n"):
        key, _, value = line.partition(": ")
        for field, name in _TRAILERS.items():
            if key == name and value.strip():
                found[field] = value.strip()
    return PrState(**found) if "fingerprint" in found else None
