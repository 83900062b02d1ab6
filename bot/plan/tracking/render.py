"""The tracking results in the changelog (sections) and in the JSON report (keys). Pure.

Sections are ``(header lines, rows, noun)`` as :func:`bot.plan.changelog.body.render`
fits them into the pull request body; upstream text goes through the
changelog's escaping (``@handles`` wrapped, ``|`` escaped).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.model.finding import ROW_KEYS
from bot.plan.changelog.body import Section
from bot.plan.changelog.markdown import code, kep_link, kep_yaml_url, table_cell
from bot.plan.tracking import Tracking
from bot.plan.tracking.candidates import Candidate, milestone_text

#: Candidates shown in the changelog unless ``candidates.limit`` says otherwise; all are in the report.
DEFAULT_LIMIT = 10


def callouts(tracking: Tracking) -> list[Section]:
    """Sections for the top of the body: rows whose KEP became provisional or withdrawn upstream."""
    if not tracking.left_production:
        return []
    rows = [
        f"- KEP {kep_link(c.kep_id)} ({table_cell(c.page)}:{c.line}): status {table_cell(c.old)} → "
        f"**{table_cell(c.new)}**{'' if c.applied else ' (not applied)'}; rule 3: no longer production capability"
        for c in tracking.left_production
    ]
    return [(["### Now provisional or withdrawn", ""], rows, "status callouts")]


def sections(tracking: Tracking, revision: str, web_url: str, limit: int = DEFAULT_LIMIT) -> list[Section]:
    """Sections before "Problems": ``not-production`` findings, new KEPs to consider (first ``limit``;
    none with ``limit`` 0, the report still has them all), and design-group coverage."""
    out: list[Section] = []
    if tracking.findings:
        rows = [
            f"| {kep_link(f.kep_id)} | {table_cell(f.page)}:{f.line} | {table_cell(f.table)} | {f.status} |"
            for f in tracking.findings
        ]
        out.append(
            (
                [
                    "### Not production capability",
                    "",
                    "Rows in a production table whose KEP is provisional or withdrawn (report only).",
                    "",
                    "| KEP | Page | Table | Status |",
                    "|---|---|---|---|",
                ],
                rows,
                "findings",
            )
        )
    if tracking.candidates and limit > 0:
        shown = tracking.candidates[:limit]
        rows = [_candidate_row(c, revision, web_url) for c in shown]
        left = len(tracking.candidates) - len(shown)
        if left:
            rows += ["", f"_{left} more in the JSON report (`candidates`)._"]
        out.append(
            (
                [
                    "### New KEPs to consider",
                    "",
                    f"{len(tracking.candidates)} KEPs upstream have no row but look like what the pages track; "
                    "most likely first.",
                    "",
                    "| KEP | Title | SIG | Status / stage | Latest | Alpha / Beta / GA | Feature gates | Why | kep.yaml |",
                    "|---|---|---|---|---|---|---|---|---|",
                ],
                rows,
                "candidates",
            )
        )
    if tracking.coverage is not None:
        cov = tracking.coverage
        rows = (
            [
                f"- Rows in no design group ({len(cov.not_in_any_group)}): {_numbers(cov.not_in_any_group)}",
                f"- In a design group, no row ({len(cov.not_on_matrix)}): {_numbers(cov.not_on_matrix)}",
            ]
            if cov.checked
            else ["- **Not checked**: the page lists no design group (see Problems); nothing is known about coverage"]
        )
        if cov.in_several_groups:
            rows.append(
                "- In several groups (allowed, listed only): "
                + "; ".join(f"{n} ({', '.join(table_cell(g) for g in names)})" for n, names in cov.in_several_groups)
            )
        out.append(([f"### Design-group coverage ({table_cell(cov.page)})", ""], rows, "coverage lines"))
    return out


def _candidate_row(c: Candidate, revision: str, web_url: str) -> str:
    k = c.kep
    ms = " / ".join(milestone_text(k.milestone(key)) for key in ("alpha", "beta", "stable"))
    gates = ", ".join(code(g, cell=True) for g in k.gates()) or "-"
    url = kep_yaml_url(web_url, revision, k.path)
    link = f"[kep.yaml]({url})" if url else table_cell(k.path)
    return (
        f"| {kep_link(c.ident)} | {table_cell(k.title)} | {table_cell(k.sig)} | {table_cell(k.status)} / "
        f"{table_cell(k.stage)} | {table_cell(milestone_text(k.latest_milestone))} | {table_cell(ms)} | {gates} | "
        f"{table_cell('; '.join(c.reasons))} | {link} |"
    )


def _numbers(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers) if numbers else "none"


def report_keys(tracking: Tracking, production: bool = False) -> dict[str, object]:
    """Keys added to the JSON report: ``candidates`` (all, ranked), ``findings`` (``not-production``)
    when production tables are configured (``production``), ``coverage`` when a coverage page is."""
    out: dict[str, object] = {"candidates": [c.as_report() for c in tracking.candidates]}
    if production:
        out["findings"] = [f.as_report(ROW_KEYS) for f in tracking.findings]
    if tracking.coverage is not None:
        out["coverage"] = tracking.coverage.as_report()
    return out
