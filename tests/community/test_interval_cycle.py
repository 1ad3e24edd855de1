"""The full interval cycle over three intervals with fixed dice (§8.2.4-§8.3): background
events, play, crisis tests, cementing, plot events, the interval's end, and the history
each interval leaves behind."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from campaigns import services as campaign_services
from community import services
from community.models import CommunityStep, IntervalRecord, StepKind
from contests.core.rules import fixed_rolls

from .conftest import columns, resource, start_draw

pytestmark = pytest.mark.django_db


def ratings(community) -> dict[str, int]:
    return {name: values[0] for name, values in columns(community).items()}


def test_three_intervals_with_fixed_dice(community, gm, campaign, tamsin, ashfen_born):
    def end(number: int) -> None:
        assert services.community_interval_end(community=community, actor=gm, interval=number)
        community.refresh_from_db()

    def session(*rolls):
        open_one = campaign.sessions.filter(ended_at__isnull=True).first()
        if open_one:
            campaign_services.session_end(session=open_one, actor=gm)
        # A penalised resource faces a crisis test as the session starts (§8.2.5).
        return campaign_services.session_start(
            campaign=campaign, actor=gm, roller=fixed_rolls(*rolls)
        )

    r = lambda name: resource(community, name)  # noqa: E731

    # ---- Season 1: 12W 9W 18 18 12, average 2W.
    services.community_background_events(
        community=community,
        actor=gm,
        # Wealth crit vs fail: major V +6; Diplomacy minor V +3; Magic (the resistance
        # takes a mastery bump) minor D -3; Morale marginal D 0; Military minor V +3.
        roller=fixed_rolls(1, 10, 5, 5, 10, 2, 15, 19, 12, 20),
    )
    assert columns(community) == {
        "Wealth": (32, 6, 0, 6, 0),
        "Diplomacy": (29, 3, 0, 3, 0),
        "Magic": (18, -3, 0, 0, 0),
        "Morale": (18, 0, 0, 0, 0),
        "Military": (12, 3, 0, 3, 0),
    }
    session(1, 20)  # Magic's crisis test (§8.2.5): a critical against a fumble, no crisis
    draw = start_draw(community, gm, tamsin, ashfen_born, purpose="buy seed corn")
    services.community_draw_settle(draw=draw, actor=gm, outcome_level=2)  # -3
    services.community_bolster(community=community, actor=gm, resource=r("Morale"), outcome_level=3)
    services.community_cement(community=community, actor=gm, resource=r("Diplomacy"))
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=r("Military"), outcome_level=-2
    )
    assert columns(community) == {
        "Wealth": (32, 3, 0, 6, 0),
        "Diplomacy": (29, 3, 3, 0, 0),
        "Magic": (18, -3, 0, 0, 0),
        "Morale": (18, 9, 9, 0, 0),
        "Military": (12, -3, 0, 3, 0),  # the uncemented background bonus is still noted
    }
    end(1)
    # PC 3: +1; penalty -3: -1; PC 9: +3; everything else resets.
    assert columns(community) == {
        "Wealth": (32, 0, 0, 0, 0),
        "Diplomacy": (30, 0, 0, 0, 0),
        "Magic": (17, 0, 0, 0, 0),
        "Morale": (21, 0, 0, 0, 0),
        "Military": (11, 0, 0, 0, 0),
    }
    assert (community.interval_number, community.background_done) == (2, False)

    # ---- Season 2: 12W 10W 17 1W 11, average 22 (2W).
    services.community_background_events(
        community=community,
        actor=gm,
        # Wealth fumble vs crit: complete D -9; Diplomacy minor V +3; Magic crit vs a
        # fumble bumped to failure: major V +6; Morale both crit, equal rolls: tie;
        # Military minor V +3.
        roller=fixed_rolls(20, 1, 2, 3, 1, 20, 1, 1, 11, 20),
    )
    session(10, 2)
    crisis = community.steps.order_by("-id").first()
    assert [(t["resource"], t["outcome"]) for t in crisis.rolls] == [("Wealth", "minor defeat")]
    services.community_crisis_narrate(
        community=community, actor=gm, resource=r("Wealth"), text="Merchants flee upriver."
    )
    services.community_plot_event(
        community=community, actor=gm, resource=r("Military"), change=2, reason="the fort rebuilt"
    )
    services.community_concede(community=community, actor=gm, resource=r("Diplomacy"))
    services.community_cement(community=community, actor=gm, resource=r("Magic"))
    services.community_bolster(community=community, actor=gm, resource=r("Wealth"), outcome_level=2)
    assert columns(community) == {
        "Wealth": (32, -3, 0, 0, 0),  # -9 + 6; the crisis is reversed
        "Diplomacy": (30, -3, 0, 3, 0),
        "Magic": (17, 6, 6, 0, 0),
        "Morale": (21, 0, 0, 0, 0),
        "Military": (13, 3, 0, 3, 0),
    }
    end(2)
    assert ratings(community) == {
        "Wealth": 31,
        "Diplomacy": 29,
        "Magic": 19,
        "Morale": 21,
        "Military": 13,
    }

    # ---- Season 3: average 113 / 5 = 22.6, rounded to 23 (3W).
    services.community_background_events(
        community=community,
        actor=gm,
        # Wealth success vs fumble: major V +6; Diplomacy both fail, 12 beats 4:
        # marginal V 0; Magic tie 0; Morale fail vs crit: major D -6; Military fumble
        # vs a failure bumped to success: major D -6.
        roller=fixed_rolls(3, 20, 12, 4, 19, 19, 2, 1, 20, 10),
    )
    session(1, 20, 1, 20)  # Morale's and Military's crisis tests: both won, no crisis
    draw = start_draw(community, gm, tamsin, ashfen_born, purpose="ransom the ferrymen")
    settled = services.community_draw_settle(draw=draw, actor=gm, outcome_level=-4)
    assert settled.social_penalty == -9
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=r("Morale"), states=["injured", "hurt"]
    )
    assert columns(community) == {
        "Wealth": (31, -3, 0, 6, 0),
        "Diplomacy": (29, 0, 0, 0, 0),
        "Magic": (19, 0, 0, 0, 0),
        "Morale": (21, -9, 0, 0, 0),
        "Military": (13, -6, 0, 0, 0),
    }
    end(3)
    # Morale's -9 would cost 3 points; the most an interval can take is 2.
    assert ratings(community) == {
        "Wealth": 30,
        "Diplomacy": 29,
        "Magic": 19,
        "Morale": 19,
        "Military": 11,
    }
    assert community.interval_number == 4

    # ---- The history: each interval's table as it ended, and its steps.
    records = list(IntervalRecord.objects.filter(community=community))
    assert [record.number for record in records] == [1, 2, 3]
    as_ended = {
        record.number: {
            row["name"]: (row["rating"], row["total"], row["pc"]) for row in record.rows
        }
        for record in records
    }
    assert as_ended[1]["Morale"] == (18, 9, 9)
    assert as_ended[2]["Magic"] == (17, 6, 6)
    assert as_ended[3]["Morale"] == (21, -9, 0)
    assert as_ended[3]["Wealth"][0] == 31
    kinds = {
        number: list(
            CommunityStep.objects.filter(community=community, interval=number)
            .order_by("id")
            .values_list("kind", flat=True)
        )
        for number in (1, 2, 3)
    }
    assert kinds[1] == [
        StepKind.SETUP,
        StepKind.BACKGROUND,
        StepKind.CRISIS,  # run by the session's start (§8.2.5)
        StepKind.LOBBYING,
        StepKind.DEPLETION,
        StepKind.BOLSTER,
        StepKind.CEMENT,
        StepKind.PENALTY,
        StepKind.INTERVAL_END,
    ]
    assert kinds[2] == [
        StepKind.BACKGROUND,
        StepKind.CRISIS,
        StepKind.CRISIS_NOTE,
        StepKind.PLOT,
        StepKind.WITHDRAWAL,
        StepKind.CEMENT,
        StepKind.BOLSTER,
        StepKind.INTERVAL_END,
    ]
    end_of_3 = CommunityStep.objects.get(
        community=community, kind=StepKind.INTERVAL_END, interval=3
    )
    assert {
        (c.resource.name, c.before, c.after) for c in end_of_3.changes.filter(column="rating")
    } == {
        ("Wealth", 31, 30),
        ("Morale", 21, 19),
        ("Military", 13, 11),
    }


def test_ending_an_interval_twice_changes_nothing(community, gm):
    services.community_bolster(
        community=community, actor=gm, resource=resource(community, "Wealth"), outcome_level=4
    )
    assert services.community_interval_end(community=community, actor=gm, interval=1)
    after = columns(community)
    steps = CommunityStep.objects.count()
    assert services.community_interval_end(community=community, actor=gm, interval=1) is None
    assert columns(community) == after == {**after, "Wealth": (35, 0, 0, 0, 0)}
    assert CommunityStep.objects.count() == steps
    assert IntervalRecord.objects.filter(community=community).count() == 1
    community.refresh_from_db()
    assert community.interval_number == 2


def test_an_interval_ends_only_when_it_is_the_current_one(community, gm):
    with pytest.raises(ValidationError, match="current one"):
        services.community_interval_end(community=community, actor=gm, interval=2)
    community.refresh_from_db()
    assert community.interval_number == 1
    assert not IntervalRecord.objects.exists()


def test_an_approved_draw_lapses_with_its_interval(community, gm, tamsin, ashfen_born, session):
    draw = start_draw(community, gm, tamsin, ashfen_born, purpose="a new barge")
    services.community_interval_end(community=community, actor=gm, interval=1)
    with pytest.raises(ValidationError, match="lapsed"):
        services.community_draw_settle(draw=draw, actor=gm, outcome_level=2)
    assert columns(community)["Wealth"] == (32, 0, 0, 0, 0)
