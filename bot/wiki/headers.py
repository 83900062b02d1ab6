"""Header aliases of the tables kep-sync finds on wiki pages: the matrix and the design-group coverage table.

A leaf module (no imports): :mod:`bot.config` gives them as defaults without loading the page parser.
Column headers are compared case-insensitively with spaces collapsed (:func:`bot.wiki.matrix.column_roles`).
"""

#: Header aliases per matrix column role (``columns`` in the config).
DEFAULT_ALIASES: dict[str, tuple[str, ...]] = {
    "kep": ("KEP",),
    "status": ("状态", "Status"),
    "stage": ("Stage",),
    "milestones": ("Alpha / Beta / GA", "Alpha / Beta / Stable"),
    "alpha": ("Alpha",),
    "beta": ("Beta",),
    "stable": ("GA", "Stable"),
    "feature_gates": ("Feature gate", "Feature gates"),
}
#: Headers people write for a role besides the defaults; ``kep-sync init`` gives a column with one of them its role
#: and writes the header into ``columns`` (a composite ``Status / Stage`` cell reads ``<status> / <stage>``).
RECOGNISED_ALIASES: dict[str, tuple[str, ...]] = {
    "status": ("Current status", "State", "KEP status", "Status / Stage"),
    "stage": ("Maturity", "Current stage"),
    "alpha": ("Alpha in",),
    "beta": ("Beta in",),
    "stable": ("GA in", "Stable in"),
}
#: Header aliases of the design-group table (``coverage.columns`` in the config).
DEFAULT_COVERAGE_ALIASES: dict[str, tuple[str, ...]] = {
    "group": ("设计组", "Design group", "Group"),
    "keps": ("代表 KEP", "Representative KEPs", "Representative KEP", "KEPs"),
}
