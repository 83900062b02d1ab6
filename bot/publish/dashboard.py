"""The dashboard issue (``dashboard: true``): its text, the bot's section in it and the boxes a person ticks. Pure.

One issue per wiki, found by :data:`MARKER` in its body. kep-sync owns the text between :data:`BEGIN` and
:data:`END`; whatever a person writes outside them stays byte for byte. The section shows, in this order: the
open pull request (link, counts, what needs a look, what automerge did), the watch of the release in progress
(states by count, then each KEP that needs attention), the ignores in force (those ``/kep-sync ignore`` added
on the open pull request with a box that lifts one; markers in the pages and ``ignore`` rules of the config,
each with where to lift it), the last run's problems and rows left as is, the time of the last and the next
run and a box to run now. A box is ``- [ ] text <!-- kep-sync:box ACTION -->``; :func:`ticked` reads the
ticked ones. Every text that does not come from kep-sync (KEP titles, reasons quoting upstream, problem
messages) goes through :func:`bot.plan.changelog.markdown.table_cell`, so nothing in it is markup; the Needs a
look lines (markdown the changelog wrote) are each kept on one line with no HTML comment in them, so none can
end the section, tick a box or fake a marker.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from bot.plan.changelog.markdown import kep_link, no_comments, table_cell
from bot.plan.watch.judge import AT_RISK, CONTRADICTED, MISSED, NO_SIGN, SLIPPED

#: The hidden marker that identifies the dashboard issue (first line of its body).
MARKER = "<!-- kep-sync:dashboard -->"
BEGIN = "<!-- kep-sync:dashboard:begin (rewritten by kep-sync; write outside it) -->"
END = "<!-- kep-sync:dashboard:end -->"
TITLE = "kep-sync dashboard"
RUN_NOW = "run-now"
#: States of the watch that need attention (the others are on track or landed).
ATTENTION = (CONTRADICTED, SLIPPED, MISSED, AT_RISK, NO_SIGN)
#: Most problems and KEPs listed by name; beyond, a count.
MAX_LISTED = 20
_BOX_RE = re.compile(r"^- \[([ xX])\] [^\n]*?<!-- kep-sync:box ([a-z0-9.-]+) -->[ \t]*$", re.M)
#: What ends a line in some reader of the issue body.
_BREAK_RE = re.compile("[\r\n\x0b\x0c\x85\u2028\u2029]")
_SECTION_RE = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


class DashboardInputs(NamedTuple):
    """What one run shows: ``pull_request`` (``(url, title, counts line)`` or ``None``), ``needs_a_look`` lines,
    ``automerge`` (what automerge did, ``""``), the report's ``watch`` block (``None`` without a watch),
    ``ignores`` (``[(KEP, fields, where)]`` that ``/kep-sync ignore`` added on the open pull request),
    ``config_ignores`` (the config's ``ignore`` rules as text), ``problems`` (one line each), ``last_run`` and ``next_run`` (``2026-12-06 06:17 UTC``, ``""``: unknown), ``waiting``:
    ticked boxes not carried out and why."""

    pull_request: tuple[str, str, str] | None
    needs_a_look: Sequence[str]
    automerge: str
    watch: Mapping[str, object] | None
    ignores: Sequence[tuple[int, tuple[str, ...], str]]
    config_ignores: Sequence[str]
    problems: Sequence[str]
    last_run: str
    next_run: str
    waiting: Sequence[str] = ()


def render(inputs: DashboardInputs, ticked_boxes: Collection[str] = ()) -> str:
    """The bot's section, :data:`BEGIN` to :data:`END`; every box unticked but those in ``ticked_boxes`` (the
    actions of ticks that wait)."""
    out = [BEGIN, "", "### Pull request", ""]
    if inputs.pull_request is None:
        out.append("No kep-sync pull request is open: the wiki matches upstream.")
    else:
        url, title, counts = inputs.pull_request
        out.append(f"[{table_cell(title)}]({url}): {counts}")
        if inputs.needs_a_look:
            out += ["", "Needs a look:", ""]
            out += [no_comments(_BREAK_RE.sub(" ", line)) for line in inputs.needs_a_look]
        else:
            out += ["", "Nothing needs a look."]
        if inputs.automerge:
            out += ["", f"Automerge: {table_cell(inputs.automerge)}"]
    out += _watch(inputs.watch)
    out += ["", "### Ignored", ""]
    if not (inputs.ignores or inputs.config_ignores):
        out.append("Nothing is ignored by a command or the config (markers in the pages are listed in each changelog).")
    for kep, fields, where in inputs.ignores:
        what = " ".join(fields) or "the whole row"
        key = _lift_key(kep, fields)
        box = "x" if key in ticked_boxes else " "
        out.append(f"- [{box}] KEP {kep} {what} ({table_cell(where)}): tick to lift <!-- kep-sync:box {key} -->")
    out += [f"- {table_cell(rule)} (the config's `ignore`; lift it there)" for rule in inputs.config_ignores]
    out += ["", "### Last run", ""]
    shown = list(inputs.problems)[:MAX_LISTED]
    out += [f"- {table_cell(p)}" for p in shown] or ["No problems; no row was left as is."]
    if len(inputs.problems) > len(shown):
        out.append(f"- and {len(inputs.problems) - len(shown)} more (the run's report lists them)")
    out += [f"- waiting: {table_cell(w)}" for w in inputs.waiting]
    out += ["", f"Last run: {inputs.last_run or 'unknown'}. Next run: {inputs.next_run or 'not scheduled'}."]
    out += ["", f"- [ ] Run now <!-- kep-sync:box {RUN_NOW} -->", "", END]
    return "\n".join(out)


def _watch(watch: Mapping[str, object] | None) -> list[str]:
    if not watch:
        return []
    release = watch.get("release") or {}
    current = release.get("current", "") if isinstance(release, Mapping) else ""
    counts = watch.get("counts") or {}
    out = ["", f"### Release in progress {table_cell(str(current))}".rstrip(), ""]
    if isinstance(counts, Mapping):
        out.append(", ".join(f"{state} {n}" for state, n in counts.items()))
    listed = watch.get("keps")
    keps = [
        k
        for k in (listed if isinstance(listed, list) else [])
        if isinstance(k, Mapping) and k.get("state") in ATTENTION
    ]
    for k in keps[:MAX_LISTED]:
        out.append(
            f"- {k.get('state')}: {kep_link(str(k.get('kep')))} {table_cell(str(k.get('title') or ''))}: "
            f"{table_cell(str(k.get('reason') or ''))}"
        )
    if len(keps) > MAX_LISTED:
        out.append(f"- and {len(keps) - MAX_LISTED} more (the run's report lists them)")
    return out


def _lift_key(kep: int, fields: Sequence[str]) -> str:
    return "lift-" + ".".join([str(kep), *fields])


def lifted(action: str) -> tuple[int, tuple[str, ...]] | None:
    """``(KEP, fields)`` of a ``lift-4671.stable`` box action; ``None`` for another action."""
    match = re.fullmatch(r"lift-(\d+)((?:\.[a-z-]+)*)", action)
    return (int(match.group(1)), tuple(f for f in match.group(2).split(".") if f)) if match else None


def ticked(body: str | None) -> list[str]:
    """The actions of the boxes ticked in the bot's section of ``body``, in order."""
    span = _SECTION_RE.search(body or "")
    return [m.group(2) for m in _BOX_RE.finditer(span.group(0) if span else "") if m.group(1) in "xX"]


class Edit(NamedTuple):
    """One edit of the dashboard's body, from GitHub's GraphQL ``UserContentEdit``: ``editor`` (its
    ``editor.login``; ``""`` for a deleted account), ``edited_at`` (``editedAt``, ISO 8601 UTC) and ``body``
    (``diff``: the whole body after the edit; ``None`` for an edit deleted from the history)."""

    editor: str
    edited_at: str
    body: str | None


def tickers(edits: Sequence[Edit], body: str | None, actions: Collection[str]) -> dict[str, str]:
    """``{action: login}`` of each of ``actions`` whose box the newest edit that ticked it names; an action
    missing was ticked by no edit the history holds (or by a deleted account).

    ``edits`` in any order (sorted here by ``edited_at``). An edit ticks a box when the box is ticked in its body
    and not in the body of the edit before it, so the oldest edit listed (GitHub's record of the original text)
    credits nothing, nor does an edit next to a deleted one. Nothing is credited when the newest edit's ticked
    boxes are not those of ``body`` (the issue as read): the history does not describe that text."""
    chain = sorted(edits, key=lambda e: e.edited_at)
    if not chain or chain[-1].body is None or ticked(chain[-1].body) != ticked(body):
        return {}
    out: dict[str, str] = {}
    for older, newer in zip(chain, chain[1:], strict=False):
        if older.body is None or newer.body is None:
            continue
        for action in set(ticked(newer.body)) - set(ticked(older.body)):
            if action in actions:
                out[action] = newer.editor
    return {action: login for action, login in out.items() if login}


def merge(existing: str | None, section: str) -> str:
    """The new body: ``existing`` with its section replaced by ``section`` (a new body: the marker, a line for
    people, the section). Text outside the section stays byte for byte."""
    existing = existing or ""
    span = _SECTION_RE.search(existing)
    if span is None:
        head = existing.rstrip() + "\n\n" if existing.strip() else f"{MARKER}\n\n"
        if MARKER not in head:
            head = f"{MARKER}\n" + head
        return head + section + "\n"
    return existing[: span.start()] + section + existing[span.end() :]
