"""Hero points, XP and improvement: both economies (§7, 1e §6, RULINGS.md R15)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.advancement import (
    Ability,
    AdvanceChoice,
    CatchUp,
    Change,
    Character,
    award_hero_points,
    buy_advance,
    catch_up_candidates,
    classic_new_ability,
    classic_raise,
    decline_catch_up,
    directed_improvement,
    directed_new_ability,
    end_session,
    new_character,
    sidekick_raise,
    sidekick_raise_cost,
    spend_hero_point,
    start_session,
    take_catch_up,
)
from contests.core.rules.errors import RulesError


def detective(economy="advances", **kwargs):
    """A small sheet: a keyword with a breakout, two standalone abilities."""
    abilities = (
        Ability("Detective", 17, kind="keyword"),
        Ability("Forensics", 2, kind="breakout", keyword="Detective"),
        Ability("Sword", 15),
        Ability("Grumpy", 13),
    )
    return Character(abilities, economy=economy, **kwargs)


# ------------------------------------------------------------------ the character


def test_a_breakout_rolls_its_keyword_plus_its_bonus_3_3():
    """§3.3: "Detective 17 Forensics +2": Forensics is rolled at 19."""
    assert detective().total("Forensics") == 19
    assert detective().total("detective") == 17


@pytest.mark.parametrize(
    ("abilities", "message"),
    [
        ((Ability("A", 13), Ability("a", 14)), "two abilities"),
        ((Ability("F", 1, kind="breakout", keyword="K"),), "not one of this character's keywords"),
    ],
)
def test_character_refuses_inconsistent_sheets(abilities, message):
    with pytest.raises(RulesError, match=message):
        Character(abilities)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "", "rating": 13}, "needs a name"),
        ({"name": "A", "rating": "13"}, "whole number"),
        ({"name": "A", "rating": 13, "kind": "skill"}, "kind must be"),
        ({"name": "A", "rating": 1, "kind": "breakout"}, "names its keyword"),
        ({"name": "A", "rating": 13, "keyword": "K"}, "only a breakout"),
    ],
)
def test_ability_validates(kwargs, message):
    with pytest.raises(RulesError, match=message):
        Ability(**kwargs)


def test_character_json_round_trip():
    hero = detective(hero_points=2, experience=7, catch_ups=(CatchUp("Sword", 21),))
    assert Character.from_json(hero.to_json()) == hero


def test_unknown_ability_names_the_choices():
    with pytest.raises(RulesError, match="no ability named 'Axe'.*Detective, Forensics"):
        detective().ability("Axe")


# ------------------------------------------------------------------ sessions


@pytest.mark.parametrize("economy", ["advances", "classic"])
def test_a_new_character_has_3_hero_points_r15(economy):
    assert new_character(economy=economy).hero_points == 3


@pytest.mark.parametrize(("economy", "gain"), [("advances", 1), ("classic", 3)])
def test_session_start_gives_hero_points_r15(economy, gain):
    """R15: 1 HP a session (§7.1), 3 HP in the classic economy (1e §6.1)."""
    hero, changes = start_session(detective(economy, hero_points=0))
    assert hero.hero_points == gain and hero.in_session
    assert changes == [Change("hero points", 0, gain, changes[0].reason)]


def test_unspent_hero_points_become_xp_in_the_advances_economy_7_1():
    hero, _ = start_session(detective(hero_points=2, experience=5))
    hero, changes = end_session(hero)
    assert (hero.hero_points, hero.experience, hero.experience_earned) == (0, 8, 3)
    assert [(c.what, c.before, c.after) for c in changes] == [
        ("hero points", 3, 0),
        ("XP", 5, 8),
    ]


def test_unspent_hero_points_are_lost_in_the_classic_economy_1e_6_1():
    hero, _ = start_session(detective("classic", hero_points=0))
    hero, changes = end_session(hero)
    assert (hero.hero_points, hero.experience) == (0, 0)
    assert [(c.what, c.before, c.after) for c in changes] == [("hero points", 3, 0)]


def test_sessions_must_alternate():
    with pytest.raises(RulesError, match="no session is running"):
        end_session(detective())
    hero, _ = start_session(detective())
    with pytest.raises(RulesError, match="already started"):
        start_session(hero)


def test_gm_awards_at_most_5_a_session_7_1():
    hero, _ = start_session(detective(hero_points=0))
    hero, _ = award_hero_points(hero, 4)
    with pytest.raises(RulesError, match="4 awarded already, so 1 more at most, not 2"):
        award_hero_points(hero, 2)
    hero, changes = award_hero_points(hero, 1, reason="held the bridge")
    assert hero.hero_points == 6 and changes[0].reason == "§7.1: GM award: held the bridge"
    with pytest.raises(RulesError, match="so 0 more at most"):
        award_hero_points(hero)
    # The count resets with the next session.
    hero, _ = end_session(hero)
    hero, _ = start_session(hero)
    hero, _ = award_hero_points(hero, 5)
    assert hero.awarded_this_session == 5


def test_awards_need_a_session_and_the_advances_economy():
    with pytest.raises(RulesError, match="during a session"):
        award_hero_points(detective())
    hero, _ = start_session(detective("classic"))
    with pytest.raises(RulesError, match="'advances' hero point economy"):
        award_hero_points(hero)


def test_spending_a_hero_point_needs_one():
    hero, changes = spend_hero_point(detective(hero_points=1))
    assert hero.hero_points == 0 and changes[0].before == 1
    with pytest.raises(RulesError, match="costs 1 HP; you have 0"):
        spend_hero_point(hero)


# ------------------------------------------------------------------ advances (§7.1)

# §7.1 list, option by option and ability kind by kind: the rating change expected.
RAISES = [
    ("plus_9", "Sword", 15, 24),  # +9 to a standalone ability
    ("plus_9", "Forensics", 2, 11),  # +9 to a breakout ability
    ("plus_9", "Detective", 17, 23),  # +6 to a keyword
    ("plus_6", "Sword", 15, 21),  # +6 to a standalone ability
    ("plus_6", "Forensics", 2, 8),  # +6 to a breakout ability
    ("plus_6", "Detective", 17, 20),  # +3 to a keyword
]


@pytest.mark.parametrize(("option", "name", "before", "after"), RAISES)
def test_advance_raise_options_7_1(option, name, before, after):
    hero = detective(experience=10)
    hero, changes = buy_advance(
        hero, AdvanceChoice(option, name), AdvanceChoice("new_ability", "Riding")
    )
    assert hero.ability(name).rating == after
    assert (name, before, after) in [(c.what, c.before, c.after) for c in changes]
    assert hero.experience == 0


def test_advance_new_ability_or_breakout_7_1():
    hero = detective(experience=20)
    hero, _ = buy_advance(
        hero,
        AdvanceChoice("new_ability_or_breakout", "Riding"),
        AdvanceChoice("new_ability", "Swimming"),
    )
    assert hero.ability("Riding") == Ability("Riding", 13)
    assert hero.ability("Swimming") == Ability("Swimming", 13)
    hero, changes = buy_advance(
        hero,
        AdvanceChoice("new_ability_or_breakout", "Handgun", keyword="Detective"),
        AdvanceChoice("plus_6", "Sword"),
    )
    assert hero.ability("Handgun") == Ability("Handgun", 1, "breakout", "Detective")
    assert hero.total("Handgun") == 18
    assert ("Handgun", None, 1) in [(c.what, c.before, c.after) for c in changes]


def test_advance_turns_a_standalone_ability_into_a_keyword_7_1():
    hero = detective(experience=10)
    hero, changes = buy_advance(
        hero,
        AdvanceChoice("new_keyword", "Sword", breakout="Fencing"),
        AdvanceChoice("plus_6", "Grumpy"),
    )
    assert hero.ability("Sword").kind == "keyword"
    assert hero.ability("Fencing") == Ability("Fencing", 1, "breakout", "Sword")
    assert hero.total("Fencing") == 16
    assert ("Sword kind", "standalone", "keyword") in [(c.what, c.before, c.after) for c in changes]


def test_an_advance_costs_10_xp_7_1():
    with pytest.raises(RulesError, match="an advance costs 10 XP \\(§7.1\\); you have 7"):
        buy_advance(
            detective(experience=7),
            AdvanceChoice("plus_9", "Sword"),
            AdvanceChoice("new_ability", "Riding"),
        )


def test_an_advance_is_two_different_options_7_1():
    with pytest.raises(RulesError, match="you chose plus_9 twice"):
        buy_advance(
            detective(experience=10),
            AdvanceChoice("plus_9", "Sword"),
            AdvanceChoice("plus_9", "Grumpy"),
        )


def test_both_raises_may_go_to_the_same_ability():
    """Ruling: §7.1 forbids an option twice, not one ability twice: +9 and +6 = +15."""
    hero, _ = buy_advance(
        detective(experience=10),
        AdvanceChoice("plus_9", "Grumpy"),
        AdvanceChoice("plus_6", "Grumpy"),
    )
    assert hero.ability("Grumpy").rating == 28


@pytest.mark.parametrize(
    ("first", "message"),
    [
        (AdvanceChoice("new_ability", "sword"), "already has an ability named 'sword'"),
        (AdvanceChoice("new_keyword", "Detective", breakout="X"), "Detective is a keyword"),
        (
            AdvanceChoice("new_ability_or_breakout", "X", keyword="Sword"),
            "Sword is a standalone",
        ),
        (AdvanceChoice("plus_9", "Axe"), "no ability named 'Axe'"),
    ],
)
def test_advance_choices_are_validated(first, message):
    hero = detective(experience=10)
    with pytest.raises(RulesError, match=message):
        buy_advance(hero, first, AdvanceChoice("plus_6", "Sword"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"option": "plus_12", "ability": "A"}, "unknown advance option"),
        ({"option": "plus_9", "ability": "A", "keyword": "K"}, "takes a keyword"),
        ({"option": "new_keyword", "ability": "A"}, "needs the name"),
        ({"option": "new_ability", "ability": "A", "breakout": "B"}, "names a breakout"),
    ],
)
def test_advance_choice_shape_is_validated(kwargs, message):
    with pytest.raises(RulesError, match=message):
        AdvanceChoice(**kwargs)


def test_advances_need_the_advances_economy_r15():
    with pytest.raises(RulesError, match="'advances' hero point economy"):
        buy_advance(
            detective("classic", experience=10),
            AdvanceChoice("plus_9", "Sword"),
            AdvanceChoice("plus_6", "Grumpy"),
        )


# ------------------------------------------------------------------ catch-ups (§7.1.1)

# Does a raise from `before` by `amount` cross a mastery threshold? (§7.1.1 "20 -> 21,
# 40 -> 41")
THRESHOLDS = [
    (17, 3, False),  # 20: no mastery yet
    (18, 3, True),  # 21 = 1M
    (20, 3, True),
    (21, 3, False),  # already 1M
    (37, 3, False),  # 40 = 20M, still one mastery
    (38, 3, True),  # 41 = 1M2
    (32, 9, True),  # 41
]


@pytest.mark.parametrize(("before", "amount", "offered"), THRESHOLDS)
def test_crossing_a_mastery_threshold_offers_a_catch_up_7_1_1(before, amount, offered):
    hero = Character((Ability("Sword", before),))
    hero, changes = directed_improvement(hero, "Sword", amount)
    expected = (CatchUp("Sword", before + amount),) if offered else ()
    assert hero.catch_ups == expected
    assert any(c.what == "catch-up" for c in changes) is offered


def test_a_keyword_crossing_offers_a_catch_up_but_a_breakout_never_does_7_1_1():
    hero = Character(
        (Ability("Detective", 18, kind="keyword"), Ability("Forensics", 2, "breakout", "Detective"))
    )
    raised, _ = directed_improvement(hero, "Forensics", 3)  # Forensics 18+5 = 3M: no offer
    assert raised.total("Forensics") == 23 and raised.catch_ups == ()
    raised, _ = directed_improvement(hero, "Detective", 3)
    assert raised.catch_ups == (CatchUp("Detective", 21),)


# Catch-up eligibility around the 5-point gap: trigger at 21 (1M).
GAPS = [(16, True), (15, True), (17, False), (21, False)]


@pytest.mark.parametrize(("rating", "eligible"), GAPS)
def test_catch_up_needs_a_gap_of_five_7_1_1(rating, eligible):
    hero = Character(
        (Ability("Sword", 21), Ability("Riding", rating)), catch_ups=(CatchUp("Sword", 21),)
    )
    assert ("Riding" in catch_up_candidates(hero, "Sword")) is eligible
    if eligible:
        hero, changes = take_catch_up(hero, "Sword", ["Riding"])
        assert hero.ability("Riding").rating == rating + 3
        assert ("Riding", rating, rating + 3) in [(c.what, c.before, c.after) for c in changes]
    else:
        with pytest.raises(RulesError, match="rated 5 or more below Sword's 1M"):
            take_catch_up(hero, "Sword", ["Riding"])


def test_catch_up_raises_up_to_three_and_no_breakouts_7_1_1():
    abilities = (
        Ability("Sword", 21),
        Ability("A", 13),
        Ability("B", 13),
        Ability("C", 13),
        Ability("D", 13, kind="keyword"),
        Ability("E", 1, kind="breakout", keyword="D"),
    )
    hero = Character(abilities, catch_ups=(CatchUp("Sword", 21),))
    with pytest.raises(RulesError, match="up to 3 abilities"):
        take_catch_up(hero, "Sword", ["A", "B", "C", "D"])
    with pytest.raises(RulesError, match="breakout ability"):
        take_catch_up(hero, "Sword", ["E"])
    with pytest.raises(RulesError, match="once"):
        take_catch_up(hero, "Sword", ["A", "a"])
    hero, _ = take_catch_up(hero, "Sword", ["A", "B", "D"])
    assert [hero.total(n) for n in ("A", "B", "C", "D", "E")] == [16, 16, 13, 16, 17]
    assert hero.catch_ups == ()


def test_a_catch_up_can_trigger_another_7_1_1():
    """Ruling: a catch-up is an improvement, so one that crosses 20 -> 21 offers another."""
    hero = Character(
        (Ability("Sword", 41), Ability("Riding", 19)), catch_ups=(CatchUp("Sword", 41),)
    )
    hero, _ = take_catch_up(hero, "Sword", ["Riding"])
    assert hero.catch_ups == (CatchUp("Riding", 22),)


def test_decline_and_unknown_catch_ups():
    hero = Character((Ability("Sword", 21),), catch_ups=(CatchUp("Sword", 21),))
    declined, changes = decline_catch_up(hero, "sword")
    assert declined.catch_ups == () and changes[0].after is None
    with pytest.raises(RulesError, match="no catch-up from 'Sword' is on offer"):
        take_catch_up(declined, "Sword", [])


def test_an_advance_that_crosses_a_threshold_offers_a_catch_up_7_1_1():
    hero, changes = buy_advance(
        detective(experience=10),
        AdvanceChoice("plus_6", "Sword"),
        AdvanceChoice("plus_9", "Grumpy"),
    )
    assert hero.catch_ups == (CatchUp("Sword", 21), CatchUp("Grumpy", 22))
    assert [c.after for c in changes if c.what == "catch-up"] == ["1M", "2M"]


# ------------------------------------------------------------------ directed (§7.1.2)


@pytest.mark.parametrize(
    ("economy", "amount", "allowed"),
    [
        ("advances", 3, True),
        ("advances", 6, True),
        ("advances", 9, True),
        ("advances", 1, False),
        ("advances", 4, False),
        ("classic", 1, True),
        ("classic", 2, True),
        ("classic", 3, True),
        ("classic", 6, False),
    ],
)
def test_directed_improvement_amounts_7_1_2(economy, amount, allowed):
    """§7.1.2: +3, +6 or +9; 1e §6.4 (classic): 1 to 3 points."""
    hero = detective(economy)
    if allowed:
        hero, _ = directed_improvement(hero, "Grumpy", amount)
        assert hero.ability("Grumpy").rating == 13 + amount
    else:
        with pytest.raises(RulesError, match="a directed improvement is"):
            directed_improvement(hero, "Grumpy", amount)


def test_directed_new_ability_7_1_2():
    hero, changes = directed_new_ability(detective(), "Ship's Captain", reason="won the ship")
    assert hero.ability("Ship's Captain").rating == 13
    assert changes == [
        Change("Ship's Captain", None, 13, "§7.1.2 directed improvement: won the ship")
    ]
    hero, _ = directed_new_ability(hero, "Old Friend", 17)
    assert hero.total("Old Friend") == 17
    with pytest.raises(RulesError, match="1 or more"):
        directed_new_ability(hero, "Nothing", 0)


# ------------------------------------------------------------------ classic (1e §6.2)

# 1e §6.2: what +1 costs for each kind of ability.
CLASSIC_COSTS = [("Sword", 1), ("Forensics", 1), ("Detective", 2)]


@pytest.mark.parametrize(("name", "cost"), CLASSIC_COSTS)
def test_classic_raise_costs_1e_6_2(name, cost):
    hero = detective("classic", hero_points=3)
    before = hero.ability(name).rating
    hero, changes = classic_raise(hero, name)
    assert hero.hero_points == 3 - cost
    assert hero.ability(name).rating == before + 1
    assert changes[0] == Change("hero points", 3, 3 - cost, changes[0].reason)


def test_classic_raise_once_per_ability_per_session_1e_6_2():
    hero, _ = start_session(detective("classic", hero_points=0))
    hero, _ = classic_raise(hero, "Sword")
    with pytest.raises(RulesError, match="Sword was already raised this session"):
        classic_raise(hero, "sword")
    hero, _ = classic_raise(hero, "Grumpy")  # another ability is fine
    hero, _ = end_session(hero)
    hero, _ = start_session(hero)
    hero, _ = classic_raise(hero, "Sword")
    assert hero.ability("Sword").rating == 17


def test_classic_keyword_raise_needs_2_hp_1e_6_2():
    with pytest.raises(RulesError, match="raising a keyword by 1 costs 2 HP; you have 1"):
        classic_raise(detective("classic", hero_points=1), "Detective")


def test_classic_new_ability_and_breakout_1e_6_2():
    hero, changes = classic_new_ability(detective("classic", hero_points=2), "Riding")
    assert hero.ability("Riding") == Ability("Riding", 13) and hero.hero_points == 1
    hero, _ = classic_new_ability(hero, "Handgun", keyword="Detective")
    assert hero.ability("Handgun") == Ability("Handgun", 1, "breakout", "Detective")
    assert hero.hero_points == 0
    with pytest.raises(RulesError, match="costs 1 HP; you have 0"):
        classic_new_ability(hero, "Swimming")


def test_classic_raise_to_a_mastery_offers_a_catch_up_1e_6_3():
    hero = Character((Ability("Sword", 20), Ability("Riding", 13)), economy="classic")
    hero, _ = classic_raise(hero, "Sword")
    assert hero.catch_ups == (CatchUp("Sword", 21),)


def test_classic_spending_needs_the_classic_economy_r15():
    with pytest.raises(RulesError, match="'classic' hero point economy"):
        classic_raise(detective(), "Sword")
    with pytest.raises(RulesError, match="'classic' hero point economy"):
        classic_new_ability(detective(), "Riding")


# ------------------------------------------------------------------ properties

session_plans = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 8)),  # (GM awards, hero points spent)
    min_size=1,
    max_size=8,
)


@given(plan=session_plans)
def test_advances_economy_conserves_hero_points(plan):
    """Every HP a character ever had is either spent or became XP (§7.1, R15)."""
    hero = new_character()
    gained, spent = 3, 0
    for awards, spend in plan:
        hero, _ = start_session(hero)
        gained += 1
        if awards:
            hero, _ = award_hero_points(hero, awards)
            gained += awards
        for _ in range(min(spend, hero.hero_points)):
            hero, _ = spend_hero_point(hero)
            spent += 1
        hero, _ = end_session(hero)
        assert hero.hero_points == 0
    assert hero.experience == hero.experience_earned == gained - spent


@given(plan=session_plans)
def test_classic_economy_never_carries_hero_points(plan):
    hero = new_character(economy="classic")
    for _, spend in plan:
        hero, _ = start_session(hero)
        assert hero.hero_points >= 3
        for _ in range(min(spend, hero.hero_points)):
            hero, _ = spend_hero_point(hero)
        hero, _ = end_session(hero)
        assert (hero.hero_points, hero.experience) == (0, 0)


@given(
    before=st.integers(1, 80),
    amount=st.sampled_from([3, 6, 9]),
)
def test_catch_up_offered_exactly_when_the_mastery_count_grows(before, amount):
    hero, _ = directed_improvement(Character((Ability("Sword", before),)), "Sword", amount)
    after = before + amount
    grew = (after - 1) // 20 > (before - 1) // 20 and after > 20
    assert bool(hero.catch_ups) is grew


# ------------------------------------------------------------ keywords as packages (§3.3)


@pytest.mark.parametrize(
    ("keywords", "plus_9", "plus_6", "classic_cost"),
    [("umbrella", 6, 3, 2), ("packages", 9, 6, 1)],
)
def test_a_keyword_as_a_package_improves_like_a_standalone_ability_3_3(
    keywords, plus_9, plus_6, classic_cost
):
    """§3.3: packages are "too unrelated to increase together during a game": raising
    the keyword raises no collection, so it gains and costs what a standalone does."""
    hero = detective("advances", experience=10, keywords=keywords)
    hero, _ = buy_advance(
        hero, AdvanceChoice("plus_9", "Detective"), AdvanceChoice("plus_6", "Sword")
    )
    assert hero.ability("Detective").rating == 17 + plus_9
    hero = detective("advances", experience=10, keywords=keywords)
    hero, _ = buy_advance(
        hero, AdvanceChoice("plus_6", "Detective"), AdvanceChoice("plus_9", "Sword")
    )
    assert hero.ability("Detective").rating == 17 + plus_6
    hero = detective("classic", hero_points=3, keywords=keywords)
    hero, _ = classic_raise(hero, "Detective")
    assert hero.hero_points == 3 - classic_cost


def test_keywords_are_an_umbrella_or_packages():
    with pytest.raises(RulesError, match="umbrella' or 'packages"):
        detective(keywords="bundle")


@given(
    keyword=st.integers(1, 80),
    bonus=st.integers(1, 10),
    amount=st.sampled_from([3, 6, 9]),
    keywords=st.sampled_from(["umbrella", "packages"]),
)
def test_raising_a_keyword_raises_its_breakouts_and_nothing_else_3_3(
    keyword, bonus, amount, keywords
):
    """§3.3: a breakout's total is its keyword's plus its bonus, so it rises with the
    keyword; every other ability keeps its total. (Under packages there are no
    breakouts to follow, but one written before the option changed still adds up.)"""
    hero = Character(
        (
            Ability("Detective", keyword, kind="keyword"),
            Ability("Forensics", bonus, kind="breakout", keyword="Detective"),
            Ability("Sword", 15),
        ),
        keywords=keywords,
    )
    after, _ = directed_improvement(hero, "Detective", amount)
    assert after.total("Detective") == keyword + amount
    assert after.total("Forensics") == keyword + bonus + amount
    assert after.total("Sword") == 15


def test_the_keywords_option_survives_a_json_round_trip():
    hero = detective(keywords="packages")
    assert Character.from_json(hero.to_json()) == hero


# ------------------------------------------------------------ a sidekick's abilities (§6.5.1)


@given(
    hero_points=st.integers(0, 12),
    rating=st.integers(1, 100),
    kind=st.sampled_from(["standalone", "keyword"]),
    keywords=st.sampled_from(["umbrella", "packages"]),
    economy=st.sampled_from(["advances", "classic"]),
)
def test_a_sidekick_raise_is_plus_1_for_its_price_or_refused_unchanged(
    hero_points, rating, kind, keywords, economy
):
    """§6.5.1 in either economy: +1 for what the PC's own +1 costs (1 HP; a keyword 2
    under an umbrella); without the hero points it is refused and the character kept."""
    hero = Character(hero_points=hero_points, keywords=keywords, economy=economy)
    cost = 2 if (kind, keywords) == ("keyword", "umbrella") else 1
    assert sidekick_raise_cost(hero, kind) == cost
    if hero_points < cost:
        with pytest.raises(RulesError, match=f"costs {cost} HP; you have {hero_points}"):
            sidekick_raise(hero, "Rex: Tracking", rating, kind=kind)
        return
    after, raised, changes = sidekick_raise(hero, "Rex: Tracking", rating, kind=kind)
    assert (after.hero_points, raised) == (hero_points - cost, rating + 1)
    assert after.abilities == hero.abilities and after.experience == hero.experience
    assert [(c.before, c.after) for c in changes] == [
        (hero_points, hero_points - cost),
        (rating, rating + 1),
    ]


@pytest.mark.parametrize(
    ("rating", "kind", "message"),
    [
        (0, "standalone", "whole number of 1 or more"),
        (True, "standalone", "whole number of 1 or more"),
        (16, "breakout", "standalone or a keyword"),
        (16, "flaw", "standalone or a keyword"),
    ],
)
def test_a_sidekick_raise_refuses_bad_input(rating, kind, message):
    with pytest.raises(RulesError, match=message):
        sidekick_raise(Character(hero_points=3), "Rex: Tracking", rating, kind=kind)
