"""How many examples a Hypothesis test asks for, scaled by the profile tests/conftest.py
loads ("ci" by default, HYPOTHESIS_PROFILE=thorough for a long search).

`@settings(max_examples=examples(150))` reads "one and a half times the usual": 37
under "ci", 1,500 under "thorough". A bare number would override the profile and run
the same count in both.
"""

from __future__ import annotations

from hypothesis import settings

HYPOTHESIS_DEFAULT = 100  # Hypothesis's own max_examples, which the counts are written for


def examples(wanted: int) -> int:
    """`wanted` examples (as if the profile were Hypothesis's default), scaled to the
    loaded profile; at least one."""
    return max(1, wanted * settings.default.max_examples // HYPOTHESIS_DEFAULT)
