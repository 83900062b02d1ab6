"""``kep-sync init``: a first config for one's own wiki, written from the KEP tables found on its pages.

Reads markdown pages (every ``*.md`` under a wiki directory, or the pages named), finds each table with a
KEP column (:func:`bot.wiki.matrix.column_keys` with the default header aliases of
:mod:`bot.wiki.headers`), gives its other columns roles, and writes a config naming those pages and the
column aliases they need. A header the defaults do not know is given a role only when it plainly names
one (:func:`guess_role`): ``里程碑 (Alpha / Beta / GA)`` -> ``milestones``, ``GA release`` -> ``stable``;
every such guess is listed, in the output and in the file. Offline: no network is asked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import yaml

from bot.errors import ConfigError, KepSyncError, UsageError
from bot.fileread import PAGE_BYTES, read_regular_text
from bot.wiki.frontmatter import block_end
from bot.wiki.headers import DEFAULT_ALIASES
from bot.wiki.matrix import OWNED_ROLES, column_keys, lookalike_column, normalize_header, parse_kep_cell
from bot.wiki.sections import find_headings, heading_above
from bot.wiki.tables import find_tables, split_row

#: Most pages read under one wiki directory; a larger tree is refused (name the pages with ``--page``).
MAX_PAGES = 2000
#: Words around a role's name in a header that do not change its meaning (``GA release``, ``Beta milestone``).
FILLER_WORDS = frozenset(
    {
        "release",
        "releases",
        "milestone",
        "milestones",
        "version",
        "versions",
        "target",
        "targeted",
        "since",
        "in",
        "k8s",
        "kubernetes",
    }
)
#: Roles :func:`guess_role` may give a header (never ``kep``: that column is found by its cells).
GUESSED_ROLES = OWNED_ROLES + ("feature_gates",)


class Column(NamedTuple):
    """One header cell of a KEP table: its ``text``, its ``role`` (``""``: not synced) and whether the
    role was ``guessed`` (not one of the default aliases)."""

    text: str
    role: str
    guessed: bool


class FoundTable(NamedTuple):
    """A KEP table: ``page`` (relative to the wiki), 1-based header ``line``, the ``heading`` above it,
    its ``columns`` and how many body ``rows`` name a KEP."""

    page: str
    line: int
    heading: str
    columns: tuple[Column, ...]
    rows: int


class Scan(NamedTuple):
    """What :func:`scan_pages` found: the KEP ``tables``, the pages read that hold none (``skipped``,
    ``(page, why)``)."""

    tables: list[FoundTable]
    skipped: list[tuple[str, str]]


def guess_role(header: str, aliases: Mapping[str, Sequence[str]] = DEFAULT_ALIASES) -> str:
    """The role a header that no alias names plainly has, else ``""``: its parenthesised part or last words
    are an alias of an owned role (:func:`bot.wiki.matrix.lookalike_column`: ``里程碑 (Alpha / Beta / GA)``),
    or it is such an alias with :data:`FILLER_WORDS` around it (``GA release``, ``Alpha milestone``)."""
    like = lookalike_column(header, aliases)
    if like:
        return like[0]
    words = [w for w in normalize_header(header).split(" ") if w not in FILLER_WORDS]
    bare = " ".join(words)
    for role in GUESSED_ROLES:
        if bare and any(normalize_header(a) == bare for a in aliases.get(role, ())):
            return role
    return ""


def table_columns(header: Sequence[str], body: Sequence[Sequence[str]]) -> tuple[Column, ...] | None:
    """The columns of a table with header texts ``header`` and body rows ``body`` (cell texts), or ``None``
    when it is no KEP table. The KEP column is the one a default alias names, else the first column whose
    every non-blank body cell is a KEP cell (:func:`bot.wiki.matrix.parse_kep_cell`; at least two rows),
    its header then guessed. A role already held by a column of this table is not guessed again."""
    known = {index: key.split("#")[0] for key, index in column_keys(header, DEFAULT_ALIASES).items()}
    guessed: dict[int, str] = {}
    if "kep" not in known.values():
        kep = next(
            (i for i in range(len(header)) if i not in known and _all_keps([r[i] for r in body if i < len(r)])), None
        )
        if kep is None:
            return None
        guessed[kep] = "kep"
    taken = set(known.values()) | set(guessed.values())
    for index, text in enumerate(header):
        role = "" if index in known or index in guessed else guess_role(text)
        if role and role not in taken:
            guessed[index] = role
            taken.add(role)
    return tuple(Column(text, known.get(i) or guessed.get(i, ""), i in guessed) for i, text in enumerate(header))


def _all_keps(cells: Sequence[str]) -> bool:
    filled = [c for c in cells if c.strip()]
    return len(filled) >= 2 and all(parse_kep_cell(c) is not None for c in filled)


def page_tables(page: str, text: str) -> list[FoundTable]:
    """The KEP tables of one page (``text`` decoded), in page order."""
    lines = text.split("\n")
    end = block_end(lines)
    headings = [h for h in find_headings(text) if end is None or h.line > end]  # not the front matter's lines
    found = []
    for table in find_tables(text):
        header = [c.text for c in split_row(lines[table.header])]
        body = [[c.text for c in split_row(lines[i])] for i in table.body]
        columns = table_columns(header, body)
        if columns is None:
            continue
        kep = next(i for i, c in enumerate(columns) if c.role == "kep")
        rows = sum(kep < len(r) and parse_kep_cell(r[kep]) is not None for r in body)
        found.append(FoundTable(page, table.header + 1, heading_above(headings, table.header), columns, rows))
    return found


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


def scan_pages(wiki: Path, pages: Iterable[str]) -> Scan:
    """The KEP tables of ``pages`` (relative to ``wiki``); a page that cannot be read or holds no KEP table is
    ``skipped`` with why. Raises :class:`UsageError` for a page named that does not exist."""
    tables: list[FoundTable] = []
    skipped: list[tuple[str, str]] = []
    for page in pages:
        try:
            text = read_regular_text(wiki / page, PAGE_BYTES)
        except FileNotFoundError:
            raise UsageError(f"--page {page!r}: no such file (relative to {os.path.abspath(wiki)})") from None
        except (OSError, UnicodeDecodeError) as exc:
            skipped.append((page, f"cannot be read: {getattr(exc, 'strerror', None) or exc}"))
            continue
        found = page_tables(page, text.removeprefix("\ufeff"))
        tables += found
        if not found:
            skipped.append((page, "no KEP table"))
    return Scan(tables, skipped)


def column_aliases(tables: Iterable[FoundTable]) -> dict[str, list[str]]:
    """``columns`` for the config: for each role given to a header the defaults do not name, the default
    aliases plus those headers (as written), in role order; roles without a guess are left out (the
    defaults apply)."""
    extra: dict[str, list[str]] = {}
    for table in tables:
        for column in table.columns:
            if column.guessed and column.text not in extra.setdefault(column.role, []):
                extra[column.role].append(column.text)
    return {role: list(DEFAULT_ALIASES[role]) + extra[role] for role in DEFAULT_ALIASES if extra.get(role)}


def wiki_setting(wiki: Path, cwd: Path) -> str:
    """``wiki.dir`` as the config says it: relative to ``cwd`` (where relative paths of a config are read
    from) when ``wiki`` lies under it, else absolute."""
    absolute = Path(os.path.abspath(wiki))
    try:
        rel = absolute.relative_to(os.path.abspath(cwd))
    except ValueError:
        return str(absolute)
    return str(rel) if str(rel) != "." else "."


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


def config_text(data: dict, tables: Sequence[FoundTable], cwd: Path) -> str:
    """The config file: a comment header (where relative paths are read from, each KEP table found and
    every guessed column), then ``data`` as YAML."""
    head = [
        "# kep-sync configuration written by `kep-sync init`; every key: docs/configuration.md in kep-sync.",
        f"# Relative paths are read from the working directory kep-sync runs in; init ran in {escaped(str(cwd))}.",
        "# KEP tables found:",
    ]
    head += [f"#   {escaped(line)}" for table in tables for line in describe(table)]
    body = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return "\n".join(head) + "\n" + body


def escaped(text: str) -> str:
    """``text`` with every character that is not printable (a line break, a control character) written as
    its Python escape (``\\n``, ``\\x1b``), so it stays on one line of a comment or of the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def describe(table: FoundTable) -> list[str]:
    """Lines naming one table and its columns: ``page line N (under "Heading"): R rows`` then
    ``'Header' -> role`` (``(guessed)`` when no default alias names it; ``not synced`` without a role)."""
    where = f"{table.page} line {table.line}" + (f" (under {table.heading!r})" if table.heading else "")
    out = [f"{where}: {table.rows} KEP row{'s' if table.rows != 1 else ''}"]
    for c in table.columns:
        role = f"{c.role}{' (guessed)' if c.guessed else ''}" if c.role else "not synced"
        out.append(f"  {c.text!r} -> {role}")
    return out


def no_tables_error(where: str, scan: Scan) -> UsageError:
    """The error when no page read holds a KEP table: which pages were read and what a KEP table is."""
    names = " or ".join(repr(a) for a in DEFAULT_ALIASES["kep"])
    read = ", ".join(f"{p} ({why})" for p, why in scan.skipped[:5]) + (" ..." if len(scan.skipped) > 5 else "")
    return UsageError(
        f"{where}: no KEP table found in {len(scan.skipped)} page(s) read"
        f"{': ' + read if read else ''}; a KEP table is a markdown table with a column named {names} "
        "or whose cells are KEPs (4671-gang-scheduling, KEP-4671)"
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
    """What :func:`init_config` did: the config ``path`` written, its ``text``, the ``tables`` found,
    the pages ``skipped`` (``(page, why)``) and the ``next`` lines to print."""

    path: str
    text: str
    tables: list[FoundTable]
    skipped: list[tuple[str, str]]
    next: list[str]


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

    The config is validated before it is written, as ``kep-sync validate`` does (the settings, then the
    offline checks of :mod:`bot.commands.validate` with paths read from ``cwd``); the next command names
    ``program`` (:func:`invoked_as`). Raises :class:`KepSyncError` when standard output is closed (nothing is
    written), :class:`UsageError` when
    ``output`` exists, the wiki or a page is missing or no page holds a KEP table; :class:`ConfigError`
    with every problem when the config would not validate (nothing is written then).
    """
    from bot.commands.validate import offline_problems
    from bot.config import collect_config
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
    scan = scan_pages(root, names)
    if not scan.tables:
        raise no_tables_error(wiki if wiki is not None else ", ".join(pages), scan)
    text = config_text(config_data(wiki_setting(root, cwd), scan.tables, enhancements), scan.tables, cwd)
    try:
        data = load_config_yaml(text)
    except ValueError as exc:  # ConfigYamlError: a name init could not write as YAML
        raise ConfigError(f"the config kep-sync init would write does not read back: {escaped(str(exc))}") from None
    checked = collect_config(data, output)
    problems = checked.errors + (
        [f"{output}: {p}" for p in offline_problems(checked.config, checked.dropped)]
        if checked.config is not None
        else []
    )
    if problems:
        raise ConfigError("\n".join(["the config kep-sync init would write does not validate:"] + problems))
    _write_new(Path(output), text)
    return Written(
        output, text, scan.tables, scan.skipped, next_command(output, enhancements, example_snapshot(cwd), program)
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
    """What init prints: each KEP table and its columns, the guesses, the pages skipped, the next command."""
    lines = [
        f"Wrote {done.path}: {len({t.page for t in done.tables})} page(s), {len(done.tables)} KEP table(s), "
        f"{sum(t.rows for t in done.tables)} KEP rows."
    ]
    lines += [line for table in done.tables for line in describe(table)]
    guesses = [f"{c.text!r} -> columns.{c.role}" for t in done.tables for c in t.columns if c.guessed]
    if guesses:
        lines.append("Guessed (check them in the config): " + "; ".join(dict.fromkeys(guesses)))
    if done.skipped:
        more = f" and {len(done.skipped) - 10} more" if len(done.skipped) > 10 else ""
        lines.append(
            "Pages without a KEP table, left out: " + ", ".join(f"{p} ({why})" for p, why in done.skipped[:10]) + more
        )
    return [escaped(line) for line in lines] + [""] + done.next
