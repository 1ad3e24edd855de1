"""One typed, validated input per table action (contests/core/actions/), parsed once in
perform() for the HTTP form and the websocket alike."""

from __future__ import annotations

import html
import json
import re

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from contests.core import actions
from contests.core.actions.fields import SERVER_KEYS
from contests.core.table import known_actions
from contests.models import Contest, ContestEvent
from contests.table_actions import KNOWN_ACTIONS, perform

from .conftest import ability, key

pytestmark = pytest.mark.django_db

# One valid message's data per action (it parses; whether the flow takes it now is the
# flow's business).
VALID: dict[str, dict] = {
    "frame": {
        "kind": "group_scored",
        "prize": "the causeway",
        "pc": {"character_id": 1, "ability_id": 2},
        "characters": [3, 4],
        "opponent": {"name": "The Grey River", "level": "Very High"},
        "participants": [{}, {"name": "Raider", "rating": "5M", "side": "opponent"}],
        "stakes": "climax",
    },
    "undo": {},
    "choose_ability": {"side": "pc", "ability_id": 7},
    "set_tactic": {"participant": "Tamsin", "tactic": "wade", "round_tactic": "risky_gambit"},
    "augment": {"side": "pc", "kind": "rolled", "helper_ability_id": 3},
    "modifier": {"side": "opponent", "kind": "situational", "value": -5, "label": "mud"},
    "remove_modifier": {"side": "pc", "index": 0},
    "enter_roll": {"participant": "Tamsin", "entered": 20},
    "roll": {},
    "reveal": {},
    "hero_point": {"side": "pc"},
    "resolve": {"both_lose_half": True},
    "apply_consequences": {
        "consequences": [{"side": "pc", "state": "hurt"}],
        "edit": {"pc": "hurt", "opponent": ""},
        "narration": "Soaked but across.",
    },
    "narrate": {"narration": "The river wins today."},
    "automatic_victory": {},
    "pyrrhic": {},
    "escalate": {"into": "chained"},
    "confusing_tie": {},
    "both_fumble": {"participant": "Tamsin"},
    "no_relevant_ability": {"side": "pc"},
    "bid": {"bid": 3},
    "parting_shot": {"participant": "Tamsin", "target": "Raider", "bid": 2},
    "unrelated_action": {"participant": "Tamsin", "resistance_level": "very_high"},
    "disengage": {"participant": "Tamsin", "opponent": "Raider"},
    "gift": {"recipient": "pc", "helper_ability_id": 9, "bid": 3, "wait_for_hero_point": False},
    "boost": {"participant": "Tamsin"},
    "engage": {"pc": "Tamsin", "opponent": "Raider"},
    "play_round": {"pairing": 1},
    "assist": {"participant": "Brannoc", "recipient": "Tamsin", "resistance_shift": -1},
    "remove_follower": {"participant": "Raider", "follower": "Dog"},
    "shift_points": {"participant": "Tamsin", "follower": "Dog", "pairing": 1, "points": 2},
    "join": {"name": "7", "side": "1", "rating": 12, "role": "follower", "owner": "Tamsin"},
    "switch_ability": {"participant": "Tamsin", "ability_id": 7, "pairing": 2},
    "declare": {"participant": "Tamsin", "targets": ["Raider", "Voss"], "daring": "reckless"},
    "delay": {"participant": "Tamsin"},
    "act": {"participant": "Tamsin", "target": "Raider", "bid": 4},
    "rejoin": {"participant": "Tamsin", "restore": 0},
    "lend": {"participant": "Tamsin", "target": "Brannoc", "amount": 2},
    "final_action": {"participant": "Tamsin", "ability_id": 7},
}


def test_every_action_has_a_model_and_nothing_else_does():
    assert actions.ACTIONS == KNOWN_ACTIONS == known_actions() | {"frame", "undo"}
    assert set(VALID) == actions.ACTIONS


@pytest.mark.parametrize("action", sorted(VALID))
def test_a_valid_message_of_every_action_parses_to_exactly_what_was_sent(action):
    message = {"action": action, "contest": 1, "key": "k", "seq": 2, "data": VALID[action]}
    parsed = actions.parse(message)
    assert parsed.action == action and (parsed.contest, parsed.key, parsed.seq) == (1, "k", 2)
    assert actions.data_of(parsed) == VALID[action]


def test_a_form_posts_strings_that_the_typed_fields_read():
    form = {"action": "modifier", "data": {"side": "pc", "value": "-3", "label": "12"}}
    assert actions.data_of(actions.parse(form, form=True)) == {
        "side": "pc",
        "value": -3,
        "label": "12",  # text stays text, however much it looks like a number
    }
    checkbox = {"action": "gift", "data": {"recipient": "pc", "wait_for_hero_point": "1"}}
    assert actions.data_of(actions.parse(checkbox, form=True))["wait_for_hero_point"] is True
    # The websocket's JSON is strict: a string of digits is not an id there.
    with pytest.raises(actions.ActionInputError, match="^Modifier value: must be a whole number$"):
        actions.parse(form)


@pytest.mark.parametrize(
    ("action", "data", "error"),
    [
        ("bid", {"bid": "3"}, "Bid: must be a whole number"),
        ("bid", {"bid": True}, "Bid: must be a whole number"),
        ("bid", {"bid": 2.0}, "Bid: must be a whole number"),
        ("bid", {"bid": [3]}, "Bid: must be a whole number"),
        ("bid", {"bid": 10**30}, "Bid: must be a whole number from 1 to 999"),
        ("bid", {}, "Bid: is required"),
        ("choose_ability", {"side": "pc", "ability_id": "abc"}, "Ability: must be a whole number"),
        ("choose_ability", {"side": "pc", "ability_id": [1]}, "Ability: must be a whole number"),
        ("choose_ability", {"side": "pc", "ability_id": True}, "Ability: must be a whole number"),
        (
            "choose_ability",
            {"side": "pc", "ability_id": 10**30},
            "Ability: must be a whole number from 1 to 2147483647",
        ),
        ("choose_ability", {"side": "left"}, "Side: must be one of pc or opponent"),
        ("set_tactic", {"side": "pc", "tactic": 5}, "Tactic: must be text"),
        ("narrate", {"narration": "a\x00b"}, "Narration: must not contain NUL characters"),
        ("narrate", {"narration": "a\ud800b"}, "Narration: contains an unpaired surrogate"),
        ("narrate", {"narration": "x" * 301}, "Narration: is too long (301 characters; at most"),
        ("enter_roll", {"side": "pc", "entered": 21}, "Your d20 roll: must be a whole number"),
        ("roll", {"teleport": 1}, "teleport is not something this action takes"),
        # Another action's field, by its label.
        ("roll", {"bid": 3}, "Bid is not something this action takes"),
        ("roll", {"pc_roll": 20}, "PC's roll: dice and penalties are the server's to fill in"),
        ("roll", {"sheet_penalties": 1}, "Sheet penalties: dice and penalties are the server's"),
        (
            "frame",
            {"participants": [{}, {"npc_id": "x"}]},
            "Participant row 2, library NPC: must be a whole number",
        ),
        ("frame", {"pc": {"character_id": None, "x": 1}}, "PC: x is not something"),
        ("frame", {"opponent": "The river"}, "Opponent: must be an object"),
        ("frame", {"kind": "duel"}, "Kind: must be one of simple, automatic"),
        ("join", {"level": "hopeless"}, "Resistance class: must be one of nearly impossible"),
        ("apply_consequences", {"consequences": {}}, "Consequences: must be a list"),
        ("modifier", {"side": "pc", "value": 41}, "Modifier value: must be a whole number from"),
    ],
)
def test_a_malformed_message_gets_one_readable_error(action, data, error):
    with pytest.raises(actions.ActionInputError) as refused:
        actions.parse({"action": action, "data": data})
    assert str(refused.value).startswith(error)
    assert "pydantic" not in str(refused.value) and "type=" not in str(refused.value)


@pytest.mark.parametrize("name", sorted(SERVER_KEYS))
def test_a_number_only_the_server_fills_in_is_refused_by_its_name_in_words(name):
    with pytest.raises(actions.ActionInputError) as refused:
        actions.parse({"action": "roll", "data": {name: 20}})
    said = str(refused.value)
    assert said.endswith("dice and penalties are the server's to fill in")
    # Named in words a person reads ("PC's roll"), not by the field's code ("pc_roll").
    assert not said.startswith(f"{name}:") and said.startswith(f"{actions.LABELS[name]}:")


def test_deep_or_large_messages_are_refused_before_parsing():
    deep = {"action": "roll", "data": {"a": {"b": {"c": {"d": {}}}}}}
    with pytest.raises(actions.ActionInputError, match="nested too deeply"):
        actions.parse(deep)
    large = {"action": "narrate", "data": {"narration": "x" * (actions.MAX_SIZE + 1)}}
    with pytest.raises(actions.ActionInputError, match="too large"):
        actions.parse(large)
    with pytest.raises(actions.ActionInputError, match="too large"):
        actions.check_bounds({"action": "bid", "data": {"bid": 10 ** (3 * actions.MAX_SIZE)}})


# -- through perform(), the HTTP view and the websocket: refused, nothing changes -------


@pytest.fixture
def contest(table, session, tamsin):
    return table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})


def unchanged(contest) -> tuple:
    fresh = Contest.objects.get(pk=contest.pk)
    return fresh.seq, fresh.state, ContestEvent.objects.filter(contest=contest).count()


MALFORMED = [
    ({"action": "bid", "data": {"bid": "3"}}, "Bid: must be a whole number"),
    ({"action": "choose_ability", "data": {"side": "pc", "ability_id": "abc"}}, "Ability:"),
    ({"action": "choose_ability", "data": {"side": "pc", "ability_id": [1]}}, "Ability:"),
    ({"action": "choose_ability", "data": {"side": "pc", "ability_id": True}}, "Ability:"),
    ({"action": "choose_ability", "data": {"side": "pc", "ability_id": 10**30}}, "Ability:"),
    ({"action": "set_tactic", "data": {"side": "pc", "tactic": "a\x00"}}, "Tactic: must not"),
    ({"action": "set_tactic", "data": {"side": "pc", "tactic": "\udc00"}}, "Tactic: contains"),
    ({"action": "roll", "data": {"a": {"b": {"c": {"d": {}}}}}}, "nested too deeply"),
    ({"action": "narrate", "data": {"narration": "x" * 20_000}}, "too large"),
    ({"action": "roll", "data": {"pc_roll": 20}}, "PC's roll: dice"),
    ({"action": "roll", "contest": 10**30, "data": {}}, "Contest: must be a whole number"),
]


@pytest.mark.parametrize(("message", "error"), MALFORMED)
def test_perform_refuses_a_malformed_message_and_changes_nothing(
    campaign, gm, contest, message, error
):
    before = unchanged(contest)
    message = {"contest": contest.pk, "key": key(), **message}
    reply = perform(campaign_id=campaign.pk, user=gm, message=message)
    assert error in reply.error and reply.error.lower().endswith("nothing was done.")
    assert not reply.created and unchanged(contest) == before


def test_perform_passes_on_the_validated_data(campaign, gm, alice, contest, tamsin):
    boatcraft = ability(tamsin, "Boatcraft")
    reply = perform(
        campaign_id=campaign.pk,
        user=alice,
        message={
            "action": "choose_ability",
            "contest": contest.pk,
            "key": key(),
            "data": {"side": "pc", "ability_id": boatcraft.pk},
        },
    )
    assert reply.error == "" and reply.created
    contest.refresh_from_db()
    assert contest.state["sides"]["pc"]["ability"] == "Boatcraft"


def test_a_player_never_sends_a_rating_that_decides_a_roll(campaign, gm, alice, contest):
    """A player's augment reads the helper's rating from the sheet; only the GM may
    give a rating, a rounding or a base resistance with it."""
    before = unchanged(contest)
    data = {"side": "pc", "kind": "quick", "ability": "Luck", "rating": "10W"}
    message = {"action": "augment", "contest": contest.pk, "key": key(), "data": data}
    reply = perform(campaign_id=campaign.pk, user=alice, message=message)
    assert reply.error.startswith("Rating: only the GM gives a number that decides a roll")
    assert unchanged(contest) == before
    for extra in ({"base_resistance": 1}, {"rounding": "up"}):
        message = {**message, "key": key(), "data": {**data, "rating": 17, **extra}}
        assert "only the GM" in perform(campaign_id=campaign.pk, user=alice, message=message).error
    assert unchanged(contest) == before
    message = {**message, "key": key(), "data": {**data, "helper": "The GM's luck"}}
    reply = perform(campaign_id=campaign.pk, user=gm, message=message)
    assert reply.error == "" and reply.created


def post_act(client, campaign, fields: dict, *, htmx: bool = False):
    """The table's form, posted (the test client skips CSRF checks); the error line."""
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(reverse("table_act", args=[campaign.pk]), fields, headers=headers)
    error = re.search(r'id="table-error"[^>]*>([^<]*)</p>', response.content.decode())
    return response, html.unescape(error.group(1)) if error else ""


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"action": "bid", "bid": "three"}, "Bid: must be a whole number"),
        ({"action": "bid", "bid": "1000000000000"}, "Bid: must be a whole number"),
        ({"action": "choose_ability", "side": "pc", "ability_id": "1.5"}, "Ability: must be"),
        ({"action": "choose_ability", "side": "pc", "ability_id": "9" * 12}, "Ability: must be"),
        ({"action": "resolve", "both_lose_half": "maybe"}, "Both lose half: must be true or"),
        ({"action": "narrate", "narration": "a\x00b"}, "Narration: must not contain NUL"),
        ({"action": "narrate", "narration": "x" * 20_000}, "too large"),
        ({"action": "roll", "pc_roll": "20"}, "PC's roll: dice"),
        ({"action": "frame", "characters": ["2", "two"]}, "Character 2: must be a whole number"),
    ],
)
def test_the_http_form_refuses_malformed_fields_and_changes_nothing(
    client, campaign, gm, contest, fields, error
):
    client.force_login(gm)
    before = unchanged(contest)
    response, shown = post_act(client, campaign, {"contest": contest.pk, "key": key(), **fields})
    assert response.status_code == 400
    assert error in shown and shown.lower().endswith("nothing was done.")
    assert unchanged(contest) == before
    assert Contest.objects.count() == 1


def test_the_http_form_posts_ids_as_strings_that_the_model_reads(
    client, campaign, alice, contest, tamsin
):
    client.force_login(alice)
    fields = {
        "action": "choose_ability",
        "contest": str(contest.pk),
        "seq": "1",
        "key": key(),
        "side": "pc",
        "ability_id": str(ability(tamsin, "Sharp eyes").pk),
    }
    response, shown = post_act(client, campaign, fields, htmx=True)
    assert response.status_code == 200 and shown == ""
    contest.refresh_from_db()
    assert contest.seq == 2 and contest.state["sides"]["pc"]["ability"] == "Sharp eyes"


@pytest.mark.django_db(transaction=True)
async def test_the_socket_refuses_malformed_frames_and_stays_open(
    campaign, table, session, gm, tamsin, settings
):
    from questworlds_site.asgi import application

    from .socket_helpers import receive_until, session_cookie, table_socket

    settings.ACTION_RATE_LIMIT = "1000/minute"  # every frame reaches the parser
    contest = await database_sync_to_async(table.frame)(
        pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"}
    )
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    connected, _ = await socket.connect()
    assert connected
    await receive_until(socket, 'id="contest"')
    envelope = {"contest": contest.pk}
    frames = [
        (json.dumps({**envelope, "action": "bid", "key": "a", "data": {"bid": "3"}}), "Bid:"),
        (
            json.dumps(
                {
                    **envelope,
                    "action": "set_tactic",
                    "key": "b",
                    "data": {"side": "pc", "tactic": "\ud800"},
                }
            ),
            "unpaired surrogate",
        ),
        (
            json.dumps(
                {**envelope, "action": "narrate", "key": "c", "data": {"narration": "\x00"}}
            ),
            "NUL characters",
        ),
        ("[" * 2000 + "]" * 2000, "not valid JSON"),
        (
            json.dumps(
                {**envelope, "action": "roll", "key": "d", "data": {"a": {"b": {"c": {"d": {}}}}}}
            ),
            "nested too deeply",
        ),
        ("x" * 5000, "too large"),
    ]
    for text, error in frames:
        await socket.send_to(text_data=text)
        reply = html.unescape(await receive_until(socket, 'id="table-error"'))
        assert error in reply and "nothing was done" in reply.lower()
    assert (await Contest.objects.aget(pk=contest.pk)).seq == 1
    # Still open: a well-formed action after the malformed ones is done.
    await socket.send_to(
        text_data=json.dumps(
            {
                **envelope,
                "action": "set_tactic",
                "key": "e",
                "data": {"side": "pc", "tactic": "wade"},
            }
        )
    )
    await receive_until(socket, 'data-seq="2"')
    assert await ContestEvent.objects.filter(contest_id=contest.pk).acount() == 2
    await socket.disconnect()


def test_the_frame_form_takes_its_choices_from_the_enums(client, campaign, session, gm):
    """Every choice the frame form offers is one the frame's model accepts, shown as
    before the options came from Python."""
    client.force_login(gm)
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    for shown in (
        '<option value="automatic">Automatic victory (no roll)</option>',
        '<option value="group_extended">Group extended contest (§5.3.3)</option>',
        '<option value="costly">a costly automatic victory (§2.19.2)</option>',
        '<option value="climax">climax (§5.1.3)</option>',
        '<option value="ap">most AP first</option>',
        '<option value="moderate" selected>Moderate</option>',
        '<option value="nearly_impossible">Nearly impossible</option>',
    ):
        assert shown in page
    for name, model_field in (
        ("kind", "kind"),
        ("variant", "variant"),
        ("stakes", "stakes"),
        ("order", "order"),
        ("opponent.level", "level"),
    ):
        select = re.search(rf'<select name="{re.escape(name)}">(.*?)</select>', page, re.S)
        values = [v for v in re.findall(r'<option value="([^"]*)"', select.group(1)) if v]
        assert values, name
        for value in values:
            data = {"opponent": {model_field: value}} if "." in name else {model_field: value}
            actions.parse({"action": "frame", "data": data})


def test_the_frame_rows_and_the_join_form_take_their_roles_from_the_enums(
    client, campaign, session, gm
):
    client.force_login(gm)
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    select = re.search(r'<select name="participants\.0\.role">(.*?)</select>', page, re.S)
    offered = re.findall(r'<option value="([^"]*)">([^<]*)</option>', select.group(1))
    # A blank row posts nothing, so its default (a contestant) is the empty value.
    assert offered == [
        ("", "contestant"),
        ("follower", "follower"),
        ("secondary", "secondary contestant"),
        ("supporter", "supporter"),
    ]
    for value, _ in offered[1:]:
        actions.parse(
            {"action": "frame", "data": {"participants": [{"name": "Voss", "role": value}]}}
        )


def test_a_framing_for_a_campaign_that_is_not_there_or_not_theirs_is_refused(
    campaign, session, gm, alice, tamsin, make_user
):
    """The framing reads its campaign itself, locked (one read, contests/services/
    framing.py): a campaign that does not exist is refused in words, and so is one where
    the sender is not the GM (an outsider, a player); no contest is made."""
    from campaigns.models import Campaign

    framing = {
        "action": "frame",
        "key": key(),
        "data": {
            "kind": "simple",
            "pc": {"character_id": tamsin.pk},
            "opponent": {"name": "The Grey River", "level": "moderate"},
        },
    }
    gone = Campaign.objects.order_by("-pk").values_list("pk", flat=True)[0] + 1000
    reply = perform(campaign_id=gone, user=gm, message=framing)
    assert reply.error == "there is no such campaign. Nothing was done." and not reply.created
    other_gm = make_user("rook", "Rook")
    elsewhere = Campaign.objects.create(name="Elsewhere", gm=other_gm)
    reply = perform(campaign_id=campaign.pk, user=other_gm, message={**framing, "key": key()})
    assert reply.error == "Not allowed: not a member of this campaign. Nothing was done."
    reply = perform(campaign_id=elsewhere.pk, user=gm, message={**framing, "key": key()})
    assert reply.error == "Not allowed: not a member of this campaign. Nothing was done."
    reply = perform(campaign_id=campaign.pk, user=alice, message={**framing, "key": key()})
    assert reply.error == "Not allowed: only the GM frames contests. Nothing was done."
    assert not Contest.objects.exists()
    # The GM of the campaign frames it, as before.
    assert perform(campaign_id=campaign.pk, user=gm, message={**framing, "key": key()}).created
