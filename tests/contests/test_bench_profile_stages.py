"""The benchmark's profile (bench/http_profile.py) puts each sample in the stage of an
action's path it was in, by the functions on its stack. Here the stacks are those of a
real step: a contest played through the services, its broadcast rendered and sent, each
stack written as py-spy writes a frame ("function (path:line)")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.http_profile import _stage
from contests.live import engine, rendering

from .conftest import ability

# Committed for real: the broadcast runs where the server runs it, at the commit inside
# the services' call (`transaction.on_commit`).
pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def _frames_at(function_name: str, calls: list[list[str]]):
    """A profile hook keeping the stack (outermost first, py-spy's order) each time a
    function of this name is called."""

    def hook(frame, event, _arg):
        if event != "call" or frame.f_code.co_name != function_name:
            return
        stack = []
        while frame is not None:
            path = Path(frame.f_code.co_filename)
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            stack.append(f"{frame.f_code.co_qualname} ({shown}:{frame.f_lineno})")
            frame = frame.f_back
        calls.append(stack[::-1])

    return hook


def test_a_steps_broadcast_rendering_is_counted_as_the_broadcasts_rendering(
    table, session, alice, tamsin, monkeypatch
):
    """The panel rendered for a broadcast (after the action's commit, inside the
    services' call) is the broadcast's rendering, not the action in the services; its
    hand-over to the channel layer is a stage of its own."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    monkeypatch.setattr(rendering, "send_to_table_sync", lambda *_: None)
    rendered: list[list[str]] = []
    sys.setprofile(_frames_at(engine.panel_and_bar.__name__, rendered))
    try:
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    finally:
        sys.setprofile(None)
    assert rendered, "the step rendered no panel"
    for stack in rendered:
        assert any(frame.startswith("contest_act (") for frame in stack)
        assert _stage(stack) == "the broadcast's rendering (GM's and players' copies)"
