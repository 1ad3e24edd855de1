"""bench.action_cost (the app's own work an action, in instructions) runs end to end:
the realistic cycle played through the form's reading, the services and the broadcast's
rendering, counted by callgrind. No figure is asserted but that each is there and sane:
the instructions are the benchmark's to report, not a test's to bound."""

from __future__ import annotations

import json
import os
import sys

import pytest

from bench.http_cycle import CYCLE
from bench.janitor import run
from bench.liveserver import ROOT

pytestmark = pytest.mark.bench


def test_one_counted_cycle_reports_the_instructions_of_an_action_and_its_rendering():
    result = run(
        [sys.executable, "-m", "bench.action_cost", "--cycles", "1", "--warm", "1"],
        cwd=ROOT,
        env=dict(os.environ),
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    figures = json.loads(result.stdout)
    assert figures["actions"] == len(CYCLE)
    assert figures["cycle"] == [action for _, action in CYCLE]
    total = figures["instructions_an_action"]
    rendering = figures["rendering_instructions_an_action"]
    assert isinstance(total, int) and isinstance(rendering, int)
    # Every step renders its broadcast, inside the step's own instructions.
    assert 0 < rendering < total
