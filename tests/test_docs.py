"""README.md and docs/ stay usable: every relative link resolves to a file (and a heading, when it names
one), the README stays short, prose lines stay readable in a terminal, and docs/configuration.md is what
scripts/gen/gen_config_reference.py generates from bot/config/."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MAX_README_LINES = 160
MAX_PROSE = 120


def prose_lines(text: str) -> list[tuple[int, str]]:
    """``[(line number, line)]`` outside fenced and indented code blocks."""
    found, fence = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence and not line.startswith("    "):
            found.append((number, line))
    return found


def anchors(text: str) -> set[str]:
    """GitHub's anchors for the headings of a markdown text: lower case, punctuation but ``-`` and ``_`` dropped,
    spaces as ``-``; a repeated heading gets ``-1``, ``-2``."""
    seen: dict[str, int] = {}
    for _, line in prose_lines(text):
        match = re.match(r"#{1,6} (.*)", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, -1) + 1
            if seen[slug]:
                seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


def broken_links(path: Path) -> list[str]:
    """``["FILE:LINE: TARGET"]`` for each relative link in ``path`` whose file (or heading) does not exist."""
    broken = []
    text = path.read_text(encoding="utf-8")
    for number, line in prose_lines(text):
        for target in LINK.findall(re.sub(r"`+[^`]*`+", "", line)):  # not inside code spans
            if re.match(r"[a-z]+:", target):
                continue
            name, _, fragment = target.partition("#")
            file = (path.parent / name).resolve() if name else path
            if not file.exists():
                broken.append(f"{path.name}:{number}: {target}")
            elif fragment and file.suffix == ".md" and fragment not in anchors(file.read_text(encoding="utf-8")):
                broken.append(f"{path.name}:{number}: {target} (no such heading)")
    return broken


def test_every_relative_link_resolves():
    assert [b for path in DOCS for b in broken_links(path)] == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Top\n\n## Two words\n\n"
        "see [b](b.md), [ok](#two-words), [x](#nope), `[c](c.md)`,\n"
        "[web](https://example.com)\n\n    [code](c.md)\n",
        encoding="utf-8",
    )
    assert broken_links(tmp_path / "a.md") == ["a.md:5: b.md", "a.md:5: #nope (no such heading)"]


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= MAX_README_LINES


def test_prose_lines_are_at_most_120_characters():
    long = [
        f"{path.name}:{n}"
        for path in DOCS
        for n, line in prose_lines(path.read_text(encoding="utf-8"))
        if len(line) > MAX_PROSE and not line.lstrip("> ").startswith("|")
    ]
    assert long == []


def _reference():
    """``scripts/gen/gen_config_reference.py`` imported as a module."""
    script = ROOT / "scripts" / "gen" / "gen_config_reference.py"
    spec = importlib.util.spec_from_file_location("gen_config_reference", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configuration_reference_is_generated_from_the_models():
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == _reference().render(), "docs/configuration.md is stale: run scripts/gen/gen_config_reference.py"


def test_every_config_field_has_a_description():
    from pydantic import BaseModel

    from bot.config import Config

    description = _reference().description

    def missing(model: type[BaseModel], key: str) -> list[str]:
        found = []
        for name, field in model.model_fields.items():
            if not description(model, name):
                found.append(f"{key}{name}")
            for sub in (field.annotation, *getattr(field.annotation, "__args__", ())):
                for inner in (sub, *getattr(sub, "__args__", ())):
                    if isinstance(inner, type) and issubclass(inner, BaseModel):
                        found += missing(inner, f"{key}{name}.")
        return found

    assert sorted(set(missing(Config, ""))) == []
