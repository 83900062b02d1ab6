"""Independent check of ``kep-sync digest``: its own reading of the git history and of kep.yaml.

    python scripts/check/check_digest.py REPO --sig node --from v1.33 --to v1.35 --at 2026-01-01

REPO is a git clone (e.g. ``git clone ../shared/data/enhancements-keps.bundle /tmp/enh``).
Nothing from ``bot`` is imported: the revision is picked with ``git rev-list --first-parent
--before`` (the end of DATE in UTC), files are read with ``git archive`` and kep.yaml is read
with a line scanner (top-level ``owning-sig`` / ``title`` and the indented keys of the
``milestone:`` block), not YAML. Prints the counts per stage and the KEP numbers, then
compares them with ``kep-sync digest --format json`` when ``--compare`` is given.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile

VERSION = re.compile(r"^v?(\d+)\.(\d+)$")


def scalar(text: str) -> str:
    text = text.split(" #", 1)[0].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text.strip()


def read_kep(text: str) -> dict:
    out: dict = {"milestone": {}}
    block = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            key, _, value = line.partition(":")
            block = key.strip()
            if block in ("owning-sig", "title"):
                out[block] = scalar(value)
        elif block == "milestone":
            key, _, value = line.strip().partition(":")
            out["milestone"][key.strip()] = scalar(value)
    return out


def release(value: str) -> tuple[int, int] | None:
    m = VERSION.match(value or "")
    if not m or (m.group(1), m.group(2)) == ("0", "0"):
        return None
    return int(m.group(1)), int(m.group(2))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--sig", required=True)
    ap.add_argument("--from", dest="first", required=True)
    ap.add_argument("--to", dest="last", required=True)
    ap.add_argument("--at", required=True)
    ap.add_argument("--compare", metavar="JSON", help="kep-sync digest --format json output to compare with")
    args = ap.parse_args()
    sig = "sig-" + args.sig.lower().removeprefix("sig-")
    lo, hi = release(args.first), release(args.last)
    rev = subprocess.run(
        ["git", "-C", args.repo, "rev-list", "--first-parent", "-1", f"--before={args.at} 23:59:59 +0000", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tar = subprocess.run(
        ["git", "-C", args.repo, "archive", "--format=tar", rev, "keps"], capture_output=True, check=True
    ).stdout
    found: dict[str, list[int]] = {"alpha": [], "beta": [], "stable": []}
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if (
                not member.isfile()
                or parts[-1] != "kep.yaml"
                or "NNNN-kep-template" in parts
                or "0000-cloud-provider-template" in parts
            ):
                continue
            kep = read_kep(archive.extractfile(member).read().decode("utf-8", "replace"))
            owner = (kep.get("owning-sig") or parts[1]).lower()
            if owner != sig:
                continue
            number = int(re.match(r"\d+", parts[-2]).group())
            for stage in ("stable", "beta", "alpha"):
                r = release(kep["milestone"].get(stage, ""))
                if r is not None and lo <= r <= hi:
                    found[stage].append(number)
                    break
    found = {k: sorted(v) for k, v in found.items()}
    print(f"revision {rev}")
    for stage in ("stable", "beta", "alpha"):
        print(f"{stage}: {len(found[stage])} {found[stage]}")
    if args.compare:
        bot = json.load(open(args.compare, encoding="utf-8"))
        theirs = {k: sorted(e["kep"] for e in v) for k, v in bot.items()}
        for stage in ("stable", "beta", "alpha"):
            only_mine = sorted(set(found[stage]) - set(theirs[stage]))
            only_bot = sorted(set(theirs[stage]) - set(found[stage]))
            print(
                f"{stage}: {'agree' if not only_mine and not only_bot else f'only here {only_mine}, only kep-sync {only_bot}'}"
            )
        return 0 if found == theirs else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
