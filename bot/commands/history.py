"""Wiring for ``kep-sync history`` and ``kep-sync digest``: source -> pure stage -> text.

I/O stays in :mod:`bot.sources.history`; :mod:`bot.model.history.timeline` and
:mod:`bot.plan.digest` compute. Errors: :class:`~bot.errors.UsageError`
(exit 2) for a source without git history or a bad argument.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from bot.errors import UsageError
from bot.http import redact
from bot.model.history import timeline
from bot.model.history.log import paths_of
from bot.plan import digest as digest_mod
from bot.sources.enhancements import parse_source
from bot.sources.history import GitHistory, resolve_revision, snapshot_at

if TYPE_CHECKING:
    from bot.config import Config
    from bot.model.snapshot import Snapshot


class Inputs(Protocol):
    """What these commands read of a run's :class:`bot.commands.inputs.Inputs` (named here, not imported: the
    inputs module hands :func:`history_text` to ``/kep-sync explain``)."""

    config: Config

    def snapshot(self) -> Snapshot: ...

    def whole_history(self) -> GitHistory | None: ...


def require_history(inputs: Inputs, what: str) -> GitHistory:
    """The whole git history of the run's ``enhancements`` (:meth:`bot.commands.inputs.Inputs.whole_history`);
    raises :class:`UsageError` naming the source when it has none."""
    enhancements = inputs.config.enhancements
    source = parse_source(enhancements)
    history = inputs.whole_history()
    if history is None:
        why = {
            "github": "a github: source is read as one tarball, without history; pass a clone, a git URL "
            "(https://github.com/OWNER/REPO.git) or a bundle",
            "tarball": "a snapshot tarball has no git history; pass a git clone, URL or bundle",
        }.get(source.kind, "a plain directory has no git history; pass a git clone, URL or bundle")
        raise UsageError(f"enhancements (--enhancements) {redact(enhancements)!r}: {what} needs git history: {why}")
    return history


def history_text(inputs: Inputs, number: int, fmt: str = "text") -> str:
    """``kep-sync history N``: the timeline of KEP ``number``, oldest first, as text or a JSON list.

    Raises :class:`UsageError` when the source has no history or no kep.yaml ever had ``number``.
    """
    enhancements = inputs.config.enhancements
    history = require_history(inputs, "history")
    paths = paths_of(history.log(), number)
    if not paths:
        raise UsageError(f"KEP {number}: no kep.yaml with this number in the history of {redact(enhancements)}")
    found = history.timelines(paths)
    sections = [(p, timeline.events(found[p])) for p in paths]
    if fmt == "json":
        return json.dumps(timeline.as_json(sections), ensure_ascii=False, indent=2) + "\n"
    return timeline.render_text(number, sections)


def digest_text(
    inputs: Inputs,
    sig: str,
    first: str,
    last: str,
    *,
    at: str = "",
    revision: str = "",
    fmt: str = "markdown",
) -> str:
    """``kep-sync digest``: markdown tables or ``{"alpha": [...], "beta": [...], "stable": [...]}``.

    ``at`` (``YYYY-MM-DD``) or ``revision`` picks the kep.yaml state (default:
    the newest revision). Raises :class:`UsageError` for a bad SIG (also one no
    kep.yaml of that revision names), release, date or revision, and for ``at``/``revision`` on a source without
    history.
    """
    try:
        sig = digest_mod.sig_name(sig)
        digest_mod.digest_range(first, last)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    snapshot = _snapshot(inputs, at, revision)
    _require_sig(snapshot, sig)
    result = digest_mod.digest(snapshot, sig, first, last)
    if fmt == "json":
        return json.dumps(digest_mod.as_json(result), ensure_ascii=False, indent=2) + "\n"
    web_url = inputs.config.links.enhancements
    return digest_mod.render_markdown(result, sig, first, last, snapshot.revision, web_url, snapshot.source) + "\n"


def _require_sig(snapshot, sig: str) -> None:
    """Raise :class:`UsageError` when no kep.yaml of ``snapshot`` names ``sig`` (:func:`bot.plan.digest.kep_sig`),
    listing the closest SIG names it has (a typo gives empty tables otherwise)."""
    import difflib

    known = sorted({digest_mod.kep_sig(k) for k in snapshot.all_keps()} - {""})
    if sig in known:
        return
    close = difflib.get_close_matches(sig, known, n=5, cutoff=0.6) or known[:5]
    raise UsageError(
        f"--sig {sig}: no kep.yaml at {snapshot.revision[:12] or 'this revision'} names this SIG; "
        f"close SIG names: {', '.join(close) or 'none'}"
    )


def _snapshot(inputs: Inputs, at: str, revision: str) -> Snapshot:
    """The run's snapshot (:meth:`bot.commands.inputs.Inputs.snapshot`), or the kep.yaml state at the commit
    ``revision`` or the last commit on or before the day ``at``."""
    if not at and not revision:
        return inputs.snapshot()
    enhancements = inputs.config.enhancements
    day = _date(at) if at else ""  # a usage error before any clone
    history = require_history(inputs, "--at/--revision")
    if revision:
        commit = resolve_revision(history, revision)
    else:
        found = history.commit_at(day)
        if found is None:
            raise UsageError(f"--at {at}: the history has no kep.yaml commit on or before that date")
        commit = found.sha
    return snapshot_at(history, commit, redact(enhancements))


def _date(value: str) -> str:
    """``value`` when it is a calendar date written ``YYYY-MM-DD`` whose whole day (up to the next midnight,
    UTC) can be compared with commit times; else :class:`UsageError` (exit 2)."""
    import datetime
    import re

    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
            raise ValueError(value)
        day = datetime.date.fromisoformat(value)
        day + datetime.timedelta(days=1)  # 9999-12-31 has no next midnight to compare with
    except (ValueError, OverflowError):
        raise UsageError(f"--at {value!r}: expected a date YYYY-MM-DD from 0001-01-01 to 9999-12-30") from None
    return day.isoformat()
