"""Plain text for a terminal (bot.terminal): controls and bidirectional overrides show as escapes, in the watch's
text output and in every error the command line prints."""

from __future__ import annotations

from bot.cli.output import print_error
from bot.plan.watch.judge import Cycle, watch
from bot.plan.watch.render import render_text
from bot.terminal import terminal_text
from tests.syncutil import kep, snapshot

HOSTILE = "A\x1b]0;pwned\x07B\rC\x9bD\u202eE\u2066F\u2028G\x7fH\tI"
SHOWN = "A\\x1b]0;pwned\\x07B\\x0dC\\x9bD\\u202eE\\u2066F\\u2028G\\x7fH\tI"


def test_each_acting_character_is_shown_as_its_escape():
    assert terminal_text(HOSTILE) == SHOWN
    assert terminal_text("KEP 1 é 漢\n  - ok\t") == "KEP 1 é 漢\n  - ok\t"


def test_the_watch_shows_a_hostile_title_inert():
    keps = snapshot(kep(11, "x", stage="beta", alpha="v1.36", beta="v1.37", latest="v1.37")).all_keps()
    keps = [keps[0]._replace(title=HOSTILE)]
    text = render_text(watch(keps, Cycle("v1.37", "config", "", "", "", ""), ids={}, whole=True))
    assert f"11  {SHOWN}  (beta in v1.37)" in text.splitlines()
    assert not any(c in text for c in "\x1b\x07\r\x9b\u202e")


def test_an_error_quoting_hostile_text_is_printed_inert(capsys):
    print_error(ValueError(f"--sig {HOSTILE}\nsecond"))
    assert capsys.readouterr().err == f"kep-sync: error: --sig {SHOWN}\nkep-sync: error: second\n"
