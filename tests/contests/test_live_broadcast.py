"""What one action costs and sends: the broadcast carries the panel and the new log
entry (the log whole only for a new contest), and an action stays within its queries."""

from __future__ import annotations

import contextlib
import re

import pytest
from django.urls import reverse

from contests import live
from contests.models import ContestEvent
from contests.table_actions import perform
from tests.table import post_the_benchmarks_cycle, split_writes

from .conftest import ability, key

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """The messages the table would have received, in order: each one's copies whole
    (`html`, by copy) and as the message carried them (`packed`)."""
    messages: list[dict] = []

    def keep(_id, message):
        messages.append(
            {**message, "html": live.unpack(message["html"]), "packed": message["html"]}
        )

    monkeypatch.setattr(live.rendering, "send_to_table_sync", keep)
    return messages


def frame(table, tamsin):
    return table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})


def test_framing_sends_the_log_whole_and_each_action_only_its_entry(
    table, session, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    framed = sent[-1]
    assert framed["seq"] == 1
    # The GM's, the public copy and Alice's own, who has forms (her pick list).
    assert set(framed["html"]) == {"gm", "public", f"player:{alice.pk}"}
    for html in framed["html"].values():
        assert 'id="roll-log"' in html
        assert "afterbegin:#roll-log" not in html

    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    chosen = sent[-1]
    assert chosen["seq"] == 2
    for html in chosen["html"].values():
        assert 'data-seq="2"' in html  # the panel, with the step the page is at
        assert 'id="roll-log"' not in html
        assert html.count('hx-swap-oob="afterbegin:#roll-log"') == 1
        assert '<li data-seq="2" data-type="choose_ability" data-sheets="kept">' in html
        assert "Tamsin uses Boatcraft (17)" in html


def test_each_entry_says_whether_a_sheet_may_have_changed(
    table, session, gm, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    """The pages reload a player's sheet after a step that may have changed it and after
    no other (static/js/table.js): the new entry says which, from the action's
    declaration. A tactic, a roll and a pick change no sheet (the picks the table asks
    for come with the panel); a hero point (spent from it) does."""
    contest = frame(table, tamsin)
    steps = [
        (gm, "set_tactic", {"side": "pc", "tactic": "Pole along the shallows"}, "kept"),
        (
            alice,
            "choose_ability",
            {"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk},
            "kept",
        ),
        (gm, "roll", {}, "kept"),
        (alice, "hero_point", {"side": "pc"}, "may-change"),
    ]
    for user, action, data, sheets in steps:
        with django_capture_on_commit_callbacks(execute=True):
            table.act(contest, user, action, rolls=(15, 12), **data)
        entries = {
            copy: html.split("afterbegin:#roll-log", 1)[1]
            for copy, html in sent[-1]["html"].items()
        }
        for entry in entries.values():
            assert f'data-type="{action}" data-sheets="{sheets}"' in entry, action


CARD = re.compile(r'<article class="my-card" id="my-card-(\d+)"[^>]*>.*?</article>', re.S)
SHEET_AT = re.compile(r'<span hidden id="my-sheet-at" data-sheet-at="([^"]*)"')


def test_a_step_that_changes_a_sheet_brings_its_players_cards(
    client,
    table,
    session,
    gm,
    alice,
    bob,
    tamsin,
    brannoc,
    sent,
    django_capture_on_commit_callbacks,
):
    """The steps that may change a sheet bring, with the copy of each player in the
    contest, the cards of their characters in it as their page shows them after a
    reload (GET table/me), with the step they were drawn at: their page reloads
    nothing (static/js/table.js). Nobody else's copy carries them, and a step that
    changes no sheet carries none. Here Alice spends Tamsin's hero point, then loses
    and the GM confirms the consequences: a state on her card."""
    me = reverse("table_me", args=[table.campaign.pk])
    client.force_login(alice)

    def fresh_card() -> str:
        (card,) = [
            m[0] for m in CARD.finditer(client.get(me).content.decode()) if m[1] == str(tamsin.pk)
        ]
        return card

    before = fresh_card()
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    steps = [
        (alice, "choose_ability", {"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk}),
        (gm, "roll", {}),
        (alice, "hero_point", {"side": "pc"}),
        (gm, "resolve", {}),
        (gm, "apply_consequences", {}),
    ]
    carried: dict[str, str] = {}
    for user, action, data in steps:
        with django_capture_on_commit_callbacks(execute=True):
            contest = table.act(contest, user, action, rolls=(20, 1), **data)
        copies = sent[-1]["html"]
        others = {k: html for k, html in copies.items() if k != f"player:{alice.pk}"}
        for html in others.values():
            assert "my-card" not in html and "my-sheet-at" not in html, action
        mine = copies.get(f"player:{alice.pk}", "")
        if action in ("choose_ability", "roll", "resolve"):
            assert "my-card" not in mine and "my-sheet-at" not in mine, action
            continue
        assert SHEET_AT.findall(mine) == [f"{contest.pk}:{contest.seq}"], action
        (card,) = [m[0] for m in CARD.finditer(mine)]
        assert card.count('hx-swap-oob="true"') == 1
        carried[action] = card.replace(' hx-swap-oob="true"', "", 1)
        assert carried[action] == fresh_card(), action
    points = re.compile(r'class="hero-points">(\d+)<')
    assert int(points.findall(carried["hero_point"])[0]) == int(points.findall(before)[0]) - 1
    assert "No conditions." in carried["hero_point"]
    assert "No conditions." not in carried["apply_consequences"]


PICKS = re.compile(r'<div id="my-picks"[^>]*hx-swap-oob="true">(.*?)</div>', re.S)


def test_the_picks_the_table_waits_on_come_with_each_players_copy(
    table, session, gm, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    """The abilities the table waits on a player to pick, one click each beside their
    sheet, come with their own copy of the panel: the public copy clears them, the GM's
    has none. So a framing and a pick reload no sheet."""
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    copies = sent[-1]["html"]
    (alices,) = PICKS.findall(copies[f"player:{alice.pk}"])
    assert "pick the ability Tamsin uses" in alices
    assert "Use Boatcraft 17" in alices and "Use Sharp eyes 15" in alices
    assert PICKS.findall(copies["public"]) == [""]
    assert "my-picks" not in copies["gm"]
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    copies = sent[-1]["html"]
    mine = copies.get(f"player:{alice.pk}", copies["public"])
    assert PICKS.findall(mine) == [""]  # her pick is made: the buttons go
    # The same on a reload of the panel (a reconnect, a refused action's answer).
    assert PICKS.findall(live.render_contest(contest, "player", reader=alice.pk)) == [""]


def test_an_ability_added_as_it_is_chosen_reloads_its_players_sheet(
    table, session, gm, alice, tamsin, sent, monkeypatch, django_capture_on_commit_callbacks
):
    """A pick changes no sheet, but one that adds the ability it names (§3.1) does:
    that player's pages are told to reload their sheet (`table.sheet`); a pick of an
    ability already on the sheet tells them nothing."""
    from contests import broadcast

    told: list[dict] = []
    monkeypatch.setattr(broadcast, "send_to_table_sync", lambda _id, message: told.append(message))
    contest = frame(table, tamsin)
    with django_capture_on_commit_callbacks(execute=True):
        table.act(contest, alice, "choose_ability", side="pc", new_ability="Swim", rating="14")
    assert tamsin.abilities.filter(name="Swim").exists()
    assert told == [{"type": "table.sheet", "user_id": alice.pk}]
    table.act(contest, gm, "undo")
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Swim").pk
        )
    assert told == [{"type": "table.sheet", "user_id": alice.pk}]  # nothing more


def test_a_hidden_gm_roll_is_only_in_the_gm_entry(
    campaign, table, session, gm, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    with django_capture_on_commit_callbacks(execute=True):
        table.act(contest, gm, "roll", rolls=(9, 13))
    rolled = sent[-1]["html"]
    gm_entry = rolled["gm"].split("afterbegin:#roll-log", 1)[1]
    assert "13" in gm_entry
    # Alice's own copy (her hero point) and the public one.
    assert set(rolled) == {"gm", "public", f"player:{alice.pk}"}
    for copy in ("public", f"player:{alice.pk}"):
        player_entry = rolled[copy].split("afterbegin:#roll-log", 1)[1]
        assert "13" not in player_entry and "9" in player_entry


def test_an_action_with_its_broadcast_stays_within_its_queries(
    table,
    session,
    gm,
    alice,
    tamsin,
    sent,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    contest = frame(table, tamsin)
    # The GM: the savepoint, the locked contest, the event (unless its idempotency key
    # was used: one statement), the contest, the release, then the broadcast's one read
    # of the abilities (the sheets and the helpers together).
    with django_assert_max_num_queries(6), django_capture_on_commit_callbacks(execute=True):
        table.send(contest, gm, "set_tactic", side="pc", tactic="Pole along the shallows")
    # A player: their membership and their characters come with the locked contest;
    # from the sheet the ability, its conditions and any community penalty on it
    # (§8.2); the participant record then follows the chosen ability, for the archive.
    boatcraft = ability(tamsin, "Boatcraft")
    with (
        django_assert_max_num_queries(10, info="a player's choice of ability"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table.send(contest, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    assert len(sent) == 2
    assert [e.type for e in contest.events.order_by("seq")] == [
        "framed",
        "set_tactic",
        "choose_ability",
    ]


def test_a_contest_of_another_campaign_is_refused_and_unchanged(
    table, session, gm, alice, tamsin, make_user
):
    from campaigns.models import Campaign

    contest = frame(table, tamsin)
    elsewhere = Campaign.objects.create(name="Elsewhere", gm=gm)
    reply = perform(
        campaign_id=elsewhere.pk,
        user=gm,
        message={
            "action": "set_tactic",
            "contest": contest.pk,
            "key": key(),
            "data": {"side": "pc", "tactic": "from the wrong table"},
        },
    )
    assert "no such contest at this table" in reply.error
    assert ContestEvent.objects.filter(contest=contest).count() == 1


def test_a_full_state_read_just_before_an_action_shows_its_log_up_to_its_own_step(
    campaign, table, session, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    """A (re)connecting page's full state reads the contest, then its log. An action
    committed between the two reads must not put its entry in that log: the page
    would then drop the action's broadcast as an entry it already has, and with it the
    step's panel, and stay a step behind everyone else (seen in three browsers)."""
    contest = frame(table, tamsin)
    read_first = live.current_contest(campaign.pk)  # the contest row, at step 1
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    full_state = live.render_contest(read_first, "player", reader=alice.pk)
    assert f'id="contest" data-contest-id="{contest.pk}" data-seq="1"' in full_state
    assert 'data-seq="1" data-type="framed"' in full_state
    assert 'data-seq="2"' not in full_state
    # The broadcast of step 2 then brings its panel and its entry together.
    broadcast = sent[-1]["html"]["public"]
    assert 'data-seq="2"' in broadcast and "afterbegin:#roll-log" in broadcast


def test_a_broadcast_carries_each_text_once_and_every_socket_its_whole_copy(
    table, session, gm, alice, bob, tamsin, brannoc, sent, django_capture_on_commit_callbacks
):
    """While abilities are chosen Alice (Tamsin's player) and Bob (Brannoc, a helper)
    each get a copy of their own: the panel they share travels once in the message, and
    each socket still gets its whole copy (the consumer's `copy_for`): the GM's, a
    player's own, the public one for a spectator or a player with no forms."""
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    message = sent[-1]
    copies, packed = message["html"], message["packed"]
    assert set(copies) == {"gm", "public", f"player:{alice.pk}", f"player:{bob.pk}"}
    assert live.copy_for(packed, "gm", gm.pk) == copies["gm"]
    assert live.copy_for(packed, "player", alice.pk) == copies[f"player:{alice.pk}"]
    assert live.copy_for(packed, "player", bob.pk) == copies[f"player:{bob.pk}"]
    assert "Augment as Brannoc" in copies[f"player:{bob.pk}"]
    assert "Augment as Brannoc" not in copies[f"player:{alice.pk}"] + copies["public"]
    for role, user in (("spectator", bob.pk), ("player", gm.pk + alice.pk + bob.pk)):
        assert live.copy_for(packed, role, user) == copies["public"]
    # Each text once: the panel the four copies share is not carried four times.
    assert len(set(packed["texts"])) == len(packed["texts"])
    assert sum(html.count('<p class="phase"') for html in copies.values()) == 4
    assert sum(text.count('<p class="phase"') for text in packed["texts"]) == 1
    carried = sum(len(text) for text in packed["texts"])
    assert carried < 0.6 * sum(len(html) for html in copies.values())


def test_a_sheet_s_names_are_escaped_in_the_table_s_pick_lists(
    campaign, table, session, alice, tamsin, sent, django_capture_on_commit_callbacks
):
    """The pick lists of abilities are built outside the template (issue 16): a name a
    player typed is still shown as text, never as markup, in every audience's copy."""
    from characters.models import Ability

    Ability.objects.create(character=tamsin, name='<img src=x onerror="alert(1)"> & Co', rating=14)
    with django_capture_on_commit_callbacks(execute=True):
        frame(table, tamsin)
    copies = sent[-1]["html"]
    for audience, html in copies.items():
        assert "<img" not in html, audience
    for audience in ("gm", f"player:{alice.pk}"):  # the public copy has no pick list
        assert (
            "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; Co 14</option>"
            in (copies[audience])
        )


def test_the_panel_names_who_plays_in_the_contest(
    table, session, alice, bob, tamsin, brannoc, sent, django_capture_on_commit_callbacks
):
    """Only their pages reload their own sheets after a step (static/js/table.js): Alice
    plays Tamsin in this contest; Bob, at the same table, does not."""
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    for message in sent:
        for html in message["html"].values():
            assert f'data-seq="{message["seq"]}" data-sheet-players="{alice.pk}"' in html


# The queries of each step of a simple contest with its broadcast, as the service runs
# them in a request (its `transaction.atomic` the outermost block: no statement of its
# own; the test's transaction makes it a savepoint pair, `SAVEPOINT_PAIR`). Issue 29
# holds every kind to 6 at most. The GM's plain steps are the locked contest (a
# player's membership and characters come in the same statement), the step's one write
# (its event, the contest's row and any participant record it changed, in one statement
# on PostgreSQL) and the panel's one read of the sheets. A pick reads the ability with
# its states and any community penalty, in one statement; a hero point reads and holds
# the character, and its hero points, ledger step and entry go out with the step's own
# write; the consequences read and hold the character (the states they stack on are
# read after the lock, in a statement of their own: the abilities with their states)
# and write the condition with its abilities (one statement: its id goes in the event,
# for the undo); an undo reads the events with each past actor's membership, in one.
STEP_QUERIES = (
    ("alice", "choose_ability", 4),
    ("gm", "modifier", 3),
    ("gm", "set_tactic", 3),
    ("alice", "set_tactic", 3),
    ("gm", "roll", 3),
    ("alice", "hero_point", 4),
    ("gm", "resolve", 3),
    ("gm", "apply_consequences", 6),
    ("gm", "narrate", 3),
    ("gm", "undo", 4),
)
SAVEPOINT_PAIR = 2
FRAME_QUERIES = 4


def test_each_step_of_a_contest_stays_within_its_queries(
    table,
    session,
    gm,
    alice,
    tamsin,
    sent,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    # The framing: the campaign locked with its open session, its latest contest's
    # number and any framing with this key; the PC's character; the contest with its
    # participant records and its first event (one statement); the panel's sheets.
    with (
        django_assert_max_num_queries(
            FRAME_QUERIES + SAVEPOINT_PAIR + split_writes("frame"), info="gm: frame"
        ),
        django_capture_on_commit_callbacks(execute=True),
    ):
        contest = frame(table, tamsin)
    data = {
        "choose_ability": {"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk},
        "modifier": {"side": "pc", "kind": "situational", "value": -5, "label": "fog"},
        "set_tactic": {"side": "pc", "tactic": "Pole along the shallows"},
        "hero_point": {"side": "pc"},
        "narrate": {"narration": "They crossed at dusk."},
    }
    people = {"gm": gm, "alice": alice}
    for who, action, most in STEP_QUERIES:
        rolls = (5, 16) if action == "roll" else ()
        with (
            django_assert_max_num_queries(
                most + SAVEPOINT_PAIR + split_writes(action), info=f"{who}: {action}"
            ),
            django_capture_on_commit_callbacks(execute=True),
        ):
            result = table.send(contest, people[who], action, rolls, **data.get(action, {}))
        assert result.created, action
    assert len(sent) == 1 + len(STEP_QUERIES)
    assert [e.type for e in contest.events.order_by("seq")][-1] == "undone"


# The benchmark's cycle (bench/http_cycle.py) as the browsers post it, each step with the
# most queries its request may make: the request's own two (the session, the user), then
# the action's, its broadcast's read of the sheets included (SAVEPOINT_PAIR and
# split_writes as above). A framing reads the campaign once, locked, with what the
# framing needs.
CYCLE_QUERIES = {
    "choose_ability": 6,
    "set_tactic": 5,
    "roll": 5,
    "resolve": 5,
    "apply_consequences": 5,
    "frame": 6,
}


def test_the_benchmarks_cycle_posted_as_browsers_do_stays_within_its_queries(
    client,
    table,
    campaign,
    session,
    gm,
    alice,
    tamsin,
    sent,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    contest = frame(table, tamsin)

    @contextlib.contextmanager
    def within_its_queries(action):
        most = CYCLE_QUERIES[action] + SAVEPOINT_PAIR + split_writes(action)
        with (
            django_assert_max_num_queries(most, info=action),
            django_capture_on_commit_callbacks(execute=True),
        ):
            yield

    # The benchmark's own forms, each posted by the person it names (here the users
    # stand where the benchmark has their browsers' connections).
    posted = post_the_benchmarks_cycle(
        client, contest, tamsin, gm, alice, cycles=2, around=within_its_queries
    )
    assert len(sent) == posted == 12


def test_a_sheet_changed_between_two_steps_is_what_the_next_step_offers(
    table, session, gm, alice, bob, tamsin, brannoc, sent, django_capture_on_commit_callbacks
):
    """The table's sheets and the pick lists made of them are remembered from one step
    to the next while they are the same (issue 29): a sheet Bob changes between two
    steps (an ability renamed and a new one) is what his augment form offers on the
    next step, and the sheets nobody changed read as before."""
    from characters.services.creation import character_ability_add, character_ability_update

    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    with django_capture_on_commit_callbacks(execute=True):
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
    before = sent[-1]["html"]
    assert "Temple singer 7M</option>" in before[f"player:{bob.pk}"]
    singer = ability(brannoc, "Temple singer")
    character_ability_update(character=brannoc, actor=bob, ability=singer, name="Choir leader")
    character_ability_add(character=brannoc, actor=bob, name="River songs", rating=14)
    with django_capture_on_commit_callbacks(execute=True):
        table.act(contest, gm, "set_tactic", side="pc", tactic="Pole along the shallows")
    after = sent[-1]["html"]
    bobs = after[f"player:{bob.pk}"]
    assert "Choir leader 7M</option>" in bobs and "River songs 14</option>" in bobs
    assert "Temple singer" not in bobs
    # Alice's pick list (Tamsin's sheet, unchanged) is the one the step before showed.
    alices = re.findall(r'<select name="ability_id">.*?</select>', after[f"player:{alice.pk}"])
    assert alices and alices == re.findall(
        r'<select name="ability_id">.*?</select>', before[f"player:{alice.pk}"]
    )


def test_a_form_shown_again_on_the_next_step_carries_that_steps_number(
    client,
    table,
    session,
    gm,
    alice,
    bob,
    tamsin,
    brannoc,
    sent,
    django_capture_on_commit_callbacks,
):
    """A form the panel shows on two steps is made once and shown again (issue 29):
    Bob's augment form on the next step is the same form with that step's number, so
    his press is taken at the step he saw (a changed form: the test above)."""
    with django_capture_on_commit_callbacks(execute=True):
        contest = frame(table, tamsin)
    seen = []
    for step in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            if step == 0:
                table.act(
                    contest,
                    alice,
                    "choose_ability",
                    side="pc",
                    ability_id=ability(tamsin, "Boatcraft").pk,
                )
            else:
                table.act(contest, gm, "set_tactic", side="pc", tactic="Pole along the shallows")
        bobs = sent[-1]["html"][f"player:{bob.pk}"]
        forms = re.findall(r"<form [^>]*augment-form.*?</form>", bobs, re.S)
        assert len(forms) == 1
        seen.append(forms[0])
    assert 'name="seq" value="2"' in seen[0] and 'name="seq" value="3"' in seen[1]
    assert seen[1] == seen[0].replace('name="seq" value="2"', 'name="seq" value="3"')
    # Pressed in Bob's browser as step 3 showed it, it is taken at that step.
    client.force_login(bob)
    url = re.search(r'hx-post="([^"]+)"', seen[1]).group(1)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', seen[1]))
    options = re.findall(r'<option value="(\d+)"', seen[1])
    answer = client.post(
        url,
        {**fields, "helper_ability_id": options[0], "kind": "quick", "key": key()},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    assert 'data-acked="4"' in answer.content.decode()
