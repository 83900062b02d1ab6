"""The wiki as a local git clone: read the pages at the base; publish = one commit on the bot branch + the PR text.

``--publish git --wiki DIR``: the pages are read at the base head (``wiki.base``,
default the checked-out branch), never from the working tree; the commit is
built with git plumbing (``hash-object``, a temporary index, ``commit-tree``)
and the bot branch is moved with a compare-and-swap ``update-ref``, so the
working tree, the index and the checked-out branch are never touched, and no
repository hook runs (every git command runs with ``core.hooksPath=/dev/null``:
``update-ref`` would run ``reference-transaction``). A bot branch checked out in any
worktree is never moved under it: a linked worktree that is clean is moved
with it (``read-tree -m -u``, as a fast-forward would), any other is refused. The
same rules as on GitHub hold: same proposal -> no commit; the same pages as
the bot branch head (e.g. only the page set changed) -> no (empty) commit;
a commit on the bot branch kep-sync did not make is never overwritten; the base already has
the rows -> the bot branch is deleted. The pull request title and body go to
``<git dir>/kep-sync/pull-request.md``: the title on the first line, a blank
line, then the body (bot section with the hidden state marker; text written
outside the section survives). When the base moved between reading and
publication, the pages are read again and the orchestrator's ``replan`` callback
rebuilds the plan before anything is committed.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from bot.errors import ConfigError, PublishError, relative_to
from bot.fileread import PAGE_BYTES, PR_FILE_BYTES, read_regular_text
from bot.log import get_logger
from bot.publish import pull_request as prmod
from bot.publish.backend import PagesAtBase, Publication, Replan, page_error
from bot.publish.ownership import is_own_head
from bot.publish.pull_request import PrState
from bot.publish.settings import PublishSettings
from bot.redact import redact
from bot.sources.git import ownership_refusal

if TYPE_CHECKING:
    from bot.plan.planner import SyncPlan

_ZERO = "0" * 40
#: The author and committer of every commit kep-sync makes in git mode (see :mod:`bot.publish.ownership`).
BOT_NAME, BOT_EMAIL = "kep-sync", "kep-sync@users.noreply.github.com"
_IDENTITY = {
    "GIT_AUTHOR_NAME": BOT_NAME,
    "GIT_AUTHOR_EMAIL": BOT_EMAIL,
    "GIT_COMMITTER_NAME": BOT_NAME,
    "GIT_COMMITTER_EMAIL": BOT_EMAIL,
}


#: Before every git command: no repository hook runs, not even those plumbing runs (``update-ref`` runs
#: ``reference-transaction``, which may veto the update; ``read-tree -u`` none, but a later git may).
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


class _Git:
    """``git -C DIR`` with errors as :class:`PublishError` naming the directory and command; a clone git
    refuses to read (another user owns it, :func:`bot.sources.git.ownership_refusal`) is a
    :class:`ConfigError` naming ``wiki.dir``, whether or not the caller checks."""

    def __init__(self, path: Path):
        self.path = path
        self.env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}

    @overload
    def run(
        self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None, check: Literal[True] = True
    ) -> bytes: ...

    @overload
    def run(
        self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None, check: bool
    ) -> bytes | None: ...

    def run(
        self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None, check: bool = True
    ) -> bytes | None:
        proc = subprocess.run(
            ["git", *_NO_HOOKS, "-C", str(self.path), *args],
            input=data,
            capture_output=True,
            env={**self.env, **(env or {})},
            check=False,
        )
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            if why := ownership_refusal(self.path, err):
                raise ConfigError(f"wiki.dir (--wiki) {why}")
            if not check:
                return None
            raise PublishError(redact(f"{self.path}: git {args[0]} failed: {err}"))
        return proc.stdout

    @overload
    def text(self, *args: str, check: Literal[True] = True) -> str: ...

    @overload
    def text(self, *args: str, check: bool) -> str | None: ...

    def text(self, *args: str, check: bool = True) -> str | None:
        out = self.run(*args, check=check)
        return None if out is None else out.decode("utf-8", "replace").strip()


class GitWiki:
    """:class:`~bot.publish.backend.Wiki` over the git clone at ``wiki_dir``, per ``config.wiki`` and
    ``config.pull_request``.

    :meth:`read` raises :class:`PublishError` when the base cannot be resolved or the bot branch is checked
    out; :class:`ConfigError` (exit 2) naming ``wiki.dir`` when it is not a git work tree and ``wiki.pages``
    for a page that is not a regular file at the base. :meth:`publish` moves the bot branch head only
    when it is kep-sync's own commit (:mod:`bot.publish.ownership`); commits are made as
    ``kep-sync <kep-sync@users.noreply.github.com>``.
    """

    #: How often :meth:`publish` follows a base that keeps moving before it gives up.
    MAX_REPLANS = 3

    def __init__(self, config: PublishSettings, wiki_dir: Path):
        self.config, self.wiki_dir, self.git = config, wiki_dir, _Git(wiki_dir)
        self.branch = config.pull_request.branch
        self.ref = f"refs/heads/{self.branch}"
        self.log = get_logger(component="publish", wiki=str(wiki_dir), branch=self.branch)

    def read(self) -> PagesAtBase:
        """The pages at the head of ``wiki.base`` (default: the checked-out branch), and the PR budget."""
        git = self.git
        git_dir = git.text("rev-parse", "--absolute-git-dir", check=False)
        if git_dir is None:
            raise ConfigError(
                f"wiki.dir {str(self.wiki_dir)!r}: not a git checkout{relative_to(self.wiki_dir)}; "
                "publish git commits in a clone of the wiki"
            )
        checked_out = git.text("symbolic-ref", "-q", "HEAD", check=False)
        self._refuse_checked_out()
        self.base_name = self.config.wiki.base or (checked_out or "").removeprefix("refs/heads/") or "HEAD"
        self.pr_file = Path(git_dir) / "kep-sync" / "pull-request.md"
        self.body = _read_pr_body(self.pr_file)
        return self._read_base(self._resolve_base())

    def _refuse_checked_out(self) -> str | None:
        """The linked worktree that has the bot branch checked out (``None`` when none has); raises
        :class:`PublishError` when it is the wiki's own worktree (``git worktree list --porcelain``)."""
        where = _worktree_of(self.git, self.ref)
        if where is not None and Path(where).resolve() == self.wiki_dir.resolve():
            raise PublishError(
                f"{self.wiki_dir}: the bot branch {self.branch} is checked out; switch to the base branch first"
            )
        return where

    def _move_branch(self, new: str, head: str) -> None:
        """Move the bot branch from ``head`` to ``new`` (compare-and-swap). A linked worktree that has it
        checked out moves with it: its index and files follow (``read-tree -m -u``, no hook runs) when it
        is clean and at ``head``; otherwise :class:`PublishError` names it and nothing moves, since moving
        the branch alone would leave its files behind and its next commit would revert kep-sync's."""
        where = self._refuse_checked_out()
        if where is None:
            self.git.run("update-ref", "-m", "kep-sync: update bot branch", self.ref, new, head or _ZERO)
            return
        tree = _Git(Path(where))
        dirty = tree.text("status", "--porcelain", "--untracked-files=no", check=False)
        at = tree.text("rev-parse", "--verify", "-q", "HEAD", check=False)
        if (
            dirty
            or dirty is None
            or at is None
            or at != head
            or tree.run("read-tree", "-m", "-u", at, new, check=False) is None
        ):
            raise PublishError(
                f"{self.wiki_dir}: the bot branch {self.branch} is checked out in the worktree "
                f"{where}, which has changes of its own; commit or discard them, or switch that "
                "worktree to another branch, then run again"
            )
        if self.git.run("update-ref", "-m", "kep-sync: update bot branch", self.ref, new, head, check=False) is None:
            tree.run("read-tree", "-m", "-u", new, at, check=False)  # the branch moved meanwhile: put the files back
            raise PublishError(
                f"{self.wiki_dir}: the bot branch {self.branch} moved while kep-sync updated it; run again"
            )
        self.log.info("worktree moved with the bot branch", worktree=where)

    def _resolve_base(self) -> str:
        base = self.git.text(
            "rev-parse", "--verify", "-q", "--end-of-options", f"{self.base_name}^{{commit}}", check=False
        )
        if not base:
            raise PublishError(f"{self.wiki_dir}: wiki.base {self.base_name!r} is not a branch or commit")
        return base

    def _read_base(self, base: str) -> PagesAtBase:
        self.base = base
        self.modes, self.blobs, pages = _read_pages(self.git, base, self.base_name, self.config.pages_to_read())
        return PagesAtBase(pages, base, prmod.changelog_budget(self.body))

    def publish(self, plan: SyncPlan, replan: Replan) -> Publication:
        """Commit ``plan``'s pages on the bot branch and write ``pull-request.md``.

        Returns a :class:`~bot.publish.backend.Publication` whose ``url`` is the path of pull-request.md
        (``""`` when nothing is proposed or a foreign commit blocks the branch; then ``blocked`` is
        True) and ``written`` the pages in the commit made by this run (``[]`` when none).
        """
        for _ in range(self.MAX_REPLANS):
            moved = self._resolve_base()
            if moved == self.base:
                break
            self.log.info("the base moved while planning; planning again", base=moved, was=self.base)
            plan = replan(self._read_base(moved))
        else:
            raise PublishError(f"{self.wiki_dir}: wiki.base {self.base_name!r} kept moving; try again")
        return self._publish(plan)

    def _publish(self, plan: SyncPlan) -> Publication:
        git, ref, log, base, modes, body, pr_file = (
            self.git,
            self.ref,
            self.log,
            self.base,
            self.modes,
            self.body,
            self.pr_file,
        )
        proposal = PrState(
            plan.snapshot.revision,
            prmod.fingerprint(plan.changes, plan.generated),
            base,
            prmod.pages_digest(self.blobs),
        )
        head = git.text("rev-parse", "--verify", "-q", ref, check=False) or ""  # "": no bot branch yet
        # Each built or read once: the ownership test and the empty-commit test both compare them.
        tree = functools.cache(lambda: _tree(git, plan, modes, base))
        head_tree = functools.cache(lambda: git.text("rev-parse", f"{head}^{{tree}}"))
        head_state = None
        if head:
            parents, identities, message = _commit_info(git, head)
            recorded = prmod.parse_state(body) if body else None
            if not is_own_head(
                head,
                recorded.head if recorded else "",
                parents,
                identities,
                lambda: f"{BOT_NAME} <{BOT_EMAIL}>",
                lambda: head_tree() == tree(),
            ):
                log.warning(
                    "the bot branch has commits kep-sync did not make; not updating it (delete the branch "
                    "to let kep-sync start it afresh)",
                    head=head,
                )
                return Publication(plan, [], "", blocked=True)
            head_state = prmod.parse_trailers(message)
        if not plan.changed_pages():
            if head and self._refuse_checked_out():
                log.info(
                    "the base already has these rows; the bot branch is checked out in a worktree, so it stays",
                    base=base,
                )
            elif head:
                git.run("update-ref", "-d", ref, head)
                pr_file.unlink(missing_ok=True)
                log.info("the base already has these rows; bot branch deleted", base=base)
            return Publication(plan, [], "")
        title = self.config.pull_request.title or plan.changelog.title
        if head_state is not None and (head_state.fingerprint, head_state.pages) == (
            proposal.fingerprint,
            proposal.pages,
        ):
            _write_pr_file(pr_file, title, body, plan, proposal._replace(head=head))
            log.info("bot branch is up to date", head=head)
            return Publication(plan, [], str(pr_file))
        if head and head_tree() == tree():
            # Same pages as the head (e.g. only the page set changed): a commit would be empty.
            _write_pr_file(pr_file, title, body, plan, proposal._replace(head=head))
            log.info("bot branch already has these pages; no commit", head=head)
            return Publication(plan, [], str(pr_file))
        fast_forward = head_state is not None and head_state.base == base
        new = _commit(git, plan, proposal, tree(), head if fast_forward else base)
        self._move_branch(new, head)
        _write_pr_file(pr_file, title, body, plan, proposal._replace(head=new))
        if head:
            log.info("bot branch updated", head=new, fast_forward=fast_forward)
        else:
            log.info("bot branch created", head=new, base=base)
        replaced = head if head and not fast_forward else ""
        return Publication(plan, sorted(plan.changed_pages()), str(pr_file), replaced=replaced)


def _worktree_of(git: _Git, ref: str) -> str | None:
    """The path of the worktree that has ``ref`` (``refs/heads/NAME``) checked out, ``None`` when none has
    (``git worktree list --porcelain``: blocks of ``worktree PATH`` then ``branch REF`` lines; ``-z`` keeps
    paths with newlines whole)."""
    out = git.run("worktree", "list", "--porcelain", "-z").decode("utf-8", "surrogateescape")
    path = None
    for line in out.split("\0"):
        key, _, value = line.partition(" ")
        if key == "worktree":
            path = value
        elif key == "branch" and value == ref:
            return path
    return None


def _read_pages(
    git: _Git, base: str, base_name: str, paths: list[str]
) -> tuple[dict[str, str], dict[str, str], dict[str, bytes]]:
    """``(modes, blob SHAs, bytes)`` of each page at commit ``base``.

    Raises :class:`ConfigError` naming ``wiki.pages`` when a path ends in ``/``, or is not exactly
    one regular file (a blob of mode 100644 or 100755, not a symbolic link) in ``base``'s tree, or is larger than
    :data:`bot.fileread.PAGE_BYTES`.
    """
    modes: dict[str, str] = {}
    blobs: dict[str, str] = {}
    pages: dict[str, bytes] = {}
    where = f"at {base_name} in {git.path}"
    for path in paths:
        if path.endswith("/") or not path:
            raise page_error(path, "must name a file, not a directory (no trailing '/')", where)
        entries = git.run("ls-tree", "-z", "-l", "--full-tree", base, "--", path).decode("utf-8", "replace").split("\0")
        found = [e.partition("\t") for e in entries if e]
        exact = [info.split() for info, _, name in found if name == path]
        if not exact:
            raise page_error(path, f"no such file (git names it {found[0][2]!r})" if found else "no such file", where)
        mode, kind, sha, size = exact[0]
        if kind != "blob" or mode not in ("100644", "100755"):
            raise page_error(path, "not a regular file" if kind == "blob" else "not a file", where)
        if int(size) > PAGE_BYTES:
            raise page_error(path, f"larger than {PAGE_BYTES} bytes, refused", where)
        modes[path], blobs[path] = mode, sha
        pages[path] = git.run("cat-file", "blob", sha)
    return modes, blobs, pages


def _commit_info(git: _Git, sha: str) -> tuple[list[str], list[str], str]:
    """``(parent SHAs, [author, committer] as "Name <email>", message)`` of commit ``sha``."""
    raw = git.run("cat-file", "commit", sha).decode("utf-8", "replace")
    headers, _, message = raw.partition("\n\n")
    fields = [line.split(" ", 1) for line in headers.split("\n") if " " in line]
    people = {key: value.rsplit(">", 1)[0] + ">" for key, value in fields if key in ("author", "committer")}
    return (
        [value for key, value in fields if key == "parent"],
        [people.get("author", ""), people.get("committer", "")],
        message,
    )


def _tree(git: _Git, plan: SyncPlan, modes: dict[str, str], base: str) -> str:
    """The SHA of ``base``'s tree with the changed pages written in (a temporary index; objects stored)."""
    with tempfile.TemporaryDirectory(prefix="kep-sync-index-") as tmp:
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git.run("read-tree", base, env=index)
        for path, data in sorted(plan.changed_pages().items()):
            sha = git.run("hash-object", "-w", "--stdin", data=data).decode().strip()
            git.run("update-index", "--cacheinfo", f"{modes[path]},{sha},{path}", env=index)
        return git.run("write-tree", env=index).decode().strip()


def _commit(git: _Git, plan: SyncPlan, proposal: PrState, tree: str, parent: str) -> str:
    """Commit ``tree`` (from :func:`_tree`) on ``parent`` as kep-sync (:data:`_IDENTITY`); returns the commit SHA."""
    message = prmod.with_trailers(plan.changelog.commit_message, proposal).encode("utf-8")
    return git.run("commit-tree", tree, "-p", parent, "-F", "-", data=message, env=dict(_IDENTITY)).decode().strip()


def _read_pr_body(path: Path) -> str | None:
    """The body of pull-request.md (after the title line and a blank line), ``None`` when absent."""
    try:
        text = read_regular_text(path, PR_FILE_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise PublishError(f"{path}: cannot read: {exc}") from None
    return text.partition("\n\n")[2]


def _write_pr_file(path: Path, title: str, body: str | None, plan: SyncPlan, state: PrState) -> None:
    text = redact(f"{title}\n\n" + prmod.merge_body(body, prmod.render_section(plan.changelog.body, state)))
    try:
        if read_regular_text(path, PR_FILE_BYTES) == text:
            return
    except (OSError, UnicodeDecodeError):
        pass  # absent or unusable: written below
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None
