"""Every value that decides a roll is read on the server (issue 12, item 0).

A player's message may name an ability, a helper, a target or how much of their own
AP to spend; never a rating, a bonus, a resistance, a modifier's size or the campaign's
rounding. This goes over every field of every table action, so a new numeric field
cannot be added without being classified here.
"""

from __future__ import annotations

import typing

import pytest

from campaigns.services import campaign_options_update
from contests.actions import DATA_MODELS, MESSAGE_MODELS
from contests.models import Contest, ContestEvent
from contests.table_actions import perform

from .conftest import ability, key

pytestmark = pytest.mark.django_db

# The numbers (and number-like choices) only the GM sends, with a valid value each.
GM_ONLY_VALUES = {
    "rating": 17,
    "states": ["hurt"],
    "bonus": 3,
    "rounding": "up",
    "base_resistance": 14,
    "value": 5,
    "bumps": 1,
    "resistance_shift": 1,
    "resistance_level": "low",
    "level": "low",
    "npc_id": 1,
}
# A player's own choices, each bounded by the flow against what is theirs: AP to bid,
# spend, lend, restore or shift, and a physical die they rolled (a campaign option).
PLAYERS_OWN = {"bid", "amount", "restore", "points", "entered"}
# Which thing, not how much: ids are checked against the campaign, the rest against the
# contest's own lists.
REFERENCES = {"index", "pairing", "draw_id", "characters"}
# Actions only the GM takes at all (their flows refuse a player; the framing's numbers
# are the GM's by definition).
GM_ACTIONS = {"frame", "undo", "escalate", "engage", "play_round"}


def _is_number(annotation) -> bool:
    text = repr(annotation)
    return "int" in text.split("PlainValidator")[0] or "_rating" in text


def roll_deciding_fields() -> list[tuple[str, str]]:
    fields = []
    for action, model in DATA_MODELS.items():
        for name, info in model.model_fields.items():
            if _is_number(info.annotation) or name in GM_ONLY_VALUES:
                fields.append((action, name))
    return fields


def test_every_number_of_every_action_is_classified():
    unclassified = []
    for action, name in roll_deciding_fields():
        if action in GM_ACTIONS or name.endswith("_id") and name != "npc_id":
            continue
        gm_only = DATA_MODELS[action].model_construct().gm_only()
        if name in gm_only or name in PLAYERS_OWN or name in REFERENCES:
            continue
        unclassified.append(f"{action}.{name}")
    assert unclassified == []
    assert set(DATA_MODELS) == set(MESSAGE_MODELS)


def _gm_only_cases() -> list[tuple[str, str]]:
    cases = []
    for action, name in roll_deciding_fields():
        if action in GM_ACTIONS:
            continue
        if name in DATA_MODELS[action].model_construct().gm_only():
            cases.append((action, name))
    return cases


def test_the_gm_only_numbers_cover_ratings_bonuses_and_resistances():
    fields = {name for _action, name in _gm_only_cases()}
    assert {"rating", "bonus", "base_resistance", "rounding", "resistance_level"} <= fields
    assert {"value", "bumps", "resistance_shift", "states", "level"} <= fields


@pytest.fixture
def contest(table, session, tamsin):
    return table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})


def _state(contest) -> tuple:
    fresh = Contest.objects.get(pk=contest.pk)
    return fresh.seq, fresh.state, ContestEvent.objects.filter(contest=contest).count()


@pytest.mark.parametrize(("action", "field"), _gm_only_cases(), ids="{0[0]}.{0[1]}".format)
def test_a_players_number_is_refused_for_every_action(campaign, alice, contest, action, field):
    required = {
        name: "Tamsin" if typing.get_origin(info.annotation) is None else None
        for name, info in DATA_MODELS[action].model_fields.items()
        if info.is_required()
    }
    data = {**required, field: GM_ONLY_VALUES[field]}
    before = _state(contest)
    message = {"action": action, "contest": contest.pk, "key": key(), "data": data}
    reply = perform(campaign_id=campaign.pk, user=alice, message=message)
    assert "only the GM gives a number that decides a roll" in reply.error, reply.error
    assert "Nothing was done" in reply.error
    assert _state(contest) == before


def test_a_new_ability_as_you_go_keeps_the_players_rating(campaign, alice, contest):
    """§3.1: a player adding an ability as they go rates it (their creation budget
    bounds it): that rating is theirs to give."""
    data = {"side": "pc", "new_ability": "Swim like an otter", "rating": 13}
    message = {"action": "choose_ability", "contest": contest.pk, "key": key(), "data": data}
    reply = perform(campaign_id=campaign.pk, user=alice, message=message)
    assert "only the GM" not in reply.error


@pytest.mark.parametrize(("rounding", "bonus"), [("down", 3), ("up", 4)])
def test_a_players_quick_augment_follows_the_campaigns_rounding(
    campaign, table, session, gm, alice, tamsin, rounding, bonus
):
    """R8: 17 / 5 is 3.4, a +3 rounded down (2.2) or +4 rounded up (1e), as the
    campaign's option says; the player's message names only the augmenting ability."""
    campaign_options_update(campaign=campaign, actor=gm, quick_augment_rounding=rounding)
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    boatcraft = ability(tamsin, "Boatcraft")  # 17
    message = {
        "action": "augment",
        "contest": contest.pk,
        "key": key(),
        "data": {"side": "pc", "kind": "quick", "helper_ability_id": boatcraft.pk},
    }
    reply = perform(campaign_id=campaign.pk, user=alice, message=message)
    assert reply.created, reply.error
    contest.refresh_from_db()
    assert [a["bonus"] for a in contest.state["sides"]["pc"]["augments"]] == [bonus]


def test_a_players_unrelated_action_offers_no_resistance_to_choose():
    """§5.2.2: the GM sets an unrelated action's resistance; a player's form has none
    to pick (and a player's message carrying one is refused above)."""
    from contests.table import GroupFlow

    from .test_available_actions import ALICE, GM, HEROES, RAIDERS

    flow = GroupFlow.frame({"kind": "group_scored", "participants": [*HEROES, *RAIDERS]})
    inputs = {
        actor: [
            i.name
            for a in flow.available_actions(actor)
            if a.action == "unrelated_action"
            for i in a.inputs
        ]
        for actor in (ALICE, GM)
    }
    assert inputs[ALICE] and inputs[GM]
    assert "resistance_level" not in inputs[ALICE]
    assert "resistance_level" in inputs[GM]
