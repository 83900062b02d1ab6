"""Helpers for the tests of several deployments in one config (``targets:``, tests/commands/test_targets.py and
test_targets_runs.py): the config file's name, a one-row page, targets expanded from entries.

    a, b = expand_targets({"name": "a", "wiki": {"repo": "o/a"}}, {"name": "b", "wiki": {"repo": "o/b"}})
"""

from __future__ import annotations

from bot.commands.targets import Target, expand
from bot.config import validate_config

#: The name a config is validated and expanded under (problems name it).
SRC = "t.yaml"
#: A wiki page with one KEP table of one row: 4671 at alpha since v1.35.
ROW = "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n| 4671-gang | implementable / alpha | v1.35 / - / - |\n"


def expand_targets(*entries, **top) -> list[Target]:
    """``bot.commands.targets.expand`` of a config of the ``top`` settings and ``targets: entries``, read from
    :data:`SRC`; raises ``ConfigError`` as it does."""
    return expand(validate_config({**top, "targets": list(entries)}, SRC), SRC)
