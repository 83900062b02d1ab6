"""A hand-written feature-gate list, a matrix page with a Shipped column, and a config that reads the list: the
gate-lifecycle tests (tests/plan/test_gates.py) and the signs of the pull request body
(tests/plan/test_changelog_signals.py).

    config, list_file = gates_config(tmp_path, promote_when="released")
    plan = plan_sync(config, snap, {"p.md": PAGE.encode()}, gates=load_gate_lifecycle(str(list_file), tmp_path))
"""

from __future__ import annotations

from pathlib import Path

from bot.config import Config, validate_config

#: A ``versioned_feature_list.yaml`` (Kubernetes' form) whose newest version is 1.36: Alpha1 alpha in 1.33, beta
#: in 1.35; Old GA in 1.0, deprecated and locked to its default in 1.34; Locked beta in 1.30, GA in 1.33, locked
#: in 1.34; Later alpha in 1.36.
LIST = b"""# generated
- name: Alpha1
  versionedSpecs:
  - default: false
    lockToDefault: false
    preRelease: Alpha
    version: "1.33"
  - default: true
    lockToDefault: false
    preRelease: Beta
    version: "1.35"
- name: Old
  versionedSpecs:
  - default: true
    lockToDefault: false
    preRelease: GA
    version: "1.0"
  - default: true
    lockToDefault: true
    preRelease: Deprecated
    version: "1.34"
- name: Locked
  versionedSpecs:
  - default: false
    lockToDefault: false
    preRelease: Beta
    version: "1.30"
  - default: true
    lockToDefault: false
    preRelease: GA
    version: "1.33"
  - default: true
    lockToDefault: true
    preRelease: GA
    version: "1.34"
- name: Later
  versionedSpecs:
  - default: false
    lockToDefault: false
    preRelease: Alpha
    version: "1.36"
"""

#: A matrix page with a Shipped column: KEP 100 at alpha since v1.33 (Shipped ``old text``), KEP 700 at alpha
#: since v1.35.
PAGE = """# Matrix

| KEP | Status | Alpha / Beta / GA | Shipped |
|---|---|---|---|
| 100-live | implementable / alpha | v1.33 / - / - | old text |
| 700-notyet | implementable / alpha | v1.35 / - / - | - |
"""


def gates_config(tmp_path: Path, **gates) -> tuple[Config, Path]:
    """``(config, list file)``: :data:`LIST` written to ``tmp_path/list.yaml`` and a config whose
    ``gate_lifecycle.source`` is that file; ``gates`` add to the ``gate_lifecycle`` section (``promote_when``,
    ``column``, ...)."""
    list_file = tmp_path / "list.yaml"
    list_file.write_bytes(LIST)
    return validate_config({"gate_lifecycle": {"source": str(list_file), **gates}}, "test"), list_file
