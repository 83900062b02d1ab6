"""What a sync that published tells the person or the workflow that ran it, after the changelog.

- ``--publish files``: the pages written and how many rows changed and were added (:func:`files_lines`);
- ``--publish git``: the branch, the commit and the commands that push it (``--force-with-lease`` when kep-sync
  rebuilt a branch that may have been pushed: :func:`rebuilt`) and open the pull request, with the body in a
  file (:func:`git_lines`); the ``pull_request`` settings only ``--publish github`` applies;
- under GitHub Actions: the step outputs written to ``$GITHUB_OUTPUT`` (:func:`action_outputs`, the names
  of ``action.yml``; :func:`targets_outputs` for a run of many targets) and a ``::warning::`` workflow
  command for a blocked run (:func:`blocked_annotation`).

Workflow commands and step outputs: https://docs.github.com/actions/reference/workflow-commands-for-github-actions
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import PublishError
from bot.fileread import PR_FILE_BYTES, read_regular_text
from bot.plan.changelog.controls import REGENERATE_LABEL
from bot.redact import redact

if TYPE_CHECKING:
    from bot.config import Config
    from bot.publish.backend import Publication

#: The ``pull_request`` settings kep-sync applies only when it opens the pull request (``--publish github``),
#: with the ``gh pr create`` option that does the same.
GITHUB_ONLY = (
    ("labels", "--label"),
    ("reviewers", "--reviewer"),
    ("team_reviewers", "--reviewer"),
    ("assignees", "--assignee"),
    ("draft", "--draft"),
)
#: Name of the pull request body file written next to ``pull-request.md`` for ``gh pr create --body-file``.
BODY_FILE = "pull-request-body.md"


def row_counts(publication: Publication) -> dict[str, tuple[int, int]]:
    """``{page: (rows changed, rows added)}`` for the pages ``publication`` wrote: a changed row is one line with
    an applied change (several fields count once), an added row one applied ``added`` change."""
    counts: dict[str, tuple[set[int], int]] = {page: (set(), 0) for page in publication.written}
    for change in publication.plan.changes:
        if change.applied and change.page in counts:
            lines, added = counts[change.page]
            if change.kind == "added":
                counts[change.page] = (lines, added + 1)
            else:
                lines.add(change.line)
    return {page: (len(lines), added) for page, (lines, added) in counts.items()}


def files_lines(publication: Publication, wiki_dir: str) -> list[str]:
    """``wrote PAGE: N rows changed, M added`` per page written under ``wiki_dir``, or that none was."""
    if not publication.written:
        return [f"kep-sync: no page written under {wiki_dir}: the pages already match"]
    return [
        f"kep-sync: wrote {Path(wiki_dir, page)}: {_rows(changed, added)}"
        for page, (changed, added) in row_counts(publication).items()
    ]


def _rows(changed: int, added: int) -> str:
    return f"{changed} row{'s' if changed != 1 else ''} changed, {added} added"


def git_lines(config: Config, publication: Publication) -> list[str]:
    """The branch, the commit and the commands to push it and open the pull request (run in ``wiki.dir``);
    the pull request body goes to :data:`BODY_FILE` beside ``pull-request.md``. Nothing to push (no
    ``pull-request.md``) or a blocked run: one line saying so. Raises :class:`PublishError` when the body
    file cannot be written."""
    wiki, branch = config.wiki.dir, config.pull_request.branch
    if publication.blocked:
        return [
            f"kep-sync: blocked: the branch {branch} in {wiki} has commits kep-sync did not make; nothing was "
            "committed (delete the branch to let kep-sync start it afresh)"
        ]
    if not publication.url:
        return [f"kep-sync: nothing to commit: the base of {wiki} already has these rows (no branch {branch})"]
    pr_file = Path(publication.url)
    title, _, body = read_regular_text(pr_file, PR_FILE_BYTES).partition("\n\n")
    body_file = pr_file.with_name(BODY_FILE)
    try:
        body_file.write_text(redact(body), encoding="utf-8")
    except OSError as exc:
        raise PublishError(f"{body_file}: cannot write: {exc.strerror or exc}") from None
    commit = _branch_head(wiki, branch)
    what = f"{len(publication.written)} page(s) committed" if publication.written else "already up to date"
    base, not_a_branch = pr_base(wiki, config.wiki.base)
    create = ["gh", "pr", "create", "--head", branch, "--base", base, "--title", title, "--body-file", str(body_file)]
    remotes = _remotes(wiki)
    force = rebuilt(wiki, branch, publication.replaced, remotes)
    lines = [
        f"kep-sync: branch {branch} in {wiki} at commit {commit} ({what})",
        (
            f"kep-sync rebuilt the branch on a new base ({force}); a plain push of a branch pushed before is "
            "refused, this one replaces it unless the remote branch moved since this clone last pushed or fetched it:"
            if force
            else "To push it and open the pull request:"
        ),
        f"  cd {shell_path(wiki)}",
        *push_commands(remotes, branch, force=bool(force)),
        f"  {shlex.join(create + gh_options(config))}",
    ]
    if not_a_branch:
        lines.append(not_a_branch)
    settings = github_only(config)
    if settings:
        lines.append(
            f"kep-sync applies pull_request.{', pull_request.'.join(settings)} only with --publish github; "
            "the gh command above sets them"
        )
    if config.pull_request.team_reviewers and not config.wiki.repo:
        lines.append(
            "gh needs each team as ORGANIZATION/TEAM and wiki.repo is not set: add --reviewer "
            + " --reviewer ".join(f"<organization>/{t}" for t in config.pull_request.team_reviewers if "/" not in t)
            + " to the gh command"
        )
    return lines


def shell_path(path: str) -> str:
    """``path`` as one shell word for ``cd``: quoted, and ``./`` before a relative path that starts with ``-``
    (``cd -w`` would read an option)."""
    return shlex.quote(f"./{path}" if path.startswith("-") else path)


def push_commands(remotes: list[str], branch: str, *, force: bool = False) -> list[str]:
    """The lines pushing ``branch``: to ``origin`` when the clone has it, else to its first remote, else
    after adding ``origin`` (the clone has no remote; ``remotes``: ``git remote`` output); with ``force``
    (:func:`rebuilt`) as ``git push --force-with-lease``, which replaces the remote branch only while it is
    where this clone last saw it."""
    remote = "origin" if "origin" in remotes or not remotes else remotes[0]
    add = [] if remotes else ["  git remote add origin URL    # this clone has no remote: the wiki repository's URL"]
    lease = "--force-with-lease " if force else ""
    return [*add, f"  git push {lease}{shlex.quote(remote)} {shlex.quote(branch)}"]


def rebuilt(wiki: str, branch: str, replaced: str, remotes: list[str]) -> str:
    """Why a push of the bot branch must replace what a remote may have, or ``""`` when a plain push works:
    this run rebuilt it (``replaced``: the head it had, :attr:`~bot.publish.backend.Publication.replaced`), or the
    clone's remote-tracking branch (``refs/remotes/REMOTE/BRANCH``, left by an earlier push or fetch) is not an
    ancestor of the new head (kep-sync deleted the branch once the base had the rows, then started it again)."""
    if replaced:
        return f"it was at {replaced[:12]}"
    head = _git(wiki, "rev-parse", "--verify", "-q", f"refs/heads/{branch}")
    for remote in remotes:
        seen = _git(wiki, "rev-parse", "--verify", "-q", f"refs/remotes/{remote}/{branch}")
        if seen and head and not _is_ancestor(wiki, seen, head):
            return f"{remote}/{branch} is at {seen[:12]}"
    return ""


def _is_ancestor(wiki: str, old: str, new: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", wiki, "merge-base", "--is-ancestor", old, new], capture_output=True, check=False
    )
    return proc.returncode == 0


def _remotes(wiki: str) -> list[str]:
    return _git(wiki, "remote").split()


def _branch_head(wiki: str, branch: str) -> str:
    return _git(wiki, "rev-parse", "--verify", "-q", f"refs/heads/{branch}") or "(unknown)"


def _git(wiki: str, *args: str) -> str:
    """``git -C wiki ARGS`` output, stripped; ``""`` when git fails."""
    proc = subprocess.run(["git", "-C", wiki, *args], capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def pr_base(wiki: str, base: str | None) -> tuple[str, str]:
    """``(value for gh pr create --base, "")`` for the base the bot branch is built on (``wiki.base``, else the
    branch checked out in ``wiki``): a local branch by its name, a remote-tracking one (``origin/main``) by the
    remote's branch name (``main``). A base that is no branch (a detached HEAD, a commit, a tag) is given as
    its commit SHA, with a line saying a pull request needs a base branch instead."""
    name = base or _git(wiki, "symbolic-ref", "-q", "--short", "HEAD")
    if name and _git(wiki, "rev-parse", "--verify", "-q", f"refs/heads/{name}"):
        return name, ""
    if "/" in name and _git(wiki, "rev-parse", "--verify", "-q", f"refs/remotes/{name}"):
        return name.split("/", 1)[1], ""
    commit = _git(wiki, "rev-parse", "--verify", "-q", f"{name or 'HEAD'}^{{commit}}") or "(unknown)"
    what = f"wiki.base {name!r}" if base else "a detached HEAD"
    return commit, (
        f"kep-sync: the branch is built on {what} (commit {commit}), not a branch: a pull request "
        "needs a base branch, so give gh pr create --base the branch it should merge into"
    )


def github_only(config: Config) -> list[str]:
    """The ``pull_request`` settings set (not at their defaults) that only ``--publish github`` applies."""
    pr = config.pull_request
    return [name for name, _ in GITHUB_ONLY if getattr(pr, name)]


def gh_options(config: Config) -> list[str]:
    """``gh pr create`` options for the settings of :func:`github_only` (``--label L``, ``--reviewer R``,
    ``--reviewer ORG/TEAM``, ``--assignee A``, ``--draft``). A team named without its organization is left
    out when ``wiki.repo`` (whose owner is the organization) is not set: :func:`git_lines` says so."""
    pr, out = config.pull_request, []
    for name, option in GITHUB_ONLY:
        value = getattr(pr, name)
        if name == "draft":
            out += [option] if value else []
            continue
        owner = config.wiki.repo.split("/")[0] if config.wiki.repo else ""
        if name == "team_reviewers":
            value = [item if "/" in item else f"{owner}/{item}" for item in value if owner or "/" in item]
        out += [part for item in value for part in (option, item)]
    return out


def action_outputs(publication: Publication | None, failed: bool = False) -> dict[str, str]:
    """The step outputs of ``action.yml``: ``pull-request-number`` and ``pull-request-url`` (``""`` when there
    is none) and ``pull-request-operation`` (``created``, ``updated``, ``closed``, ``blocked`` or ``none``)."""
    if publication is None or failed:
        return {"pull-request-number": "", "pull-request-url": "", "pull-request-operation": "none"}
    url = publication.url if re.match(r"^https?://", publication.url or "") else ""
    number = re.search(r"/pull/([0-9]+)$", url)
    operation = publication.operation or ("blocked" if publication.blocked else "none")
    return {
        "pull-request-number": number.group(1) if number else "",
        "pull-request-url": url,
        "pull-request-operation": operation,
    }


def targets_outputs(results: Sequence) -> dict[str, str]:
    """The step outputs of a run of many targets (``results``: :class:`bot.service.multi.TargetResult`):
    ``results`` (JSON object name -> ``ok``, ``blocked``, ``skipped`` or ``failed``), ``failed`` and
    ``blocked`` (JSON lists of names) and, when one target ran, its ``pull-request-url`` and
    ``pull-request-number`` (``""`` when none)."""
    out = {
        "results": json.dumps({r.name: r.result for r in results}, separators=(",", ":")),
        "failed": json.dumps([r.name for r in results if r.result == "failed"], separators=(",", ":")),
        "blocked": json.dumps([r.name for r in results if r.result == "blocked"], separators=(",", ":")),
    }
    if len(results) == 1:
        url = results[0].pull_request or ""
        number = re.search(r"/pull/([0-9]+)$", url)
        out["pull-request-url"], out["pull-request-number"] = url, number.group(1) if number else ""
    return out


def rows_with_problems(problems: Sequence) -> int:
    """How many page rows a run left as is with a problem (:class:`bot.model.kep.Problem` whose ``key`` is
    ``line N``), each row once however many problems it has."""
    return len({(p.path, p.key) for p in problems if p.key.startswith("line ")})


def listed_in(output: str, report: str | None, what: str = "changelog") -> str:
    """Where the rows left as is are listed, for the closing log line: the Problems section of ``what`` (the
    changelog, or the audit) in ``output`` (``"stdout"``, or its file), and the JSON report ``report`` when
    one is written."""
    return f"the Problems section of the {what} ({output})" + (f" and the report {report}" if report else "")


def problems_line(count: int, changelog: str, report: str | None) -> str:
    """The terminal line for :func:`rows_with_problems`: how many, and where they are listed (:func:`listed_in`)."""
    rows = f"{count} row{'s' if count != 1 else ''}"
    return (
        f"kep-sync: {rows} with problems (left as is, or a value kep-sync will not write); "
        f"listed in {listed_in(changelog, report)}"
    )


def write_outputs(path: str, outputs: Mapping[str, str]) -> None:
    """Append ``name=value`` lines to the ``$GITHUB_OUTPUT`` file ``path``. Raises :class:`PublishError`
    naming the file when it cannot be written."""
    text = "".join(f"{name}={value}\n" for name, value in outputs.items() if "\n" not in value)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise PublishError(f"GITHUB_OUTPUT {path}: cannot write: {exc.strerror or exc}") from None


def blocked_annotation(branch: str, target: str = "") -> str:
    """The ``::warning::`` workflow command for a blocked run (one line; ``%``, CR, LF escaped); ``target``:
    the name of the target that was blocked in a run of many (``""``: the one wiki)."""
    who = f"kep-sync target {target}" if target else "kep-sync"
    message = (
        f"{who} was blocked: the bot branch {branch} has commits kep-sync did not make, so nothing was "
        f"published. Add the label {REGENERATE_LABEL} to the pull request, or delete the branch."
    )
    return f"::warning title={who} blocked::" + message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
