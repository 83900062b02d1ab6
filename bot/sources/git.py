"""Git sources: a bare clone of the enhancements repository cached between runs, read with one ``git cat-file --batch``.

A local path, ``file://``/``https://`` URL or bundle file is cloned once into
``cache_dir/git/<hash>`` and fetched on later runs; the remote is not kept (a remote left by a clone cut short
is removed on the next run) and ``FETCH_HEAD`` is deleted. Credentials in a URL's user-info never reach a
command line or the disk: git is given the URL without them, and they reach git through the environment of
the one git process, read by a credential helper (:func:`remote`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote

from bot import progress
from bot.errors import ConfigError, SourceError
from bot.model.kep import Problem
from bot.model.snapshot import is_kep_file, is_prr_file
from bot.redact import redact
from bot.sources.localfs import LINK, MAX_FILE_BYTES, NOT_UTF8, decode_path, text_path

#: What git says when it refuses a repository another user owns (``safe.directory``; git >= 2.35.2, and the
#: wording of 2.35.2 .. 2.36).
_REFUSALS = ("detected dubious ownership", "unsafe repository")


class NoDefaultBranch(SourceError):
    """A git source whose ``HEAD`` names no commit and that has no single branch (nor master/main) to read."""


def ownership_refusal(repo: Path, stderr: str) -> str:
    """Why git would not read ``repo``, when its ``stderr`` says the repository is owned by another user
    (``safe.directory``): the owner, the user kep-sync runs as, and the two ways out; ``""`` for any other
    message. A checkout git refuses would otherwise read as a plain directory: no revision, no kep.yaml
    links, no history."""
    if not any(marker in stderr for marker in _REFUSALS):
        return ""
    where = repo / ".git" if (repo / ".git").exists() else repo
    try:
        owner = f"uid {os.stat(where).st_uid}"
    except OSError:
        owner = "another user"
    absolute = text_path(os.path.abspath(repo))
    return (
        f"{text_path(str(repo))}: git refuses to read this repository: it is owned by {owner}, not by uid "
        f'{os.geteuid()} that kep-sync runs as (git: "detected dubious ownership"); run kep-sync as the owner, '
        f"or trust the directory in the global git config of the user kep-sync runs as: git config --global "
        f"--add safe.directory {absolute} (in a container, a file named by GIT_CONFIG_GLOBAL holding "
        f"[safe] directory = {absolute})"
    )


def try_git(repo: Path, *args: str) -> str | None:
    """``git -C repo ARGS`` output as text (undecodable bytes as U+FFFD), ``None`` when git fails or is not
    installed: for questions whose "no" is an answer (is this a checkout? does this commit exist?). Raises
    :class:`ConfigError` when git refuses the repository (:func:`ownership_refusal`): that is no answer, and a
    setting to fix (exit 2 from every command, as ``validate`` reports it)."""
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    except FileNotFoundError:
        return None
    if proc.returncode != 0 and (why := ownership_refusal(repo, proc.stderr.decode(errors="replace"))):
        raise ConfigError(why)
    return proc.stdout.decode(errors="replace") if proc.returncode == 0 else None


def worktree_head(root: Path) -> str:
    """The commit SHA checked out at ``root`` (a work tree), ``""`` when it is not a git checkout. Raises
    :class:`ConfigError` for a checkout git refuses to read (:func:`ownership_refusal`)."""
    return (try_git(root, "rev-parse", "--verify", "-q", "HEAD") or "").strip()


def clean_head(root: Path) -> str:
    """:func:`worktree_head` of ``root`` when nothing under ``keps/`` differs from it (``git status
    --porcelain``: no change, staged or not, and no untracked file), else ``""``: a sync reads the work tree,
    so HEAD alone does not name what it reads."""
    head = worktree_head(root)
    if not head:
        return ""
    status = try_git(root, "status", "--porcelain", "--untracked-files=all", "--", "keps")
    return head if status == "" else ""


def _git_bytes(repo: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False, env=env)
    if proc.returncode != 0:
        if why := ownership_refusal(repo, proc.stderr.decode(errors="replace")):
            raise ConfigError(why)
        raise SourceError(
            f"git {args[0]} in {text_path(str(repo))} failed: {redact(proc.stderr.decode(errors='replace').strip())}"
        )
    return proc.stdout


def run_git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS`` output as text (undecodable bytes as U+FFFD); raises :class:`SourceError`, redacted
    (:class:`ConfigError` for a repository git refuses to read, :func:`ownership_refusal`)."""
    return _git_bytes(repo, *args).decode(errors="replace")


#: The user-info of an ``http(s)://`` URL: everything up to the LAST ``@`` before the host ends (RFC 3986 3.2.1).
_HTTP_USERINFO_RE = re.compile(r"^(https?://)([^/?#]*)@", re.IGNORECASE)
#: A URL of a transport that authenticates otherwise (ssh keys), with a password in its user-info.
_OTHER_PASSWORD_RE = re.compile(r"^(ssh|git)://[^/?#@]*:[^/?#]*@", re.IGNORECASE)
#: The credential helper git runs (``sh -c``) for a URL that had user-info: it answers ``get`` with the user name and
#: password that :func:`remote` put in the environment of that git process; it stores and erases nothing. Its
#: command line holds only this text, never a credential.
CREDENTIAL_HELPER = (
    '!f() { test "$1" = get || return 0; printf \'username=%s\\n\' "$KEP_SYNC_GIT_USERNAME"; '
    'if test -n "${KEP_SYNC_GIT_PASSWORD+set}"; then printf \'password=%s\\n\' "$KEP_SYNC_GIT_PASSWORD"; fi; }; f'
)


class Remote(NamedTuple):
    """How to name a remote repository to git: ``url`` without user-info (what goes on git's command line) and
    ``env``, the environment of the git process (``None``: kep-sync's own, unchanged)."""

    url: str
    env: dict[str, str] | None


def remote(url: str) -> Remote:
    """``url`` as git is given it. The user-info of an ``http(s)://`` URL (``https://user:token@host/r.git``,
    percent-decoded as git decodes it) moves to the environment: ``KEP_SYNC_GIT_USERNAME`` and
    ``KEP_SYNC_GIT_PASSWORD`` (only when the URL has a ``:`` password), read by :data:`CREDENTIAL_HELPER`, the
    only credential helper of that git process (``credential.helper`` set through ``GIT_CONFIG_COUNT``, after an
    empty value that drops the helpers of the git config files, so none of them stores the credential).
    Any other URL or path is returned as is.

    Raises :class:`ConfigError` for an ``ssh://`` or ``git://`` URL with a password in its user-info: those
    transports take none (ssh authenticates with a key), and git would put it on ssh's command line.
    """
    if _OTHER_PASSWORD_RE.match(url):
        raise ConfigError(
            f"{redact(url)}: an ssh:// or git:// URL carries no password (ssh authenticates with a key); "
            "remove the password from the URL"
        )
    found = _HTTP_USERINFO_RE.match(url)
    if found is None:
        return Remote(url, None)
    user, colon, password = found.group(2).partition(":")
    env = dict(os.environ)
    count = int(env.get("GIT_CONFIG_COUNT", "0")) if env.get("GIT_CONFIG_COUNT", "0").isdigit() else 0
    env |= {
        f"GIT_CONFIG_KEY_{count}": "credential.helper",
        f"GIT_CONFIG_VALUE_{count}": "",
        f"GIT_CONFIG_KEY_{count + 1}": "credential.helper",
        f"GIT_CONFIG_VALUE_{count + 1}": CREDENTIAL_HELPER,
        "GIT_CONFIG_COUNT": str(count + 2),
        "KEP_SYNC_GIT_USERNAME": unquote(user),
    }
    env.pop("KEP_SYNC_GIT_PASSWORD", None)
    if colon:
        env["KEP_SYNC_GIT_PASSWORD"] = unquote(password)
    return Remote(found.group(1) + url[found.end() :], env)


def missing_programs(location: str) -> str:
    """Why git cannot read the git source ``location`` on this machine, ``""`` when it can: ``git`` is not on
    ``PATH``, or ``location`` is an ``ssh://`` URL and ``ssh`` is not (unless ``GIT_SSH_COMMAND``, ``GIT_SSH``
    or git's ``core.sshCommand`` names the program to use). The check ``validate`` and ``serve`` make before a
    run, and :func:`sync_git_cache` before it calls git: the container image has git but no ssh."""
    if shutil.which("git") is None:
        return "git is not installed (not on PATH); a git source needs it: install git, or use github:OWNER/REPO@REF"
    if not re.match(r"^ssh://", location, re.IGNORECASE) or shutil.which("ssh") is not None:
        return ""
    if os.environ.get("GIT_SSH_COMMAND") or os.environ.get("GIT_SSH"):
        return ""
    if subprocess.run(["git", "config", "--get", "core.sshCommand"], capture_output=True, check=False).stdout.strip():
        return ""
    return (
        "git reads an ssh:// URL with ssh, which is not installed (not on PATH; the container image has none): "
        "use an https:// URL (credentials in it are passed to git through the environment), or install an ssh "
        "client and mount its key"
    )


def git_cache_path(url: str, cache_dir: Path) -> Path:
    """Where :func:`sync_git_cache` keeps the bare clone of ``url``: ``cache_dir/git/<sha256(url)[:16]>``."""
    return cache_dir / "git" / hashlib.sha256(url.encode()).hexdigest()[:16]


def sync_git_cache(url: str, cache_dir: Path) -> Path:
    """Clone ``url`` bare into :func:`git_cache_path` the first time, fetch it afterwards.

    Returns the bare repository path; its ``HEAD`` is the source's default branch head.
    Raises :class:`SourceError` when git fails (the message is redacted), :class:`ConfigError` when this machine
    lacks a program the URL needs (:func:`missing_programs`) or git refuses the repository as another user's.
    """
    if missing := missing_programs(url):
        raise ConfigError(f"enhancements {redact(url)!r}: {missing}")
    repo, where = git_cache_path(url, cache_dir), remote(url)
    if not (repo / "HEAD").is_file():
        repo.parent.mkdir(parents=True, exist_ok=True)
        with progress.step(f"cloning {url}", "a first clone of kubernetes/enhancements takes about a minute"):
            proc = subprocess.run(
                ["git", "clone", "--bare", "--quiet", where.url, str(repo)],
                capture_output=True,
                check=False,
                env=where.env,
            )
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip()
            if "://" not in url and (why := ownership_refusal(Path(url), err)):
                raise ConfigError(why)
            raise SourceError(f"git clone {redact(url)} failed: {redact(err)}")
        # Later fetches name the URL each time (and its credentials, through remote()): no remote is kept.
        run_git(repo, "remote", "remove", "origin")
    else:
        try_git(repo, "remote", "remove", "origin")  # a clone cut short before the line above, or older kep-sync
        with progress.step(f"fetching {url}"):
            _git_bytes(repo, "fetch", "--quiet", "--prune", where.url, "+refs/heads/*:refs/heads/*", env=where.env)
    (repo / "FETCH_HEAD").unlink(missing_ok=True)  # git names the URL there (without user-info, if its version does)
    _ensure_head(repo, url)
    return repo


def _ensure_head(repo: Path, url: str) -> None:
    """Point a dangling ``HEAD`` of the bare cache at the source's only (or master/main) branch.

    A bundle made from one branch carries no ``HEAD``; ``git clone`` then points
    ``HEAD`` at the local ``init.defaultBranch``, which may not exist in it.
    Likewise an upstream that renamed its default branch leaves ``HEAD`` dangling
    after ``fetch --prune``.
    """
    if try_git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}") is not None:
        return
    branches = run_git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/").split()
    if len(branches) != 1:
        defaults: tuple[str, ...] = ("refs/heads/master", "refs/heads/main")
        branches = [b for b in defaults if b in branches][:1]
    if not branches:
        raise NoDefaultBranch(f"{redact(url)}: no HEAD and no single default branch to read")
    run_git(repo, "symbolic-ref", "HEAD", branches[0])


def read_git_tree(repo: Path, revision: str) -> list[tuple[str, bytes]]:
    """``(path, bytes)`` of every kep.yaml and PRR file at ``revision``.

    The problems met are dropped here: :func:`scan_git_tree` returns them too.
    """
    return scan_git_tree(repo, revision)[0]


def scan_git_tree(
    repo: Path, revision: str, max_file_bytes: int = MAX_FILE_BYTES
) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """``(files, problems)`` for ``keps/`` at ``revision``: metadata blobs read with one ``git cat-file --batch``.

    ``files`` is ``[(path, bytes)]`` sorted by path (paths decoded as UTF-8,
    U+FFFD for bad bytes, reported as :data:`NOT_UTF8`). Symbolic links (mode
    120000) and submodules under ``keps/`` and metadata blobs over
    ``max_file_bytes`` bytes are reported in ``problems`` and skipped.
    Raises :class:`SourceError` when git fails.
    """
    listing = _git_bytes(repo, "ls-tree", "-r", "-z", "-l", revision, "--", "keps")
    wanted: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, raw_path = entry.split(b"\t", 1)
        mode, kind, sha, size = meta.decode("ascii", "replace").split()
        path, changed = decode_path(raw_path)
        if mode == "120000":
            problems.append(Problem(path, "", LINK))
        elif kind == "commit":
            problems.append(Problem(path, "", "submodule, not a file; skipped"))
        elif kind != "blob" or not (is_kep_file(path) or is_prr_file(path)):
            continue
        elif int(size) > max_file_bytes:
            problems.append(Problem(path, "", f"larger than {max_file_bytes} bytes; skipped"))
        else:
            wanted.append((path, sha))
            if changed:
                problems.append(Problem(path, "", NOT_UTF8))
    files = []
    for (path, _), data in zip(wanted, cat_file_batch(repo, [sha for _, sha in wanted]), strict=True):
        if data is None:  # listed by ls-tree yet not readable (a partial clone): never read as a removed KEP
            raise SourceError(f"git cat-file in {text_path(str(repo))}: the blob of {path} is missing")
        files.append((path, data))
    files.sort(key=lambda f: f[0])
    return files, problems


def cat_file_batch(repo: Path, shas: list[str]) -> list[bytes | None]:
    """The content of each blob in ``shas`` (same order), read with one ``git cat-file --batch``; ``None`` for
    a SHA git reports missing or that is not a blob. Raises :class:`SourceError` when git fails."""
    if not shas:
        return []
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        capture_output=True,
        check=False,
        input="".join(f"{sha}\n" for sha in shas).encode(),
    )
    if proc.returncode != 0:
        raise SourceError(f"git cat-file in {text_path(str(repo))} failed")
    out, pos = proc.stdout, 0
    blobs: list[bytes | None] = []
    for _ in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()  # "<sha> <type> <size>", or "<sha> missing"
        if len(header) < 3:
            blobs.append(None)
            pos = end + 1
            continue
        size = int(header[2])
        blobs.append(out[end + 1 : end + 1 + size] if header[1] == b"blob" else None)
        pos = end + 1 + size + 1
    return blobs


def remote_head(location: str) -> str:
    """The commit ``HEAD`` (else the only branch, else master/main) of ``location`` names, via ``git ls-remote``."""
    if missing := missing_programs(location):
        raise ConfigError(f"enhancements {redact(location)!r}: {missing}")
    where = remote(location)
    proc = subprocess.run(
        ["git", "ls-remote", where.url],
        capture_output=True,
        check=False,
        env={**(where.env or os.environ), "GIT_TERMINAL_PROMPT": "0"},
    )
    if proc.returncode != 0:
        raise SourceError(
            f"git ls-remote {redact(location)} failed: {redact(proc.stderr.decode(errors='replace').strip())}"
        )
    refs = {
        ref: sha
        for sha, ref in (
            line.split("\t", 1) for line in proc.stdout.decode(errors="replace").splitlines() if "\t" in line
        )
    }
    branches = [r for r in refs if r.startswith("refs/heads/")]
    for ref in ("HEAD", *(branches if len(branches) == 1 else ()), "refs/heads/master", "refs/heads/main"):
        if ref in refs:
            return refs[ref]
    raise NoDefaultBranch(f"{redact(location)}: no HEAD and no single default branch to read")
