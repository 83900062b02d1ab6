"""Small synthetic KEPs, snapshots and matrix pages for the wiki/diff/changelog/sync/CLI tests.

    snap = snapshot(kep(4671, "gang-scheduling", stage="beta", beta="v1.37"))
    page = PAGE  # a two-table matrix page (LF, front matter, CJK, escaped pipe)

Everything here is written by hand; nothing comes from ../shared.
"""

from __future__ import annotations

from pathlib import Path

from bot.model.snapshot import Snapshot, build_snapshot

__all__ = ["PAGE", "PAGE_KEPS", "PAGE_SYNCED", "REVISION", "kep", "kep_yaml", "snapshot", "tree", "write_keps"]

REVISION = "0123456789abcdef0123456789abcdef01234567"


def kep_yaml(
    number: int | str,
    slug: str,
    *,
    status: str = "implementable",
    stage: str = "alpha",
    alpha: str = "v1.35",
    beta: str = "",
    stable: str = "",
    gates: tuple[str, ...] = (),
    sig: str = "sig-scheduling",
    extra: str = "",
    latest: str = "v1.36",
) -> str:
    """A kep.yaml as upstream writes it (milestone values quoted as given; ``""`` leaves a key out)."""
    milestones = "".join(f'  {k}: "{v}"\n' for k, v in (("alpha", alpha), ("beta", beta), ("stable", stable)) if v)
    milestones = milestones or '  alpha: ""\n'
    gate_lines = "".join(f"  - name: {g}\n    components:\n      - kube-scheduler\n" for g in gates) or "  []\n"
    return (
        f'title: KEP {number} {slug}\nkep-number: {int(number)}\nauthors:\n  - "@someone"\n'
        f"owning-sig: {sig}\nstatus: {status}\nstage: {stage}\ncreation-date: 2024-01-02\n"
        f'latest-milestone: "{latest}"\nmilestone:\n{milestones}feature-gates:\n{gate_lines}{extra}'
    )


def kep(number: int, slug: str, sig: str = "sig-scheduling", **fields) -> tuple[str, bytes]:
    """``(path, bytes)`` of one kep.yaml at ``keps/<sig>/<NNNN>-<slug>/kep.yaml``; see :func:`kep_yaml`."""
    dirnum = f"{number:04d}" if number == 0 else str(number)
    return f"keps/{sig}/{dirnum}-{slug}/kep.yaml", kep_yaml(number, slug, sig=sig, **fields).encode()


def snapshot(*files: tuple[str, bytes], revision: str = REVISION) -> Snapshot:
    """A :class:`Snapshot` built from ``(path, bytes)`` pairs by the real loader."""
    return build_snapshot(files, "test", revision)


def write_keps(root: Path, *files: tuple[str, bytes]) -> Path:
    """Write the files under ``root`` (a directory source with ``keps/``); returns ``root``."""
    for path, data in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def tree(root: Path) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every file under ``root`` (to prove what was, or was not, written)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: A page like the user's: front matter, CJK prose, two matrix tables with different columns,
#: a non-matrix table, a table in a code fence, an escaped pipe, and a trailing newline.
PAGE = """---
title: KEP 矩阵
date: 2026-03-01
---

# 矩阵

说明 | 这不是表格

| 字段 | 含义 |
|---|---|
| `implemented` | 已实现 |

## P0

| KEP | SIG | 状态 | Alpha / Beta / GA | Feature gate | 关键实现 / 设计 |
|---|---|---|---|---|---|
| 4671-gang-scheduling | scheduling | implementable / alpha | v1.35 / - / - | `GenericWorkload` | 组调度 \\| PodGroup |
| [5710-workload-aware-preemption](https://kep.k8s.io/5710) | scheduling | implementable / alpha | v1.36 / v1.37 / v1.39 | `GenericWorkload` | 抢占 |

```markdown
| KEP | 状态 |
|---|---|
| 4671 | provisional / alpha |
```

## P1

| KEP | 状态 | Alpha / Beta / GA | 说明 |
|---|---|---|---|
| KEP-624 | implemented / stable | v1.16 / - / v1.19 | framework |
| 785 | implemented / stable | - / v1.19 / v1.25 | config |
"""

#: Upstream for :data:`PAGE`: 4671 went beta (beta v1.37); 5710 has one more feature gate (report-only);
#: 624 and 785 agree with the page.
PAGE_KEPS = (
    kep(4671, "gang-scheduling", stage="beta", beta="v1.37", gates=("GenericWorkload",), latest="v1.37"),
    kep(
        5710,
        "workload-aware-preemption",
        alpha="v1.36",
        beta="v1.37",
        stable="v1.39",
        gates=("GenericWorkload", "WorkloadPreemption"),
    ),
    kep(624, "scheduling-framework", status="implemented", stage="stable", alpha="v1.16", stable="v1.19"),
    kep(
        785,
        "scheduler-component-config-api",
        status="implemented",
        stage="stable",
        alpha="",
        beta="v1.19",
        stable="v1.25",
    ),
)
#: :data:`PAGE` after a sync against :data:`PAGE_KEPS` (feature gates report-only).
PAGE_SYNCED = PAGE.replace(
    "| 4671-gang-scheduling | scheduling | implementable / alpha | v1.35 / - / - |",
    "| 4671-gang-scheduling | scheduling | implementable / beta | v1.35 / v1.37 / - |",
)
