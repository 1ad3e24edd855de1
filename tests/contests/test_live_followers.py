"""A follower's hero point is its owner's (§2.3.5.5, §5.2.4, R5.3), played through the
services as the live table does (issue 13).

§2.3.5.5: "You may only bump your own rolls, not those of other PCs or supporting
characters—with the exception of sidekicks and retainers, which, as extensions of your
character, you may spend hero points on." A follower has no hero points of its own:
its owner's player spends the owner's.
"""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from characters import services as character_services
from contests.live import render_contest
from contests.services import ContestError
from tests.table import Table

from .conftest import ability

pytestmark = pytest.mark.django_db

FORM = re.compile(r'<form[^>]*>\s*<input type="hidden" name="action" value="([^"]+)"')


def offered_to(contest, user) -> set[str]:
    """The actions whose forms `user`'s own copy of the table shows."""
    contest.refresh_from_db()
    return set(FORM.findall(render_contest(contest, "player", reader=user.pk)))


def with_oro(table, tamsin, brannoc, role="follower"):
    """Tamsin and Brannoc with Oro, Tamsin's follower (13), against a raider (14)."""
    return table.frame(
        "group_scored",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "Oro", "rating": 13, "side": "pc", "role": role, "owner": "Tamsin"},
            {"name": "Raider", "rating": 14},
        ],
    )


def oro_loses_a_round(table, gm, contest):
    """Oro (13) rolls 5, the raider (14) 10: both succeed, the raider's higher roll wins
    (R6); the roll waits for hero points."""
    table.act(contest, gm, "engage", pc="Oro", opponent="Raider")
    table.act(contest, gm, "play_round", rolls=(5, 10), pairing=1)
    assert contest.state["phase"] == "rolled"
    return contest


def spend_all(character, user):
    """The owner spends every hero point elsewhere first, through the sheet's service."""
    character.refresh_from_db()
    while character.hero_points:
        character_services.character_hero_point_spend(character=character, actor=user)
        character.refresh_from_db()


def test_the_owner_pays_the_followers_hero_point(table, session, gm, alice, bob, tamsin, brannoc):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    assert "hero_point" in offered_to(contest, alice)  # Oro's form is Alice's
    assert "hero_point" not in offered_to(contest, bob)
    table.act(contest, alice, "hero_point", participant="Oro")  # success -> critical
    tamsin.refresh_from_db()
    brannoc.refresh_from_db()
    assert (tamsin.hero_points, brannoc.hero_points) == (2, 3)  # Tamsin's, not Brannoc's
    spent = contest.events.filter(type="hero_point").get().payload
    assert spent["hero_point"] == {"participant": "Oro", "character_id": tamsin.pk}
    step = tamsin.ledger.order_by("-id").first()
    assert step.reason == "hp_spend" and f"contest #{contest.number}" in step.note
    table.act(contest, gm, "resolve")
    pairing = contest.state["machine"]["state"]["pairings"][0]
    assert (pairing["pc_points"], pairing["opponent_points"]) == (2, 0)  # a minor victory
    assert Table.rebuilt(contest).state == contest.state


def test_one_hero_point_a_roll_for_a_follower_too(table, session, gm, alice, tamsin, brannoc):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    table.act(contest, alice, "hero_point", participant="Oro")
    assert "hero_point" not in offered_to(contest, alice)
    table.refused(contest, alice, "hero_point", r"one hero point per roll", participant="Oro")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2


def test_an_owner_without_hero_points_is_not_offered_one_and_is_refused(
    table, session, gm, alice, tamsin, brannoc
):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    spend_all(tamsin, alice)
    assert "hero_point" not in offered_to(contest, alice)
    table.refused(contest, alice, "hero_point", "Tamsin has no hero point left", participant="Oro")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 0
    assert not contest.events.filter(type="hero_point").exists()


def test_another_player_cannot_spend_on_someone_elses_follower(
    table, session, gm, alice, bob, sam, tamsin, brannoc
):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    table.refused(contest, bob, "hero_point", "only Oro's player", participant="Oro")
    table.refused(contest, sam, "hero_point", "spectators watch", participant="Oro")
    tamsin.refresh_from_db()
    brannoc.refresh_from_db()
    assert (tamsin.hero_points, brannoc.hero_points) == (3, 3)


def test_the_gms_own_participants_spend_no_hero_points(table, session, gm, tamsin, brannoc):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    table.refused(
        contest, gm, "hero_point", "only player characters spend hero points", participant="Raider"
    )


def test_undoing_the_followers_hero_point_returns_it_to_the_owner(
    table, session, gm, alice, tamsin, brannoc
):
    contest = oro_loses_a_round(table, gm, with_oro(table, tamsin, brannoc))
    table.act(contest, alice, "hero_point", participant="Oro")
    table.act(contest, gm, "undo")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 3
    assert "hero_point" in offered_to(contest, alice)


# -- a sidekick's abilities, used as the owner's own (§6.5.1) ---------------------------


def kara_with_rex(campaign, alice):
    """Kara, Alice's mercenary in play, with her sidekick Rex, built through the sheet's
    services (the characters' tests' Kara)."""
    from characters.models import Character
    from tests.characters.conftest import KARA_ABILITIES, REX, add_abilities

    kara = character_services.character_create(
        player=alice,
        name="Kara",
        concept="sardonic ex-mercenary",
        creation_method="list",
        campaign=campaign,
        traits=["scarred cheek", "salt-white hair", "a notched sword"],
    )
    add_abilities(kara, alice, [row for row in KARA_ABILITIES if row[0] != "Wary"])
    character_services.character_sidekick_set(
        character=kara, actor=alice, name="Rex", abilities=REX
    )
    character_services.character_creation_finish(character=kara, actor=alice)
    return Character.objects.get(pk=kara.pk)


def test_the_owner_rolls_the_sidekicks_ability_and_pays_its_hero_point(
    table, session, gm, alice, campaign
):
    kara = kara_with_rex(campaign, alice)
    tracking = ability(kara, "Tracking")
    assert tracking.follower.name == "Rex"
    contest = table.frame(pc=kara)
    table.act(contest, alice, "choose_ability", side="pc", ability_id=tracking.pk)
    assert contest.state["sides"]["pc"]["rating"] == 18
    table.act(contest, gm, "roll", rolls=(10, 5))  # both succeed: the higher roll wins (R6)
    table.act(contest, alice, "hero_point", side="pc")
    kara.refresh_from_db()
    assert kara.hero_points == 2


def test_a_lost_sidekicks_abilities_are_not_the_owners_to_use(table, session, gm, alice, campaign):
    kara = kara_with_rex(campaign, alice)
    rex = kara.followers.get(name="Rex")
    character_services.character_sidekick_lose(
        character=kara, actor=alice, follower=rex, reason="fell at the ford"
    )
    contest = table.frame(pc=kara)
    table.refused(
        contest,
        alice,
        "choose_ability",
        r"Rex is no longer in Kara's service \(§6.5.2\): Tracking is not theirs to use",
        side="pc",
        ability_id=ability(kara, "Tracking").pk,
    )
    with pytest.raises(ContestError, match="Rex is no longer in Kara's service"):
        table.frame(pc={"character_id": kara.pk, "ability_id": ability(kara, "Tracking").pk})


# -- a sidekick from the sheet in a group scored contest (§5.2.4) -----------------------


def test_the_frame_form_brings_a_sidekick_from_its_owners_sheet(
    client, table, session, gm, alice, bob, campaign, brannoc
):
    """The GM picks Rex's Tracking in a row of the frame form: Rex joins as Kara's
    follower with his rating; Alice plays him and pays his hero point from Kara's."""
    from .test_live_group_framing import post_frame

    kara = kara_with_rex(campaign, alice)
    tracking = ability(kara, "Tracking")
    client.force_login(gm)
    page = html.unescape(client.get(reverse("table", args=[campaign.pk])).content.decode())
    assert "Rex, Kara's sidekick: Tracking (18)" in page
    response, error = post_frame(
        client,
        gm,
        campaign,
        kind="group_scored",
        **{"pc.character_id": str(kara.pk), "characters": [str(brannoc.pk)]},
        **{"opponent.name": "Raider", "opponent.rating": "14", "opponent.level": ""},
        **{"participants.0.sidekick_ability_id": str(tracking.pk)},
    )
    assert (response.status_code, error) == (200, "")
    contest = campaign.contests.get()
    rex = next(p for p in contest.state["participants"] if p["name"] == "Rex")
    assert (rex["side"], rex["role"], rex["owner"], rex["rating"], rex["ability"]) == (
        "pc",
        "follower",
        "Kara",
        18,
        "Tracking",
    )
    for character, name in ((kara, "Riding"), (brannoc, "Temple singer")):
        table.act(
            contest,
            gm,
            "choose_ability",
            participant=character.name,
            ability_id=ability(character, name).pk,
        )
    table.act(contest, gm, "engage", pc="Rex", opponent="Raider")
    table.act(contest, gm, "play_round", rolls=(5, 10), pairing=1)  # the raider's higher roll
    table.refused(contest, bob, "hero_point", "only Rex's player", participant="Rex")
    table.act(contest, alice, "hero_point", participant="Rex")
    kara.refresh_from_db()
    assert kara.hero_points == 2


def test_a_lost_sidekick_cannot_be_framed_nor_another_owner_named(
    table, session, gm, alice, campaign, tamsin
):
    kara = kara_with_rex(campaign, alice)
    tracking = ability(kara, "Tracking")
    with pytest.raises(ContestError, match="Rex's owner 'Kara' must be a contestant"):
        table.frame(
            "group_scored",
            pc=tamsin,
            opponent={"name": "Raider", "rating": 14},
            participants=[{"sidekick_ability_id": tracking.pk}],
        )
    with pytest.raises(ContestError, match="Rex is Kara's sidekick, not Tamsin's"):
        table.frame(
            "group_scored",
            pc=kara,
            opponent={"name": "Raider", "rating": 14},
            participants=[{"sidekick_ability_id": tracking.pk, "owner": "Tamsin"}],
        )
    with pytest.raises(ContestError, match="there is no such sidekick's ability"):
        table.frame(
            "group_scored",
            pc=kara,
            opponent={"name": "Raider", "rating": 14},
            participants=[{"sidekick_ability_id": ability(kara, "Riding").pk}],
        )
    character_services.character_sidekick_lose(
        character=kara, actor=alice, follower=kara.followers.get(name="Rex"), reason="drowned"
    )
    with pytest.raises(ContestError, match=r"Rex is no longer in Kara's service \(§6.5.2\)"):
        table.frame(
            "group_scored",
            pc=kara,
            opponent={"name": "Raider", "rating": 14},
            participants=[{"sidekick_ability_id": tracking.pk}],
        )
    assert not campaign.contests.exists()
