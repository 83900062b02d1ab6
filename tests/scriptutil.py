"""Helpers for the tests of ``scripts/``: the project root and a script imported as a module."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

#: The project root (the directory holding ``bot/``, ``scripts/`` and ``tests/``).
ROOT = Path(__file__).resolve().parents[1]


def load_script(path: Path) -> ModuleType:
    """``path`` (a ``scripts/GROUP/*.py`` file) imported as module ``script_<stem>``; its module-level code runs."""
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
