"""A :class:`Snapshot`: every KEP of one enhancements revision, keyed by number.

Pure: built from ``(path, bytes)`` pairs that a source (``bot/sources``) read.
KEP numbers are not unique upstream (``0000`` is used by three real KEPs,
``2133`` by two), so ``keps`` maps a number to a tuple of :class:`~bot.model.kep.Kep`
and :func:`resolve` picks one by slug.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from bot.model.kep import Kep, KepFileError, Problem, is_template, parse_kep

_NUMBER_RE = re.compile(r"^([0-9]{1,9})(?:-|$)")


class Snapshot(NamedTuple):
    """KEPs of one revision.

    - ``source``: where it came from, printable (tokens never included).
    - ``revision``: commit SHA, or ``""`` for a plain directory.
    - ``keps``: ``{number: (Kep, ...)}``, each tuple sorted by path.
    - ``prr``: ``{number: (path, ...)}`` of ``keps/prod-readiness`` files.
    - ``problems``: file-level problems (skipped files, duplicate numbers);
      per-KEP problems live in ``Kep.problems``.
    """

    source: str
    revision: str
    keps: dict[int, tuple[Kep, ...]]
    prr: dict[int, tuple[str, ...]]
    problems: tuple[Problem, ...]

    def all_keps(self) -> list[Kep]:
        """Every KEP, ordered by (number, path)."""
        return [k for n in sorted(self.keps) for k in self.keps[n]]

    def all_problems(self) -> list[Problem]:
        """File-level problems, then each KEP's, in a stable order."""
        return list(self.problems) + [p for k in self.all_keps() for p in k.problems]


def is_kep_file(path: str) -> bool:
    """True for ``keps/**/kep.yaml`` (templates included; see :func:`bot.model.kep.is_template`)."""
    return path.startswith("keps/") and path.endswith("/kep.yaml")


def is_prr_file(path: str) -> bool:
    """True for ``keps/prod-readiness/**.yaml`` (the PRR approval files)."""
    return path.startswith("keps/prod-readiness/") and path.endswith(".yaml")


def build_snapshot(files: Iterable[tuple[str, bytes]], source: str, revision: str) -> Snapshot:
    """Parse every ``kep.yaml`` in ``files`` into a :class:`Snapshot`.

    ``files`` yields ``(repository-relative path, raw bytes)``; paths other
    than kep.yaml and PRR files are ignored, the two templates are skipped.
    One broken file never stops the others: it is reported in ``problems``.
    """
    by_number: dict[int, list[Kep]] = {}
    prr: dict[int, list[str]] = {}
    problems: list[Problem] = []
    for path, data in files:
        if is_prr_file(path):
            number = leading_number(path.rsplit("/", 1)[-1][: -len(".yaml")])
            if number is not None:
                prr.setdefault(number, []).append(path)
            continue
        if not is_kep_file(path) or is_template(path):
            continue
        try:
            kep = parse_kep(path, data)
        except KepFileError as exc:
            problems.append(exc.problem)
            continue
        by_number.setdefault(kep.number, []).append(kep)
    for number, keps in by_number.items():
        keps.sort(key=lambda k: k.path)
        if len(keps) > 1:
            paths = ", ".join(k.path for k in keps)
            problems.append(
                Problem(keps[0].path, "kep-number", f"number {number} is used by {len(keps)} KEPs: {paths}")
            )
    problems.sort()
    return Snapshot(
        source=source,
        revision=revision,
        keps={n: tuple(v) for n, v in sorted(by_number.items())},
        prr={n: tuple(sorted(v)) for n, v in sorted(prr.items())},
        problems=tuple(problems),
    )


def resolve(snapshot: Snapshot, number: int, slug: str = "") -> tuple[Kep, ...]:
    """The KEPs a wiki row ``number[-slug]`` may mean.

    One KEP when the number is unique or the slug picks one; several when it
    stays ambiguous; ``()`` when the number is gone upstream.
    """
    candidates = snapshot.keps.get(number, ())
    if len(candidates) <= 1 or not slug:
        return candidates
    exact = tuple(k for k in candidates if slug_matches(k.slug, slug))
    return exact or candidates


def slug_matches(upstream: str, written: str) -> bool:
    """True when a slug written in a row or a release note names the KEP directory slug ``upstream`` (any case)."""
    return upstream.casefold() == written.casefold()


def leading_number(name: str) -> int | None:
    """The KEP number a name starts with (``"4671-gang-scheduling"``, ``"4671"``): 1-9 ASCII digits, else ``None``."""
    m = _NUMBER_RE.match(name)
    return int(m.group(1)) if m else None


def unreadable(snapshot: Snapshot, number: int, slug: str = "") -> list[Problem]:
    """The file-level problems of kep.yaml files (or KEP directories) numbered ``number`` that could
    not be read at all (not YAML, not UTF-8, a link, too large); with ``slug``, only that KEP's."""
    out = []
    for problem in snapshot.problems:
        if problem.key or not (problem.path.endswith("/kep.yaml") or problem.path.endswith("/")):
            continue
        parts = problem.path.rstrip("/").split("/")
        dirname = parts[-1] if problem.path.endswith("/") else parts[-2]
        if leading_number(dirname) == number and (not slug or slug_matches(dirname.partition("-")[2], slug)):
            out.append(problem)
    return out


def number_hints(snapshot: Snapshot, number: int) -> list[str]:
    """Why no KEP has ``number``: files in a ``NNNN-*`` directory that could not be read, and
    kep.yaml files that declare ``kep-number: number`` under another directory. ``[]`` when none."""
    hints = [f"{problem.path} could not be read: {problem.message}" for problem in unreadable(snapshot, number)]
    for kep in snapshot.all_keps():
        declared = kep.declared_number
        if re.fullmatch(r"[0-9]{1,9}", declared) and int(declared) == number and kep.number != number:
            hints.append(f"{kep.path} declares kep-number {declared} (its directory says {kep.number})")
    return hints
