"""Whose move it is (issue 15): every copy of the table names what is each person's to
do now, with its form in the "your move" bar, and whom the table waits on.

Played through the services, as the live table does; read from what each audience's
copy renders. A player's lines carry their user id (their browser shows only theirs).
"""

from __future__ import annotations

import html
import re

from contests.live import render_contest
from tests.table import ability

MOVE = re.compile(r'<p class="my-move[^"]*" data-my-move><strong>([^<]+)</strong> ([^<]+)</p>')
WAITING = re.compile(r'<p class="waiting" data-waiting>([^<]+)</p>')
BAR = re.compile(r'<div id="your-move"[^>]*>(.*?)\n  </div>', re.S)


def bar(contest, reader):
    """The bar of the GM's ("gm"), the spectators' ("spectator") or a player's (their
    user) own copy."""
    contest.refresh_from_db()
    if isinstance(reader, str):
        html_ = render_contest(contest, reader)
    else:
        html_ = render_contest(contest, "player", reader=reader.pk)
    return html.unescape(BAR.search(html_).group(1))


def moves(contest, reader):
    """("Your move:"/"Your choice:", what) in a reader's bar."""
    return [(head, text.strip()) for head, text in MOVE.findall(bar(contest, reader))]


def waiting(contest, reader):
    return WAITING.findall(bar(contest, reader))


def bar_actions(contest, reader):
    return re.findall(r'name="action" value="([^"]+)"', bar(contest, reader))


def test_a_simple_contest_waits_on_the_player_then_the_gm(table, session, gm, alice, bob, tamsin):
    contest = table.frame("simple", pc=tamsin)
    assert moves(contest, alice) == [("Your move:", "choose an ability for Tamsin")]
    assert bar_actions(contest, alice) == ["choose_ability"]
    # The GM could choose for her, but the move is hers: the GM's bar only waits.
    assert moves(contest, "gm") == []
    assert waiting(contest, "gm") == ["Waiting for Tamsin's player (choose an ability for Tamsin)."]
    # Everyone else sees whom the table waits on; Alice sees her move instead.
    for reader in ("spectator", bob):
        assert moves(contest, reader) == [] and bar_actions(contest, reader) == []
        assert waiting(contest, reader) == [
            "Waiting for Tamsin's player (choose an ability for Tamsin)."
        ]
    assert waiting(contest, alice) == []

    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    assert moves(contest, "gm") == [("Your move:", "roll")]
    assert moves(contest, alice) == []
    assert (
        waiting(contest, alice) == waiting(contest, "spectator") == ["Waiting for the GM (roll)."]
    )

    table.act(contest, gm, "roll", rolls=(9, 13))  # a success against a success: no critical
    assert moves(contest, "gm") == [("Your move:", "resolve")]
    assert moves(contest, alice) == [("Your choice:", "spend a hero point for Tamsin")]
    assert moves(contest, bob) == []
    assert waiting(contest, "spectator") == ["Waiting for the GM (resolve)."]

    table.act(contest, gm, "resolve")
    assert moves(contest, "gm") == [("Your move:", "confirm the consequences")]
    table.act(contest, gm, "apply_consequences")
    assert moves(contest, "gm") == moves(contest, alice) == []
    assert "Contest #1 is over" in bar(contest, alice)


def test_a_player_without_hero_points_is_offered_none(table, session, gm, alice, tamsin):
    tamsin.hero_points = 0
    tamsin.save(update_fields=["hero_points"])
    contest = table.frame("simple", pc=tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(9, 13))
    assert moves(contest, alice) == []
    assert "hero_point" not in render_contest(contest, "player", reader=alice.pk)


def test_an_extended_contest_waits_on_the_bid_of_the_side_whose_turn_it_is(
    table, session, gm, alice, bob, tamsin
):
    contest = table.frame(
        "extended",
        pc={"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
        opponent={"name": "Raiders", "rating": "14"},
    )
    assert moves(contest, alice) == [("Your move:", "bid for Tamsin")]
    assert moves(contest, bob) == []
    table.act(contest, alice, "bid", bid=3)
    assert moves(contest, "gm") == [("Your move:", "roll")]
    table.act(contest, gm, "roll", rolls=(9, 13))
    table.act(contest, gm, "resolve")
    # The Raiders' turn: the GM bids for them, and no player is asked to.
    contest.refresh_from_db()
    assert [m for m in moves(contest, alice) if m[0] == "Your move:"] == []
    assert ("Your move:", "bid for Raiders") in moves(contest, "gm")


def test_a_group_extended_contest_waits_on_each_declaration(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = table.frame(
        "group_extended",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "Chief", "rating": 15},
        ],
    )
    assert moves(contest, alice) == [("Your move:", "Tamsin declares")]
    assert moves(contest, bob) == [("Your move:", "Brannoc declares")]
    assert moves(contest, "gm") == [("Your move:", "Chief declares")]
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    # Declared, Alice may still change it, but the table no longer waits on her: she
    # sees the line for everyone whose move it is not.
    assert moves(contest, alice) == []
    assert waiting(contest, alice) == [
        "Waiting for the GM (Chief declares); Brannoc's player (Brannoc declares)."
    ]
    assert waiting(contest, bob) == ["Waiting for the GM (Chief declares)."]
    assert "Tamsin changes the declaration" in render_contest(contest, "player", reader=alice.pk)
    assert "Tamsin changes the declaration" not in render_contest(contest, "player", reader=bob.pk)


# -- a player's own characters at the table ------------------------------------------------


def test_a_player_sees_their_own_sheet_at_the_table_and_picks_an_ability_in_one_click(
    client, table, session, gm, alice, tamsin
):
    from django.urls import reverse

    from characters.models import Condition

    hurt = Condition.objects.create(character=tamsin, state="hurt", cause="a fall")
    hurt.abilities.add(ability(tamsin, "Boatcraft"))
    url = reverse("table_me", args=[table.campaign.pk])
    client.force_login(alice)
    page = html.unescape(client.get(url).content.decode())
    assert "Tamsin" in page and f">{tamsin.hero_points}</strong> hero points" in page
    assert "Hurt: -3" in page  # §2.11.1: what the condition does
    assert 'name="action" value="choose_ability"' not in page  # no contest waits on her

    contest = table.frame("simple", pc=tamsin)
    # The sheet is as it was: the pick the table waits on comes with her copy of the
    # panel, beside the sheet (#my-picks), so a framing reloads no sheet.
    assert 'class="pick"' not in client.get(url).content.decode()
    panel = render_contest(contest, "player", reader=alice.pk)
    picks = panel[panel.index('<div id="my-picks"') :]
    assert "pick the ability Tamsin uses" in html.unescape(picks)
    boatcraft = ability(tamsin, "Boatcraft")
    assert f'name="ability_id" value="{boatcraft.pk}"' in picks
    form = re.search(r'<form[^>]*class="pick".*?</form>', picks, re.S).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    fields["key"] = "one-click"
    answer = client.post(reverse("table_act", args=[table.campaign.pk]), fields)
    assert answer.status_code == 200
    contest.refresh_from_db()
    assert contest.state["sides"]["pc"]["ability"]
    panel = render_contest(contest, "player", reader=alice.pk)
    assert 'class="pick"' not in panel[panel.index('<div id="my-picks"') :]


def test_the_sheet_at_the_table_reads_a_fixed_number_of_queries(
    client, table, session, alice, tamsin, django_assert_max_num_queries
):
    """Every open player's page reloads its sheet after changes at the table (issue
    16): the session, the user, who may see it, the characters, their abilities, their
    conditions and the contest, however many of each there are."""
    from django.urls import reverse

    from characters.models import Ability, Character, Condition

    second = Character.objects.create(campaign=table.campaign, player=alice, name="Wren")
    for name in ("Boatcraft", "Swimming", "Knots"):
        Ability.objects.create(character=second, name=name, rating=14)
        Condition.objects.create(character=tamsin, state="hurt", cause=name)
    table.frame("simple", pc=tamsin)
    client.force_login(alice)
    url = reverse("table_me", args=[table.campaign.pk])
    with django_assert_max_num_queries(7):
        page = html.unescape(client.get(url).content.decode())
    assert "Wren" in page and "Knots" in page and page.count("Hurt: -3") == 3


def test_a_pick_beside_the_sheet_still_works_after_another_step(
    client, table, session, gm, alice, tamsin
):
    """A pick beside the sheet carries no step number: a click on it that crosses a step
    that changes no pick (a GM's modifier) still takes the pick."""
    from django.urls import reverse

    contest = table.frame("simple", pc=tamsin)
    client.force_login(alice)
    page = render_contest(contest, "player", reader=alice.pk)
    page = page[page.index('<div id="my-picks"') :]
    table.act(contest, gm, "modifier", side="pc", value=-3, label="Rain")
    form = re.search(r'<form[^>]*class="pick".*?</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    fields["key"] = "after-a-modifier"
    answer = client.post(reverse("table_act", args=[table.campaign.pk]), fields)
    assert "moved on" not in answer.content.decode()
    contest.refresh_from_db()
    assert contest.state["sides"]["pc"]["ability"]


def test_the_sheet_at_the_table_is_the_viewers_own(client, table, session, gm, bob, sam, tamsin):
    from django.urls import reverse

    url = reverse("table_me", args=[table.campaign.pk])
    client.force_login(bob)
    assert "Tamsin" not in client.get(url).content.decode()
    client.force_login(sam)  # a spectator has no character here
    assert "You have no character in this campaign." in client.get(url).content.decode()


def test_the_sheet_at_the_table_refuses_outsiders_and_anything_but_a_read(
    client, table, session, charlie, alice
):
    from django.urls import reverse

    url = reverse("table_me", args=[table.campaign.pk])
    client.force_login(charlie)  # not a member: the campaign is not even named
    assert client.get(url).status_code == 404
    client.force_login(alice)
    assert client.post(url, {"ability_id": "1"}).status_code == 405  # it only reads
    assert client.get(f"/campaigns/{table.campaign.pk + 999}/table/me/").status_code == 404
