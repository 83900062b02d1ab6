"""A :class:`Snapshot`: every KEP of one enhancements revision, keyed by number.

Pure: built from ``(path, bytes)`` pairs that a source (``bot/sources``) read.
KEP numbers are not unique upstream (``0000`` is used by three real KEPs,
``2133`` by two), so ``keps`` maps a number to a tuple of :class:`~bot.kep.Kep`
and :func:`resolve` picks one by slug.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from bot.kep import Kep, KepFileError, Problem, is_template, parse_kep


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
    """True for ``keps/**/kep.yaml`` (templates included; see :func:`bot.kep.is_template`)."""
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
            stem = path.rsplit("/", 1)[-1][: -len(".yaml")]
            if stem.isdigit():
                prr.setdefault(int(stem), []).append(path)
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
            problems.append(Problem(keps[0].path, "kep-number", f"number {number} is used by {len(keps)} KEPs: {paths}"))
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
    exact = tuple(k for k in candidates if k.slug == slug)
    return exact or candidates


def number_hints(snapshot: Snapshot, number: int) -> list[str]:
    """Why no KEP has ``number``: files in a ``NNNN-*`` directory that could not be read, and
    kep.yaml files that declare ``kep-number: number`` under another directory. ``[]`` when none."""
    hints = []
    for problem in snapshot.problems:
        dirname = problem.path.rsplit("/", 2)[-2] if problem.path.count("/") >= 2 else ""
        if dirname.split("-", 1)[0].isdigit() and int(dirname.split("-", 1)[0]) == number and not problem.key:
            hints.append(f"{problem.path} could not be read: {problem.message}")
    for kep in snapshot.all_keps():
        if kep.declared_number.isdigit() and int(kep.declared_number) == number and kep.number != number:
            hints.append(f"{kep.path} declares kep-number {kep.declared_number} (its directory says {kep.number})")
    return hints

