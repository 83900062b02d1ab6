"""``kep-sync validate``: will a run with these settings work? Checks beyond the config's own validation.

:func:`offline_problems` reads only the local disk: the enhancements source (a directory holding
``keps/``, a readable ``.tar.gz`` snapshot, a git repository or bundle; a URL or ``github:`` form is
only parsed), the wiki directory and every page (exists, UTF-8, holds a table with a KEP column) when
the pages are read from disk, and a release-notes directory (holds ``release-notes-1.NN.json``).
:func:`online_problems` (``validate --online``) also asks the network, one request each: a
``github:`` enhancements or release-notes ref resolves to a commit (GitHub REST
``GET /repos/{owner}/{repo}/commits/{ref}``), a git URL answers ``git ls-remote``, and the wiki
repository's base branch (``wiki.repo`` at ``wiki.base``, else its default branch) exists.

Each problem is one line, ``key: what is wrong``, naming the value (``wiki.pages[0] 'x.md': ...``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from bot.config import Config, overlaps, shown
from bot.errors import KepSyncError, relative_to, written_in
from bot.fileread import PAGE_BYTES, FileTooLarge, NotRegularFile, read_regular_text
from bot.wiki.pages import same_page

_NOTES_FILE_RE = re.compile(r"^release-notes-[0-9]{1,4}\.[0-9]{1,4}\.json$")


def pages_on_disk(config: Config) -> bool:
    """True when a run reads the pages from ``wiki.dir`` (publish ``files``, ``git``, or ``none``
    without ``wiki.repo``); False when it reads them from ``wiki.repo`` through the API."""
    return config.publish in ("files", "git") or (config.publish == "none" and not config.wiki.repo)


def offline_problems(config: Config, dropped: Collection[str] = ()) -> list[str]:
    """Every problem found without network, one ``key: message`` line each (``[]`` when none).

    ``dropped``: settings that were invalid and stand at their defaults in ``config``
    (:attr:`bot.config.Checked.dropped`); the checks that read them are skipped, the others run.
    """

    def ok(*keys: str) -> bool:
        return not any(overlaps(key, dropped) for key in keys)

    problems = _enhancements_problems(config.enhancements) if ok("enhancements") else []
    if ok("enhancements", "candidates.sigs") and not problems:
        problems += _sigs_problems(config)
    pages = ok("wiki.pages") and not _default_pages_in_doubt(config, dropped)
    if ok("publish", "wiki.dir", "wiki.repo") and pages_on_disk(config):
        if ok("columns"):
            wiki = _wiki_problems(config, pages=pages)
            problems += wiki or (_tracking_problems(config, ok) if pages else [])  # they read every page
        if ok("digest") and pages:
            problems += _digest_problems(config)
        if ok("coverage", "digest") and pages:
            problems += same_files(config)
    if config.release_notes.source and ok("release_notes.source"):
        problems += _notes_problems(config.release_notes.source)
    if config.gate_lifecycle.source and ok("gate_lifecycle.source"):
        problems += gate_problems(config.gate_lifecycle.source)
    if config.release.sig_release and ok("release.sig_release"):
        problems += records_problems(config.release.sig_release)
    if ok("publish", "wiki.repo"):
        problems += needs_problems(config)
    return problems


def needs_problems(config: Config, env: Mapping[str, str] | None = None) -> list[str]:
    """What a run with ``config`` needs from this machine and its environment (``env``, default ``os.environ``)
    that is not there: credentials for ``publish: github`` (:func:`bot.publish.auth.credentials_problem`, the
    check ``sync`` makes when it connects) and git for ``publish: git`` (:func:`bot.sources.git.missing_programs`;
    a git source's own needs, ssh included, are :func:`_enhancements_problems`')."""
    import os
    import shutil

    from bot.publish.auth import credentials_problem

    env = os.environ if env is None else env
    problems = []
    if config.publish == "github" and (why := credentials_problem(env)):
        problems.append(f"publish: {why}")
    if config.publish == "git" and shutil.which("git") is None:
        problems.append("publish: git is not installed (not on PATH); publish git commits with it: install git")
    return problems


def _default_pages_in_doubt(config: Config, dropped: Collection[str]) -> bool:
    """True when ``wiki.pages`` was not given and another ``wiki`` key was invalid (a misspelt ``wiki.page``):
    the default page is then not the one the user meant, and checking it would report a second, wrong problem."""
    return "pages" not in config.wiki.model_fields_set and overlaps("wiki", dropped)


def gate_problems(value: str) -> list[str]:
    """A local gate-lifecycle source read as a run reads it: the form, each list file (exists, UTF-8, YAML, a
    list of gates; the error names the file and line), and every malformed entry (``file line N: why``).
    A ``github:`` source is only parsed."""
    from bot.sources.gate_lifecycle import load_gate_lifecycle, parse_gate_source

    try:
        if parse_gate_source(value).kind == "github":
            return []
        lc = load_gate_lifecycle(value, Path("."))
    except KepSyncError as exc:
        return [
            f"gate_lifecycle.source: {str(exc).removeprefix('gate_lifecycle.source (--gate-lifecycle) ')}".replace(
                "--gate-lifecycle ", "", 1
            )
        ]
    return [f"gate_lifecycle.source: {p.path} {p.key}: {p.message}" for p in lc.problems]


def _sigs_problems(config: Config) -> list[str]:
    """Each ``candidates.sigs`` entry that no kep.yaml names as ``owning-sig``, for a local directory or
    tarball source (read like a sync reads it; a git or ``github:`` source is not read here)."""
    from bot.plan.tracking.candidates import tracked_sig
    from bot.sources.enhancements import load_snapshot, parse_source

    if not config.candidates.sigs or parse_source(config.enhancements).kind not in ("dir", "tarball"):
        return []
    try:
        snapshot = load_snapshot(config.enhancements, Path(config.cache_dir).expanduser())
    except KepSyncError as exc:
        return [f"enhancements: {exc}"]
    named = {tracked_sig(k.sig) for k in snapshot.all_keps() if k.sig}
    return [
        f"candidates.sigs[{i}] {shown(sig)}: no kep.yaml in {shown(config.enhancements)} has owning-sig "
        f"{tracked_sig(sig)} (they name {', '.join(sorted(named)) or 'none'})"
        for i, sig in enumerate(config.candidates.sigs)
        if tracked_sig(sig) not in named
    ]


def _enhancements_problems(value: str) -> list[str]:
    from bot.sources.enhancements import parse_source
    from bot.sources.git import missing_programs, worktree_head
    from bot.sources.tarball import read_local_tarball

    try:
        source = parse_source(value)
        if source.kind == "git" and (missing := missing_programs(source.location)):
            return [f"enhancements {shown(value)}: {missing}"]
        if source.kind in ("dir", "git") and Path(source.location).is_dir():
            worktree_head(Path(source.location))  # a repository git refuses (another user owns it) raises
        if source.kind == "tarball":  # read as the sync reads it, with the same caps and member checks
            read_local_tarball(Path(source.location))
        elif source.kind == "git" and Path(source.location).is_dir() and not _git_has_keps(source.location):
            return [f"enhancements: {shown(value)}: no keps/ folder at the repository's HEAD; a run would refuse it"]
    except KepSyncError as exc:
        return [f"enhancements: {str(exc).removeprefix('enhancements (--enhancements) ')}"]
    return []


def _git_has_keps(location: str) -> bool:
    """True when the local git repository at ``location`` has a ``keps`` entry at HEAD (or git cannot say:
    the run reports that itself)."""
    from bot.sources.git import run_git

    try:
        return bool(run_git(Path(location), "ls-tree", "HEAD", "--", "keps").strip())
    except KepSyncError:
        return True


def _wiki_problems(config: Config, *, pages: bool = True) -> list[str]:
    """``wiki.dir`` (a directory; a git checkout for ``publish: git``; writable where a run writes,
    :func:`bot.commands.writable.write_problems`) and, when ``pages``, each of
    ``wiki.pages`` under it (:func:`page_problem`; a missing one names the closest page,
    :func:`bot.publish.directory.close_page`)."""
    from bot.commands.writable import write_problems
    from bot.publish.directory import close_page

    root = Path(config.wiki.dir).expanduser()
    try:
        is_dir, exists = root.is_dir(), root.exists()
    except OSError as exc:  # e.g. a name too long for the file system
        return [f"wiki.dir {shown(config.wiki.dir)}: cannot be read: {exc.strerror or exc}"]
    if not is_dir:
        what = "no such directory" if not exists else "not a directory"
        return [f"wiki.dir {shown(config.wiki.dir)}: {what}{relative_to(config.wiki.dir)}"]
    problems = []
    if config.publish == "git" and not (root / ".git").exists():
        problems.append(
            f"wiki.dir {shown(config.wiki.dir)}: not a git checkout{relative_to(config.wiki.dir)}; "
            "publish git commits in a clone of the wiki"
        )
    problems += write_problems(config)
    for i, page in enumerate(config.wiki.pages if pages else ()):
        why = page_problem(root / page, config.aliases())
        if why:
            hint = close_page(root, page) if why == "no such file" else ""
            problems.append(
                f"wiki.pages[{i}] {shown(page)}: {why} (under the wiki directory {shown(config.wiki.dir)}{_origin(config.wiki.dir)})"
                + (f"; did you mean {hint!r}?" if hint else "")
            )
    return problems


def _tracking_problems(config: Config, ok=lambda *keys: True) -> list[str]:
    """The tracking settings against the pages on disk: ``coverage.page`` exists and has a design-group
    table; ``candidates.add_to.table`` and each of ``production_tables`` head a KEP table. ``ok(*keys)``:
    False when a key was invalid (the check that reads it is skipped)."""
    from bot.plan.tracking.coverage import parse_groups
    from bot.plan.tracking.production import missing_tables
    from bot.plan.tracking.rows import table_under
    from bot.wiki.matrix import parse_page

    root = Path(config.wiki.dir).expanduser()
    problems = []
    cov = config.coverage
    if cov.page and ok("coverage"):
        text, why = _read_text(root / cov.page)
        if not why:
            aliases = {"group": tuple(cov.columns.group), "keps": tuple(cov.columns.keps)}
            groups, found = parse_groups(cov.page, text, aliases)
            if not groups:  # the last problem says why: no group table, or one with no row
                why = found[-1].message.removesuffix("; coverage not checked")
        if why:
            problems.append(
                f"coverage.page {shown(cov.page)}: {why} (under the wiki directory {shown(config.wiki.dir)}{_origin(config.wiki.dir)})"
            )
    texts = {page: _read_text(root / page)[0] for page in config.wiki.pages}
    add = config.candidates.add_to
    if add is not None and ok("candidates.add_to"):
        page = next((p for p in texts if Path(p) == Path(add.page)), add.page)
        if page in texts and table_under(texts[page], add.table, config.aliases()) is None:
            problems.append(
                f"candidates.add_to.table {shown(add.table)}: no KEP table under that heading on {shown(add.page)}"
            )
    if config.production_tables and ok("production_tables"):
        pages = [parse_page(p, t, config.aliases()) for p, t in texts.items()]
        problems += [
            f"production_tables {shown(t)}: no KEP table under that heading on the pages"
            for t in missing_tables(pages, config.production_tables)
        ]
    return problems


def _digest_problems(config: Config) -> list[str]:
    """``digest.page`` (when set; a ``wiki.pages`` entry too) exists, is UTF-8 and has one pair of digest
    markers outside code."""
    from bot.plan.digest import matrix_page_why, section_span

    page = config.digest.page
    if not page:
        return []
    text, why = _read_text(Path(config.wiki.dir).expanduser() / page)
    span = section_span(text) if not why else ()
    if isinstance(span, str):
        why = matrix_page_why(span) if same_page(page, config.wiki.pages) else span
    return (
        [
            f"digest.page {shown(page)}: {why} (under the wiki directory {shown(config.wiki.dir)}{_origin(config.wiki.dir)})"
        ]
        if why
        else []
    )


def same_files(config: Config) -> list[str]:
    """One line per setting naming a file under ``wiki.dir`` (symbolic links resolved; a hard link is the
    file it links, by ``(st_dev, st_ino)``) that an earlier
    setting names in a way kep-sync cannot share (``[]`` when none): ``coverage.page`` (read-only) is no
    other page; ``digest.page`` (rewritten between its markers) may be a ``wiki.pages`` entry only by its
    own name (``./m.md`` is ``m.md``), not through a link, as one page is read and written once. Two
    ``wiki.pages`` entries may name one file. Paths that cannot be resolved are left to the other checks."""
    root = Path(config.wiki.dir).expanduser()
    named = [(f"wiki.pages[{i}]", page) for i, page in enumerate(config.wiki.pages)]
    named += [
        (key, page)
        for key, page in (("coverage.page", config.coverage.page), ("digest.page", config.digest.page))
        if page
    ]
    seen: dict[tuple[int, int] | Path, list[tuple[str, str]]] = {}
    problems = []
    for key, page in named:
        try:
            real = (root / page).resolve()
            st = real.stat() if real.exists() else None
        except (OSError, RuntimeError):  # a loop of links, a name too long: reported where the page is read
            continue
        earlier = seen.setdefault((st.st_dev, st.st_ino) if st else real, [])
        clash = next((other for other in earlier if not _may_share((key, page), other)), None)
        if clash is not None:
            problems.append(
                f"{key} {shown(page)}: the same file as {clash[0]} {shown(clash[1])} ({shown(str(real))}); "
                f"{_ROLES[_role(key)]} and {_ROLES[_role(clash[0])]}, so name two different files"
            )
        earlier.append((key, page))
    return problems


def _may_share(one: tuple[str, str], other: tuple[str, str]) -> bool:
    """True when two ``(key, page)`` settings naming one file are fine: two ``wiki.pages`` entries, or a
    ``wiki.pages`` entry and ``digest.page`` naming the page by the same path."""
    roles = {_role(one[0]), _role(other[0])}
    return roles == {"wiki.pages"} or (roles == {"wiki.pages", "digest.page"} and same_page(one[1], [other[1]]))


#: What kep-sync does with each kind of page, for :func:`same_files`.
_ROLES = {
    "wiki.pages": "the rows of wiki.pages are synced",
    "coverage.page": "the coverage page is read-only",
    "digest.page": "the digest page is rewritten between its markers",
}


def _role(key: str) -> str:
    return key.split("[", 1)[0]


def _read_text(path: Path) -> tuple[str, str]:
    """``(text, "")``, or ``("", why)`` when ``path`` is missing, not a regular file, larger than
    :data:`bot.fileread.PAGE_BYTES`, unreadable or not UTF-8."""
    try:
        return read_regular_text(path, PAGE_BYTES), ""
    except FileNotFoundError:
        return "", "no such file"
    except NotRegularFile:
        return "", "not a file"
    except FileTooLarge as exc:
        return "", str(exc.strerror)
    except OSError as exc:
        return "", f"cannot be read: {exc.strerror or exc}"
    except UnicodeDecodeError as exc:
        return "", f"not UTF-8 ({exc.reason} at byte {exc.start})"


def page_problem(path: Path, aliases: dict[str, tuple[str, ...]]) -> str:
    """Why the page at ``path`` cannot be synced (no such file, not a file, unreadable, not UTF-8, no
    table with a KEP column: :func:`kep_table_problem`), or ``""`` when it can."""
    text, why = _read_text(path)
    return why or kep_table_problem(text, aliases)


def kep_table_problem(text: str, aliases: Mapping[str, Sequence[str]]) -> str:
    """``""`` when the page ``text`` has a table whose header names a KEP column (``columns.kep``), else why not,
    with the headers of the tables it has: a configured page without one is a configuration error for
    ``validate`` and a run alike (nothing on it would ever be synced)."""
    from bot.wiki.matrix import NO_KEP_TABLE_FIX, column_roles
    from bot.wiki.tables import find_tables, header_row

    lines = text.split("\n")
    headers = [[c.text for c in header_row(lines, t)] for t in find_tables(text)]
    if any("kep" in column_roles(h, aliases) for h in headers):
        return ""
    names = " or ".join(repr(a) for a in aliases.get("kep", ()))
    seen = ", ".join(repr(" | ".join(h)) for h in headers[:3]) + (" ..." if len(headers) > 3 else "")
    return (
        f"no table with a KEP column (a header named {names}); "
        + (f"its tables are headed {seen}" if headers else "it has no table")
        + f": {NO_KEP_TABLE_FIX}"
    )


def _notes_problems(value: str) -> list[str]:
    from bot.sources.release_notes import parse_notes_source

    try:
        source = parse_notes_source(value)
    except KepSyncError as exc:
        return [f"release_notes.source: {str(exc).removeprefix('--release-notes ')}"]
    if source.kind == "dir":
        try:
            found = any(_NOTES_FILE_RE.match(p.name) for p in Path(source.location).iterdir())
        except OSError as exc:
            return [f"release_notes.source {shown(value)}: cannot be listed: {exc.strerror or exc}"]
        if not found:
            return [f"release_notes.source {shown(value)}: the directory holds no release-notes-1.NN.json file"]
    return []


def records_problems(value: str) -> list[str]:
    """Problems of ``release.sig_release``: not a copy of kubernetes/sig-release nor ``github:``, or a folder
    with no ``release-1.NN`` folder (:mod:`bot.sources.sig_release`)."""
    from bot.sources.sig_release import parse_records_source, release_folders

    try:
        source = parse_records_source(value)
    except KepSyncError as exc:
        return [f"release.sig_release: {str(exc).removeprefix('--sig-release ')}"]
    if source.kind == "dir":
        try:
            found = release_folders(Path(source.location))
        except OSError as exc:
            return [f"release.sig_release {shown(value)}: cannot be listed: {exc.strerror or exc}"]
        if not found:
            return [f"release.sig_release {shown(value)}: no release-1.NN folder"]
    return []


def online_problems(config: Config, client, failures: list[str] | None = None) -> list[str]:
    """Problems only the network shows, one request per source (``client``: an ``httpx.Client``).

    Run after :func:`offline_problems` found none. The token, if any, is the client's. With ``failures``
    (a list), a check the network could not answer (:func:`network_failure`: no connection, a timeout, an
    HTTP status other than 404 or 422) is appended there instead: the settings may be right.
    """
    from bot.sources.enhancements import parse_source, remote_head
    from bot.sources.github_tarball import probe_github_ref
    from bot.sources.release_notes import parse_notes_source

    api = config.github.api_url
    checks: list[tuple[str, str, Callable[[], object]]] = []
    source = parse_source(config.enhancements)
    if source.kind == "github":
        checks.append(
            ("enhancements", config.enhancements, lambda: probe_github_ref(client, api, source.location, source.ref))
        )
    elif source.kind == "git" and re.match(r"^(https?|ssh|git)://", source.location):
        checks.append(("enhancements", config.enhancements, lambda: remote_head(source.location)))
    if config.release_notes.source:
        notes = parse_notes_source(config.release_notes.source)
        if notes.kind == "github":
            checks.append(
                (
                    "release_notes.source",
                    config.release_notes.source,
                    lambda: probe_github_ref(client, api, notes.location, notes.ref),
                )
            )
    wiki_repo = config.wiki.repo
    if wiki_repo and not pages_on_disk(config):
        base = config.wiki.base or "HEAD"
        checks.append(
            (
                "wiki.repo",
                f"{wiki_repo}@{config.wiki.base or '(default branch)'}",
                lambda: probe_github_ref(client, api, wiki_repo, base),
            )
        )
    problems: list[str] = []
    for key, value, check in checks:
        try:
            check()
        except KepSyncError as exc:
            target = failures if failures is not None and network_failure(exc) else problems
            target.append(f"{key} {shown(value)}: {exc}")
    return problems


def network_failure(exc: KepSyncError) -> bool:
    """True when ``exc`` (from a check of :func:`online_problems`) says the network could not answer, not that
    the setting names nothing: a :class:`~bot.errors.SourceError` other than GitHub's ``HTTP 404`` / ``HTTP 422``
    (no such repository or ref); ``git ls-remote`` failures count as the network's."""
    from bot.errors import SourceError
    from bot.sources.enhancements import unreachable

    return isinstance(exc, SourceError) and unreachable(exc)


def _origin(path: str) -> str:
    """``"; written 'wiki' in conf/k.yaml, read from that file's directory conf"`` when a config file wrote ``path``
    relative to its directory (:func:`bot.errors.written_in`), else ``""``."""
    said = written_in(path)
    return f"; {said}" if said else ""
