"""Framing a group contest with all its participants at once: the frame form's rows of
further opponents and followers, the service and the socket path (issue 6)."""

from __future__ import annotations

import html
import json
import re

import pytest
from channels.db import database_sync_to_async
from django.http import QueryDict
from django.urls import reverse

from contests.core import actions
from contests.core.table import load_flow
from contests.models import Contest, ContestEvent
from contests.services import ContestError, actor_for
from contests.table_actions import perform
from contests.views import _message_from_post
from tests.table import Table

from .conftest import ability, key

pytestmark = pytest.mark.django_db


@pytest.fixture
def voss(campaign):
    """A library NPC: Captain Voss, 7M (27)."""
    return campaign.npcs.create(name="Captain Voss", rating=27)


def post_frame(client, user, campaign, **fields):
    """Post the table's frame form as `user`; the answer and the error line it shows."""
    client.force_login(user)
    response = client.post(
        reverse("table_act", args=[campaign.pk]),
        {"action": "frame", "key": key(), "prize": "the causeway", **fields},
    )
    error = re.search(r'id="table-error"[^>]*>([^<]*)</p>', response.content.decode())
    return response, html.unescape(error.group(1)) if error else ""


def two_pcs(tamsin, brannoc) -> dict:
    """The form's PCs: the chosen one and the ticked others."""
    return {"pc.character_id": str(tamsin.pk), "characters": [str(brannoc.pk)]}


def people(contest) -> list[tuple]:
    return list(contest.participants.values_list("name", "side", "rating", "ability"))


# -- the frame form -------------------------------------------------------------------


def test_the_frame_form_sets_two_pcs_against_three_npcs(
    client, campaign, session, gm, tamsin, brannoc, voss
):
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="group_scored",
        **two_pcs(tamsin, brannoc),
        # The resistance fieldset left blank: the rows name the whole opposition.
        **{"opponent.level": "", "opponent.name": ""},
        **{"participants.0.npc_id": str(voss.pk)},
        # Row 2 left blank, as most of the form's rows are.
        **{"participants.1.name": "", "participants.1.level": "", "participants.1.role": ""},
        **{"participants.2.name": "Raiders", "participants.2.level": "high"},
        **{
            "participants.3.name": "Wolves",
            "participants.3.rating": "5M",
            "participants.3.ability": "Pack hunting",
        },
    )
    assert (response.status_code, error) == (200, "")
    contest = campaign.contests.get()
    assert contest.kind == "group_scored"
    assert people(contest) == [
        ("Tamsin", "pc", None, ""),
        ("Brannoc", "pc", None, ""),
        ("Captain Voss", "opponent", 27, ""),
        ("Raiders", "opponent", 20, ""),  # high against the base resistance 14 (R2)
        ("Wolves", "opponent", 25, "Pack hunting"),
    ]
    roles = {p["name"]: (p["role"], p["owner"]) for p in contest.state["participants"]}
    assert set(roles.values()) == {("contestant", None)}
    # Pairing waits for ratings (the flow offers no engage yet); abilities come first.
    assert 'name="action" value="choose_ability"' in response.content.decode()
    assert Table.rebuilt(contest).state == contest.state


def test_the_first_resistance_stays_and_a_row_makes_a_side_of_its_own(
    client, campaign, session, gm, tamsin, brannoc
):
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="group_extended",
        **two_pcs(tamsin, brannoc),
        **{"opponent.name": "Chief", "opponent.level": "moderate"},
        **{
            "participants.0.name": "Bear",
            "participants.0.rating": "16",
            "participants.0.side": "beasts",
        },
    )
    assert (response.status_code, error) == (200, "")
    contest = campaign.contests.get()
    assert load_flow(contest.state).side_labels == ["pc", "opponent", "beasts"]
    assert [(name, side) for name, side, *_ in people(contest)] == [
        ("Tamsin", "pc"),
        ("Brannoc", "pc"),
        ("Chief", "opponent"),
        ("Bear", "beasts"),
    ]


def test_the_frame_form_brings_a_follower_to_a_scored_contest(
    client, campaign, table, session, gm, alice, tamsin, brannoc
):
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="group_scored",
        **two_pcs(tamsin, brannoc),
        **{"opponent.name": "Raider", "opponent.rating": "14", "opponent.level": ""},
        # No side: a follower stands on its owner's.
        **{
            "participants.0.name": "Oro",
            "participants.0.rating": "13",
            "participants.0.role": "follower",
            "participants.0.owner": "Tamsin",
        },
    )
    assert (response.status_code, error) == (200, "")
    contest = campaign.contests.get()
    oro = load_flow(contest.state).participant("Oro")
    assert (oro["side"], oro["role"], oro["owner"], oro["rating"]) == (
        "pc",
        "follower",
        "Tamsin",
        13,
    )
    # Followers are played by their owner's player (R5.3), and contend in pairings (§5.2.4).
    assert load_flow(contest.state).controls(actor_for(campaign, alice), "Oro")
    for character, name in ((tamsin, "Boatcraft"), (brannoc, "Temple singer")):
        table.act(
            contest,
            gm,
            "choose_ability",
            participant=character.name,
            ability_id=ability(character, name).pk,
        )
    table.act(contest, gm, "engage", pc="Oro", opponent="Raider")
    engine = {p["name"]: p for p in contest.state["machine"]["state"]["participants"]}
    assert (engine["Oro"]["role"], engine["Oro"]["owner"]) == ("follower", "Tamsin")
    assert contest.state["machine"]["state"]["pairings"][0]["pc"] == "Oro"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            {
                "participants.0.name": "Raiders",
                "participants.0.level": "low",
                "participants.2.name": "Wolves",
            },
            "participant row 3 (Wolves): give it a class, a rating, a library NPC or a sidekick",
        ),
        (
            {"participants.0.level": "high"},
            "participant row 1: give it a name",
        ),
        (
            {"participants.0.side": "beasts"},
            "participant row 1: give it a class, a rating, a library NPC or a sidekick",
        ),
        (
            {
                "participants.1.name": "Bear",
                "participants.1.level": "high",
                "participants.1.rating": "16",
            },
            "participant row 2 (Bear): give it only one of a class, a rating, "
            "a library NPC or a sidekick",
        ),
        (
            {
                "participants.0.name": "Raider",
                "participants.0.rating": "14",
                "participants.1.name": "Raider",
                "participants.1.level": "low",
            },
            "participant row 2 (Raider): 'Raider' is already taking part",
        ),
        (
            {"participants.0.name": "Tamsin", "participants.0.rating": "14"},
            "participant row 1 (Tamsin): 'Tamsin' is already taking part",
        ),
        (
            {"participants.0.name": "Wolves", "participants.0.rating": "lots"},
            "participant row 1 (Wolves): ",
        ),
    ],
    ids=[
        "half-filled",
        "no-name",
        "only-a-side",
        "two-ratings",
        "same-name",
        "a-pc-s-name",
        "bad-rating",
    ],
)
def test_an_incomplete_or_clashing_row_is_refused_by_its_number(
    client, campaign, session, gm, tamsin, brannoc, rows, message
):
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="group_scored",
        **two_pcs(tamsin, brannoc),
        **{"opponent.name": "Chief", "opponent.level": "high"},
        **rows,
    )
    assert response.status_code == 400
    assert error.startswith(message) and error.endswith("Nothing was done.")
    assert not Contest.objects.exists() and not ContestEvent.objects.exists()


def test_only_the_gm_frames_a_group(client, campaign, session, alice, tamsin, brannoc):
    response, error = post_frame(
        client,
        alice,
        campaign,
        kind="group_scored",
        **two_pcs(tamsin, brannoc),
        **{"participants.0.name": "Raider", "participants.0.rating": "14"},
    )
    assert response.status_code == 400
    assert error == "Not allowed: only the GM frames contests. Nothing was done."
    assert not Contest.objects.exists()


def test_one_on_one_framing_is_unchanged_by_the_blank_rows(client, campaign, session, gm, tamsin):
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="simple",
        **{"pc.character_id": str(tamsin.pk), "opponent.name": "The Grey River"},
        **{"opponent.level": "high", "participants.0.name": "", "participants.0.role": ""},
    )
    assert (response.status_code, error) == (200, "")
    contest = campaign.contests.get()
    assert (contest.kind, contest.resistance_name, contest.resistance_rating) == (
        "simple",
        "The Grey River",
        20,
    )
    assert "participants" not in contest.framing


def test_the_form_posts_rows_as_a_list_that_keeps_each_rows_place():
    post = QueryDict(mutable=True)
    post.update({"action": "frame", "participants.2.name": "7", "participants.2.npc_id": "4"})
    post.update({"participants.0.rating": "13", "participants.0.owner": "12", "opponent.level": ""})
    post.update({"participants.123.name": "too far", "participants.x.name": "no number"})
    message = _message_from_post(post)
    data = message["data"]
    # The form only unflattens names: every value stays the string it posted, and a
    # blank row keeps its place so errors can name it.
    assert data["participants"] == [
        {"rating": "13", "owner": "12"},
        {},
        {"name": "7", "npc_id": "4"},
    ]
    assert "opponent" not in data
    # The frame's typed model reads the id as a whole number; names and ratings stay text.
    parsed = actions.data_of(actions.parse(message, form=True))
    assert parsed["participants"] == [
        {"rating": "13", "owner": "12"},
        {},
        {"name": "7", "npc_id": 4},
    ]


def test_the_gm_sees_the_rows_and_players_do_not(client, campaign, session, gm, alice, voss):
    client.force_login(gm)
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    assert page.count("<legend>Participant row ") == 5
    for field in ("name", "npc_id", "level", "rating", "ability", "side", "role", "owner"):
        assert f'name="participants.4.{field}"' in page
    assert f'<option value="{voss.pk}">Captain Voss (7M)</option>' in page
    client.force_login(alice)
    assert (
        "participants.0.name"
        not in client.get(reverse("table", args=[campaign.pk])).content.decode()
    )


# -- the service and the socket ---------------------------------------------------------


def framing(tamsin, brannoc, voss, **extra) -> dict:
    """The socket's full shape: every participant in one list."""
    return {
        "kind": "group_scored",
        "prize": "the causeway",
        "participants": [
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk},
            {"npc_id": voss.pk, "ability": "Cutlass"},
            {"name": "Raiders", "level": "high"},
            {"name": "Wolves", "rating": "5M"},
        ],
        **extra,
    }


def test_the_service_frames_every_participant_from_one_list(table, session, tamsin, brannoc, voss):
    contest = table.frame(**framing(tamsin, brannoc, voss))
    assert people(contest) == [
        ("Tamsin", "pc", 17, "Boatcraft"),
        ("Brannoc", "pc", None, ""),
        ("Captain Voss", "opponent", 27, "Cutlass"),
        ("Raiders", "opponent", 20, ""),
        ("Wolves", "opponent", 25, ""),
    ]


def test_the_service_adds_rows_to_the_forms_pcs_and_renames_a_library_npc(
    table, session, tamsin, brannoc, voss
):
    data = {
        "kind": "group_scored",
        "pc": {"character_id": tamsin.pk},
        "characters": [tamsin.pk, brannoc.pk],
        "opponent": {},
        "participants": [
            {"npc_id": voss.pk},
            {},
            {"npc_id": voss.pk, "name": "Voss's twin"},
            {"name": "Oro", "rating": "13", "role": "secondary", "owner": "Tamsin"},
        ],
    }
    contest = table.frame(prize="", **data)
    assert [(p["name"], p["side"], p["rating"]) for p in contest.state["participants"]] == [
        ("Tamsin", "pc", None),
        ("Brannoc", "pc", None),
        ("Captain Voss", "opponent", 27),
        ("Voss's twin", "opponent", 27),
        ("Oro", "pc", 13),
    ]
    # The same library entry twice, without a name of its own, is two of the same name.
    data["participants"][2] = {"npc_id": voss.pk}
    with pytest.raises(ContestError, match=r"participant row 3: 'Captain Voss' is already"):
        table.frame(prize="", **data)


def test_the_socket_path_frames_a_participants_list_and_refuses_a_half_filled_one(
    campaign, session, gm, alice, tamsin, brannoc, voss
):
    reply = perform(
        campaign_id=campaign.pk,
        user=gm,
        message={"action": "frame", "key": key(), "data": framing(tamsin, brannoc, voss)},
    )
    assert reply.error == "" and reply.created
    assert Contest.objects.get(pk=reply.contest_id).participants.count() == 5

    half = framing(tamsin, brannoc, voss)
    half["participants"][3] = {"name": "Raiders", "side": "opponent"}
    reply = perform(
        campaign_id=campaign.pk, user=gm, message={"action": "frame", "key": key(), "data": half}
    )
    assert reply.error == (
        "participant row 4 (Raiders): give it a class, a rating, a library NPC or a sidekick. "
        "Nothing was done."
    )
    reply = perform(
        campaign_id=campaign.pk,
        user=alice,
        message={"action": "frame", "key": key(), "data": framing(tamsin, brannoc, voss)},
    )
    assert reply.error == "Not allowed: only the GM frames contests. Nothing was done."
    assert Contest.objects.count() == 1


@pytest.mark.django_db(transaction=True)
async def test_the_gm_frames_a_group_over_the_real_socket(
    campaign, session, gm, tamsin, brannoc, voss
):
    from questworlds_site.asgi import application

    from .socket_helpers import receive_until, session_cookie, table_socket

    data = await database_sync_to_async(framing)(tamsin, brannoc, voss)
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    connected, _ = await socket.connect()
    assert connected
    await receive_until(socket, 'id="contest"')
    await socket.send_to(text_data=json.dumps({"action": "frame", "key": key(), "data": data}))
    update = await receive_until(socket, 'data-participant="Wolves"')
    assert 'data-participant="Captain Voss"' in update
    contest = await Contest.objects.aget()
    assert contest.kind == "group_scored" and await contest.participants.acount() == 5
    await socket.disconnect()


def test_extra_participant_rows_are_refused_for_a_one_on_one_contest(
    campaign, table, session, tamsin
):
    with pytest.raises(ContestError, match="for group contests"):
        table.frame(
            pc=tamsin,
            opponent={"name": "The Grey River", "level": "moderate"},
            prize="",
            participants=[{"name": "Wolves", "level": "high"}],
        )
    assert not Contest.objects.filter(campaign=campaign).exists()
