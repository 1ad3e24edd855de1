"""Character creation checks (§3, §2.20, §6.5.1, RULINGS.md R16)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.advancement import Ability
from contests.core.rules.creation import (
    Flaw,
    Sidekick,
    ability_totals,
    check_prose,
    flaw_rating,
    flaw_ratings,
    points_spent,
    validate_character,
    validate_sidekick,
    word_count,
)
from contests.core.rules.errors import RulesError


def messages(problems):
    return [str(problem) for problem in problems]


def full_sheet():
    """A finished as-you-go character: 17/17, ten at 13, 20 points (10 + 6 + 4)."""
    return [
        Ability("Detective", 27, kind="keyword"),  # 17 + 10
        Ability("Grumpy", 17),
        Ability("Forensics", 6, kind="breakout", keyword="Detective"),  # +0 + 6
        Ability("Boxing", 17),  # 13 + 4
        *[Ability(f"Ability {n}", 13) for n in range(8)],
    ]


CONCEPT = {"defining": "Detective", "distinguishing": "Grumpy"}


def test_a_legal_finished_character_has_no_problems_3_2():
    assert validate_character(full_sheet(), finished=True, **CONCEPT) == []
    assert validate_character(full_sheet(), method="list", finished=True, **CONCEPT) == []


def test_the_srd_keyword_example_3_3():
    """§3.3: "Detective 17 Forensics +2 Handgun +1": 19 for forensics, 18 for handguns."""
    sheet = [
        Ability("Detective", 17, kind="keyword"),
        Ability("Forensics", 2, kind="breakout", keyword="Detective"),
        Ability("Handgun", 1, kind="breakout", keyword="Detective"),
    ]
    assert ability_totals(sheet) == {"Detective": 17, "Forensics": 19, "Handgun": 18}
    assert points_spent(sheet, defining="Detective") == {
        "Detective": 0,
        "Forensics": 2,
        "Handgun": 1,
    }


# §3.2 starting ratings: (ability, role) -> the rating that costs no points.
STARTS = [
    (Ability("A", 17), "defining", 0),
    (Ability("A", 17), "distinguishing", 0),
    (Ability("A", 17), None, 4),
    (Ability("A", 13), None, 0),
    (Ability("A", 17, kind="keyword"), "defining", 0),
    (Ability("A", 13, kind="keyword"), None, 0),
    (Ability("A", 4, kind="breakout", keyword="K"), "distinguishing", 0),  # "treat it as +4"
    (Ability("A", 4, kind="breakout", keyword="K"), None, 4),
]


@pytest.mark.parametrize(("ability", "role", "points"), STARTS)
def test_starting_ratings_3_2(ability, role, points):
    roles = {role: "A"} if role else {}
    assert points_spent([ability], **roles) == {"A": points}


def test_too_many_points_3_2():
    sheet = full_sheet()
    sheet[3] = Ability("Boxing", 20)  # 7 points instead of 4: 23 in all
    assert messages(validate_character(sheet, **CONCEPT)) == ["§3.2: you spent 23 of 20 points"]


def test_at_most_10_points_on_one_ability_3_2():
    sheet = [Ability("Sword", 24), Ability("Grumpy", 17), Ability("Detective", 17)]
    assert messages(validate_character(sheet, **CONCEPT)) == [
        "§3.2: Sword has 11 extra points; at most 10 on one ability"
    ]


def test_ratings_below_their_start_3_2():
    sheet = [
        Ability("Detective", 15, kind="keyword"),
        Ability("Grumpy", 3, kind="breakout", keyword="Detective"),
        Ability("Sword", 12),
    ]
    assert messages(validate_character(sheet, **CONCEPT)) == [
        "§3.2: Detective is rated 15 but starts at 17; points only raise ratings",
        "§3.2: Grumpy is rated +3 but starts at +4; points only raise ratings",
        "§3.2: Sword is rated 12 but starts at 13; points only raise ratings",
    ]


def test_the_list_method_spends_all_20_points_2_20_1():
    sheet = full_sheet()
    sheet[3] = Ability("Boxing", 14)  # 17 points in all
    assert messages(validate_character(sheet, method="list", finished=True, **CONCEPT)) == [
        "§2.20.1: you spent 17 of 20 points; the list method spends them all before play"
    ]
    # As you go, points may stay unspent, and an unfinished list is fine.
    assert validate_character(sheet, finished=True, **CONCEPT) == []
    assert validate_character(sheet, method="list", **CONCEPT) == []


def test_twelve_abilities_in_all_3_1():
    sheet = full_sheet()
    assert messages(validate_character([*sheet, Ability("Extra", 13)], **CONCEPT)) == [
        "§3.1: you have 13 abilities; a character has 12 (a free keyword aside)"
    ]
    assert messages(validate_character(sheet[:10], finished=True, **CONCEPT)) == [
        "§3.1: you have 10 of 12 abilities"
    ]
    # Unfinished as-you-go characters grow in play.
    assert validate_character(sheet[:10], **CONCEPT) == []


def test_a_free_keyword_is_not_one_of_the_twelve_3_5():
    sheet = [*full_sheet(), Ability("Islander", 13, kind="keyword")]
    assert validate_character(sheet, free_keyword="Islander", finished=True, **CONCEPT) == []
    assert messages(validate_character(sheet, method="list", free_keyword="Boxing", **CONCEPT)) == [
        "§3.5: the free keyword 'Boxing' is not one of your keywords",
        "§3.5: you have 13 abilities; a character has 12 (a free keyword aside)",
    ]


def test_the_prose_method_has_no_ability_limit_3_6():
    sheet = [*full_sheet(), *[Ability(f"More {n}", 13) for n in range(5)]]
    assert validate_character(sheet, method="prose", finished=True, **CONCEPT) == []


def test_a_sidekick_fills_one_of_the_twelve_3_5():
    rex = Sidekick("Rex", (Ability("Dog", 26), Ability("Tracking", 18), Ability("Fierce", 13)))
    sheet = full_sheet()
    assert messages(validate_character(sheet, sidekicks=[rex], **CONCEPT)) == [
        "§3.1: you have 13 abilities; a character has 12 (a free keyword aside)"
    ]
    assert validate_character(sheet[:11], sidekicks=[rex], finished=True, **CONCEPT) == []


def test_only_one_sidekick_3_1():
    rex = Sidekick("Rex", (Ability("Dog", 16), Ability("Tracking", 13), Ability("Fierce", 13)))
    fido = Sidekick("Fido", rex.abilities)
    assert messages(validate_character(full_sheet()[:10], sidekicks=[rex, fido], **CONCEPT)) == [
        "§3.1: only one of your abilities may be a sidekick; you have 2"
    ]


def test_concept_abilities_are_named_3_2():
    sheet = full_sheet()
    assert messages(validate_character(sheet, finished=True)) == [
        "§3.2: name your defining ability (it starts at 17)",
        "§3.2: name your distinguishing characteristic (it starts at 17)",
        # Without a concept, Detective and Grumpy start at 13 like the rest.
        "§3.2: Detective has 14 extra points; at most 10 on one ability",
        "§3.2: you spent 28 of 20 points",
    ]
    problems = validate_character(sheet, defining="Detective", distinguishing="detective")
    assert "cannot be both" in messages(problems)[0]
    problems = validate_character(sheet, defining="Pilot", distinguishing="Grumpy")
    assert (
        messages(problems)[0] == "§3.2: your defining ability 'Pilot' is not one of your abilities"
    )


def test_names_and_breakouts_are_checked_3_3():
    sheet = [
        Ability("Sword", 13),
        Ability("sword", 13),
        Ability("Forensics", 1, kind="breakout", keyword="Sword"),
    ]
    assert messages(validate_character(sheet)) == [
        "§3.1: two abilities are named 'sword'",
        "§3.3: Forensics breaks out from 'Sword', which is not one of your keywords",
    ]


def test_unknown_method_is_an_error():
    with pytest.raises(RulesError, match="method must be one of"):
        validate_character([], method="point_buy")


# ------------------------------------------------------------------ flaws (§3.3)

FLAW_SHEET = [
    Ability("Detective", 19, kind="keyword"),
    Ability("Forensics", 2, kind="breakout", keyword="Detective"),  # 21
    Ability("Grumpy", 17),
    Ability("Boxing", 14),
]


@pytest.mark.parametrize(("rank", "rating"), [(1, 21), (2, 19), (3, 14), (4, 14), (5, 14)])
def test_flaw_ratings_by_rank_3_3(rank, rating):
    """§3.3: first flaw at the highest ability, second at the second-highest, third
    and later at the lowest ("All flaws after the third...")."""
    assert flaw_rating(FLAW_SHEET, rank) == rating


def test_flaw_ratings_in_order_3_3():
    flaws = [Flaw("Vain"), Flaw("Sworn Enemy", keyword="Detective"), Flaw("Lazy")]
    assert flaw_ratings(FLAW_SHEET, flaws) == {"Vain": 21, "Sworn Enemy": 19, "Lazy": 14}


def test_flaw_rating_edge_cases():
    assert flaw_rating([Ability("Only", 13)], 2) == 13
    with pytest.raises(RulesError, match="there are none"):
        flaw_rating([], 1)
    with pytest.raises(RulesError, match="rank is 1 or more"):
        flaw_rating(FLAW_SHEET, 0)


def test_up_to_three_chosen_flaws_3_3():
    chosen = [Flaw(name) for name in ("Vain", "Lazy", "Greedy", "Rude")]
    assert messages(validate_character(FLAW_SHEET, flaws=chosen)) == [
        "§3.3: you chose 4 flaws; at most 3 (flaws from keywords aside)"
    ]
    with_keyword = [*chosen[:3], Flaw("Sworn Enemy", keyword="Detective")]
    assert validate_character(FLAW_SHEET, flaws=with_keyword) == []


def test_flaw_keyword_and_names_are_checked_3_3():
    flaws = [Flaw("Vain"), Flaw("vain"), Flaw("Curse", keyword="Grumpy")]
    assert messages(validate_character(FLAW_SHEET, flaws=flaws)) == [
        "§3.3: two flaws are named 'vain'",
        "§3.3: Curse comes from 'Grumpy', which is not one of your keywords",
    ]


# ------------------------------------------------------------------ sidekick (§6.5.1)


def test_a_legal_sidekick_6_5_1():
    rex = Sidekick("Rex", (Ability("Fierce", 13), Ability("Dog", 21), Ability("Tracking", 23)))
    # Tracking takes the 16 (+7), Dog +8, Fierce +0: 15 points.
    assert validate_sidekick(rex, finished=True) == []


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        ((16, 13, 13), ["§6.5.1: Rex: you spent 0 of 15 points; allocate them all"]),
        ((27, 17, 13), ["§6.5.1: Rex's A has 11 extra points; at most 10 on one ability"]),
        ((26, 19, 13), ["§6.5.1: Rex: you spent 16 of 15 points"]),
        (
            (16, 13, 12),
            [
                "§6.5.1: Rex's C is rated 12 but starts at 13; points only raise ratings",
                "§6.5.1: Rex: you spent 0 of 15 points; allocate them all",
            ],
        ),
    ],
)
def test_sidekick_ratings_6_5_1(ratings, expected):
    rex = Sidekick("Rex", tuple(Ability(n, r) for n, r in zip("ABC", ratings, strict=True)))
    assert messages(validate_sidekick(rex, finished=True)) == expected


def test_sidekick_has_three_abilities_6_5_1():
    two = Sidekick("Rex", (Ability("Dog", 26), Ability("Tracking", 18)))
    assert validate_sidekick(two) == []  # still being written
    assert messages(validate_sidekick(two, finished=True))[0] == (
        "§6.5.1: a sidekick starts with three abilities; Rex has 2"
    )
    four = Sidekick("Rex", (*two.abilities, Ability("Fierce", 13), Ability("Loyal", 13)))
    assert "Rex has 4" in messages(validate_sidekick(four))[0]
    breakout = Sidekick(
        "Rex", (Ability("Dog", 16, kind="keyword"), Ability("Nose", 1, "breakout", "Dog"))
    )
    assert "Nose is a breakout" in messages(validate_sidekick(breakout))[0]


# ------------------------------------------------------------------ prose (§3.6)

PARAGRAPH = (
    "Kara is a sardonic ex-mercenary who guards caravans across the Salt Waste. "
    "She still carries the notched sword of her old company, the Grey Lanterns, and "
    "she trusts nobody who smiles too quickly. Her younger brother Tomas rides with "
    "her as scout and cook, and he talks to the camels more than to people. When the "
    "dust storms come she reads the sky like a priest reads scripture, and she has "
    "never yet lost a wagon to the desert. The guild masters in Ostra owe her money, "
    "favours and at least one apology."
)


def test_prose_phrases_must_occur_3_6():
    assert word_count(PARAGRAPH) == 93  # as `wc -w` counts it
    phrases = ["sardonic", "Guards  Caravans", "notched sword", "Younger Brother Tomas"]
    assert check_prose(PARAGRAPH, phrases) == []
    assert messages(check_prose(PARAGRAPH, ["Sea Lore", "ward", "", "sardonic", "Sardonic"])) == [
        "§3.6: 'Sea Lore' does not occur in the paragraph",
        "§3.6: 'ward' does not occur in the paragraph",  # only inside "wagon"/"toward"
        "§3.6: an underlined phrase is empty",
        "§3.6: 'Sardonic' is underlined twice",
    ]


@pytest.mark.parametrize(("words", "advised"), [(74, True), (75, False), (125, False), (126, True)])
def test_prose_word_count_guidance_3_6(words, advised):
    """§3.6: "about 100 words long": advice (not an error) outside 75 to 125."""
    text = " ".join(["word"] * words)
    problems = check_prose(text, [])
    assert bool(problems) is advised
    assert all(problem.advice for problem in problems)


# ------------------------------------------------------------------ properties


@given(extra=st.lists(st.integers(min_value=0, max_value=14), min_size=10, max_size=10))
def test_point_problems_match_the_budget(extra):
    """§3.2 for any spread over ten 13s: a per-ability problem exactly for those over
    10, a total problem exactly when over 20."""
    sheet = [Ability("Detective", 17), Ability("Grumpy", 17)]
    sheet += [Ability(f"A{n}", 13 + points) for n, points in enumerate(extra)]
    found = messages(validate_character(sheet, **CONCEPT))
    over = [f"A{n}" for n, points in enumerate(extra) if points > 10]
    assert [m.split()[1] for m in found if "extra points" in m] == over
    assert any("of 20 points" in m for m in found) is (sum(extra) > 20)
