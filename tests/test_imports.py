"""The pipeline runs one way: no import cycles in ``bot/`` (every import counts, also inside functions and
``TYPE_CHECKING`` blocks), no stage imports a later one (:data:`STAGES`), no module imports another's private names,
and the pure stages (model, wiki, plan) import no I/O. In ``tests/``, no module imports a test module."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
TESTS = Path(__file__).resolve().parent


def module_name(path: Path, root: Path = BOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of the module at ``path``, parsed once a run (every check here walks all of ``bot/``)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def import_graph(root: Path = BOT) -> dict[str, set[str]]:
    """``{module: {bot modules it imports}}`` from the source text of every ``*.py`` under ``root``, worked out
    once a run (four checks ask for it; none changes it).

    ``from P import N`` counts as an import of ``P`` and, when ``P.N`` is a module, of ``P.N``;
    relative imports are resolved against the importing module's package.
    """
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(parsed(path)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            graph[name] |= {t for t in targets if t in files and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_bot_has_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_function_level_cycle(tmp_path):
    pkg = tmp_path / "bot"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from bot.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import x\n")
    (pkg / "c.py").write_text("import bot.a\n")
    (pkg / "d.py").write_text("from bot import c\n")
    graph = import_graph(pkg)
    assert graph["bot.sub.b"] == {"bot.c"} and graph["bot.d"] == {"bot", "bot.c"}
    assert cycles(graph) == [["bot.a", "bot.c", "bot.sub.b"]]


# The pipeline, left to right: a module imports only its own stage and stages to its left.
# The model is the vocabulary every stage shares (a source parses kep.yaml into it); the config is
# read by the commands and the service, which hand each stage the values it needs.
STAGES = (
    (
        "plumbing",
        (
            "bot",
            "bot.errors",
            "bot.redact",
            "bot.terminal",
            "bot.http",
            "bot.log",
            "bot.cron",
            "bot.progress",
            "bot.fileread",
        ),
    ),
    ("model", ("bot.model",)),
    ("sources", ("bot.sources",)),
    ("wiki", ("bot.wiki",)),
    ("plan", ("bot.plan",)),
    ("publish", ("bot.publish",)),
    ("config", ("bot.config", "bot.configyaml", "bot.configpaths")),
    ("commands", ("bot.commands",)),
    ("service", ("bot.service",)),
    ("cli", ("bot.cli", "bot.step_summary")),
)
PURE = ("model", "wiki", "plan")
IO_MODULES = {
    "subprocess",
    "socket",
    "httpx",
    "github",
    "urllib.request",
    "shutil",
    "tempfile",
    "fcntl",
    "apscheduler",
    "signal",
    "threading",
}


def stage_of(module: str) -> int:
    """Index in :data:`STAGES` of ``module`` (the longest package prefix that names it)."""
    best = max(
        (
            (len(prefix), i)
            for i, (_, prefixes) in enumerate(STAGES)
            for prefix in prefixes
            if module == prefix or (module.startswith(prefix + ".") and prefix != "bot")
        ),
        default=None,
    )
    if best is None:
        raise AssertionError(f"{module} is in no stage: add its package to STAGES")
    return best[1]


def test_every_module_belongs_to_a_stage():
    graph = import_graph()
    assert sorted(m for m in graph if m != "bot" and stage_of(m) == 0) == [
        "bot.cron",
        "bot.errors",
        "bot.fileread",
        "bot.http",
        "bot.log",
        "bot.progress",
        "bot.redact",
        "bot.terminal",
    ]


def test_no_stage_imports_a_later_one():
    graph = import_graph()
    backwards = sorted((src, dst) for src, deps in graph.items() for dst in deps if stage_of(dst) > stage_of(src))
    assert backwards == []


def test_the_stage_check_catches_a_backward_import(tmp_path):
    pkg = tmp_path / "bot"
    (pkg / "plan").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "plan" / "__init__.py").write_text("")
    (pkg / "config.py").write_text("")
    (pkg / "plan" / "diff.py").write_text("from bot.config import Config\n")
    graph = import_graph(pkg)
    assert [(s, d) for s, deps in graph.items() for d in deps if stage_of(d) > stage_of(s)] == [
        ("bot.plan.diff", "bot.config")
    ]


def private_imports(root: Path = BOT) -> list[str]:
    """``["importer: module.name"]`` for every ``from bot... import _name`` under ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bot"):
                found += [
                    f"{module_name(path, root)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    return found


def test_no_module_imports_another_modules_private_names():
    assert private_imports() == []


def test_the_private_name_check_finds_one(tmp_path):
    pkg = tmp_path / "bot"
    pkg.mkdir()
    (pkg / "a.py").write_text("from bot.b import _hidden, public\n")
    assert private_imports(pkg) == ["bot.a: bot.b._hidden"]


def test_pure_stages_import_no_io():
    found = []
    for path in sorted(BOT.rglob("*.py")):
        name = module_name(path)
        if STAGES[stage_of(name)][0] not in PURE:
            continue
        for node in ast.walk(parsed(path)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [f"{name}: {n}" for n in names if n.split(".")[0] in IO_MODULES or n in IO_MODULES]
    assert found == []


def test_neither_http_nor_log_imports_the_other_both_import_redaction():
    graph = import_graph()
    assert ("bot.log" in graph["bot.http"], "bot.http" in graph["bot.log"]) == (False, False)
    assert {"bot.redact"} <= graph["bot.http"] & graph["bot.log"]


def imports_of_test_modules(root: Path = TESTS) -> list[str]:
    """``["path:line: module"]``, by path then line, for every import of a test module in a ``*.py`` under ``root``
    (path relative to ``root``'s parent): of a module with a ``test_*`` part in its name (``from tests.plan.test_gates
    import LIST``, ``import tests.plan.test_gates``, ``from .test_gates import LIST``) or of a ``test_*`` name from a
    module (``from tests.plan import test_gates``). pytest collects a test module under its own name, so importing
    it loads it a second time, and a ``test_*`` function imported into a module is collected there again: what
    two test modules share belongs in a helper module next to them or, for a fixture, in their conftest.py."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rows: list[tuple[int, str]] = []
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                rows += [(node.lineno, a.name) for a in node.names if names_a_test_module(a.name)]
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                if names_a_test_module(module):
                    rows.append((node.lineno, module))
                else:
                    package = module if module.endswith(".") else module + "."
                    rows += [(node.lineno, package + a.name) for a in node.names if names_a_test_module(a.name)]
        found += [f"{path.relative_to(root.parent).as_posix()}:{line}: {name}" for line, name in sorted(rows)]
    return found


def names_a_test_module(name: str) -> bool:
    """Whether a dotted module name (relative ones start with dots) has a part ``test_*``."""
    return any(part.startswith("test_") for part in name.split("."))


def test_no_module_under_tests_imports_a_test_module():
    assert imports_of_test_modules() == []


def test_the_test_module_import_check_finds_each_form(tmp_path):
    tests = tmp_path / "tests"
    (tests / "plan").mkdir(parents=True)
    (tests / "plan" / "test_a.py").write_text(
        "from tests.plan.gatecases import LIST\n"
        "from tests.plan.test_gates import LIST as GATES\n"
        "import os, tests.plan.test_gates\n"
        "from tests.plan import gatecases, test_gates\n"
        "def f():\n"
        "    from .test_gates import PAGE\n"
        "from . import test_b\n"
    )
    (tests / "plan" / "gatecases.py").write_text("import tests.plan.test_gates as g\nfrom tests.test_x.util import y\n")
    (tests / "conftest.py").write_text("from plan.gatecases import LIST\nfrom bot.testing import attest_this\n")
    assert imports_of_test_modules(tests) == [
        "tests/plan/gatecases.py:1: tests.plan.test_gates",
        "tests/plan/gatecases.py:2: tests.test_x.util",
        "tests/plan/test_a.py:2: tests.plan.test_gates",
        "tests/plan/test_a.py:3: tests.plan.test_gates",
        "tests/plan/test_a.py:4: tests.plan.test_gates",
        "tests/plan/test_a.py:6: .test_gates",
        "tests/plan/test_a.py:7: .test_b",
    ]


#: Readers a run reaches only through :class:`bot.commands.inputs.Inputs`, so each source is read once per run.
RUN_READERS = {
    "bot.sources.release_notes": {"load_release_notes"},
    "bot.sources.gate_head": {"newest_gate_list"},
    "bot.sources.history": {"read_history"},
}


def test_a_run_reads_the_release_notes_gate_list_and_history_only_through_inputs():
    files = {module_name(p, BOT): p for p in sorted(BOT.rglob("*.py"))}
    found = []
    for name, path in files.items():
        if name == "bot.commands.inputs" or name.startswith("bot.sources"):
            continue
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and node.module in RUN_READERS:
                found += [f"{name}: {a.name}" for a in node.names if a.name in RUN_READERS[node.module]]
    assert found == []
