"""The git model of the fake GitHub: blobs, trees and commits with real git SHA-1s, refs, ancestry, compares and
the files a diff lists (a mixin of :class:`tests.fakegithub.FakeGitHub`)."""

from __future__ import annotations

import re
from datetime import datetime

from .common import _iso, git_sha


class GitModel:
    """Git objects and refs of the fake; part of :class:`~tests.fakegithub.FakeGitHub`."""

    # --------------------------------------------------------------- git model
    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _commit_on(self, full_name, branch, files, message, login, parents=None, modes=None) -> str:
        """Commit {path: text | None} on ``branch`` (or on the default branch if it does not exist yet)."""
        r = self.repos[full_name]
        refs = r["refs"]
        if parents is None:
            parents = [refs.get(f"refs/heads/{branch}") or refs[f"refs/heads/{r['default_branch']}"]]
        flat = self._flatten(self.commits[parents[0]]["tree"]) if parents else {}
        for path, content in files.items():
            if content is None:
                flat.pop(path, None)
            else:
                mode = (modes or {}).get(path) or flat.get(path, ("100644",))[0]  # a change keeps the mode
                if mode == "160000":  # a submodule: the text is the commit it points at
                    flat[path] = (mode, "commit", content)
                else:
                    flat[path] = (mode, "blob", self._put_blob(content.encode()))
        refs[f"refs/heads/{branch}"] = sha = self._new_commit(self._build(flat), parents, message, login, False)
        return sha

    def _put_blob(self, data: bytes) -> str:
        sha = git_sha("blob", data)
        self.blobs[sha] = data
        return sha

    def _put_tree(self, entries: dict[str, tuple[str, str, str]]) -> str:
        order = sorted(entries, key=lambda n: n + "/" if entries[n][1] == "tree" else n)  # git's sort order
        body = b"".join(f"{entries[n][0].lstrip('0')} {n}\0".encode() + bytes.fromhex(entries[n][2]) for n in order)
        sha = git_sha("tree", body)
        self.trees[sha] = dict(entries)
        return sha

    def _walk(self, tree_sha: str, prefix: str = ""):
        """Yield (path, mode, type, sha) for every entry below ``tree_sha``, depth first."""
        for name, (mode, typ, sha) in sorted(self.trees[tree_sha].items()):
            yield prefix + name, mode, typ, sha
            if typ == "tree":
                yield from self._walk(sha, prefix + name + "/")

    def _flatten(self, tree_sha: str) -> dict[str, tuple[str, str, str]]:
        return {p: (m, t, s) for p, m, t, s in self._walk(tree_sha) if t != "tree"}

    def _build(self, flat: dict[str, tuple[str, str, str]]) -> str:
        """Build nested trees from {path: (mode, type, sha)}; returns the root tree sha."""
        entries, groups = {}, {}
        for path, entry in flat.items():
            head, _, rest = path.partition("/")
            if rest:
                groups.setdefault(head, {})[rest] = entry
            else:
                entries[head] = entry
        entries.update({name: ("040000", "tree", self._build(sub)) for name, sub in groups.items()})
        return self._put_tree(entries)

    def _lookup(self, tree_sha: str, path: str) -> tuple[str, str, str] | None:
        entry = ("040000", "tree", tree_sha)
        for part in filter(None, path.split("/")):
            if entry[1] != "tree" or part not in self.trees[entry[2]]:
                return None
            entry = self.trees[entry[2]][part]
        return entry

    def _new_commit(
        self,
        tree: str,
        parents: list[str],
        message: str,
        login: str | None,
        verified: bool,
        author: dict | None = None,
        committer: dict | None = None,
    ) -> str:
        ident = {"name": login, "email": f"{login}@users.noreply.github.com", "date": _iso(self._tick())}
        author = {**ident, **(author or {})}
        committer = {**ident, **committer} if committer else dict(author)  # GitHub: defaults to the author

        lines = (
            [f"tree {tree}"]
            + [f"parent {p}" for p in parents]
            + [
                f"{role} {who['name']} <{who['email']}> {int(datetime.fromisoformat(who['date']).timestamp())} +0000"
                for role, who in (("author", author), ("committer", committer))
            ]
        )
        sha = git_sha("commit", ("\n".join(lines) + "\n\n" + message).encode())
        self.commits[sha] = dict(
            sha=sha,
            tree=tree,
            parents=list(parents),
            message=message,
            author=author,
            committer=committer,
            login=login,
            verified=verified,
            ts=self._clock,
        )
        return sha

    def _resolve(self, repo: dict, ref: str) -> str | None:
        """Resolve a branch, ``refs/...``, ``heads/...``, ``owner:branch`` or (short) sha to a commit sha."""
        ref = ref.split(":", 1)[-1]
        for cand in (ref, f"refs/{ref}", f"refs/heads/{ref}"):
            if cand in repo["refs"]:
                return repo["refs"][cand]
        hits = [s for s in self.commits if s.startswith(ref)] if re.fullmatch(r"[0-9a-f]{7,40}", ref) else []
        return hits[0] if len(hits) == 1 else None

    def _ancestors(self, sha: str) -> list[str]:
        """``sha`` and everything reachable from it, breadth first."""
        order, seen = [sha], {sha}
        for cur in order:
            fresh = [p for p in self.commits[cur]["parents"] if p not in seen]
            order += fresh
            seen.update(fresh)
        return order

    def _compare(self, base: str, head: str) -> dict:
        head_anc, base_anc = self._ancestors(head), self._ancestors(base)
        hs, bs = set(head_anc), set(base_anc)
        ahead = sorted((c for c in head_anc if c not in bs), key=lambda c: self.commits[c]["ts"])
        behind = [c for c in base_anc if c not in hs]
        status = "identical" if base == head else "ahead" if not behind else "behind" if not ahead else "diverged"
        merge_base = next((c for c in head_anc if c in bs), None)
        return dict(status=status, ahead=ahead, behind=behind, merge_base=merge_base)

    def _diff(self, r: dict, old_tree: str | None, new_tree: str, ref: str) -> list[dict]:
        """Changed files between two trees, shaped like GitHub's ``diff-entry`` (no line stats) at commit ``ref``."""
        old, new = self._flatten(old_tree) if old_tree else {}, self._flatten(new_tree)
        api, web = f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        return [
            dict(
                filename=p,
                sha=(new.get(p) or old[p])[2],
                additions=0,
                deletions=0,
                changes=0,
                status="added" if p not in old else "removed" if p not in new else "modified",
                blob_url=f"{web}/blob/{ref}/{p}",
                raw_url=f"{web}/raw/{ref}/{p}",
                contents_url=f"{api}/contents/{p}?ref={ref}",
            )
            for p in sorted(set(old) | set(new))
            if old.get(p) != new.get(p)
        ]

    def _head_sha(self, repo: dict, pr: dict) -> str:
        """Open PRs follow their head branch; closed ones keep the sha they were closed at."""
        live = pr["state"] == "open"
        return repo["refs"].get(f"refs/heads/{pr['head_ref']}", pr["head_sha"]) if live else pr["head_sha"]

    def _repo_for_pull(self, full_name: str | None) -> dict:
        return self.repos[full_name] if full_name else next(r for r in self.repos.values() if r["pulls"])
