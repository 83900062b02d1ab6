"""What one run reads upstream: :class:`Inputs`, made once per run from the config, each source opened the first
time a stage asks for it and kept for the rest of the run.

Every command that reads upstream takes one (``sync``, ``audit``, ``watch``; ``serve`` and ``targets`` share one
among the targets of a process: :meth:`Inputs.for_target`), so no source is read twice in a run:

- the enhancements ``snapshot`` (:mod:`bot.sources.enhancements`; a ``github:`` source through its run-level
  ``upstream`` reader, :mod:`bot.sources.upstream`) and, for the service's poll, its ``revision``;
- the kep.yaml history of a git source (:mod:`bot.sources.history`): provenance and renamed directories
  (:meth:`Inputs.provenance`), when each kep.yaml first declared its gates (:meth:`Inputs.gate_origins`), the
  timelines the watch reads (:attr:`Inputs.git_history`);
- the release notes (:meth:`Inputs.release_notes`: each file read once whatever releases are asked,
  :class:`bot.sources.release_notes.Reads`);
- the feature-gate lists (:meth:`Inputs.gate_lifecycle`, and :meth:`Inputs.newest_gate_list` for the watch);
- the release team's records: key dates and freeze exceptions (:meth:`Inputs.records`);
- the wiki and its pages (:attr:`Inputs.wiki`).

A new source is one reader under ``bot/sources/`` and one method here, read once per process through
:meth:`Inputs._once` (a failure kept and raised again), for example::

    def records(self) -> Records | None:
        if not self.config.release.sig_release:
            return None
        return self._once("records", lambda: sig_release.load_records(self.config.release.sig_release, ...))

The plan stage never sees this class: it gets the values (or, where only the plan knows what it needs, a method
of this class as its loader). The token comes from ``GITHUB_TOKEN`` only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config
from bot.errors import KepSyncError

if TYPE_CHECKING:
    from bot.http import RequestCounter
    from bot.model.gates import Lifecycle
    from bot.model.history.declared import Declared
    from bot.model.history.provenance import History
    from bot.model.history.renames import Rename
    from bot.model.notes import ReleaseNotes
    from bot.model.release_calendar import Records
    from bot.model.snapshot import Snapshot
    from bot.publish.backend import Wiki
    from bot.sources.enhancements import Revision
    from bot.sources.history import GitHistory
    from bot.sources.upstream import GitHubUpstream

#: ``({kep.yaml path: tracked fields}, proposed kep.yaml paths) -> History``: what provenance reads on demand.
HistoryLoader = Callable[[Mapping[str, Collection[str]], Collection[str]], "History"]
#: ``kep.yaml paths -> {path: {gate: Declared}}``: when each of those files first declared each of its gates.
OriginsLoader = Callable[[Collection[str]], "dict[str, dict[str, Declared]]"]


class _Upstream:
    """The upstream readings one process shares among its targets (same ``enhancements``, ``cache_dir`` and
    source settings by construction): each value is read once, a failure to read the snapshot or the revision
    is kept and raised again for every target."""

    def __init__(self, own: bool) -> None:
        self.values: dict[str, object] = {}
        self.own = own  # the snapshot comes from the upstream reader: its cache answers provenance too


class Inputs:
    """One run's reading of its sources (see the module docstring); values are read on first use and kept.

    ``config``: the run's settings (the command line already merged in); ``counter`` counts HTTP requests;
    ``snapshot``: a snapshot already read (tests, scripts), else read from ``config.enhancements``; ``load``:
    what reads the snapshot instead (``(config, counter) -> Snapshot``, tests and benchmarks); ``upstream``: the
    run-level reader of a ``github:`` source already made (the service's poll asked it). Each reader raises
    the :class:`~bot.errors.KepSyncError` of its source (:class:`~bot.errors.ConfigError`,
    :class:`~bot.errors.UsageError`, :class:`~bot.errors.SourceError`).
    """

    def __init__(
        self,
        config: Config,
        counter: RequestCounter | None = None,
        *,
        snapshot: Snapshot | None = None,
        load: Callable[[Config, RequestCounter | None], Snapshot] | None = None,
        upstream: GitHubUpstream | None = None,
        shared: _Upstream | None = None,
    ):
        self.config, self.counter = config, counter
        self._load = load
        self._up = shared or _Upstream(own=load is None and snapshot is None)
        if snapshot is not None:
            self._up.values["snapshot"] = snapshot
        if upstream is not None:
            self._up.values["upstream"] = upstream

    def for_target(self, config: Config) -> Inputs:
        """The inputs of another target of this process: its own ``config`` and wiki, this run's upstream
        readings (snapshot, history, release notes, gate lists)."""
        return Inputs(config, self.counter, load=self._load, shared=self._up)

    @property
    def cache_dir(self) -> Path:
        """``config.cache_dir``, ``~`` expanded."""
        return Path(self.config.cache_dir).expanduser()

    def _once(self, key: str, read: Callable[[], object]) -> object:
        """``read()`` on the first ask of ``key`` in this process, kept (a :class:`KepSyncError` too, raised
        again on every ask)."""
        values = self._up.values
        if key not in values:
            try:
                values[key] = read()
            except KepSyncError as exc:
                values[key] = exc
        value = values[key]
        if isinstance(value, KepSyncError):
            raise value
        return value

    # --- the enhancements source ------------------------------------------------------------------------------

    def upstream(self) -> GitHubUpstream | None:
        """The run-level reader of a ``github:`` ``config.enhancements`` (incremental, cached by commit in
        ``cache_dir``; one probe for every target), ``None`` for another kind of source."""

        def read() -> GitHubUpstream | None:
            from bot.sources.upstream import github_upstream

            return github_upstream(
                self.config.enhancements, self.cache_dir, api_url=self.config.github.api_url, counter=self.counter
            )

        return self._once("upstream", read)  # type: ignore[return-value]

    def snapshot(self) -> Snapshot:
        """Every KEP of ``config.enhancements`` at its revision (:func:`bot.sources.enhancements.load_snapshot`,
        or the :meth:`upstream` reader's); raises the :class:`KepSyncError` of the one attempt to read it."""

        def read() -> Snapshot:
            if self._load is not None:
                return self._load(self.config, self.counter)
            upstream = self.upstream()
            if upstream is not None:
                return upstream.snapshot()
            from bot.sources.enhancements import load_snapshot

            return load_snapshot(
                self.config.enhancements,
                self.cache_dir,
                api_url=self.config.github.api_url,
                token=_token(),
                counter=self.counter,
            )

        return self._once("snapshot", read)  # type: ignore[return-value]

    def revision(self) -> Revision:
        """The source's revision now (:func:`bot.sources.enhancements.current_revision`: a ``git ls-remote``, a
        checkout's ``HEAD``, a tarball's header), asked once and handed to every target's poll (a ``github:``
        source is probed by :meth:`upstream` instead); raises the :class:`KepSyncError` of that one ask."""

        def read() -> Revision:
            from bot.http import make_client
            from bot.sources.enhancements import current_revision

            with make_client(None, counter=self.counter) as client:
                return current_revision(self.config.enhancements, client, api_url=self.config.github.api_url)

        return self._once("revision", read)  # type: ignore[return-value]

    # --- the kep.yaml history -----------------------------------------------------------------------------------

    @property
    def _source(self):
        from bot.sources.enhancements import parse_source

        return parse_source(self.config.enhancements)

    @property
    def git_history(self) -> GitHistory | None:
        """The git history of ``config.enhancements`` at the snapshot's revision (the clone the snapshot came
        from; :func:`bot.sources.history.read_history`), ``None`` for a source without local history (a plain
        directory, a tarball, a ``github:`` source)."""

        def read() -> GitHistory | None:
            from bot.sources.history import read_history

            source = self._source
            return read_history(source.kind, source.location, self.cache_dir, self.snapshot().revision)

        return self._once("git history", read)  # type: ignore[return-value]

    def whole_history(self) -> GitHistory | None:
        """The whole git history of ``config.enhancements`` (every commit, for ``kep-sync history`` and ``digest
        --at/--revision``; :func:`bot.sources.history.open_history`), read without the snapshot; ``None`` for a
        source without local history (a plain directory, a tarball, a ``github:`` source)."""

        def read() -> GitHistory | None:
            from bot.sources.history import open_history

            source = self._source
            return open_history(source.kind, source.location, self.cache_dir)

        return self._once("whole history", read)  # type: ignore[return-value]

    def provenance(self) -> tuple[HistoryLoader | None, dict[tuple[int, str], Rename]]:
        """``(history loader for plan_sync, renamed KEP directories)`` at the snapshot's revision; the loader takes
        ``{kep.yaml path: tracked fields}`` and the paths of the proposed changes.

        Git sources (a checkout, URL or bundle) read the local clone (:attr:`git_history`): the log and the
        renames now, the field timelines of the changed kep.yaml files when the loader is called (only the
        versions provenance needs). ``github:`` sources send one commits-API request per kep.yaml of a proposed
        change (at most ``provenance.max_requests``; report-only findings get none), answered from the
        :meth:`upstream` reader's cache by commit first. The loader is ``None`` (no provenance, no report keys) for
        a source without history (a plain directory, a tarball) and when ``provenance.enabled`` is false; renamed
        directories come from a git source's log either way.
        """
        return self._once("provenance", self._provenance)  # type: ignore[return-value]

    def _provenance(self) -> tuple[HistoryLoader | None, dict[tuple[int, str], Rename]]:
        from bot.model.history.provenance import History
        from bot.model.history.renames import renamed_dirs

        config, snapshot, git = self.config, self.snapshot(), self.git_history
        renames = renamed_dirs(git.log()) if git is not None else {}
        if not config.provenance.enabled:
            return None, renames
        if git is not None:
            return (
                lambda wanted, proposed=(): History("git", timelines=git.recent(wanted), shallow=git.boundary())
            ), renames
        source = self._source
        if source.kind != "github" or not snapshot.revision:
            return None, renames
        upstream = self.upstream() if self._up.own else None  # its cache answers for its own snapshot only
        asked: dict[str, History] = {}  # a replan (the wiki base moved) asks again for the same files: no requests

        def from_github(wanted: Mapping[str, Collection[str]], proposed: Collection[str] | None = None) -> History:
            from bot.http import make_client
            from bot.sources.history import github_last_commits

            # Requests cost rate limit: only the kep.yaml files of proposed changes (report-only findings
            # repeat on every run), when the plan says which those are.
            paths = [p for p in wanted if proposed is None or p in proposed]
            key = "\n".join(sorted(paths))
            if key not in asked and upstream is not None:
                last, sent = upstream.last_commits(paths, config.provenance.max_requests)
                asked[key] = History("github", last=last, requests=sent)
            if key not in asked:
                with make_client(_token(), counter=self.counter) as client:
                    last, sent = github_last_commits(
                        client,
                        config.github.api_url,
                        source.location,
                        snapshot.revision,
                        paths,
                        config.provenance.max_requests,
                    )
                asked[key] = History("github", last=last, requests=sent)
            return asked[key]

        return from_github, renames

    def gate_origins(self) -> OriginsLoader | None:
        """When each kep.yaml first declared its gates, for gate ownership (:mod:`bot.plan.evidence.ownership`): a
        loader over :attr:`git_history` (the whole first-parent history, every version of the files asked,
        :func:`bot.model.history.declared.origins`), opened on the first call; ``None`` for a source without
        local history (a tarball, a ``github:`` source): shared gates then keep no owner."""
        source = self._source
        if source.kind not in ("dir", "git") or not self.snapshot().revision:
            return None

        def load(paths: Collection[str]) -> dict[str, dict[str, Declared]]:
            from bot.model.history.declared import origins

            git = self.git_history
            if git is None or not paths:
                return {}
            return origins(git.timelines(paths), git.log())

        return load

    # --- release notes and feature-gate lists -----------------------------------------------------------------

    def release_notes(self, wanted: Collection[str] | None) -> ReleaseNotes:
        """The release notes of ``release_notes.source`` for the releases ``wanted`` (``None``: every release) plus
        the newest two (:func:`bot.sources.release_notes.load_release_notes`); a file this run has read already is
        not read again (:class:`bot.sources.release_notes.Reads`), and the same ``wanted`` gives the same object.
        Call only when :attr:`notes_on`; raises as that function does."""
        key = "notes " + ("*" if wanted is None else "\n".join(sorted(wanted)))

        def read() -> ReleaseNotes:
            from bot.sources import release_notes

            return release_notes.load_release_notes(
                self.config.release_notes.source,
                self.cache_dir,
                wanted,
                api_url=self.config.github.api_url,
                token=_token(),
                counter=self.counter,
                reads=self._notes_reads,
            )

        return self._once(key, read)  # type: ignore[return-value]

    @cached_property
    def _notes_reads(self):
        from bot.sources.release_notes import Reads

        return self._up.values.setdefault("notes reads", Reads())

    @property
    def notes_on(self) -> bool:
        """True when release notes are read (``release_notes.source`` set)."""
        return bool(self.config.release_notes.source)

    def notes_loader(self) -> Callable[[Collection[str] | None], ReleaseNotes] | None:
        """:meth:`release_notes` as the planner's loader, ``None`` when release notes are off."""
        return self.release_notes if self.notes_on else None

    @property
    def gates_on(self) -> bool:
        """True when feature-gate lists are read (``gate_lifecycle.source`` set)."""
        return bool(self.config.gate_lifecycle.source)

    def gate_lifecycle(self, wanted: Collection[str] = ()) -> Lifecycle:
        """The feature-gate lists of ``gate_lifecycle.source`` (:func:`bot.sources.gate_lifecycle.load_gate_lifecycle`;
        ``wanted``: the releases a ``github:`` source must read, those of the first ask), read once per run
        however often it is asked. Call only when :attr:`gates_on`; raises as that function does."""

        def read() -> Lifecycle:
            from bot.sources import gate_lifecycle

            return gate_lifecycle.load_gate_lifecycle(
                self.config.gate_lifecycle.source,
                self.cache_dir,
                wanted,
                api_url=self.config.github.api_url,
                token=_token(),
                counter=self.counter,
            )

        return self._once("gate lifecycle", read)  # type: ignore[return-value]

    def gates_loader(self) -> Callable[[Collection[str]], Lifecycle] | None:
        """:meth:`gate_lifecycle` as the planner's loader, ``None`` when the gate lists are off."""
        return self.gate_lifecycle if self.gates_on else None

    def newest_gate_list(self) -> Lifecycle | None:
        """The newest feature-gate list, for the watch (:func:`bot.sources.gate_head.newest_gate_list`): for a file
        or a directory the lists :meth:`gate_lifecycle` read; for ``github:`` the list of the default branch,
        read once. ``None`` when the gate lists are off."""
        if not self.gates_on:
            return None
        from bot.sources.gate_lifecycle import parse_gate_source

        if parse_gate_source(self.config.gate_lifecycle.source).kind != "github":
            return self.gate_lifecycle()

        def read() -> Lifecycle:
            from bot.sources import gate_head

            return gate_head.newest_gate_list(
                self.config.gate_lifecycle.source,
                self.cache_dir,
                api_url=self.config.github.api_url,
                token=_token(),
                counter=self.counter,
            )

        return self._once("newest gate list", read)  # type: ignore[return-value]

    def records(self) -> Records | None:
        """The release team's records of ``release.sig_release`` (:func:`bot.sources.sig_release.load_records`: key
        dates and freeze exceptions per release), read once; ``None`` when off. Raises as that function does."""
        if not self.config.release.sig_release:
            return None

        def read() -> Records:
            from bot.sources import sig_release

            return sig_release.load_records(
                self.config.release.sig_release,
                self.cache_dir,
                api_url=self.config.github.api_url,
                token=_token(),
                counter=self.counter,
            )

        return self._once("records", read)  # type: ignore[return-value]

    # --- the wiki ------------------------------------------------------------------------------------------------

    @cached_property
    def wiki(self) -> Wiki:
        """This target's wiki backend (:func:`bot.commands.sync.open_wiki`), opened once."""
        return open_wiki(self.config, self.counter)


def open_wiki(
    config: Config,
    counter: RequestCounter | None = None,
    *,
    env: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    seconds_between_writes: float | None = None,
) -> Wiki:
    """The wiki backend for ``config.publish``: GitHub for ``github`` (and for ``none`` with ``wiki.repo`` set,
    read-only), the git clone at ``wiki.dir`` for ``git``, else the directory ``wiki.dir``.

    ``env``, ``sleep`` and ``seconds_between_writes`` go to
    :meth:`bot.publish.github.GitHubWiki.connect` (tests). Raises :class:`~bot.errors.ConfigError`
    for ``github`` without ``wiki.repo`` or credentials.
    """
    if config.publish == "github" or (config.publish == "none" and config.wiki.repo):
        from bot.publish.github import GitHubWiki

        return GitHubWiki.connect(
            config,
            counter,
            env,
            sleep,
            seconds_between_writes,
            read_only=config.publish == "none",
            explain=explainer(config),
        )
    if config.publish == "git":
        from bot.publish.git import GitWiki

        return GitWiki(config, Path(config.wiki.dir).expanduser())
    from bot.publish.directory import DirectoryWiki

    return DirectoryWiki(Path(config.wiki.dir).expanduser(), config.pages_to_read(), once=config.wiki.pages)


def explainer(config: Config) -> Callable[[int], str]:
    """KEP number -> its field history as ``kep-sync history N`` prints it, from ``config.enhancements`` (for
    ``/kep-sync explain``). Raises :class:`~bot.errors.UsageError` when the source has no git history (a
    ``github:`` source or a tarball) or no kep.yaml ever had the number."""
    inputs = Inputs(config)  # every explain of the run reads one history

    def explain(number: int) -> str:
        from bot.commands.history import history_text

        return history_text(inputs, number)

    return explain


def _token() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or None
