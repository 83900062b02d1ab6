"""Helpers for the tracking tests: kep.yaml files with the fields tracking reads, and their snapshot."""

from __future__ import annotations

from bot.model.snapshot import build_snapshot

REV = "0123456789abcdef0123456789abcdef01234567"


def kep(
    number: int,
    slug: str,
    sig: str = "sig-node",
    *,
    status: str = "implementable",
    stage: str = "alpha",
    latest: str = "v1.37",
    alpha: str = "",
    beta: str = "",
    stable: str = "",
    gates: tuple[str, ...] = (),
):
    """``(path, bytes)`` of a kep.yaml with the given fields (``""`` leaves a milestone out)."""
    ms = "".join(f'  {k}: "{v}"\n' for k, v in (("alpha", alpha), ("beta", beta), ("stable", stable)) if v)
    ms = ms or '  alpha: ""\n'
    gate_lines = "".join(f"  - name: {g}\n" for g in gates) or "  []\n"
    text = (
        f"title: Title of {slug}\nkep-number: {number}\nowning-sig: {sig}\nstatus: {status}\nstage: {stage}\n"
        f'latest-milestone: "{latest}"\nmilestone:\n{ms}feature-gates:\n{gate_lines}'
    )
    return f"keps/{sig}/{number}-{slug}/kep.yaml", text.encode()


def snap(*files):
    return build_snapshot(files, "test", REV)
