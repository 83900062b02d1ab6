"""``kep-sync init``: a first config for one's own wiki, written from the KEP tables found on its pages.

Reads markdown pages (every ``*.md`` under a wiki directory, or the pages named) and looks at every table
(:mod:`bot.commands.init_tables`): a KEP table is one whose header names the KEP column or where most cells
of one column name KEPs (KEPs that exist upstream, with ``--enhancements``); its other columns get roles by
header (the defaults, headers people write such as ``Current status`` or ``Alpha in``, and plain guesses
such as ``里程碑 (Alpha / Beta / GA)`` -> ``milestones``). It writes a config naming those pages and the
column headers they need, with paths relative to the config file, and lists every table with why it was
taken or left and every row left as is. Offline unless ``--enhancements`` names a remote source.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import yaml

from bot.commands.init_tables import (  # noqa: F401  (guess_role, table_columns: this module's names too)
    FoundTable,
    column_aliases,
    describe,
    guess_role,
    misread,
    page_tables,
    settle,
    table_columns,
)
from bot.errors import ConfigError, KepSyncError, UsageError
from bot.fileread import PAGE_BYTES, read_regular_text
from bot.wiki.headers import DEFAULT_ALIASES

if TYPE_CHECKING:
    from bot.model.snapshot import Snapshot

#: Most pages read under one wiki directory; a larger tree is refused (name the pages with ``--page``).
MAX_PAGES = 2000


class Scan(NamedTuple):
    """What :func:`scan_pages` found: the KEP ``tables``, the pages read that hold none (``skipped``,
    ``(page, why)``) and every table ``looked`` at, taken or left (:class:`FoundTable`)."""

    tables: list[FoundTable]
    skipped: list[tuple[str, str]]
    looked: list[FoundTable] = []


def list_pages(wiki: Path) -> list[str]:
    """Every ``*.md`` file under ``wiki`` (not under a directory whose name starts with ``.``), relative, sorted.

    Raises :class:`UsageError` when ``wiki`` is not a directory or holds more than :data:`MAX_PAGES` pages."""
    if not wiki.is_dir():
        raise UsageError(
            f"--wiki {str(wiki)!r}: {'not a directory' if wiki.exists() else 'no such directory'}"
            f" (relative to {os.getcwd()})"
        )
    pages = []
    for dirpath, dirnames, filenames in os.walk(wiki):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        pages += [os.path.relpath(os.path.join(dirpath, f), wiki) for f in filenames if f.endswith(".md")]
        if len(pages) > MAX_PAGES:
            raise UsageError(
                f"--wiki {str(wiki)!r}: more than {MAX_PAGES} pages; name the ones with KEP tables with --page"
            )
    return sorted(p.replace(os.sep, "/") for p in pages)


def scan_pages(wiki: Path, pages: Iterable[str], upstream: Snapshot | None = None, *, named: bool = True) -> Scan:
    """The tables of ``pages`` (relative to ``wiki``): the KEP tables and every table looked at
    (:func:`bot.commands.init_tables.page_tables`, KEPs checked against ``upstream`` when given); a page that
    cannot be read or holds no KEP table is ``skipped`` with why. Raises :class:`UsageError` for a page that
    does not exist when the pages were ``named`` (``--page``); a page init's own walk listed
    (:func:`list_pages`, ``named=False``) that is gone by the time it is read (a symbolic link to a missing
    file, a file removed meanwhile) is ``skipped`` with why."""
    looked: list[FoundTable] = []
    unreadable: dict[str, str] = {}
    names = list(pages)
    for page in names:
        try:
            text = read_regular_text(wiki / page, PAGE_BYTES)
        except FileNotFoundError:
            if named:
                raise UsageError(f"--page {page!r}: no such file (relative to {os.path.abspath(wiki)})") from None
            gone = "a symbolic link to a missing file" if os.path.islink(wiki / page) else "no such file"
            unreadable[page] = f"cannot be read: {gone}"
            continue
        except (OSError, UnicodeDecodeError) as exc:
            unreadable[page] = f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
            continue
        looked += page_tables(page, text.removeprefix("\ufeff"), upstream)
    looked = settle(looked)
    tables = [t for t in looked if t.taken]
    skipped: list[tuple[str, str]] = []
    for page in names:
        seen = [t for t in looked if t.page == page]
        if page in unreadable:
            skipped.append((page, unreadable[page]))
        elif not any(t.taken for t in seen):
            skipped.append((page, "no KEP table" if seen else "no table"))
    return Scan(tables, skipped, looked)


def path_setting(path: str, output: str) -> str:
    """A local path (as the working directory names it) as the config file ``output`` says it: relative to the
    file's directory, where kep-sync reads a config's paths from (:func:`bot.configpaths.config_relative`), so
    the config works from any working directory; absolute when the two share no directory below the root."""
    from bot.configpaths import config_relative

    return config_relative(path, output)


def config_data(wiki_dir: str, tables: Sequence[FoundTable], enhancements: str | None) -> dict:
    """The settings :func:`config_text` writes: ``enhancements`` (when given), ``wiki`` (``dir`` and the
    pages holding KEP tables, in order), ``columns`` (:func:`column_aliases`, when any) and ``publish: none``."""
    pages = list(dict.fromkeys(t.page for t in tables))
    data: dict = {"enhancements": enhancements} if enhancements else {}
    data["wiki"] = {"dir": wiki_dir, "pages": pages}
    columns = column_aliases(tables)
    if columns:
        data["columns"] = columns
    data["publish"] = "none"
    return data


def config_text(data: dict, tables: Sequence[FoundTable]) -> str:
    """The config file: a comment header (where relative paths are read from, each table looked at and what
    init made of it), then ``data`` as YAML."""
    head = [
        "# kep-sync configuration written by `kep-sync init`; every key: docs/configuration.md in kep-sync.",
        "# Relative paths are read from this file's directory, wherever kep-sync runs.",
        "# Tables looked at:",
    ]
    head += [f"#   {escaped(line)}" for table in tables for line in describe(table)]
    body = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return "\n".join(head) + "\n" + body


def escaped(text: str) -> str:
    """``text`` with every character that is not printable (a line break, a control character) written as
    its Python escape (``\\n``, ``\\x1b``), so it stays on one line of a comment or of the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def no_tables_error(where: str, scan: Scan) -> UsageError:
    """The error when no page read holds a KEP table: which pages were read, why each table was left, and what
    a KEP table is."""
    names = " or ".join(repr(a) for a in DEFAULT_ALIASES["kep"])
    read = ", ".join(f"{p} ({why})" for p, why in scan.skipped[:5]) + (" ..." if len(scan.skipped) > 5 else "")
    left = "; ".join(f"{t.page} line {t.line}: {t.kep.why}" for t in scan.looked[:3]) + (
        " ..." if len(scan.looked) > 3 else ""
    )
    return UsageError(
        f"{where}: no KEP table found in {len(scan.skipped)} page(s) read"
        f"{': ' + read if read else ''}{' (' + left + ')' if left else ''}; a KEP table is a markdown table with "
        f"a column named {names} or one where most cells name KEPs (4671, 4671-gang-scheduling, KEP-4671, "
        "#4671, a kep.k8s.io or enhancements issue link)"
    )


def next_command(output: str, enhancements: str | None, snapshot: str | None, program: str = "kep-sync") -> list[str]:
    """The lines saying what to run next: a dry run of ``program`` (:func:`invoked_as`) with ``--config``
    (when the file is not the default path), and without ``enhancements`` the ``--enhancements PATH`` hint
    for a run offline (``snapshot``: the snapshot tarball shipped in examples/ when found)."""
    config = "" if output == os.path.join("config", "kep-sync.yaml") else f" --config {_quoted(output)}"
    lines = ["Next, a dry run (prints the changelog, writes nothing):", f"  {program} sync{config}"]
    if not enhancements:
        example = f", e.g. {snapshot}" if snapshot else ""
        lines += [
            "It reads the KEPs from github:kubernetes/enhancements@master. Offline, add --enhancements PATH:",
            f"a clone of kubernetes/enhancements, a git bundle or a snapshot tarball{example}:",
            f"  {program} sync{config} --enhancements PATH",
        ]
    return lines


def invoked_as(argv0: str, search_path: str | None = None) -> str:
    """How to name the command in printed advice: ``kep-sync`` when ``argv0`` (``sys.argv[0]``) is the
    ``kep-sync`` that ``search_path`` (default ``$PATH``) finds, or is not a ``kep-sync`` script at all
    (``python -m bot``, a test); else ``argv0`` as given, shell-quoted (``.venv/bin/kep-sync`` when the
    venv is not activated)."""
    import shutil

    if os.path.basename(argv0) != "kep-sync":
        return "kep-sync"
    found = shutil.which("kep-sync", path=search_path)
    if found and os.path.realpath(found) == os.path.realpath(argv0):
        return "kep-sync"
    return _quoted(argv0)


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def example_snapshot(cwd: Path) -> str | None:
    """The snapshot tarball shipped in ``examples/`` of a kep-sync checkout at ``cwd``, relative, else ``None``."""
    found = sorted(cwd.glob("examples/enhancements-*.tar.gz"))
    return str(found[-1].relative_to(cwd)) if found else None


def page_argument(pages: Sequence[str], wiki: str | None) -> tuple[Path, list[str]]:
    """``(wiki directory, pages relative to it)`` from ``--wiki`` and ``--page``: with ``--wiki`` the pages are
    relative to it (as for sync); without, each ``--page`` is a file and the wiki is their common directory.
    Raises :class:`UsageError` when neither is given."""
    if wiki is not None:
        if not wiki.strip():
            raise UsageError("--wiki '': empty; name the wiki directory")
        root = Path(wiki).expanduser()
        return root, list(pages) if pages else list_pages(root)
    if not pages:
        raise UsageError("name the wiki: --wiki DIR (every *.md page under it) or --page FILE (repeatable)")
    for page in pages:
        if Path(page).is_dir():
            raise UsageError(f"--page {page!r}: a directory; name a page file, or the directory with --wiki")
        if not Path(page).is_file():
            raise UsageError(f"--page {page!r}: no such file (relative to {os.getcwd()})")
    root = Path(os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in pages]))
    return root, [os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/") for p in pages]


class Written(NamedTuple):
    """What :func:`init_config` did: the config ``path`` written, its ``text``, the KEP ``tables`` found,
    the pages ``skipped`` (``(page, why)``), the ``next`` lines to print, every table ``looked`` at and the
    ``checks``: where kep-sync would read a configured page other than init did (:func:`misread`)."""

    path: str
    text: str
    tables: list[FoundTable]
    skipped: list[tuple[str, str]]
    next: list[str]
    looked: list[FoundTable] = []
    checks: list[str] = []


def load_upstream(enhancements: str) -> Snapshot:
    """The KEPs of ``--enhancements`` (a clone, bundle, tarball or directory; a URL or ``github:`` source is
    fetched), to check init's guesses against: cached in ``$KEP_SYNC_CACHE_DIR``, else ``~/.cache/kep-sync``,
    as a sync caches them. Raises :class:`KepSyncError` when the source cannot be read."""
    from bot.sources.enhancements import load_snapshot

    cache = Path(os.environ.get("KEP_SYNC_CACHE_DIR") or "~/.cache/kep-sync").expanduser()
    return load_snapshot(enhancements, cache, token=os.environ.get("GITHUB_TOKEN") or None)


def init_config(
    output: str,
    *,
    wiki: str | None,
    pages: Sequence[str],
    enhancements: str | None,
    cwd: Path,
    program: str = "kep-sync",
) -> Written:
    """Scan the wiki, write the config to ``output`` (never over an existing file) and return what was done.

    With ``enhancements`` the KEPs are read (:func:`load_upstream`) and a KEP column's cells must name KEPs
    that exist. Paths are written relative to ``output``'s directory (:func:`path_setting`). The config is
    validated before it is written, as ``kep-sync validate`` does (the settings, then the offline checks of
    :mod:`bot.commands.validate`), and every configured page is read again as a sync would read it
    (:func:`misread`); the next command names ``program`` (:func:`invoked_as`). Raises
    :class:`KepSyncError` when standard output is closed (nothing is written) or the source cannot be read,
    :class:`UsageError` when ``output`` exists, the wiki or a page is missing or no page holds a KEP table;
    :class:`ConfigError` with every problem when the config would not validate (nothing is written then).
    """
    from bot.commands.validate import offline_problems
    from bot.config import collect_config
    from bot.configpaths import anchor_paths
    from bot.configyaml import load_config_yaml

    if not output.strip():
        raise UsageError("--output '': empty; name the config file to write")
    if sys.stdout is None:  # checked before the file is written: init prints what it wrote
        raise KepSyncError("cannot write the summary to standard output: it is closed")
    if os.path.lexists(output):
        raise UsageError(
            f"{output}: exists; kep-sync init never overwrites a config (remove it, or write "
            "another with --output PATH)"
        )
    root, names = page_argument(pages, wiki)
    upstream = load_upstream(enhancements) if enhancements else None
    scan = scan_pages(root, names, upstream, named=bool(pages))
    if not scan.tables:
        raise no_tables_error(wiki if wiki is not None else ", ".join(pages), scan)
    source = path_setting(enhancements, output) if enhancements else None
    text = config_text(config_data(path_setting(str(root), output), scan.tables, source), scan.looked)
    try:
        data = anchor_paths(load_config_yaml(text), output)
    except ValueError as exc:  # ConfigYamlError: a name init could not write as YAML
        raise ConfigError(f"the config kep-sync init would write does not read back: {escaped(str(exc))}") from None
    checked = collect_config(data, output)
    problems = checked.errors + (
        [f"{output}: {p}" for p in offline_problems(checked.config, checked.dropped)]
        if checked.config is not None
        else []
    )
    if problems or checked.config is None:
        raise ConfigError("\n".join(["the config kep-sync init would write does not validate:"] + problems))
    _write_new(Path(output), text)
    return Written(
        output,
        text,
        scan.tables,
        scan.skipped,
        next_command(output, enhancements, example_snapshot(cwd), program),
        scan.looked,
        misread(scan.looked, checked.config.aliases()),
    )


def _write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``; raises :class:`UsageError` when it exists, its directory is a file or it
    cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"{path}: cannot write: {path.parent} is not a directory") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot create its directory: {exc.strerror or exc}") from None
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise UsageError(f"{path}: exists; kep-sync init never overwrites a config") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


def summary_lines(done: Written) -> list[str]:
    """What init prints: every table looked at (each KEP table with its rows left as is and its columns, each
    table left with why), the guesses, what to check, the pages skipped, the ``renames`` choices
    (:data:`RENAMES_LINE`), the next command."""
    lines = [
        f"Wrote {done.path}: {len({t.page for t in done.tables})} page(s), {len(done.tables)} KEP table(s), "
        f"{sum(t.rows for t in done.tables)} KEP rows{_left_out(done.tables)}."
    ]
    lines += [line for table in done.looked or done.tables for line in describe(table)]
    guesses = [
        f"{c.text!r} -> columns.{c.role}" for t in done.tables for c in t.columns or () if c.how in ("guessed", "cells")
    ]
    if guesses:
        lines.append("Guessed (check them in the config): " + "; ".join(dict.fromkeys(guesses)))
    lines += [f"Check: {line}" for line in done.checks]
    if done.skipped:
        more = f" and {len(done.skipped) - 10} more" if len(done.skipped) > 10 else ""
        lines.append(
            "Pages without a KEP table, left out: " + ", ".join(f"{p} ({why})" for p, why in done.skipped[:10]) + more
        )
    lines.append(RENAMES_LINE)
    return [escaped(line) for line in lines] + [""] + done.next


#: What init says about rows naming a KEP directory upstream renamed (the ``renames`` setting).
RENAMES_LINE = (
    "A row naming a KEP directory upstream renamed is left as is (renames: report); renames: owned-cells syncs "
    "its status, stage and milestone cells and keeps its KEP cell as written, renames: apply rewrites the KEP "
    "cell too."
)


def _left_out(tables: Sequence[FoundTable]) -> str:
    """``"; 2 rows left as is and 1 short row (listed below)"`` for the summary line, else ``""``."""
    left, short = sum(len(t.kep.left) for t in tables), sum(len(t.kep.short) for t in tables)
    parts = [f"{left} row{'s' if left != 1 else ''} left as is"] if left else []
    if short:
        parts.append(f"{short} row{'s' if short != 1 else ''} with fewer cells than the header")
    return f"; {' and '.join(parts)} (listed below)" if parts else ""
