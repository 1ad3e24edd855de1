"""§8.2's optional rule: social penalties that linger, shedding 3 points at the end of
each interval (`Community.social_penalties_linger`, off by default)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from campaigns.transfer import campaign_export, campaign_import
from characters.models import Ability, Character
from community import services
from community.models import Community
from contests.models import Contest
from contests.services import social_penalties
from contests.services.sheets import with_sheet_reads

from .conftest import start_draw

pytestmark = pytest.mark.django_db


def fail_a_draw(community, gm, tamsin, ashfen_born):
    """Tamsin lobbies with Ashfen Born, then loses the contest completely: -9 (§8.2)."""
    draw = start_draw(community, gm, tamsin, ashfen_born)
    settled = services.community_draw_settle(draw=draw, actor=gm, outcome_level=-4)
    assert settled.social_penalty == -9
    return draw


def end_interval(community, gm) -> None:
    """The GM records the interval's end; a session stays open for the next draws."""
    assert services.community_interval_end(
        community=community, actor=gm, interval=community.interval_number
    )
    community.refresh_from_db()


def linger(community, gm, on: bool = True) -> None:
    services.community_update(
        community=community,
        actor=gm,
        name=community.name,
        interval_name=community.interval_name,
        answer_mode=community.answer_mode,
        social_penalties_linger=on,
    )
    community.refresh_from_db()


def values(ability) -> list[int]:
    """The penalties on the ability, as the community page reads them and as a pick at
    the table reads them with the ability (`with_sheet_reads`, one statement): the
    same lines."""
    lines = social_penalties(ability)
    picked = with_sheet_reads(Ability.objects.filter(pk=ability.pk)).get()
    assert social_penalties(picked) == lines
    return [line["value"] for line in lines]


def page(client, user, community) -> str:
    client.force_login(user)
    return client.get(reverse("community:page", args=[community.campaign_id])).content.decode()


def test_the_option_is_off_by_default(community):
    assert community.social_penalties_linger is False


def test_by_the_standard_rule_a_penalty_ends_with_its_interval(
    community, gm, tamsin, ashfen_born, session
):
    fail_a_draw(community, gm, tamsin, ashfen_born)
    assert social_penalties(ashfen_born) == [
        {"label": "social penalty: drawing on Wealth", "value": -9}
    ]
    end_interval(community, gm)
    assert social_penalties(ashfen_born) == []


def test_a_lingering_penalty_sheds_3_at_each_interval_end_until_it_is_gone(
    client, community, gm, alice, tamsin, ashfen_born, session
):
    linger(community, gm)
    fail_a_draw(community, gm, tamsin, ashfen_born)
    assert values(ashfen_born) == [-9]
    end_interval(community, gm)
    assert social_penalties(ashfen_born) == [
        {"label": "social penalty: drawing on Wealth (-6 left of -9, since season 1)", "value": -6}
    ]
    text = page(client, alice, community)
    assert "-6 on social and community abilities" in text
    assert "-9 since season 1" in text
    # A new failed draw this interval adds its own full penalty.
    fail_a_draw(community, gm, tamsin, ashfen_born)
    assert values(ashfen_born) == [-6, -9]
    end_interval(community, gm)
    assert values(ashfen_born) == [-3, -6]
    end_interval(community, gm)
    assert values(ashfen_born) == [-3]
    end_interval(community, gm)
    assert social_penalties(ashfen_born) == []
    assert "social-penalties" not in page(client, alice, community)


def test_turning_the_option_off_ends_the_lingering_penalties(
    community, gm, tamsin, ashfen_born, session
):
    linger(community, gm)
    fail_a_draw(community, gm, tamsin, ashfen_born)
    end_interval(community, gm)
    assert values(ashfen_born) == [-6]
    linger(community, gm, on=False)
    assert values(ashfen_born) == []


def test_the_penalties_take_one_query(
    community, gm, tamsin, ashfen_born, session, django_assert_num_queries
):
    linger(community, gm)
    fail_a_draw(community, gm, tamsin, ashfen_born)
    end_interval(community, gm)
    fail_a_draw(community, gm, tamsin, ashfen_born)
    with django_assert_num_queries(1):
        lines = social_penalties(ashfen_born)
    assert [line["value"] for line in lines] == [-6, -9]
    # A pick at the table reads them with the ability, in the ability's own statement.
    with django_assert_num_queries(1):
        picked = with_sheet_reads(Ability.objects.filter(pk=ashfen_born.pk)).get()
        assert social_penalties(picked) == lines


def test_choosing_the_lobbying_ability_at_the_table_shows_what_is_left(
    table, community, gm, alice, tamsin, ashfen_born, session
):
    linger(community, gm)
    fail_a_draw(community, gm, tamsin, ashfen_born)
    end_interval(community, gm)
    contest = table.frame(
        pc=tamsin, prize="win back the elders", opponent={"name": "The elders", "level": "moderate"}
    )
    table.act(contest, alice, "choose_ability", side="pc", ability_id=ashfen_born.pk)
    assert [
        (line["label"], line["value"]) for line in contest.state["sides"]["pc"]["modifiers"]
    ] == [("social penalty: drawing on Wealth (-6 left of -9, since season 1)", -6)]


def test_the_gm_sets_the_option_and_players_cannot(client, community, gm, alice):
    edit = reverse("community:edit", args=[community.campaign_id])
    form = {
        "name": "Ashfen",
        "interval_name": "season",
        "answer_mode": "consensus",
        "social_penalties_linger": "on",
    }
    client.force_login(alice)
    assert client.post(edit, form).status_code == 403
    community.refresh_from_db()
    assert community.social_penalties_linger is False

    client.force_login(gm)
    assert "lingering social penalties" in client.get(edit).content.decode().lower()
    assert client.post(edit, form).status_code == 302
    community.refresh_from_db()
    assert community.social_penalties_linger is True
    del form["social_penalties_linger"]  # an unticked box is not sent
    client.post(edit, form)
    community.refresh_from_db()
    assert community.social_penalties_linger is False


def wipe(campaign) -> None:
    Contest.objects.filter(campaign=campaign).delete()
    Character.objects.filter(campaign=campaign).delete()
    campaign.delete()


def test_the_export_carries_the_option_and_older_exports_import_without_it(campaign, community, gm):
    linger(community, gm)
    exported = json.loads(json.dumps(campaign_export(campaign)))
    assert exported["community"]["social_penalties_linger"] is True
    older = json.loads(json.dumps(exported))
    del older["community"]["social_penalties_linger"]
    wipe(campaign)

    imported = campaign_import(data=exported)
    assert Community.objects.get(campaign=imported).social_penalties_linger is True
    assert json.loads(json.dumps(campaign_export(imported))) == exported
    wipe(imported)
    imported = campaign_import(data=older)
    assert Community.objects.get(campaign=imported).social_penalties_linger is False
