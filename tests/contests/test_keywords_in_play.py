"""The rating a character rolls with at the table follows the campaign's §3.3 keywords
option, cell by cell against the text (issue 13).

§3.3, umbrella: "Detective 17 Forensics +2 Handgun +1 ... whilst the rating for most
contests in which Detective was an appropriate tactic would be 17, for contests
involving Forensics it would be 19, and for those involving firing a handgun it would
be 18." Packages: "Treat keywords simply as shorthand for a package of abilities. These
can be boosted together during character creation, but are too unrelated to increase
together during a game. You are still free to use the keyword as an ability, and in
fact may prefer to write only the specific abilities they've improved on their
character sheet."
"""

from __future__ import annotations

import pytest

from characters import services
from characters.models import AbilityKind, CreationRole
from characters.selectors import ability_rating

from .conftest import ability

pytestmark = pytest.mark.django_db


def detective(campaign, alice, keywords: str, specialities):
    """Alice's detective in a campaign whose keywords are `keywords`, built through the
    services as the sheet does: Detective 17 and its `specialities` (name, kind, rating)."""
    campaign.rules = {**campaign.rules, "keywords": keywords}
    campaign.save()
    character = services.character_create(
        player=alice, name="Dana", concept="a dogged detective", campaign=campaign
    )
    keyword = services.character_ability_add(
        character=character,
        actor=alice,
        name="Detective",
        kind=AbilityKind.KEYWORD,
        rating=17,
        creation_role=CreationRole.DEFINING,
    )
    for name, kind, rating in specialities:
        services.character_ability_add(
            character=character, actor=alice, name=name, kind=kind, rating=rating, keyword=keyword
        )
    character.refresh_from_db()
    return character


UMBRELLA = [("Forensics", AbilityKind.BREAKOUT, 2), ("Handgun", AbilityKind.BREAKOUT, 1)]
# As packages, the specific abilities are written with their own ratings.
PACKAGES = [("Forensics", AbilityKind.STANDALONE, 19), ("Handgun", AbilityKind.STANDALONE, 18)]


def rolled(table, contest_user, character, name):
    """The rating the table takes from the sheet when the player chooses `name`."""
    contest = table.frame(pc=character)
    table.act(
        contest, contest_user, "choose_ability", side="pc", ability_id=ability(character, name).pk
    )
    return contest.state["sides"]["pc"]["rating"]


@pytest.mark.parametrize(
    ("keywords", "specialities"), [("umbrella", UMBRELLA), ("packages", PACKAGES)]
)
@pytest.mark.parametrize(
    ("name", "rating"), [("Detective", 17), ("Forensics", 19), ("Handgun", 18)]
)
def test_the_srd_detective_rolls_the_same_ratings_either_way(
    table, session, campaign, alice, keywords, specialities, name, rating
):
    """§3.3's example, written as an umbrella (breakouts +2, +1) or as a package (the
    specific abilities at their own ratings): the table rolls 17, 19 and 18. As a
    package, Forensics 19 is not added to Detective 17 (36 would be a mastery too many)."""
    dana = detective(campaign, alice, keywords, specialities)
    assert rolled(table, alice, dana, name) == rating


@pytest.mark.parametrize(
    ("keywords", "specialities", "forensics"),
    [
        # Umbrella: "raisable abilities and a collection": Forensics rises with it.
        ("umbrella", UMBRELLA, 17 + 6 + 2),
        # Packages: "too unrelated to increase together during a game": it stays 19.
        ("packages", PACKAGES, 19),
    ],
)
def test_raising_the_keyword_in_play_raises_its_breakouts_only_under_an_umbrella(
    table, session, campaign, gm, alice, keywords, specialities, forensics
):
    dana = detective(campaign, alice, keywords, specialities)
    services.character_directed_improvement(
        character=dana, actor=gm, ability=ability(dana, "Detective"), amount=6
    )
    assert rolled(table, alice, dana, "Detective") == 23
    assert rolled(table, alice, dana, "Forensics") == forensics


def test_a_flaw_that_came_with_a_keyword_keeps_its_own_rating(campaign, alice):
    """§3.3 Flaws: a keyword's flaw is rated like any flaw, not added to its keyword."""
    dana = detective(campaign, alice, "packages", PACKAGES)
    services.character_ability_add(
        character=dana,
        actor=alice,
        name="Haunted by an old case",
        kind=AbilityKind.FLAW,
        rating=None,
        keyword=ability(dana, "Detective"),
    )
    flaw = ability(dana, "Haunted by an old case")
    assert flaw.keyword is not None
    assert ability_rating(flaw) == flaw.rating
