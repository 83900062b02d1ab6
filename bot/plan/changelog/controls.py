"""The "Controls" footer of the bot's pull request: how a maintainer steers kep-sync. Pure.

Lines of markdown: when the bot runs (``schedule.cron`` in ``schedule.timezone``), what it does when the
pull request is closed or its branch (``pull_request.branch``) is edited, the regenerate label, the
commands in comments (``publish: github`` only: :mod:`bot.publish.comment_commands`) and where ignore
rules live.
"""

from __future__ import annotations

from typing import NamedTuple


class Steering(NamedTuple):
    """The settings the footer names: ``schedule.cron``, ``schedule.timezone`` (``""``: UTC),
    ``pull_request.branch``, whether comment commands are read (``publish: github``), and whether the branch
    is committed in a local clone (``publish: git``: no label, comments or closed pull request to react to)."""

    cron: str
    timezone: str
    branch: str
    commands: bool
    local: bool = False


#: The pull request label a human adds to make kep-sync regenerate its branch: a pull request with it gets
#: a fresh commit from the base even over commits kep-sync did not make.
REGENERATE_LABEL = "kep-sync:regenerate"

#: The footer's line on ignore rules, in every publish mode.
_IGNORE_RULES = (
    "- **Ignore rules**: `<!-- kep-sync: ignore -->` or `<!-- kep-sync: ignore stable -->` in a row of "
    "the page (merged with the page), or `ignore:` in the kep-sync config "
    '(`{kep: 5598, fields: [stable], value: v1.38}`); ignored cells are listed under "Ignored".'
)

#: The summary line that opens the footer (:func:`bot.plan.changelog.markdown.details`).
CONTROLS_SUMMARY = "<details><summary>Controls</summary>"


def controls(steering: Steering) -> list[str]:
    """The footer lines (a markdown list), for :attr:`bot.plan.changelog.body.ChangelogInputs.controls`; for a local
    clone (``steering.local``) :func:`local_controls`."""
    if steering.local:
        return local_controls(steering)
    cron = steering.cron
    when = (
        f"on its schedule: `{cron}` ({steering.timezone or 'UTC'}) under `kep-sync serve`, or its "
        "workflow's cron in GitHub Actions"
    )
    commands = (
        [
            "- **Commands** (a comment that starts with one; from people with write access to the wiki repository; "
            "read on the next run (in GitHub Actions the comment starts one), carried out once, answered in a reply): `/kep-sync ignore <KEP> [fields...]` adds "
            "the ignore marker to the KEP's row in this pull request, `/kep-sync regenerate` acts as the label, "
            "`/kep-sync explain <KEP>` replies with the KEP's field history."
        ]
        if steering.commands
        else []
    )
    return [
        f"- **Runs** {when}; each run rebuilds this pull request from the base branch and upstream.",
        "- **Closed without merge**: the same proposal is not opened again; a different one is.",
        f"- **Edited branch**: a commit kep-sync did not make on `{steering.branch}` stops it "
        f"(one comment says so); add the label `{REGENERATE_LABEL}` to replace the branch with a fresh commit "
        "(anyone who may label pull requests can: triage access is enough, unlike the commands).",
        *commands,
        _IGNORE_RULES,
    ]


def local_controls(steering: Steering) -> list[str]:
    """The footer for ``publish: git``: kep-sync commits on ``steering.branch`` of a local clone and never sees
    the pull request, so only what it does with that branch and the ignore rules apply."""
    branch = steering.branch
    return [
        f"- **Runs** when `kep-sync sync --publish git` runs (or on `{steering.cron}` "
        f"({steering.timezone or 'UTC'}) under `kep-sync serve`); each run updates `{branch}` in the clone from "
        "the base branch and upstream; push it again after a run (with `--force-with-lease` when it was rebuilt "
        "on a new base).",
        f"- **Edited branch**: a commit kep-sync did not make on `{branch}` stops it; delete the branch "
        f"(`git branch -D {branch}`) to let kep-sync start it afresh.",
        _IGNORE_RULES,
    ]
