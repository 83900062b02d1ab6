"""The watch of the release in progress (:mod:`bot.plan.watch.judge`) as text for people, as the folded section of the
pull request body and as the JSON report's ``watch`` block. Pure and deterministic."""

from __future__ import annotations

from collections.abc import Sequence

from bot.model.note_text import default_off
from bot.plan.changelog.body import Section
from bot.plan.changelog.markdown import details, kep_link, note_link, table_cell
from bot.plan.changelog.rows import DEFAULT_WEB_URL
from bot.plan.watch.calendar import records_lines
from bot.plan.watch.judge import LANDED, ON_TRACK, POSSIBLE, Sign, Watch, WatchEntry
from bot.terminal import terminal_text

#: Longest sign line in the text output and longest reason in the pull request table, characters.
MAX_TEXT = 220
MAX_CELL = 160


def headline(watch: Watch) -> str:
    """``Watch of v1.37: 34 KEPs (3 contradicted, 2 slipped, 7 no sign yet, 10 on track, 12 landed)``; the states
    with no KEP are left out; ``Watch: the release in progress is unknown`` without a release."""
    if not watch.cycle.release:
        return "Watch: the release in progress is unknown"
    counts = watch.counts()
    parts = ", ".join(f"{counts[s]} {s}" for s in watch.states() if counts[s])
    n = len(watch.entries)
    return f"Watch of {watch.cycle.release}: {n} KEP{'s' if n != 1 else ''}" + (f" ({parts})" if parts else "")


def cycle_lines(watch: Watch) -> list[str]:
    """Where the release in progress and the start of its cycle came from, and what could not be seen."""
    c = watch.cycle
    out = [f"Release in progress: {c.release or 'unknown'}" + (f", from {c.release_from}" if c.release_from else "")]
    out[0] += f" ({c.release_why})" if c.release_why else ""
    started = f"{c.started}, from {c.started_from}" if c.started else "unknown"
    out.append(f"Cycle began: {started}" + (f" ({c.started_why})" if c.started_why else ""))
    out += records_lines(watch)
    out += [f"Could not see: {line}" for line in watch.unseen]
    return out


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def render_text(watch: Watch, read: Sequence[str] = (), by_sig: bool = False) -> str:
    """The watch for people: the headline, the cycle, ``read`` (one line per input), then each state with its
    KEPs, each KEP with its reason and its signs (``- source date: text``, cut at :data:`MAX_TEXT`).

    ``by_sig`` (``watch --all``): each owning SIG instead, with its counts, its KEPs by state, each KEP's state
    on its line and its page rows (``[page: PATH:LINE]``), then the SIG's KEPs that name the release as
    latest-milestone with no new stage (:attr:`~bot.plan.watch.judge.Watch.targeting`). Controls and
    bidirectional overrides in the text show as escapes (:func:`bot.terminal.terminal_text`)."""
    out = [headline(watch), *cycle_lines(watch), *read, ""]
    if by_sig:
        return terminal_text(_by_sig(watch, out))
    for state in watch.states():
        entries = [e for e in watch.entries if e.state == state]
        if not entries:
            continue
        out.append(f"== {state} ({len(entries)})")
        for e in entries:
            out += _kep_lines(e, watch.cycle.release)
        out.append("")
    return terminal_text("\n".join(out).rstrip("\n") + "\n")


def _kep_lines(e: WatchEntry, release: str, state: bool = False) -> list[str]:
    """One KEP: its line (with its state and page rows when ``state``), its reason and its signs."""
    head = f"{e.kep}  {e.title}  ({_planned(e, release)})"
    if state:
        head += f"  {e.state}" + "".join(f"  [page: {page}:{line}]" for page, line in e.rows)
    out = [head, f"  {_cut(e.reason, MAX_TEXT)}"]
    for s in e.signs:
        out.append(_cut(f"  - {s.source}: {s.text}" + (f": {s.quote}" if s.quote else ""), MAX_TEXT))
    return out


def _by_sig(watch: Watch, out: list[str]) -> str:
    """:func:`render_text` by owning SIG (see there)."""
    release = watch.cycle.release
    if watch.targeting:
        n = len(watch.targeting)
        out[-1:-1] = [f"Also naming {release} as latest-milestone with no new stage: {n} KEP{'s' if n != 1 else ''}"]
    sigs = sorted({e.sig for e in (*watch.entries, *watch.targeting)})
    for sig in sigs:
        entries = [e for e in watch.entries if e.sig == sig]
        counts = ", ".join(f"{n} {st}" for st in watch.states() if (n := sum(e.state == st for e in entries)))
        others = [e for e in watch.targeting if e.sig == sig]
        head = f"{len(entries)} KEP{'s' if len(entries) != 1 else ''}: {counts}" if entries else "no stage planned"
        out.append(f"== {sig or 'no SIG'} ({head}" + (f"; {len(others)} with no new stage)" if others else ")"))
        for e in entries:
            out += _kep_lines(e, release, state=True)
        for e in others:
            rows = "".join(f"  [page: {page}:{line}]" for page, line in e.rows)
            out += [
                f"{e.kep}  {e.title}  (no new stage in {release})  {e.state}{rows}",
                f"  {_cut(e.reason, MAX_TEXT)}",
            ]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _planned(e: WatchEntry, release: str) -> str:
    words = "/".join("GA" if s == "stable" else s for s in e.planned) or "-"
    return f"{words} was planned in {release}" if e.state == "slipped" else f"{words} in {release}"


def pr_sections(watch: Watch | None, web_url: str = DEFAULT_WEB_URL) -> list[Section]:
    """The folded "Watch of vX.Y" section of the pull request body, its counts in the summary line: one table
    row per KEP (state, planned stage, why, and the signs that count, linked); ``[]`` without a watch or a
    release."""
    if watch is None or not watch.cycle.release:
        return []
    intro = [f"- {table_cell(line)}" for line in cycle_lines(watch)]
    header = details(headline(watch), None, [*intro, "", "| KEP | State | Planned | Why | Signs |"])
    rows = [
        f"| {kep_link(e.kep)} {table_cell(_cut(e.title, 60))} | {e.state} | {_planned(e, watch.cycle.release)} | "
        f"{table_cell(_cut(e.reason, MAX_CELL), {s.pr for s in e.signs})} | {'<br>'.join(_sign_cell(s, web_url) for s in _counted(e)) or '-'} |"
        for e in watch.entries
    ]
    return [(header + ["|---|---|---|---|---|"], rows, "watched KEPs")]


def _counted(e: WatchEntry) -> list[Sign]:
    """The signs a row shows: notes, list entries and history moves that say something, and kep.yaml when set."""
    return [s for s in e.signs if s.says or (s.source == "history" and s.pr and s.date)]


def _sign_cell(s: Sign, web_url: str) -> str:
    if s.source == "release note":
        # a note turning the gate off by default: the changelog's `off`, never "no stage"
        word = "GA" if s.stage == "stable" else s.stage or ("off" if default_off(s.quote) else "no stage")
        if s.says == POSSIBLE:
            return f"possible: note {note_link(s.pr, s.url)} {word}"
        return f"note {note_link(s.pr, s.url)} {word}" + ("" if s.says else " (shared gate)")
    if s.source == "history" and s.pr:
        link = f"[#{s.pr}]({web_url.rstrip('/')}/pull/{s.pr})"
        return f"{link} {table_cell(_cut(s.text.split(' on ', 1)[0], 60), [s.pr])} {s.date}"
    if s.source == "kep.yaml" and s.says == ON_TRACK:
        return "kep.yaml set"
    return table_cell(_cut(s.text, 80 if s.says in (LANDED, "contradicts") else 60), [s.pr])


def report_block(watch: Watch | None, web_url: str = DEFAULT_WEB_URL) -> dict[str, object] | None:
    """The report's ``watch`` object: ``release`` (``current``, ``current_from``, ``current_why``, ``started``,
    ``started_from``, ``started_why``), ``counts`` (every state), ``unseen`` (lines), ``keps``: ``[{kep,
    kep_path, title, sig, status, stage, gates, rows: [{page, line}], planned, state, reason, slipped_to, signs:
    [{source, says, stage, date, pr, url, text, quote}]}]`` (kep.yaml's owning SIG, status, stage and gates; the
    page rows naming the KEP, 1-based lines; where a slipped stage went, ``""`` when nowhere; a history or
    kep.yaml sign's ``url`` is its pull request in ``web_url``) and ``targeting``: the same for the KEPs naming
    the release with no new stage (``watch --all``); ``None`` without a watch."""
    if watch is None:
        return None
    c = watch.cycle
    base = web_url.rstrip("/")
    return {
        "release": {
            "current": c.release,
            "current_from": c.release_from,
            "current_why": c.release_why,
            "started": c.started,
            "started_from": c.started_from,
            "started_why": c.started_why,
            **_calendar_fields(watch),
        },
        "counts": watch.counts(),
        "unseen": list(watch.unseen),
        "keps": [_kep_block(e, base) for e in watch.entries],
        "targeting": [_kep_block(e, base) for e in watch.targeting],
    }


def _kep_block(e: WatchEntry, base: str) -> dict[str, object]:
    """One KEP of the report (see :func:`report_block`)."""
    return {
        "kep": e.kep,
        "kep_path": e.kep_path,
        "title": e.title,
        "sig": e.sig,
        "status": e.status,
        "stage": e.stage,
        "gates": list(e.gates),
        "rows": [{"page": page, "line": line} for page, line in e.rows],
        "planned": list(e.planned),
        "state": e.state,
        "reason": e.reason,
        "slipped_to": e.target,
        "signs": [
            {
                **s._asdict(),
                "url": s.url or (f"{base}/pull/{s.pr}" if s.source in ("history", "kep.yaml") and s.pr else ""),
            }
            for s in e.signs
        ],
    }


def _calendar_fields(watch: Watch) -> dict[str, object]:
    """``{"as_of", "calendar": {key date: {"day", "source", "line"}}}`` with the release team's records, and
    ``"data_until"`` when the kep.yaml history read is newer than ``as_of`` (:class:`~bot.plan.watch.judge.Cycle`);
    ``{}`` without them."""
    c = watch.cycle
    if c.calendar is None:
        return {}
    dates = {k: {"day": d.day, "source": c.calendar.where, "line": d.line} for k, d in c.calendar.dates.items()}
    out: dict[str, object] = {"as_of": c.as_of, "calendar": dates}
    if c.data_until:
        out["data_until"] = c.data_until
    return out
