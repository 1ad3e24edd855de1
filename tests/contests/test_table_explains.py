"""The table explains itself (issue 15): each settled roll in one line of words, each
augment and modifier by where it comes from, the standing (RP or AP) and whose exchange
it is at the head of the contest, and a sidekick's abilities usable as one's own.

Contests are played through the services (as the table does) or by posting the forms the
table renders; what is checked is what each audience's copy of the page says.
"""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from characters import services as character_services
from contests.live import render_contest
from tests.table import ability

HEADER = re.compile(r"<header>(.*?)</header>", re.S)


def text(fragment: str) -> str:
    """What a person reads: tags gone, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def page(contest, audience: str = "player") -> str:
    contest.refresh_from_db()
    return text(render_contest(contest, audience))


def header(contest, audience: str = "player") -> str:
    contest.refresh_from_db()
    return text(HEADER.search(render_contest(contest, audience)).group(1))


def choose(table, contest, user, character, name="Boatcraft"):
    table.act(contest, user, "choose_ability", side="pc", ability_id=ability(character, name).pk)


def augment(table, contest, user, helper, name, kind="rolled", rolls=()):
    """`user` helps Tamsin's side with `helper`'s ability `name` (§2.4)."""
    table.act(
        contest,
        user,
        "augment",
        side="pc",
        kind=kind,
        helper_ability_id=ability(helper, name).pk,
        rolls=rolls,
    )


def test_a_simple_contests_outcome_is_one_line(table, session, gm, alice, tamsin):
    # Boatcraft 17 against a moderate resistance 14: 4 is a success, 16 a failure.
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    table.act(contest, gm, "roll", rolls=(4, 16))
    table.act(contest, gm, "resolve")
    line = "Tamsin's success beats The Grey River's failure: minor victory for Tamsin."
    for audience in ("gm", "player", "spectator"):
        assert line in page(contest, audience)
    # The roll log says it in the same words.
    assert contest.events.order_by("-seq").first().payload["summary"] == line[:-1]


def test_equal_results_say_the_better_roll_decided(table, session, gm, alice, tamsin):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    table.act(contest, gm, "roll", rolls=(9, 13))  # two successes: the higher roll wins
    table.act(contest, gm, "resolve")
    assert (
        "Tamsin's success loses to The Grey River's success (the higher roll wins): "
        "marginal defeat for Tamsin." in page(contest)
    )


def test_a_hidden_gm_roll_is_explained_only_once_revealed(table, session, gm, alice, tamsin):
    campaign = table.campaign
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    table.act(contest, gm, "roll", rolls=(4, 16))
    assert "failure" not in page(contest, "player")  # the river's result is the GM's
    table.act(contest, gm, "resolve")
    assert "beats The Grey River's failure" in page(contest, "player")


def test_a_scored_contest_shows_rp_from_the_start_and_explains_each_round(
    table, session, gm, alice, tamsin
):
    contest = table.frame(
        "scored", pc=tamsin, prize="hold the bridge", opponent={"name": "Raiders", "rating": "14"}
    )
    # Before any roll both sides stand at 0 RP, at the head of the contest.
    assert "Tamsin 0 RP" in header(contest) and "Raiders 0 RP" in header(contest)
    choose(table, contest, alice, tamsin)
    table.act(contest, gm, "roll", rolls=(4, 16))
    table.act(contest, gm, "resolve")
    # §5.1.1: a minor victory scores 2 RP.
    assert "Tamsin 2 RP" in header(contest) and "Raiders 0 RP" in header(contest)
    assert (
        "Last: Round 1: Tamsin's success beats Raiders' failure: minor victory for Tamsin, "
        "2 RP to Tamsin." in header(contest, "spectator")
    )


def test_an_extended_contest_heads_with_ap_whose_exchange_and_the_bid(
    table, session, gm, alice, tamsin
):
    contest = table.frame(
        "extended", pc=tamsin, prize="outrun them", opponent={"name": "Raiders", "rating": "14"}
    )
    assert "AP" not in header(contest)  # Tamsin's starting AP wait for her ability
    choose(table, contest, alice, tamsin)
    # §5.3.1: each side starts with AP equal to its TN.
    assert "Tamsin 17 AP" in header(contest) and "Raiders 14 AP" in header(contest)
    assert "Tamsin's exchange" in header(contest, "gm")
    table.act(contest, alice, "bid", bid=5)
    assert "Tamsin's exchange · bid 5 AP" in header(contest, "spectator")
    table.act(contest, gm, "roll", rolls=(4, 16))  # success against failure
    table.act(contest, gm, "resolve")
    head = header(contest)
    assert "Raiders' exchange" in head and "· bid" not in head
    assert (
        "Round 1: Tamsin's exchange (bid 5 AP): Tamsin's success against Raiders' failure" in head
    )
    # The defender lost the bid (success against failure: 1x bid).
    assert "Raiders 9 AP" in head and "Raiders loses 5 AP" in head


def test_augments_and_modifiers_say_where_they_come_from(table, session, gm, alice, tamsin):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    # Sharp eyes 15 rolls 4 against a moderate resistance's 16: a minor victory, +6.
    augment(table, contest, alice, tamsin, "Sharp eyes", rolls=(4, 16))
    shown = page(contest)
    assert (
        "Tamsin's Sharp eyes, a rolled augment: +6 (rolled 4 on 15 against 16 on moderate "
        "resistance 14: minor victory)" in shown
    )
    assert "17 +6 (rolled augment: Tamsin's Sharp eyes) = 3M" in shown
    table.act(contest, gm, "modifier", side="pc", label="high ground", value=3, kind="situational")
    assert "17 +3 (high ground) +6 (rolled augment: Tamsin's Sharp eyes) = 6M" in page(contest)


def test_a_failed_augment_says_it_gave_nothing(table, session, gm, alice, tamsin):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    augment(table, contest, alice, tamsin, "Sharp eyes", rolls=(18, 4))
    assert "+0 (rolled 18 on 15 against 4 on moderate resistance 14" in page(contest)
    assert "so no bonus)" in page(contest)


@pytest.fixture
def rex(tamsin, alice):
    """Tamsin's sidekick Rex (§6.5.1): Tracking 18 among his three abilities."""
    character_services.character_sidekick_set(
        character=tamsin,
        actor=alice,
        name="Rex",
        abilities=[
            ("Loyal Dog", 26, "keyword"),
            ("Tracking", 18, "standalone"),
            ("Fierce", 13, "standalone"),
        ],
    )
    return tamsin.followers.get(name="Rex")


def fields_of(form: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))


def test_a_player_uses_a_sidekicks_ability_from_the_sheet_at_the_table(
    client, table, session, gm, alice, tamsin, rex
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    client.force_login(alice)
    # The picks beside her sheet come with her copy of the panel.
    me = render_contest(contest, "player", reader=alice.pk)
    me = me[me.index('<div id="my-picks"') :]
    forms = re.findall(r"<form .*?</form>", me, re.S)
    tracking = next(f for f in forms if "Use Tracking (Rex, sidekick) 18" in f)
    fields = {**fields_of(tracking), "key": "sidekick-pick"}
    response = client.post(
        reverse("table_act", args=[table.campaign.pk]), fields, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    contest.refresh_from_db()
    assert (contest.state["sides"]["pc"]["ability"], contest.state["sides"]["pc"]["rating"]) == (
        "Tracking",
        18,
    )
    # The panel's own pick list offers Rex's abilities too, named as his.
    table.act(contest, gm, "undo")
    assert "Tracking (Rex, sidekick) 18" in render_contest(contest, "player", reader=alice.pk)


def test_a_sidekicks_ability_augments_and_a_lost_sidekicks_is_not_offered(
    table, session, gm, alice, tamsin, rex
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    choose(table, contest, alice, tamsin)
    assert "Tracking (Rex, sidekick) 18" in render_contest(contest, "player", reader=alice.pk)
    augment(table, contest, alice, tamsin, "Tracking", kind="quick")
    assert "Tamsin's Tracking, a quick augment from its rating 18: +3" in page(contest)
    # The fixture's sheet was written directly, not through the wizard: put it in play.
    type(tamsin).objects.filter(pk=tamsin.pk).update(creation_complete=True)
    tamsin.refresh_from_db()
    character_services.character_sidekick_lose(
        character=tamsin, actor=alice, follower=rex, reason="killed by the raiders"
    )
    later = table.frame(pc=tamsin, opponent={"name": "A cliff", "level": "moderate"})
    assert "Rex" not in render_contest(later, "player", reader=alice.pk)


def test_live_changes_are_announced_to_screen_readers(client, table, session, gm, alice, tamsin):
    """The bar is assertive (your move), the roll log and the chat polite (issue 15)."""
    table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    client.force_login(alice)
    page = client.get(reverse("table", args=[table.campaign.pk])).content.decode()
    assert re.search(r'class="move-bar" aria-live="assertive"', page)
    assert re.search(r'<ol id="roll-log"[^>]*aria-live="polite"', page)
    assert re.search(r'<ol id="chat-log"[^>]*aria-live="polite"', page)
