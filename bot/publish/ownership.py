"""Whose commit is at the head of the bot branch: the one rule both publishers (git, GitHub) apply.

A head is kep-sync's own only when

1. it is exactly the commit kep-sync recorded last (the PR marker, or ``pull-request.md``); or
2. (no record, or a record left behind by a run that failed half-way) its author AND committer
   are kep-sync's identity, it has one parent, and its tree is exactly the tree kep-sync would
   write now (the base tree with this run's regenerated pages).

Anything else is foreign and is never overwritten: a human ``git commit --amend`` of a bot
commit keeps the ``Kep-Sync-*`` trailers but changes the committer (and usually the tree), so
trailers alone prove nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def is_own_head(
    head: str,
    recorded_head: str,
    parents: Sequence[str],
    identities: Sequence[str],
    bot_identity: Callable[[], str],
    same_tree: Callable[[], bool],
) -> bool:
    """True when ``head`` (a commit SHA) is kep-sync's own commit under the rule above.

    ``recorded_head``: the head kep-sync recorded (``""`` when none); ``parents``: the head's
    parent SHAs; ``identities``: its ``[author, committer]`` as ``"Name <email>"``;
    ``bot_identity()``: kep-sync's ``"Name <email>"`` (``""`` when unknown); ``same_tree()``:
    True when the head's tree is the one kep-sync would write now. Both are called only when
    needed, in that order (each may cost a request).
    """
    if recorded_head and head == recorded_head:
        return True
    if len(parents) != 1 or len(set(identities)) != 1:
        return False
    bot = bot_identity()
    return bool(bot) and identities[0] == bot and same_tree()
