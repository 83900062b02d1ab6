"""A second reading of the feature-gate findings, with its own parsers (nothing from ``bot/``, no YAML library).

Reads the matrix page, every kep.yaml of an enhancements checkout (or bundle, cloned into a temporary
directory), one ``versioned_feature_list.yaml`` and optionally a directory of ``release-notes-1.NN.json``,
each by plain line and string handling, and prints:

- the figures: rows, rows with a gate in the list, rows whose one listed gate (shared or not) disagrees
  with kep.yaml about when a stage was reached, how many of those the release notes of the list's release
  name the gate in, rows claiming an alpha in v1.36 or earlier whose gates are in no list and no release
  note, KEPs of the whole source at ``implementable`` + ``stable`` with a declared gate GA and locked;
- the findings kep-sync should report (``gate-stage-mismatch``, ``not-shipped``,
  ``shipped-not-implemented``: one gate speaking for the KEP, as ``bot/plan/evidence/gates.py`` documents):
  a gate several KEPs declare speaks for the one whose kep.yaml first had a line naming it
  (``git log --first-parent -G``, when the checkout is a git repository; a withdrawn or replaced first
  owner hands it to the one live declarer whose ``see-also`` / ``replaces`` names its number), and only for
  stages reached after that KEP took it (its earliest milestone then); a release the list has not closed
  (its newest version) is no disagreement; a beta turned on by default in kep.yaml's beta release agrees;
  a gate born at a later stage says nothing of an earlier one;
- with ``--audit-report FILE`` (the JSON report of ``kep-sync audit --gate-lifecycle``): the findings on
  which the two readings disagree, and exit 1 when there are any.

    python scripts/check/check_gates.py --enhancements ../shared/data/enhancements-keps.bundle \\
        --page ../shared/wiki/kubernetes-keps-implementation-matrix.md \\
        --gates ../shared/data/feature-gates/versioned_feature_list.openshift-0b0e324c.yaml \\
        --notes ../shared/data/release-notes [--audit-report audit.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

STAGE_OF = {"Alpha": "alpha", "Beta": "beta", "GA": "stable", "Deprecated": "deprecated"}
ORDER = ("alpha", "beta", "stable")
DEAD = ("withdrawn", "replaced")


def rel(text: str) -> tuple[int, int] | None:
    """``v1.33`` / ``1.33`` / ``"v1.33"`` -> (1, 33); else None."""
    m = re.fullmatch(r"""["']?v?(\d+)\.(\d+)["']?""", text.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def show(r: tuple[int, int] | None) -> str:
    return f"v{r[0]}.{r[1]}" if r else "-"


# ---- the gate list: "- name: X" then "  - default: .." items with preRelease / version / lockToDefault ----


def read_gates(text: str) -> dict[str, list[dict]]:
    """``{gate: [{version: (1, 33) or None for "1.0", stage, default, locked}, ...]}`` in file order."""
    gates: dict[str, list[dict]] = {}
    spec: dict | None = None
    name = ""
    for line in text.splitlines():
        if line.startswith("- name:"):
            name = line.split(":", 1)[1].strip()
            gates[name] = []
            spec = None
            continue
        stripped = line.strip()
        if stripped.startswith("- "):
            spec = {}
            gates[name].append(spec)
            stripped = stripped[2:]
        if spec is None or ":" not in stripped:
            continue
        key, value = (p.strip() for p in stripped.split(":", 1))
        value = value.strip('"')
        if key == "version":
            spec["version"] = None if value == "1.0" else rel(value)
        elif key == "preRelease":
            spec["stage"] = STAGE_OF.get(value, value)
        elif key in ("default", "lockToDefault"):
            spec["locked" if key == "lockToDefault" else "default"] = value == "true"
    for specs in gates.values():
        specs.sort(key=lambda s: s.get("version") or (0, 0))
    return gates


def first(specs: list[dict], stage: str) -> dict | None:
    return next((s for s in specs if s.get("stage") == stage), None)


def at(specs: list[dict], r: tuple[int, int]) -> dict | None:
    found = None
    for s in specs:
        if s.get("version") is None or s["version"] <= r:
            found = s
    return found


# ---- kep.yaml: top-level status / stage, milestone block, feature-gates names ----


def read_kep(text: str) -> dict:
    kep = {"status": "", "stage": "", "latest": "", "milestone": {}, "gates": [], "links": []}
    block = ""
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace() and not line.startswith("-"):
            key, _, value = line.partition(":")
            block = key.strip()
            value = value.strip().strip("\"'")
            if block in ("status", "stage"):
                kep[block] = value
            elif block == "latest-milestone":
                kep["latest"] = value
            elif block in ("see-also", "replaces") and value:
                kep["links"].append(value)
            continue
        item = line.strip()
        if block == "milestone" and ":" in item:
            key, _, value = item.partition(":")
            kep["milestone"][key.strip()] = value.strip().strip("\"'")
        elif block in ("see-also", "replaces") and item.startswith("-"):
            kep["links"].append(item.lstrip("- ").strip("\"'"))
        elif block == "feature-gates" and re.match(r"-?\s*name:", item):
            name = item.lstrip("- ").split(":", 1)[1].strip().strip("\"'")
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) and name.lower() not in ("none", "na", "tbd", "todo"):
                kep["gates"].append(name)
    return kep


def read_keps(root: Path) -> dict[str, dict]:
    """``{kep dir name "NNNN-slug": kep}`` for every ``keps/**/kep.yaml`` except the templates."""
    out = {}
    for path in sorted((root / "keps").rglob("kep.yaml")):
        if "NNNN-kep-template" in path.parts or "0000-cloud-provider-template" in path.parts:
            continue
        kep = read_kep(path.read_text(encoding="utf-8", errors="replace"))
        kep["path"] = str(path.relative_to(root))
        out.setdefault(path.parent.name, kep)
        kep["dir"] = path.parent.name
    return out


# ---- the page: table rows whose first cells hold a KEP number ----


def page_rows(text: str) -> list[tuple[int, str]]:
    """``(number, slug)`` of each row of a table whose header has a ``KEP`` column."""
    rows, kep_col = [], None
    for line in text.splitlines():
        if not line.lstrip().startswith("|"):
            kep_col = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if kep_col is None:
            kep_col = cells.index("KEP") if "KEP" in cells else -1
            continue
        if kep_col < 0 or set(line.strip()) <= set("|-: "):
            continue
        m = re.match(r"\[?(?:KEP-)?(\d+)(?:-([A-Za-z0-9][\w.-]*))?", cells[kep_col].strip("*_`"))
        if m:
            rows.append((int(m.group(1)), m.group(2) or ""))
    return rows


def find_kep(keps: dict[str, dict], number: int, slug: str) -> dict | None:
    hits = [k for d, k in keps.items() if d.split("-", 1)[0].isdigit() and int(d.split("-", 1)[0]) == number]
    if slug:
        hits = [k for k in hits if k["dir"].split("-", 1)[-1] == slug] or hits
    return hits[0] if len(hits) == 1 else None


# ---- the reading ----


def owners(keps: dict[str, dict], gates: dict) -> dict[str, list[str]]:
    """Listed gate -> the dirs declaring it (a typo of it counts), live KEPs only when a live one declares it."""
    by: dict[str, list[dict]] = {}
    for k in keps.values():
        for g in {canonical(g, gates) for g in k["gates"]}:
            by.setdefault(g, []).append(k)
    return {g: [k["dir"] for k in ([k for k in ks if k["status"] not in DEAD] or ks)] for g, ks in by.items()}


def git(root: Path, *args: str) -> str | None:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else None


def history_owners(root: Path, keps: dict[str, dict], gates: dict) -> dict[str, tuple[str, tuple[int, int]]]:
    """``{listed gate: (owner dir, earliest release it planned when it took the gate)}`` for each listed gate
    several KEPs declare, from the git history of ``root`` (``{}`` when it is no git repository)."""
    if git(root, "rev-parse", "HEAD") is None:
        return {}
    by: dict[str, list[dict]] = {}
    for k in keps.values():
        for g in {canonical(g, gates) for g in k["gates"]}:
            by.setdefault(g, []).append(k)
    number = {int(k["dir"].split("-", 1)[0]): k for k in keps.values() if k["dir"].split("-", 1)[0].isdigit()}
    out = {}
    for gate, declarers in by.items():
        if len(declarers) < 2 or gate not in gates:
            continue
        names = {g for k in declarers for g in k["gates"] if canonical(g, gates) == gate}
        first: dict[str, tuple[int, str, str]] = {}
        for name in sorted(names):
            log = git(
                root, "log", "--reverse", "--first-parent", "--name-only", "--format=@%ct %H", "-G", name, "--", "keps"
            )
            when, commit = 0, ""
            for line in (log or "").splitlines():
                if line.startswith("@"):
                    stamp, commit = line[1:].split(" ", 1)
                    when = int(stamp)
                elif line.endswith("/kep.yaml"):
                    m = re.match(r"(\d+)-", line.split("/")[-2])
                    k = number.get(int(m.group(1))) if m else None
                    if k in declarers and (k["dir"] not in first or when < first[k["dir"]][0]):
                        first[k["dir"]] = (when, commit, line)
        if len(first) < len(declarers):
            continue
        ordered = sorted(first, key=lambda d: first[d][0])
        if first[ordered[0]][0] == first[ordered[1]][0]:
            continue
        owner = ordered[0]
        while keps[owner]["status"] in DEAD:
            n = owner.split("-", 1)[0]
            heirs = [
                k["dir"]
                for k in declarers
                if k["status"] not in DEAD and any(re.search(rf"(?:^|/){n}-|^{n}$", x) for x in k["links"])
            ]
            owner = heirs[0] if len(heirs) == 1 else ""
            if not owner:
                break
        if owner:
            then = read_kep(git(root, "show", f"{first[owner][1]}:{first[owner][2]}") or "")
            planned = [rel(v) for v in [then["latest"], *then["milestone"].values()] if rel(v)]
            out[gate] = (owner, min(planned) if planned else (0, 0))
    return out


def near(a: str, b: str) -> bool:
    """One run of at most 2 characters differs (both names at least 12 long)."""
    if a == b or min(len(a), len(b)) < 12 or abs(len(a) - len(b)) > 2:
        return False
    head = len(os.path.commonprefix([a, b]))
    tail = len(os.path.commonprefix([a[head:][::-1], b[head:][::-1]]))
    return max(len(a), len(b)) - head - tail <= 2


def canonical(g: str, gates: dict) -> str:
    """The listed name ``g`` means: itself, or the one listed name it is a typo of; else ``g``."""
    if g in gates:
        return g
    close = [n for n in gates if near(g, n)]
    return close[0] if len(close) == 1 else g


def listed(kep: dict, gates: dict, own: dict) -> list[str]:
    return sorted({canonical(g, gates) for g in kep["gates"]} & set(gates))


def speaker(kep: dict, gates: dict, own: dict) -> str:
    names = [g for g in listed(kep, gates, own) if kep["dir"] in own.get(g, [kep["dir"]])]
    if len(names) != 1:
        return ""
    return names[0] if own.get(names[0], [kep["dir"]]) == [kep["dir"]] else ""


def beta_on(specs: list[dict]) -> tuple[int, int] | None:
    """The release of the first beta spec on by default, when the gate was born off at beta."""
    beta = first(specs, "beta")
    if beta is None or beta.get("default"):
        return None
    on = next((s for s in specs if s.get("stage") == "beta" and s.get("default") and s.get("version")), None)
    return on["version"] if on else None


def mismatches(
    kep: dict, specs: list[dict], last: tuple[int, int] = (99, 0), since: tuple[int, int] = (0, 0)
) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """``(stage, kep.yaml's release, the list's)`` where they differ: the list's release closed (and
    kep.yaml's too, or later), never a beta kep.yaml dates at the default flip, never a stage reached before
    the KEP took the gate (``since``)."""
    out = []
    for stage in ORDER:
        m = rel(kep["milestone"].get(stage, ""))
        s = first(specs, stage)
        if not (m and s and s.get("version") and s["version"] != m):
            continue
        if stage == "beta" and beta_on(specs) == m or s["version"] < since:
            continue
        if s["version"] <= last and (m <= last or s["version"] < m):
            out.append((stage, m, s["version"]))
        elif s["version"] > last and m <= last:
            out.append((stage, m, s["version"]))
    return out


def findings(
    kep: dict, gate: str, specs: list[dict], last: tuple[int, int], newest: tuple[int, int], since=(0, 0)
) -> list[tuple]:
    number = int(kep["dir"].split("-", 1)[0])
    out = [("gate-stage-mismatch", number, show(m)) for _, m, _ in mismatches(kep, specs, last, since)]
    born = specs[0].get("stage") if specs else None
    for stage in ORDER:
        m = rel(kep["milestone"].get(stage, ""))
        later_born = born in ORDER and ORDER.index(born) > ORDER.index(stage)
        if m and not first(specs, stage) and m <= last and m <= newest and not later_born:
            now = at(specs, m)
            if now is None or (now.get("stage") in ORDER and ORDER.index(now["stage"]) < ORDER.index(stage)):
                out.append(("not-shipped", number, show(m)))
    top = specs[-1] if specs else None
    if kep["status"] == "implementable" and top and top.get("stage") == "stable" and top.get("locked"):
        lock = next(s for s in specs if s.get("stage") == "stable" and s.get("locked"))
        if not lock.get("version") or lock["version"] <= last:
            out.append(("shipped-not-implemented", number, show(lock.get("version"))))
    return out


def absent(kep: dict, last: tuple[int, int]) -> list[tuple]:
    stable = rel(kep["milestone"].get("stable", ""))
    if stable and stable <= last:
        return []
    for stage in ORDER:
        m = rel(kep["milestone"].get(stage, ""))
        if m and m <= last:
            return [("not-shipped", int(kep["dir"].split("-", 1)[0]), show(m))]
    return []


def notes_text(notes_dir: Path | None) -> dict[tuple[int, int], str]:
    out = {}
    for path in sorted(notes_dir.glob("release-notes-*.json")) if notes_dir else []:
        r = rel(path.name.removeprefix("release-notes-").removesuffix(".json"))
        if r:
            out[r] = path.read_text(encoding="utf-8", errors="replace")
    return out


def notes_side(gate: str, at_release: tuple[int, int], notes: dict) -> bool:
    """True when the release notes of ``at_release`` (the release the list says) name the gate at all."""
    return bool(re.search(rf"\b{gate}\b", notes.get(at_release, "")))


def reading(root: Path, page: str, gates_text: str, notes: dict) -> dict:
    keps = read_keps(root)
    gates = read_gates(gates_text)
    own = owners(keps, gates)
    history = history_owners(root, keps, gates)
    own.update({g: [owner] for g, (owner, _) in history.items()})
    versions = sorted({s["version"] for ss in gates.values() for s in ss if s.get("version")})
    newest = versions[-1] if versions else (0, 0)
    last = versions[-2] if len(versions) > 1 else (0, 0)
    rows = [find_kep(keps, n, s) for n, s in page_rows(page)]
    with_gate = [k for k in rows if k and listed(k, gates, own)]
    disagree, sided = [], []
    for k in with_gate:  # the KEPs with one gate in the list, shared or not
        names = listed(k, gates, own)
        found = mismatches(k, gates[names[0]]) if len(names) == 1 else []
        if found:
            disagree.append(k["dir"])
            if any(notes_side(names[0], lst, notes) for _, _, lst in found):
                sided.append(k["dir"])
    alpha_absent = [
        k["dir"]
        for k in rows
        if k
        and k["gates"]
        and not listed(k, gates, own)
        and (rel(k["milestone"].get("alpha", "")) or (99, 0)) <= (1, 36)
        and not any(f"`{g}`" in t for g in k["gates"] for t in notes.values())
    ]
    locked = [
        k["dir"]
        for k in keps.values()
        if k["status"] == "implementable"
        and k["stage"] == "stable"
        and any(s.get("stage") == "stable" and s.get("locked") for g in k["gates"] if g in gates for s in gates[g])
    ]
    found = []
    for k in dict.fromkeys(d["dir"] for d in rows if d).keys():
        kep = keps[k]
        gate = speaker(kep, gates, own)
        if gate:
            since = history[gate][1] if gate in history and history[gate][0] == kep["dir"] else (0, 0)
            found += findings(kep, gate, gates[gate], last, newest, since)
        elif kep["gates"] and not listed(kep, gates, own):
            found += absent(kep, last)
    return {
        "rows": len(rows),
        "rows_with_listed_gate": len(with_gate),
        "disagree": sorted(disagree),
        "notes_side_with_list": sorted(sided),
        "alpha_gate_absent": sorted(alpha_absent),
        "implementable_ga_locked_upstream": sorted(locked),
        "findings": sorted(set(found)),
    }


def checkout(source: Path, tmp: str) -> Path:
    if (source / "keps").is_dir():
        return source
    subprocess.run(["git", "-c", "init.defaultBranch=master", "clone", "-q", str(source), f"{tmp}/enh"], check=True)
    return Path(tmp) / "enh"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--enhancements", required=True, type=Path, help="checkout with keps/, or a git bundle")
    ap.add_argument("--page", required=True, type=Path)
    ap.add_argument("--gates", required=True, type=Path, help="one versioned_feature_list.yaml")
    ap.add_argument("--notes", type=Path, help="directory of release-notes-1.NN.json")
    ap.add_argument("--audit-report", type=Path, help="kep-sync audit --report JSON to compare with")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = reading(
            checkout(args.enhancements, tmp),
            args.page.read_text(encoding="utf-8"),
            args.gates.read_text(encoding="utf-8"),
            notes_text(args.notes),
        )
    print(
        f"rows: {out['rows']}; with a gate in the list: {out['rows_with_listed_gate']}; one listed gate "
        f"disagreeing on a stage's release: {len(out['disagree'])} {out['disagree']}"
    )
    print(f"release notes side with the list: {len(out['notes_side_with_list'])} {out['notes_side_with_list']}")
    print(
        f"alpha claimed (<= v1.36), gate in no list or note: {len(out['alpha_gate_absent'])} {out['alpha_gate_absent']}"
    )
    print(
        f"implementable + stage stable, a declared gate GA + locked (whole source): {len(out['implementable_ga_locked_upstream'])} "
        f"{out['implementable_ga_locked_upstream']}"
    )
    mine = {tuple(f) for f in out["findings"]}
    for kind, kep, release in sorted(mine):
        print(f"finding: {kind} KEP {kep} {release}")
    if not args.audit_report:
        return 0
    report = json.loads(args.audit_report.read_text(encoding="utf-8"))
    theirs = {
        (f["kind"], int(f["kep"].split("-")[0]), f["release"] or "-")
        for f in report.get("gate_lifecycle", {}).get("findings", [])
    }
    for f in sorted(mine - theirs):
        print(f"only here: {f}")
    for f in sorted(theirs - mine):
        print(f"only in kep-sync: {f}")
    print(f"agree on {len(mine & theirs)} findings; {len(mine ^ theirs)} differ")
    return 1 if mine ^ theirs else 0


if __name__ == "__main__":
    sys.exit(main())
