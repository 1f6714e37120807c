"""Settings shared by the whole suite.

Property tests draw their examples from a fixed seed (`derandomize`) and keep no example database,
so a run on CI draws exactly what a run here draws: a failure is reproducible and the suite's time
is stable. Set HYPOTHESIS_PROFILE=explore to draw fresh random examples instead (and remember the
failing ones in .hypothesis/), when hunting for new counterexamples.
"""
from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
