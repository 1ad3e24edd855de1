"""Who may act at a table, read for each action in one query (campaigns/access.py
`role_in_campaign`, issue 16): the GM, a player, a spectator; outsiders, the logged
out and a campaign that does not exist get 404, and a change of role counts at once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404
from django.urls import reverse

from campaigns.access import role_in_campaign
from campaigns.models import Membership
from contests.models import Contest

pytestmark = pytest.mark.django_db


def test_each_member_s_role_in_one_query(campaign, gm, alice, sam, django_assert_num_queries):
    for user, role in ((gm, "gm"), (alice, "player"), (sam, "spectator")):
        with django_assert_num_queries(1):
            assert role_in_campaign(user, campaign.pk) == role


def test_outsiders_the_logged_out_and_no_such_campaign_get_404(campaign, make_user, alice):
    stranger = make_user("stranger", "Stranger")
    for user, campaign_id in (
        (stranger, campaign.pk),
        (AnonymousUser(), campaign.pk),
        (alice, campaign.pk + 999),
    ):
        with pytest.raises(Http404):
            role_in_campaign(user, campaign_id)


def test_a_change_of_role_counts_for_the_next_action(campaign, gm, alice, sam):
    from campaigns.services import campaign_gm_hand_over, membership_remove

    campaign_gm_hand_over(campaign=campaign, actor=gm, new_gm=alice)
    assert role_in_campaign(alice, campaign.pk) == "gm"
    assert role_in_campaign(gm, campaign.pk) != "gm"
    membership_remove(campaign=campaign, actor=alice, membership=Membership.objects.get(user=sam))
    with pytest.raises(Http404):
        role_in_campaign(sam, campaign.pk)


def test_an_outsider_s_table_action_is_404_and_frames_nothing(client, campaign, make_user):
    client.force_login(make_user("stranger", "Stranger"))
    response = client.post(
        reverse("table_act", args=[campaign.pk]),
        {"action": "frame", "key": "k1", "kind": "simple", "prize": "the ford"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 404
    assert not Contest.objects.filter(campaign=campaign).exists()
