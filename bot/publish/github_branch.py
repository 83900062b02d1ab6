"""The bot branch of :class:`bot.publish.github.GitHubWiki` (a mixin of it): the base head and the pages at it,
commits made through the git database API, moving, creating and deleting the branch, and whether its head is
the bot's own."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from github import GitCommit, GithubException, GitRef, GitTree, InputGitTreeElement
from github.ContentFile import ContentFile
from structlog.typing import FilteringBoundLogger

from bot.fileread import PAGE_BYTES
from bot.publish import pull_request as prmod
from bot.publish.auth import GitHubApiError
from bot.publish.backend import page_error
from bot.publish.conditional import ConditionalReads
from bot.publish.ownership import is_own_head
from bot.publish.pull_request import PrState
from bot.publish.settings import PublishSettings, PullRequestSettings

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

    from bot.plan.planner import SyncPlan


class BotBranch:
    """The base and the bot branch through the API; part of :class:`~bot.publish.github.GitHubWiki`."""

    # Set by GitHubWiki (its __init__ and read()).
    config: PublishSettings
    pr_config: PullRequestSettings
    call: Callable[..., Any]
    log: FilteringBoundLogger
    repo: Repository
    pulls: list[PullRequest]
    reads: ConditionalReads

    def _base_name(self) -> str:
        """``wiki.base``, else the default branch: as a listed pull request's base repository gives it (no
        request), else read from the repository (one request)."""
        if self.config.wiki.base:
            return self.config.wiki.base
        listed = next((p.base.repo.default_branch for p in self.pulls if p.base.repo), None)
        return listed or str(self.call("read the default branch", self.reads.get, self.repo.url)["default_branch"])

    def _base_head(self, base_name: str) -> tuple[str, str]:
        """``(commit SHA, tree SHA)`` of the head of branch ``base_name`` (a conditional read)."""
        head = self.call(f"read branch {base_name}", self.reads.get, f"{self.repo.url}/branches/{quote(base_name)}")
        return str(head["commit"]["sha"]), str(head["commit"]["commit"]["tree"]["sha"])

    def _read_pages(self, base_name: str, sha: str) -> tuple[dict[str, bytes], dict[str, str]]:
        pages, blobs = {}, {}
        where = f"at {base_name} of {self.config.wiki.repo}"
        for path in self.config.pages_to_read():
            if path.endswith("/") or not path:
                raise page_error(path, "must name a file, not a directory (no trailing '/')", where)
            url = f"{self.repo.url}/contents/{quote(path)}"
            try:
                data = self.call(f"read {path} at {base_name}", self.reads.get, url, {"ref": sha})
                if _kept_page_differs(data):  # a kept answer whose content is not the blob it names: read again
                    data = self.call(f"read {path} at {base_name}", self.reads.get, url, {"ref": sha}, fresh=True)
            except GitHubApiError as exc:
                if exc.status == 404:
                    raise page_error(path, "no such file", where) from None
                raise
            if isinstance(data, list) or data.get("type") != "file":
                raise page_error(path, "not a file", where)
            item = ContentFile(self.repo.requester, {}, data, completed=True)
            if item.size > PAGE_BYTES:
                raise page_error(path, f"larger than {PAGE_BYTES} bytes, refused", where)
            if item.encoding == "base64":
                pages[path] = item.decoded_content
            else:  # over 1 MB the contents API leaves the content out
                blob = self.call(f"read {path} at {base_name}", self.repo.get_git_blob, item.sha)
                pages[path] = base64.b64decode(blob.content)
            blobs[path] = item.sha
        return pages, blobs

    def _is_ours(self, head: str, recorded: str, bot_identity: Callable[[], str], base: str, plan: SyncPlan) -> bool:
        """True when branch head ``head`` is the bot's commit (:mod:`bot.publish.ownership`).

        ``recorded``: the head the bot recorded (``""``: none); ``bot_identity()``: the bot's
        ``"Name <email>"``; the tree test compares ``base...head`` (one request) with ``plan``.
        """
        if head == recorded:
            return True
        commit = self.call("read the bot branch head", self.repo.get_git_commit, head)
        return is_own_head(
            head,
            recorded,
            [p.sha for p in commit.parents],
            [committer_of(commit.author), committer_of(commit.committer)],
            bot_identity,
            lambda: self._same_tree(base, head, plan),
        )

    def _identity_of(self, sha: str) -> Callable[[], str]:
        """A lazy ``"Name <email>"`` of commit ``sha`` (a commit the bot recorded; ``""`` when it is gone)."""

        def read() -> str:
            if not sha:
                return ""
            try:
                return committer_of(self.call("read the recorded bot commit", self.repo.get_git_commit, sha).committer)
            except GitHubApiError as exc:
                if exc.status in (404, 422):
                    return ""
                raise

        return read

    def _same_tree(self, base: str, head: str, plan: SyncPlan) -> bool:
        """True when ``head`` changes exactly this run's pages, to exactly this run's bytes, against ``base``."""
        files = self.call("compare the bot branch with the base", self.repo.compare, base, head).files
        want = {path: _blob_sha(data) for path, data in plan.changed_pages().items()}
        return len(files) < 300 and {f.filename: f.sha for f in files if f.status == "modified"} == want == {
            f.filename: f.sha for f in files
        }

    def _move_branch(self, sha: str, force: bool) -> None:
        """Point the bot branch at ``sha``; a branch deleted under an open pull request is created again."""
        try:
            self.call("move the bot branch", self._branch_ref().edit, sha, force=force)
        except GitHubApiError as exc:
            if exc.status != 422:
                raise
            try:  # "Reference does not exist": create it (never overwrites; an existing branch fails again)
                self.call(
                    "recreate the bot branch",
                    self.repo.create_git_ref,
                    f"refs/heads/{self.pr_config.branch}",
                    sha,
                    recover=lambda: self._branch_at(sha),
                )
            except GitHubApiError:
                raise exc from None
            self.log.warning("the bot branch was deleted under the open pull request; created it again", head=sha)

    def _delete_branch(self) -> None:
        try:
            self.call("delete the bot branch", self._branch_ref().delete)
        except GitHubApiError as exc:
            if exc.status != 422:  # already gone
                raise

    def _create_branch(self, sha: str, known_heads: set[str], identity: str, plan: SyncPlan, base: str) -> None:
        """Create the bot branch at ``sha``; a leftover branch is moved only when its head is the bot's.

        The bot's: a head some closed bot pull request recorded, or a commit by ``identity`` (the
        committer of the commit just made) whose tree is this run's (:mod:`bot.publish.ownership`).
        """
        ref = f"refs/heads/{self.pr_config.branch}"
        try:
            self.call("create the bot branch", self.repo.create_git_ref, ref, sha, recover=lambda: self._branch_at(sha))
            return
        except GitHubApiError as exc:
            if exc.status != 422:
                raise
        old = self.call(
            "read the bot branch", lambda: self.repo.get_git_ref(f"heads/{self.pr_config.branch}").object.sha
        )
        if old not in known_heads:
            if not self._is_ours(old, "", lambda: identity, base, plan):
                raise GitHubApiError(
                    f"{self.config.wiki.repo}: branch {self.pr_config.branch} exists with a commit "
                    f"kep-sync did not make ({old[:12]}); not overwriting it. Delete the branch "
                    "or set pull_request.branch to another name"
                )
        self.call("move the bot branch", self._branch_ref().edit, sha, force=True)

    def _branch_at(self, sha: str) -> GitRef.GitRef | None:
        """The bot branch's ref when it exists and points at ``sha`` (found by name), else ``None``."""
        try:  # the client is lazy: the request is made when .object is read
            ref = self.repo.get_git_ref(f"heads/{self.pr_config.branch}")
            found = ref.object.sha
        except GithubException as exc:
            if exc.status == 404:
                return None
            raise
        return ref if found == sha else None

    # ------------------------------------------------------------------ helpers
    def _commit(self, plan: SyncPlan, proposal: PrState, base_tree: str, parent: str) -> GitCommit.GitCommit:
        """Blobs, tree and commit for the changed pages on ``base_tree``; returns the commit (no ref moved)."""
        elements = []
        for path, data in sorted(plan.changed_pages().items()):
            blob = self.call(
                f"upload {path}", self.repo.create_git_blob, base64.b64encode(data).decode("ascii"), "base64"
            )
            elements.append(InputGitTreeElement(path, "100644", "blob", sha=blob.sha))
        requester, url = self.repo.requester, self.repo.url
        tree = self.call(
            "create the tree",
            self.repo.create_git_tree,
            elements,
            GitTree.GitTree(requester, url=f"{url}/git/trees/{base_tree}", attributes={"sha": base_tree}),
        )
        parents = [GitCommit.GitCommit(requester, url=f"{url}/git/commits/{parent}", attributes={"sha": parent})]
        message = prmod.with_trailers(plan.changelog.commit_message, proposal)
        return self.call("create the commit", self.repo.create_git_commit, message, tree, parents)

    def _branch_ref(self) -> GitRef.GitRef:
        """The bot branch's ref at the documented ``git/refs/heads/...`` URL (PATCH and DELETE), without a request."""
        ref = f"refs/heads/{self.pr_config.branch}"
        return GitRef.GitRef(self.repo.requester, url=f"{self.repo.url}/git/{quote(ref)}", attributes={"ref": ref})


def committer_of(person) -> str:
    """``"Name <email>"`` of a PyGithub ``GitAuthor`` (``""`` when missing)."""
    return f"{person.name} <{person.email}>" if person is not None else ""


def _kept_page_differs(data: object) -> bool:
    """True for a ``contents`` answer with inline content whose git blob SHA is not the ``sha`` it names."""
    if not isinstance(data, dict) or data.get("encoding") != "base64" or not isinstance(data.get("content"), str):
        return False
    try:
        return _blob_sha(base64.b64decode(data["content"])) != data.get("sha")
    except ValueError:
        return True


def _blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of ``data`` (what GitHub reports as a file's ``sha``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
