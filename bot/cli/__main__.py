"""``python -m bot.cli``: the same as the ``kep-sync`` command."""

from bot.cli.main import main

raise SystemExit(main())
