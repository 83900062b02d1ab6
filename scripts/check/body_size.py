"""How much a reviewer reads first: the visible text of the pull request body outside collapsed ``<details>``.

    .venv/bin/python scripts/check/body_size.py [--bundle FILE] [--page FILE] [--notes DIR] [--gates FILE] [--code DIR]

Clones the bundle (not timed), plans a sync of ``--page`` (default: the stale 2026-03-01 page) at the bundle's
HEAD as a pull request on a GitHub wiki (``publish: github``, ``wiki.repo: acme/wiki``, so page lines are links)
with upstream provenance, the release notes (``--notes``, ``""`` for none) and the gate list (``--gates``,
``""`` for none), and prints one line of figures:

- ``visible_chars`` / ``visible_words``: the body with every ``<details>`` block collapsed (the lines outside
  the blocks plus each block's summary), rendered as CommonMark with tables; link targets, tags and markup
  are not seen; every run of white space counts as one space (a reading of its own, from markdown-it-py's
  tokens: nothing of ``bot/`` measures itself);
- ``visible_lines``: the source lines a reader sees (the same collapsing);
- ``gate_list_named``: how often the body names the gate list (its file name);
- ``body_chars``: the whole body.

``--code DIR`` measures another checkout of kep-sync (``git archive b26b635 | tar -x -C DIR``): its ``bot``
package is imported instead of this one, so the figure before a change comes from the same script.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import subprocess
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


def collapsed(body: str) -> list[str]:
    """The lines of ``body`` a reader sees with every ``<details>`` block closed: the lines outside the blocks,
    and of each block its ``<summary>`` text alone."""
    seen, depth = [], 0
    for line in body.split("\n"):
        if line.startswith("<details>"):
            if depth == 0:
                seen.append(line.removeprefix("<details><summary>").split("</summary>")[0])
            depth += 1
            continue
        if line.strip() == "</details>":
            depth -= 1
            continue
        if depth == 0:
            seen.append(line)
    return seen


def seen_text(markdown: str) -> str:
    """The text of ``markdown`` a reader sees: the content of the inline tokens (text and code spans, not
    link targets), a space between blocks, cells and ``<br>``; runs of white space as one space."""
    parts: list[str] = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak") or (child.type == "html_inline" and "br" in child.content):
                parts.append(" ")
        parts.append(" ")
    return " ".join("".join(parts).split())


def measure(body: str, gate_list: str) -> dict[str, int]:
    """The figures of one body (see the module docstring)."""
    lines = collapsed(body)
    text = seen_text("\n".join(lines))
    return {
        "visible_chars": len(text),
        "visible_words": len(text.split()),
        "visible_lines": len(lines) - (body.endswith("\n")),
        "gate_list_named": body.count(Path(gate_list).name) if gate_list else 0,
        "body_chars": len(body),
    }


def plan_body(code: str, clone: Path, cache: Path, page: Path, notes: str, gates: str) -> str:
    """The pull request body of ``page`` planned by the ``bot`` package found first on ``sys.path``."""
    if code:
        sys.path.insert(0, str(Path(code).resolve()))
    config_mod = importlib.import_module("bot.config")
    sync_mod = importlib.import_module("bot.commands.sync")
    planner = importlib.import_module("bot.plan.planner")
    snapshot = importlib.import_module("bot.sources.enhancements").load_snapshot(str(clone), cache)
    config = config_mod.Config.model_validate(
        {
            "enhancements": str(clone),
            "cache_dir": str(cache),
            "publish": "github",
            "wiki": {"repo": "acme/wiki", "pages": ["kubernetes-keps-implementation-matrix.md"]},
        }
    )
    extra = {}
    if notes:
        load_notes = importlib.import_module("bot.sources.release_notes").load_release_notes
        extra["release_notes"] = lambda wanted: load_notes(notes, cache, wanted)
    if gates:
        load_gates = importlib.import_module("bot.sources.gate_lifecycle").load_gate_lifecycle
        extra["gates"] = lambda wanted: load_gates(gates, cache, wanted)
    try:  # the run's inputs; an older tree has the loaders in bot.commands.sync
        inputs = importlib.import_module("bot.commands.inputs").Inputs(config, snapshot=snapshot)
        history, origins = inputs.provenance, inputs.gate_origins
    except ModuleNotFoundError:
        history = lambda: sync_mod.history_loader(config, snapshot)  # noqa: E731
        origins = lambda: sync_mod.gate_history_loader(config, snapshot)  # noqa: E731
    if (notes or gates) and "gate_history" in inspect.signature(planner.plan_sync).parameters:
        extra["gate_history"] = origins()
    plan = planner.plan_sync(
        config,
        snapshot,
        {"kubernetes-keps-implementation-matrix.md": page.read_bytes()},
        history=history()[0],
        page_url=planner.page_url(config, "b" * 40),
        **extra,
    )
    return plan.changelog.body


def main() -> int:
    """Print the figures of one body."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", default=str(SHARED / "data" / "enhancements-keps.bundle"))
    parser.add_argument("--page", default=str(SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"))
    parser.add_argument("--notes", default=str(SHARED / "data" / "release-notes"))
    parser.add_argument(
        "--gates", default=str(SHARED / "data" / "feature-gates" / "versioned_feature_list.openshift-0b0e324c.yaml")
    )
    parser.add_argument("--code", default="", help="a kep-sync checkout whose bot package to measure")
    parser.add_argument("--body", default="", help="also write the body to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "enh"
        subprocess.run(["git", "-c", "init.defaultBranch=master", "clone", "-q", args.bundle, str(clone)], check=True)
        body = plan_body(args.code, clone, Path(tmp) / "cache", Path(args.page), args.notes, args.gates)
    if args.body:
        Path(args.body).write_text(body, encoding="utf-8")
    print(" ".join(f"{k}={v}" for k, v in measure(body, args.gates).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
