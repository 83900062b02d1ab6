"""A second reading of the release notes that name a KEP by its title, with rules of its own (nothing from ``bot/``,
no YAML library), against ``kep-sync watch --all --report``.

For the release ``--release`` (``v1.37``), every kep.yaml of an enhancements checkout that plans a stage there
(``milestone:`` ``alpha``/``beta``/``stable`` read line by line) and every note of ``release-notes-1.NN.json``:

- a note *names* a KEP when one of its sentences holds every word of the KEP's title but the small words (``and``,
  ``for``, ``the`` ...), case and a plural ``s`` ignored, a word of a CamelCase name counting too
  (``InPlacePodVerticalScalingSchedulerPreemption`` holds ``scheduler``), ``API`` held by ``API`` or
  ``resource``; and no other KEP title of the checkout is held the same way (the title words of a KEP must then
  be two or more, or one CamelCase word);
- it speaks for the KEP when it names a stage the KEP plans there (GA / stable, beta, alpha: the highest word
  in the sentence), or names no stage, starts with "Add" or "Introduc", and the stage is the first kep.yaml
  gives a milestone;
- a note counts when it names no feature gate some kep.yaml declares (whole word) and names the KEP by
  number only through ``documentation`` (a KEP link there is allowed: the watch reads that note by its link).

It prints each (KEP, note, stage) it finds, and with ``--watch-report FILE`` (``kep-sync watch --all --report``)
those the watch reads otherwise: a pair this reading finds that the watch does not count as landed from that
note, and a watch sign "naming the KEP by its title" this reading does not find. Exit 0 either way: a
disagreement is for a person to explain (docs/evidence.md lists those of the real data).

    python scripts/check/check_named_notes.py --enhancements /tmp/enhancements --release v1.37 \\
        --notes ../shared/data/release-notes [--watch-report watch.json]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "is", "its", "of", "on", "or", "the", "to"}
SMALL |= {"via", "with"}
STAGE_WORDS = (("stable", r"\bGA\b|\b[Ss]table\b|[Gg]eneral [Aa]vailability"), ("beta", r"\b[Bb]eta\b"))
STAGE_WORDS += (("alpha", r"\b[Aa]lpha\b"),)


def read_keps(root: Path) -> list[dict]:
    """``[{path, number, title, milestones: {stage: "v1.37"}, gates}]`` from every ``keps/**/kep.yaml``."""
    out = []
    for path in sorted(root.glob("keps/**/kep.yaml")):
        if "NNNN" in str(path) or "template" in path.parent.name:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        title = re.search(r"(?m)^title:\s*(.+?)\s*$", text)
        block = re.search(r"(?ms)^milestone:\s*\n((?:[ \t]+.*\n?)*)", text)
        miles = {}
        for stage in ("alpha", "beta", "stable"):
            m = re.search(rf"(?m)^\s+{stage}:\s*[\"']?v?(\d+\.\d+)", block.group(1)) if block else None
            if m:
                miles[stage] = f"v{m.group(1)}"
        number = re.match(r"(\d+)", path.parent.name)
        out.append(
            {
                "path": str(path.relative_to(root)),
                "number": int(number.group(1)) if number else -1,
                "title": title.group(1).strip("\"'") if title else "",
                "milestones": miles,
                "gates": re.findall(r"(?m)^\s*-\s*name:\s*[\"']?([A-Za-z0-9]+)", text),
            }
        )
    return out


def plain(word: str) -> str:
    low = word.lower()
    return low[:-1] if low.endswith("s") and len(low) > 4 else low


def title_words(title: str) -> set[str]:
    words = {plain(w) for w in re.findall(r"[A-Za-z0-9]+", title) if w.lower() not in SMALL}
    camel = any(re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+", w) for w in re.findall(r"[A-Za-z0-9]+", title))
    return words if len(words - {"api", "apis"}) >= 2 or camel else set()


def sentence_words(sentence: str) -> set[str]:
    found = re.findall(r"[A-Za-z0-9]+", sentence)
    parts = [p for w in found for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", w)]
    return {plain(w) for w in found + parts}


def holds(words: set[str], have: set[str]) -> bool:
    return bool(words) and all(
        w in have or (w in ("api", "apis") and have & {"api", "apis", "resource"}) for w in words
    )


def stage_of(sentence: str) -> str:
    return next((stage for stage, rx in STAGE_WORDS if re.search(rx, sentence)), "")


def readings(keps: list[dict], notes: dict, release: str) -> list[tuple[str, int, str]]:
    """``[(kep number, note PR, stage)]`` this reading finds, sorted."""
    gates = {g for k in keps for g in k["gates"]}
    words = {k["path"]: title_words(k["title"]) for k in keps}
    planned = [k for k in keps if release in k["milestones"].values()]
    found = set()
    for key, entry in notes.items():
        text = entry.get("text") if isinstance(entry, dict) else None
        if not isinstance(text, str) or entry.get("do_not_publish") is True:
            continue
        if gates & set(re.findall(r"[A-Za-z0-9_]+", text)):
            continue
        linked = {int(n) for n in re.findall(r"enhancements/issues/(\d+)", json.dumps(entry.get("documentation")))}
        if re.search(r"KEP[- ]?\d+|keps/sig-", text):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            have = sentence_words(sentence)
            named = [k for k in keps if holds(words[k["path"]], have)]
            if len(named) != 1 or named[0] not in planned or (linked and named[0]["number"] not in linked):
                continue
            kep = named[0]
            said = stage_of(sentence)
            first = next(s for s in ("alpha", "beta", "stable") if s in kep["milestones"])
            stages = [s for s, r in kep["milestones"].items() if r == release]
            if said in stages or (not said and first in stages and re.match(r"\W*(Add|Introduc)", sentence)):
                found.add((str(kep["number"]), int(key), said or first))
                break
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--enhancements", type=Path, required=True, help="a checkout of kubernetes/enhancements")
    parser.add_argument("--release", required=True, help="vMAJOR.MINOR")
    parser.add_argument("--notes", type=Path, required=True, help="the directory of release-notes-1.NN.json")
    parser.add_argument("--watch-report", type=Path, help="the JSON report of kep-sync watch --all")
    args = parser.parse_args(argv)
    keps = read_keps(args.enhancements)
    notes = json.loads((args.notes / f"release-notes-{args.release.lstrip('v')}.json").read_text(encoding="utf-8"))
    mine = readings(keps, notes, args.release)
    for kep, pr, stage in mine:
        print(f"{kep}: #{pr} {stage}")
    print(f"{len(mine)} notes name a KEP planned in {args.release} by its title")
    if args.watch_report is None:
        return 0
    watch = json.loads(args.watch_report.read_text(encoding="utf-8"))["watch"]
    landed = {(e["kep"], s["pr"]) for e in watch["keps"] for s in e["signs"] if s["says"] == "landed"}
    by_title = {(e["kep"], s["pr"]) for e in watch["keps"] for s in e["signs"] if "by its title" in s["text"]}
    only_here = [(k, p) for k, p, _ in mine if (k, p) not in landed]
    only_watch = sorted(by_title - {(k, p) for k, p, _ in mine})
    for kep, pr in only_here:
        print(f"disagree: this reading: {kep} #{pr} names the KEP and its stage; the watch does not count it")
    for kep, pr in only_watch:
        print(f"disagree: the watch counts {kep} #{pr} as naming the KEP by its title; this reading does not")
    print(f"{len(only_here) + len(only_watch)} disagreements")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
