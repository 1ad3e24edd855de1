"""Each audience's templates receive only what it may see (issue 12, item 5): the GM's
hidden dice are taken out in Python (contests/audience.py) before any template runs,
not hidden with {% if %}."""

from __future__ import annotations

import dataclasses
import re

import pytest

from contests import live

from .test_live_group import frame, pc

pytestmark = pytest.mark.django_db

ROLL_KEYS = {"roll", "opponent_roll", "resistance_roll", "entered_roll", "pc_roll"}


def leaves(value, path=(), seen=None):
    """Every (path, value) reachable from a template context: dicts, lists, dataclasses
    and plain objects' attributes (a model's fields), each object once."""
    seen = set() if seen is None else seen
    if isinstance(value, str | int | float | bool) or value is None:
        yield path, value
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, str(key)), seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from leaves(item, path, seen)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from leaves(getattr(value, f.name), (*path, f.name), seen)
    elif hasattr(value, "__dict__"):
        for key, item in vars(value).items():
            if not key.startswith("_"):
                yield from leaves(item, (*path, key), seen)


def rolls_of(context: dict, number: int) -> list[tuple]:
    return [p for p, v in leaves(context) if v == number and p and p[-1] in ROLL_KEYS]


@pytest.fixture
def hidden_rolls(campaign):
    campaign.roll_visibility = "gm_hidden"
    campaign.physical_dice = True
    campaign.save()
    return campaign


def test_a_hidden_one_on_one_roll_is_in_no_players_context(
    table, hidden_rolls, session, gm, alice, tamsin
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    boatcraft = tamsin.abilities.get(name="Boatcraft")
    table.act(contest, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    table.act(contest, gm, "roll", rolls=(5, 19))
    gm_view = live.contest_context(contest, "gm")
    assert rolls_of(gm_view, 19), "the GM's own view lost the roll"
    for audience in ("player", "spectator"):
        context = live.contest_context(contest, audience)
        assert rolls_of(context, 19) == [], audience
        assert "outcome" not in str([p for p, _ in leaves(context) if p[-1:] == ("describe",)])
        assert context["state"]["pending"]["pc_roll"] == 5  # their own die is theirs
        panel = live.render_contest(contest, audience).split("roll-log")[0]
        assert not re.search(r">\s*19\s*<", panel), audience
    table.act(contest, gm, "reveal")
    assert rolls_of(live.contest_context(contest, "player"), 19)  # shown once revealed


def test_a_physical_die_the_gm_entered_is_in_no_players_context(
    table, hidden_rolls, session, gm, tamsin
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(contest, gm, "enter_roll", side="opponent", entered=19)
    assert rolls_of(live.contest_context(contest, "gm"), 19)
    for audience in ("player", "spectator"):
        assert rolls_of(live.contest_context(contest, audience), 19) == [], audience
        assert "Physical roll entered: 19" not in live.render_contest(contest, audience)


def test_a_group_contests_hidden_rolls_are_in_no_players_context(
    table, hidden_rolls, session, gm, tamsin, brannoc
):
    contest = frame(
        table,
        "group_simple",
        [
            pc(tamsin, "Boatcraft"),
            pc(brannoc, "Temple singer"),
            {"name": "The Grey River", "level": "high"},
        ],
    )
    table.act(contest, gm, "roll", rolls=(10, 16, 5, 19))
    gm_view = live.contest_context(contest, "gm")
    assert rolls_of(gm_view, 16) and rolls_of(gm_view, 19)
    for audience in ("player", "spectator"):
        context = live.contest_context(contest, audience)
        assert rolls_of(context, 16) == [] and rolls_of(context, 19) == [], audience
        assert rolls_of(context, 10)  # Tamsin's own die is shown


def test_no_template_gets_the_contest_row_or_its_flow(table, session, gm, tamsin):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    for audience in ("gm", "player", "spectator"):
        context = live.contest_context(contest, audience)
        assert "flow" not in context
        assert not hasattr(context["contest"], "state")
