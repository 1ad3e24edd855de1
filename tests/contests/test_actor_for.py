"""Who acts at a table, read under the contest's lock for every action (issue 12: at
the moment it is done): the GM acts for everyone, a player for exactly the characters
they play in this campaign, a spectator for none, anyone else not at all."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from campaigns.models import Campaign, Membership, Role
from characters.models import Character
from contests.services.common import actor_for


@pytest.fixture
def elsewhere(gm, alice):
    other = Campaign.objects.create(name="Elsewhere", genre="Fantasy", gm=gm)
    Membership.objects.create(campaign=other, user=alice, role=Role.PLAYER)
    return Character.objects.create(campaign=other, player=alice, name="Far Away")


def test_a_player_acts_for_the_characters_they_play_here_only(
    campaign, alice, tamsin, elsewhere, django_assert_max_num_queries
):
    wren = Character.objects.create(campaign=campaign, player=alice, name="Wren")
    with django_assert_max_num_queries(1):
        actor = actor_for(campaign, alice)
    assert actor.role == "player" and actor.character_ids == {tamsin.pk, wren.pk}


def test_a_player_without_a_character_here_acts_for_none(campaign, bob, elsewhere):
    Character.objects.create(campaign=elsewhere.campaign, player=bob, name="Not Here")
    actor = actor_for(campaign, bob)
    assert actor.role == "player" and actor.character_ids == frozenset()


def test_the_gm_acts_for_everyone_and_a_spectator_for_none(campaign, gm, sam):
    assert actor_for(campaign, gm).role == "gm"
    spectator = actor_for(campaign, sam)
    assert spectator.role == "spectator" and spectator.character_ids == frozenset()


def test_anyone_else_does_not_act_at_all(campaign, charlie):
    with pytest.raises(PermissionDenied):
        actor_for(campaign, charlie)


def test_the_contests_locking_statement_reads_who_acts_as_actor_for_does(
    campaign, table, gm, alice, bob, sam, charlie, tamsin, elsewhere, session, make_user
):
    """An action reads who acts in the statement that locks its contest
    (`with_member_rows`, one row for each character played): the same actor as
    `actor_for`'s own query, for a player of two characters here (and one elsewhere),
    a player of none here, a spectator, the GM, and anyone else (refused)."""
    from contests.models import Contest
    from contests.services.common import member_rows, with_member_rows

    Character.objects.create(campaign=campaign, player=alice, name="Wren")
    Character.objects.create(campaign=elsewhere.campaign, player=bob, name="Not Here")
    contest = table.frame(pc=tamsin, opponent={"name": "River", "level": "moderate"})
    for user in (alice, bob, sam, gm, charlie):
        rows = list(
            with_member_rows(Contest.objects.select_related("campaign"), user).filter(pk=contest.pk)
        )
        assert {row.pk for row in rows} == {contest.pk}
        try:
            expected = actor_for(campaign, user)
        except PermissionDenied:
            with pytest.raises(PermissionDenied):
                actor_for(rows[0].campaign, user, member_rows(rows))
            continue
        assert actor_for(rows[0].campaign, user, member_rows(rows)) == expected, user
