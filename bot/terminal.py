"""Plain text for a terminal: no control character or bidirectional override acts. Pure, standard library only.

A kep.yaml title, a release note or a path can hold ESC (a terminal escape sequence: colours, a rewritten
window title, a cleared screen), BEL, CR (a line that overwrites the one before), other C0 and C1 controls,
DEL, line and paragraph separators, and the bidirectional embeddings, overrides and isolates (text after one
shows reversed). :func:`terminal_text` shows each as its escape, so the text reads as written and does nothing.
"""

from __future__ import annotations

import re

#: What acts on a terminal or reorders what it shows: C0 controls but tab and line feed, DEL, C1 controls,
#: U+2028/U+2029, and the bidirectional embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
_ACTING_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    r"""``text`` with each acting character (:data:`_ACTING_RE`) as its escape: ``\x1b``, ``\x0d``... (two hex
    digits up to U+00FF, ``\u202e`` above); tab and line feed kept; any other text unchanged."""
    return _ACTING_RE.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
