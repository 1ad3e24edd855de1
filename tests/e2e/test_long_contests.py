"""Long contests and the GM's undo at the live table, in several browsers (issue 6).

An extended contest is played with bids until one side is out of AP, a chained contest
until a side is dying, and the GM undoes a hero point and then a roll: every open page
(GM, players, spectator) shows the same state at each step. Players enter the d20s they
rolled (the campaign allows physical dice), so what happens is known in advance; where
the server rolls for the GM's resistance, the test reads that roll off the page.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import choose_ability, enter_roll, frame_contest, side
from .test_live_contest import same_everywhere, wait_seq

TAMSIN = "Tamsin Reedwalker (Alice)"
EXTENDED, CHAINED, UNDO = "Reed-wolves", "The broken lyre", "The flooded ford"
DUEL = "The ferry fare"
WOUND = "The bridge toll"
# §2.11.2 Benefits of Victory, by degree.
BENEFIT = {"marginal": "fresh", "minor": "pumped", "major": "invigorated", "complete": "heroic"}


@pytest.fixture(scope="module")
def campaigns(table_server):
    return table_server.new_campaigns(EXTENDED, CHAINED, UNDO, WOUND, DUEL)


def totals(page) -> dict[str, str]:
    rows = page.locator("#contest .totals .total-row").all()
    return {
        row.locator(".total-name").inner_text(): row.locator(".total").inner_text() for row in rows
    }


def click(page, name: str) -> None:
    page.locator("#contest, #your-move").get_by_role("button", name=name, exact=True).click()


def defeat_degree(ap: int) -> str:
    """§5.3.2.4: the loser's final AP gives the degree."""
    return (
        "marginal" if ap >= -10 else "minor" if ap >= -20 else "major" if ap >= -30 else "complete"
    )


def test_an_extended_contest_is_played_with_bids_until_one_side_is_out(people, campaigns):
    campaign = campaigns[EXTENDED]
    gm, alice, bob = (people.at_table(u, campaign) for u in ("gm", "alice", "bob"))
    pages = [gm, alice, bob]

    frame_contest(
        gm, "Extended contest", "Outrun the pack", TAMSIN, name="Reed-wolves", level="High"
    )
    wait_seq(pages, 1)
    for page in pages:
        expect(page.locator("#contest h3")).to_have_text("#1 Extended contest: Outrun the pack")
    choose_ability(alice, "pc", "River Guide 3M")
    seq = 2
    wait_seq(pages, seq)
    assert same_everywhere(pages, "#contest .side[data-side=opponent] .tn") == "20"

    # Starting AP are the TNs (§5.3.1): 3M is 23, a high resistance 20. Alice's 1 is a
    # critical, and her mastery lowers the wolves' result a step: she wins every
    # exchange, her own (with her bid) and theirs (they bid 3 or what they have left),
    # and a critical takes the loser's AP (one bid a step between the results).
    ap = {"Tamsin Reedwalker": 23, "Reed-wolves": 20}
    for exchange, bid in enumerate((5, None, 7, None, 9, None), 1):
        if bid:  # the PC's turn: Alice bids
            # The table waits on her bid: it is in her "your move" bar.
            alice.locator("#your-move").get_by_label(re.compile(r"^Bid")).fill(str(bid))
            click(alice, "Bid")
            seq += 1
            wait_seq(pages, seq)
            expect(bob.locator("#roll-log li").first).to_contain_text(
                f"Tamsin Reedwalker bids {bid} AP"
            )
        else:
            bid = min(3, ap["Reed-wolves"])
        enter_roll(alice, "pc", 1)
        wait_seq(pages, seq + 1)
        click(gm, "Roll")
        seq += 2
        wait_seq(pages, seq)
        assert "Tamsin Reedwalker rolled 1 (critical)" in same_everywhere(
            pages, "#contest .pending"
        )
        wolves_roll = int(gm.locator("#contest .pending .roll[data-side=opponent]").inner_text())
        steps = 1 if wolves_roll == 1 else 3 if wolves_roll == 20 else 2
        click(gm, "Resolve the round")
        seq += 1
        wait_seq(pages, seq)
        ap["Tamsin Reedwalker"] += bid * steps
        ap["Reed-wolves"] -= bid * steps
        same_everywhere(pages, "#contest .totals")
        assert totals(bob) == {name: str(value) for name, value in ap.items()}, exchange
        if ap["Reed-wolves"] <= 0:
            break
    else:
        pytest.fail(f"the wolves still have AP after six exchanges: {ap}")

    degree = defeat_degree(ap["Reed-wolves"])
    result = same_everywhere(pages, "#contest .outcome .result")
    assert result == f"Tamsin Reedwalker wins: {degree} victory"
    expect(gm.locator("#contest .outcome")).to_contain_text(
        f"Suggested: {BENEFIT[degree]} for Tamsin Reedwalker"
    )
    gm.locator("form", has=gm.get_by_role("button", name="Confirm the consequences")).get_by_label(
        "Narration"
    ).fill("The pack slinks back into the reeds.")
    click(gm, "Confirm the consequences")
    wait_seq(pages, seq + 1)
    for page in pages:
        expect(page.locator("#contest .phase")).to_have_text("Finished")
        outcome = page.locator("#contest .outcome")
        expect(outcome).to_contain_text(f"Applied: {BENEFIT[degree]} (River Guide)")
        expect(outcome).to_contain_text("The pack slinks back into the reeds.")


def test_a_chained_contest_between_two_characters_is_fought_to_a_dying_wound(people, campaigns):
    campaign = campaigns[CHAINED]
    gm, alice, bob = (people.at_table(u, campaign) for u in ("gm", "alice", "bob"))
    pages = [gm, alice, bob]

    frame_contest(
        gm, "Chained contest", "Who pays for the lyre", TAMSIN, against="Brannoc Ironmouth"
    )
    wait_seq(pages, 1)
    choose_ability(alice, "pc", "Knife Fighting 14")
    wait_seq(pages, 2)
    choose_ability(bob, "opponent", "Hard to Frighten 15")
    seq = 3
    wait_seq(pages, seq)

    # Both players enter their dice (§5.4): 16 fails at 14 against a success, so Tamsin
    # is hurt (TN 11 from then on); a success against a failure hurts Brannoc; a
    # critical against a fumble leaves the hurt Brannoc dying, which ends the contest.
    rounds = [
        (16, 5, {"Tamsin Reedwalker": "hurt", "Brannoc Ironmouth": "unharmed"}),
        (3, 18, {"Tamsin Reedwalker": "hurt", "Brannoc Ironmouth": "hurt"}),
        (1, 20, {"Tamsin Reedwalker": "hurt", "Brannoc Ironmouth": "dying"}),
    ]
    for tamsin_roll, brannoc_roll, wounds in rounds:
        enter_roll(alice, "pc", tamsin_roll)
        wait_seq(pages, seq + 1)
        enter_roll(bob, "opponent", brannoc_roll)
        wait_seq(pages, seq + 2)
        click(gm, "Roll")
        wait_seq(pages, seq + 3)
        pending = same_everywhere(pages, "#contest .pending")
        assert f"rolled {tamsin_roll}" in pending and f"rolled {brannoc_roll}" in pending
        click(gm, "Resolve the round")
        seq += 4
        wait_seq(pages, seq)
        same_everywhere(pages, "#contest .totals")
        assert totals(alice) == wounds

    assert same_everywhere(pages, "#contest .outcome .result") == (
        "Tamsin Reedwalker wins: complete victory"
    )
    # The wounds of the rounds stand, and the winner gains the benefit of a complete
    # victory (R18.6): they are what the GM is offered to confirm.
    expect(gm.locator("#contest .outcome")).to_contain_text(
        "Suggested: hurt for Tamsin Reedwalker; heroic for Tamsin Reedwalker; "
        "dying for Brannoc Ironmouth"
    )
    gm.locator("form", has=gm.get_by_role("button", name="Confirm the consequences")).get_by_label(
        "Narration"
    ).fill("Brannoc will not sing for a while.")
    click(gm, "Confirm the consequences")
    wait_seq(pages, seq + 1)
    for page in pages:
        expect(page.locator("#contest .outcome")).to_contain_text(
            "Applied: hurt (Knife Fighting); heroic (Knife Fighting); dying (Hard to Frighten)"
        )


def test_the_gm_undoes_the_latest_action_on_every_open_page(people, table_server, campaigns):
    campaign = campaigns[UNDO]
    gm, alice, sam = (people.at_table(u, campaign) for u in ("gm", "alice", "sam"))
    pages = [gm, alice, sam]
    sheet = people.log_in("alice")  # her sheet, in a window of its own
    sheet.goto(f"{table_server.base}/campaigns/{campaign}/")
    sheet.get_by_role("link", name="Tamsin Reedwalker").click()
    hero_points = int(sheet.locator("#hero-points").inner_text())

    frame_contest(
        gm,
        "Simple contest",
        "Cross the flooded ford",
        TAMSIN,
        name="The Grey River",
        level="Moderate",
    )
    wait_seq(pages, 1)
    choose_ability(alice, "pc", "River Guide 3M")
    wait_seq(pages, 2)
    enter_roll(alice, "pc", 15)
    wait_seq(pages, 3)
    click(gm, "Roll")
    wait_seq(pages, 4)
    rolled = same_everywhere(pages, "#contest .pending")
    assert "Tamsin Reedwalker rolled 15" in rolled and "hero point" not in rolled
    spend = alice.locator("#contest, #your-move").get_by_role(
        "button", name=re.compile(r"^Spend a hero point")
    )
    spend.click()
    wait_seq(pages, 5)
    assert "+ hero point" in same_everywhere(pages, "#contest .pending")
    sheet.reload()
    expect(sheet.locator("#hero-points")).to_have_text(str(hero_points - 1))

    # The undo is an event of its own: every page moves on to it and shows the roll
    # as it was before the hero point, which is back on the sheet and on offer again.
    click(gm, "Undo the last action")
    wait_seq(pages, 6)
    assert same_everywhere(pages, "#contest .pending") == rolled
    for page in pages:
        expect(page.locator("#roll-log li").first).to_contain_text(
            "The GM undid: Tamsin Reedwalker spends a hero point"
        )
    expect(spend).to_be_visible()
    sheet.reload()
    expect(sheet.locator("#hero-points")).to_have_text(str(hero_points))

    # Undo again: the roll goes; Alice's entered die is still waiting for the next one.
    click(gm, "Undo the last action")
    wait_seq(pages, 7)
    for page in pages:
        expect(page.locator("#contest .pending")).to_have_count(0)
        expect(page.locator("#contest .phase")).to_have_text("Choosing abilities and augments")
        expect(page.locator("#contest")).to_contain_text("Physical roll entered: 15")
    expect(
        gm.locator("#contest, #your-move").get_by_role("button", name="Roll", exact=True)
    ).to_be_visible()
    # A page loaded now shows the same as those that watched the undo happen.
    alice.reload()
    expect(alice.locator("#connection-status")).to_have_text("Connected")
    wait_seq([alice], 7)
    expect(alice.locator("#contest")).to_contain_text("Physical roll entered: 15")
    expect(alice.locator("#contest .pending")).to_have_count(0)


def tn(page, key: str) -> str:
    return page.locator(f'#contest .side[data-side="{key}"] .tn').inner_text()


def test_a_wound_lowers_the_tn_odds_and_labels_everywhere_and_undo_restores_them(people, campaigns):
    """Issue 13: a chained contest's wound takes effect at once (§5.4); every page shows
    the lowered TN, the odds from it and the labels of the next roll; undoing back past
    the wounding round restores what every page shows."""
    campaign = campaigns[WOUND]
    gm, alice, bob = (people.at_table(u, campaign) for u in ("gm", "alice", "bob"))
    pages = [gm, alice, bob]
    frame_contest(gm, "Chained contest", "Who pays the toll", TAMSIN, against="Brannoc Ironmouth")
    wait_seq(pages, 1)
    choose_ability(alice, "pc", "Knife Fighting 14")
    wait_seq(pages, 2)
    choose_ability(bob, "opponent", "Hard to Frighten 15")
    wait_seq(pages, 3)
    fresh_odds = same_everywhere(pages, "#contest .odds p")
    assert all(tn(page, "pc") == "14" for page in pages)

    # Round 1: 16 fails at 14 against a success: Tamsin is hurt, TN 11 from now on.
    enter_roll(alice, "pc", 16)
    wait_seq(pages, 4)
    enter_roll(bob, "opponent", 5)
    wait_seq(pages, 5)
    click(gm, "Roll")
    wait_seq(pages, 6)
    click(gm, "Resolve the round")
    wait_seq(pages, 7)
    for page in pages:
        expect(page.locator('#contest .side[data-side="pc"] .tn')).to_have_text("11")
        expect(page.locator('#contest .side[data-side="pc"]')).to_contain_text(
            "Hurt in this contest (§5.4)"
        )
    hurt_odds = same_everywhere(pages, "#contest .odds p")
    assert hurt_odds != fresh_odds

    # Round 2: a 12 would succeed at 14; at 11 it fails, and every page says so.
    enter_roll(alice, "pc", 12)
    wait_seq(pages, 8)
    enter_roll(bob, "opponent", 18)
    wait_seq(pages, 9)
    click(gm, "Roll")
    wait_seq(pages, 10)
    assert "Tamsin Reedwalker rolled 12 (failure)" in same_everywhere(pages, "#contest .pending")

    # Undo the roll, both entered dice and round 1's resolve: no wound any more.
    for n in range(4):
        click(gm, "Undo the last action")
        wait_seq(pages, 11 + n)
    for page in pages:
        expect(page.locator('#contest .side[data-side="pc"] .tn')).to_have_text("14")
        expect(page.locator("#contest .totals")).to_have_count(0)
    for page in pages:
        page.reload()
        expect(page.locator("#connection-status")).to_have_text("Connected")
        expect(page.locator('#contest .side[data-side="pc"] .tn')).to_have_text("14")


def test_two_players_fight_an_extended_duel_each_with_their_own_hero_point(people, campaigns):
    """R18.8 (§2.3.1.2): Tamsin against Brannoc in an extended contest. Each player acts
    for their own character only, and Bob spends Brannoc's hero point on his roll: every
    page shows it, and the exchange the engine plays counts it."""
    campaign = campaigns[DUEL]
    gm, alice, bob = (people.at_table(u, campaign) for u in ("gm", "alice", "bob"))
    pages = [gm, alice, bob]
    frame_contest(gm, "Extended contest", "The ferry fare", TAMSIN, against="Brannoc Ironmouth")
    wait_seq(pages, 1)
    choose_ability(alice, "pc", "Knife Fighting 14")
    wait_seq(pages, 2)
    choose_ability(bob, "opponent", "Hard to Frighten 15")
    wait_seq(pages, 3)
    # Only Bob has Brannoc's controls; Alice has Tamsin's.
    expect(
        side(alice, "opponent").get_by_role("button", name="Enter a physical roll")
    ).to_have_count(0)
    alice.locator("#your-move").get_by_label(re.compile(r"^Bid")).fill("4")
    click(alice, "Bid")
    wait_seq(pages, 4)
    # Tamsin's 5 succeeds at 14; Brannoc's 17 fails at 15.
    enter_roll(alice, "pc", 5)
    wait_seq(pages, 5)
    enter_roll(bob, "opponent", 17)
    wait_seq(pages, 6)
    click(gm, "Roll")
    wait_seq(pages, 7)
    assert "Brannoc Ironmouth rolled 17 (failure)" in same_everywhere(pages, "#contest .pending")
    spend = re.compile(r"^Spend a hero point")
    expect(alice.locator("#contest, #your-move").get_by_role("button", name=spend)).to_have_count(
        1
    )  # hers
    bob.locator("#contest, #your-move").get_by_role("button", name=spend).click()
    wait_seq(pages, 8)
    expect(gm.locator("#roll-log li").first).to_contain_text(
        "Brannoc Ironmouth spends a hero point"
    )
    # Success against success: the better roll (17, high) wins; Tamsin loses half her bid.
    click(gm, "Resolve the round")
    wait_seq(pages, 9)
    same_everywhere(pages, "#contest .totals")
    assert totals(bob) == {"Tamsin Reedwalker": "12", "Brannoc Ironmouth": "15"}
