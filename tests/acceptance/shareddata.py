"""Where the acceptance tests of ``kep-sync watch`` find the shared real data (``../shared``, read-only): the
enhancements bundle, the release notes, the feature gate list and the wiki page; ``PRESENT`` when all are
there, ``REQUIRED`` when ``KEP_SYNC_REQUIRE_SHARED=1`` makes their absence a failure instead of a skip."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
NOTES = SHARED / "data" / "release-notes"
LIST = SHARED / "data" / "feature-gates" / "versioned_feature_list.openshift-0b0e324c.yaml"
WIKI = SHARED / "wiki"
PAGE = "kubernetes-keps-implementation-matrix.md"
PRESENT = BUNDLE.is_file() and NOTES.is_dir() and LIST.is_file() and (WIKI / PAGE).is_file()
REQUIRED = os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1"
