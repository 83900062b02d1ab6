"""The pipeline runs one way: no import cycles in ``bot/`` (every import counts, also inside functions and
``TYPE_CHECKING`` blocks), only the entry points import the orchestrator, and pure stages do no I/O imports."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"


def module_name(path: Path, root: Path = BOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = BOT) -> dict[str, set[str]]:
    """``{module: {bot modules it imports}}`` from the source text of every ``*.py`` under ``root``.

    ``from P import N`` counts as an import of ``P`` and, when ``P.N`` is a module, of ``P.N``;
    relative imports are resolved against the importing module's package.
    """
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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


def test_only_the_entry_points_import_the_orchestrator():
    graph = import_graph()
    # bot.multi runs the syncs of many targets in one process
    assert sorted(m for m, deps in graph.items() if "bot.sync" in deps) == ["bot.cli", "bot.job", "bot.multi"]


def test_neither_http_nor_log_imports_the_other_both_import_redaction():
    graph = import_graph()
    assert ("bot.log" in graph["bot.http"], "bot.http" in graph["bot.log"]) == (False, False)
    assert {"bot.redact"} <= graph["bot.http"] & graph["bot.log"]


def test_pure_stages_reach_no_backend_publisher_or_orchestrator():
    graph = import_graph()
    pure = ["bot.model.kep", "bot.model.snapshot", "bot.model.consistency", "bot.model.lineage", "bot.model.yamlload", "bot.wiki.tables",
            "bot.wiki.matrix", "bot.diff", "bot.changelog", "bot.plan", "bot.audit", "bot.evidence", "bot.evidence.index", "bot.evidence.review", "bot.evidence.sentences",
            "bot.evidence.notes", "bot.model.gates", "bot.evidence.gates",
            "bot.wiki.sections", "bot.tracking", "bot.tracking.candidates", "bot.tracking.coverage",
            "bot.tracking.production", "bot.tracking.rows", "bot.tracking.render",
            "bot.history", "bot.history.log", "bot.history.fields", "bot.history.provenance", "bot.history.timeline",
            "bot.history.digest", "bot.history.renames"]
    io = {"bot.sync", "bot.http", "bot.sources.release_notes", "bot.sources.enhancements", "bot.sources.gate_lifecycle",
          "bot.wiki.backends", "bot.wiki.backends.directory", "bot.wiki.backends.git",
          "bot.wiki.backends.github", "bot.publish.auth", "bot.publish.files"}

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    assert {m: sorted(reach(m) & io) for m in pure} == {m: [] for m in pure}


def test_pure_stages_import_only_their_own_or_earlier_stages():
    stage = {"bot.wiki.backends": None, "bot.model": 1, "bot.wiki": 2, "bot.diff": 3, "bot.evidence": 3,
             "bot.changelog": 4, "bot.tracking": 4, "bot.plan": 5, "bot.audit": 6}  # the backends are I/O, not the page stage

    def stage_of(module: str) -> int | None:
        return next((n for prefix, n in stage.items() if module == prefix or module.startswith(prefix + ".")), None)

    graph = import_graph()
    backwards = sorted((src, dst) for src, deps in graph.items() for dst in deps
                       if stage_of(src) is not None and stage_of(dst) is not None and stage_of(dst) > stage_of(src))
    assert backwards == []
    assert sorted(m for m in graph if stage_of(m) == 1) == ["bot.model", "bot.model.consistency", "bot.model.gates",
                                                            "bot.model.kep", "bot.model.keylines",
                                                            "bot.model.lineage", "bot.model.snapshot",
                                                            "bot.model.yamlload"]
