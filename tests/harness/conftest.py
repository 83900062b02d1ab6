"""Hypothesis profiles of the property-based harness: ``ci`` (default) and ``deep`` (``HYPOTHESIS_PROFILE=deep``).

``ci`` tries 20 examples a property (``KEP_SYNC_HARNESS_EXAMPLES``; in tests/harness/test_properties.py each a
new input: a repeat is drawn again) and is derandomized: every CI run tries the same examples (seeded from each
test), so a red build is about the change under test, never a new random draw; the inputs the harness once found
failing are pinned with ``@example`` next to each property, readable in review (a binary example database is not),
and run first whatever the number of examples. ``ci`` does not shrink: a failure prints the example as drawn
(shrinking one sync per step can take minutes, past the CI budget); ``deep`` shrinks. ``deep`` draws new random
examples, many more, and keeps failing ones in the local ``.hypothesis/`` database (not committed) so a re-run
replays them first.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("KEP_SYNC_HARNESS_EXAMPLES", "20")),
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    **_COMMON,
)
settings.register_profile("deep", max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
