"""The fake GitHub's handlers of the git database (blobs, trees, commits), commits, compares and tarballs (a
mixin of :class:`tests.fakegithub.FakeGitHub`)."""

from __future__ import annotations

import base64
import hashlib

from werkzeug.wrappers import Response

from .common import _MODES, CODELOAD, _need, _route

try:
    from tests.fakecompare import diff_files
except ImportError:  # pragma: no cover
    from fakecompare import diff_files


class GitDataHandlers:
    """Git database, commit, compare and archive endpoints; part of :class:`~tests.fakegithub.FakeGitHub`."""

    @_route("POST", "{R}/git/blobs")
    def h_create_blob(self, r):
        body = self._body()
        _need(isinstance(body.get("content"), str), 422, 'Invalid request.\n\n"content" wasn\'t supplied.')
        raw = body["content"].encode()
        sha = self._put_blob(base64.b64decode(raw) if body.get("encoding") == "base64" else raw)
        return 201, dict(sha=sha, url=f"{self.url}/repos/{r['full_name']}/git/blobs/{sha}")

    @_route("GET", "{R}/git/blobs/<sha>")
    def h_get_blob(self, r, sha):
        """JSON with base64 ``content``; ``Accept: application/vnd.github.raw`` returns the bytes as they are."""
        _need(sha in self.blobs, 404, "Not Found")
        data = self.blobs[sha]
        if "application/vnd.github.raw" in self._req.headers.get("Accept", ""):
            return Response(data, status=200, mimetype="application/vnd.github.raw")
        return dict(
            sha=sha,
            node_id=f"B_{sha[:12]}",
            size=len(data),
            content=base64.encodebytes(data).decode(),
            encoding="base64",
            url=f"{self.url}/repos/{r['full_name']}/git/blobs/{sha}",
        )

    def _tree_json(self, r: dict, sha: str, recursive: bool = False) -> dict:
        api = f"{self.url}/repos/{r['full_name']}/git"
        rows = self._walk(sha) if recursive else ((n, *e) for n, e in sorted(self.trees[sha].items()))
        entries = [
            dict(
                path=p,
                mode=m,
                type=t,
                sha=s,
                url=f"{api}/{t}s/{s}",
                **({"size": len(self.blobs[s])} if t == "blob" else {}),
            )
            for p, m, t, s in rows
        ]
        return dict(sha=sha, url=f"{api}/trees/{sha}", tree=entries, truncated=False)

    @_route("POST", "{R}/git/trees")
    def h_create_tree(self, r):
        """Entries may use nested paths, inline ``content``, a ``sha``, or ``sha: null`` to delete."""
        body = self._body()
        base_tree = body.get("base_tree")
        _need(not base_tree or base_tree in self.trees, 422, "Invalid tree info")
        flat = self._flatten(base_tree) if base_tree else {}
        for e in body.get("tree", []):
            path, mode, typ, sha = e.get("path", "").strip("/"), e.get("mode"), e.get("type"), e.get("sha")
            _need(
                path and mode in _MODES and typ in ("blob", "tree", "commit"),
                422,
                "Invalid tree info",
                [dict(resource="Tree", field="tree", code="invalid")],
            )
            for p in [p for p in flat if p == path or p.startswith(path + "/")]:
                del flat[p]
            if e.get("content") is not None:
                flat[path] = (mode, "blob", self._put_blob(e["content"].encode()))
            elif sha is not None:  # (sha: null just deletes the path)
                _need(sha in {"tree": self.trees, "blob": self.blobs}.get(typ, {sha}), 422, "GitRPC::BadObjectState")
                if typ == "tree":
                    flat.update({f"{path}/{p}": v for p, v in self._flatten(sha).items()})
                else:
                    flat[path] = (mode, typ, sha)
        return 201, self._tree_json(r, self._build(flat))

    @_route("GET", "{R}/git/trees/<sha>")
    def h_get_tree(self, r, sha):
        _need(sha in self.trees, 404, "Not Found")
        return self._tree_json(r, sha, self._req.args.get("recursive") not in (None, "", "0", "false"))

    @_route("POST", "{R}/git/commits")
    def h_create_commit(self, r):
        body = self._body()
        _need(body.get("tree") in self.trees, 422, "Tree SHA does not exist")
        _need(
            all(p in self.commits for p in body.get("parents", [])),
            422,
            "Parent SHA does not exist or is not a commit object",
        )
        sha = self._new_commit(
            body["tree"],
            body.get("parents", []),
            body.get("message", ""),
            self._login,
            verified=self._kind == "installation",
            author=body.get("author"),
            committer=body.get("committer"),
        )
        return 201, self._git_commit_json(r, sha)

    @_route("GET", "{R}/git/commits/<sha>")
    def h_get_git_commit(self, r, sha):
        _need(sha in self.commits, 404, "Not Found")
        return self._git_commit_json(r, sha)

    @_route("GET", "{R}/commits/<path:ref>")
    def h_get_commit(self, r, ref):
        """Full commit with ``files``; ``Accept: application/vnd.github.sha`` returns just the sha."""
        sha = self._resolve(r, ref)
        _need(sha, 422, f"No commit found for SHA: {ref}")
        if "application/vnd.github.sha" in self._req.headers.get("Accept", ""):
            etag = f'"{hashlib.sha1(sha.encode()).hexdigest()}"'  # If-None-Match: 304 while the ref stays
            if self._req.headers.get("If-None-Match") == etag:
                return Response(status=304, headers={"ETag": etag})
            return Response(sha, status=200, mimetype="text/plain", headers={"ETag": etag})
        return self._commit_json(r, sha, files=True)

    @_route("GET", "{R}/commits")
    def h_list_commits(self, r):
        """Commits reachable from ``sha`` (default: the default branch), newest first, at most ``per_page``;
        with ``path`` only those whose first parent held that path otherwise (GitHub's history simplification,
        for a linear history)."""
        args = self._req.args
        head = self._resolve(r, args.get("sha") or r["default_branch"])
        _need(head, 404, "Not Found")
        path, limit, out = args.get("path"), int(args.get("per_page", 30)), []
        for sha in sorted(self._ancestors(head), key=lambda c: self.commits[c]["ts"], reverse=True):
            parents = self.commits[sha]["parents"]
            old = self._lookup(self.commits[parents[0]]["tree"], path) if path and parents else None
            if path is None or self._lookup(self.commits[sha]["tree"], path) != old:
                out.append(self._commit_json(r, sha))
            if len(out) >= limit:
                break
        return out

    @_route("GET", "{R}/compare/<path:spec>")
    def h_compare(self, r, spec):
        base_ref, _, head_ref = spec.partition("...")
        base, head = self._resolve(r, base_ref), self._resolve(r, head_ref)
        _need(base and head, 404, "Not Found")
        cmp = self._compare(base, head)
        _need(cmp["merge_base"], 404, f"No common ancestor between {base_ref} and {head_ref}.")
        web = f"https://github.com/{r['full_name']}/compare"
        return dict(
            url=f"{self.url}/repos/{r['full_name']}/compare/{spec}",
            status=cmp["status"],
            html_url=f"{web}/{spec}",
            diff_url=f"{web}/{spec}.diff",
            patch_url=f"{web}/{spec}.patch",
            permalink_url=f"{web}/{r['owner']}:{base[:7]}...{r['owner']}:{head[:7]}",
            ahead_by=len(cmp["ahead"]),
            behind_by=len(cmp["behind"]),
            total_commits=len(cmp["ahead"]),
            base_commit=self._commit_json(r, base),
            merge_base_commit=self._commit_json(r, cmp["merge_base"]),
            commits=[self._commit_json(r, c) for c in cmp["ahead"][: int(self._req.args.get("per_page", 250))]],
            files=self._compare_files(r, self.commits[cmp["merge_base"]]["tree"], self.commits[head]["tree"], head),
        )

    def _compare_files(self, r: dict, old_tree: str, new_tree: str, ref: str) -> list[dict]:
        """The ``files`` of a compare, statuses as :attr:`compare_style` picks (tests/fakecompare.py)."""
        api, web = f"{self.url}/repos/{r['full_name']}", f"https://github.com/{r['full_name']}"
        out = []
        for path, status, sha, previous in diff_files(
            self._flatten(old_tree), self._flatten(new_tree), self.compare_style
        ):
            entry = dict(
                filename=path,
                sha=sha,
                additions=0,
                deletions=0,
                changes=0,
                status=status,
                blob_url=f"{web}/blob/{ref}/{path}",
                raw_url=f"{web}/raw/{ref}/{path}",
                contents_url=f"{api}/contents/{path}?ref={ref}",
            )
            out.append({**entry, "previous_filename": previous} if previous else entry)
        return out

    @_route("GET", "{R}/tarball/<path:ref>")
    def h_tarball(self, r, ref):
        """``302`` to the archive of the commit ``ref`` names, as GitHub redirects to codeload."""
        sha = self._resolve(r, ref)
        _need(sha, 404, "Not Found")
        return Response(status=302, headers={"Location": f"{self.url}{CODELOAD}/{r['full_name']}/legacy.tar.gz/{sha}"})

    @_route("GET", CODELOAD + "/<owner>/<name>/legacy.tar.gz/<sha>")
    def h_codeload(self, r, sha):
        """The tree at commit ``sha`` as GitHub's tar.gz: top folder ``OWNER-REPO-SHA7/``, the commit SHA in the
        pax global header ``comment``."""
        import io
        import tarfile

        _need(sha in self.commits, 404, "Not Found")
        top, buf = f"{r['owner']}-{r['name']}-{sha[:7]}", io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": sha}) as tar:
            for path, mode, typ, blob in self._walk(self.commits[sha]["tree"]):
                info = tarfile.TarInfo(f"{top}/{path}")
                if typ in ("tree", "commit"):  # git archive writes a submodule as an empty directory
                    info.type, info.mode = tarfile.DIRTYPE, 0o775
                    tar.addfile(info)
                elif mode == "120000":
                    info.type, info.linkname = tarfile.SYMTYPE, self.blobs[blob].decode("utf-8", "surrogateescape")
                    tar.addfile(info)
                else:
                    info.size, info.mode = len(self.blobs[blob]), 0o775 if mode == "100755" else 0o664
                    tar.addfile(info, io.BytesIO(self.blobs[blob]))
        return Response(buf.getvalue(), status=200, mimetype="application/x-gzip")
