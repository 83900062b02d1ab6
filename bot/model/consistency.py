"""Report-only checks on one kep.yaml whose fields disagree with each other, and which milestones are released.

Pure: :class:`~bot.model.kep.Kep` values in, findings out. Nothing here changes what
is written; the diff attaches each finding to a change of the KEP's row so a
reviewer sees it next to the value it concerns.

The meaning of the fields comes from the kep.yaml template
(kubernetes/enhancements ``keps/NNNN-kep-template/kep.yaml``): ``stage`` is
"the target maturity stage in the current dev cycle", ``latest-milestone``
"the most recent milestone for which work toward delivery of this KEP has been
done", ``milestone.<stage>`` "the milestone at which this feature was, or is
targeted to be, at each stage". A milestone of a later stage is allowed to lie
ahead of ``latest-milestone`` (it is a plan), so only the milestones of the
stages the KEP has reached are checked against it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from bot.model.finding import Finding
from bot.model.kep import STAGES, Kep, milestone_key

#: A release is "in progress" once at least this share of the KEPs naming a latest-milestone
#: name it (and at least two do): one KEP planning ahead does not open a release.
RELEASE_SHARE = 0.01


#: :attr:`Finding.kind` of every finding :func:`check` returns.
KIND = "inconsistent"


def _finding(kep: Kep, fields: tuple[str, ...], message: str) -> Finding:
    """A finding of :func:`check` on ``kep``: its number as ``kep_id``, the ``fields`` concerned, the ``message``."""
    return Finding(KIND, str(kep.number), kep.path, "", message, fields=fields)


def check(kep: Kep) -> list[Finding]:
    """The inconsistencies between ``kep``'s status, stage, latest-milestone and milestones, as findings
    of kind :data:`KIND` whose ``kep_id`` is the KEP's number and whose ``fields`` are the wiki fields concerned.

    Only well-formed milestones are compared (``v1.30`` / ``1.30``); fields the
    file leaves untrusted (:meth:`Kep.distrust`) are not checked. In order:

    - the stage lags a milestone: stage ``alpha`` (``beta``) while the milestone
      of a higher stage equals or precedes ``latest-milestone``;
    - stage ``alpha``, ``beta`` or ``stable`` while the ``milestone`` mapping names no release for that stage
      (absent, empty or a placeholder such as ``TBD`` / ``0.0``);
    - status ``implemented`` with stage ``alpha`` or ``beta``;
    - a milestone later than a higher stage's (alpha after beta, ...);
    - the milestone of a stage the KEP has reached later than ``latest-milestone``.
    """
    if kep.distrust("stage") or kep.distrust("status"):
        return []
    ms = {s: None if kep.distrust(s) else milestone_key(kep.milestone(s)) for s in STAGES}
    latest = None if kep.distrust("latest_milestone") else milestone_key(kep.latest_milestone)
    out: list[Finding] = []
    reached = STAGES.index(kep.stage) if kep.stage in STAGES else -1
    if latest and reached in (0, 1):
        for higher in STAGES[reached + 1 :]:
            if (high_ms := ms[higher]) and high_ms <= latest:
                out.append(
                    _finding(
                        kep,
                        ("stage", higher),
                        f"kep.yaml says stage {kep.stage} but milestone.{higher} "
                        f"{_v(high_ms)} is not after latest-milestone {_v(latest)}; "
                        "the stage may not have been updated",
                    )
                )
                break
    if reached >= 0 and not kep.distrust(kep.stage) and not ms[kep.stage]:
        out.append(
            _finding(kep, ("stage", kep.stage), f"kep.yaml says stage {kep.stage} but gives no {kep.stage} milestone")
        )
    if kep.status == "implemented" and reached in (0, 1):
        out.append(_finding(kep, ("status", "stage"), f"kep.yaml says status implemented but stage {kep.stage}"))
    for i, low in enumerate(STAGES):
        for high in STAGES[i + 1 :]:
            if (low_ms := ms[low]) and (high_ms := ms[high]) and low_ms > high_ms:
                out.append(
                    _finding(
                        kep,
                        (low, high),
                        f"kep.yaml's milestone.{low} {_v(low_ms)} is later than milestone.{high} {_v(high_ms)}",
                    )
                )
    if latest:
        for stage in STAGES[: reached + 1]:
            if (stage_ms := ms[stage]) and stage_ms > latest:
                out.append(
                    _finding(
                        kep,
                        (stage,),
                        f"kep.yaml's milestone.{stage} {_v(stage_ms)} is later than "
                        f"latest-milestone {_v(latest)} although the stage is {kep.stage}",
                    )
                )
    return out


def release_in_progress(keps: Iterable[Kep]) -> tuple[int, int] | None:
    """``(major, minor)`` of the release in progress: the newest ``latest-milestone`` that at least
    1% (:data:`RELEASE_SHARE`) of the KEPs naming one name, and at least two; ``None`` when none.

    "Released" (:func:`is_released`) means older than this. At the enhancements bundle's HEAD
    (2026-07-22) 94 KEPs name v1.37 and one names v1.38, so v1.37 is in progress and v1.36 released.
    """
    counts = Counter(
        k for k in (milestone_key(kep.latest_milestone) for kep in keps if not kep.distrust("latest_milestone")) if k
    )
    floor = max(2, math.ceil(RELEASE_SHARE * sum(counts.values())))
    open_ = [m for m, n in counts.items() if n >= floor]
    return max(open_) if open_ else None


def is_released(value: str, in_progress: tuple[int, int] | None) -> bool:
    """True when ``value`` is a milestone older than the release ``in_progress`` (see :func:`release_in_progress`)."""
    key = milestone_key(value)
    return key is not None and in_progress is not None and key < in_progress


def _v(key: tuple[int, int]) -> str:
    return f"v{key[0]}.{key[1]}"
