"""Character creation checks (§3, §2.20, §6.5.1, RULINGS.md R16).

A character starts with one ability at 17 (the defining one, usually the occupation),
one at 17 for the distinguishing characteristic (or +4 if that is a breakout), every
other ability at 13, and 20 points to add with at most 10 on one ability: 12 abilities
in all, up to three flaws. A sidekick has three abilities at 16, 13 and 13 plus 15
points, at most 10 on one.

`validate_character` never raises for a rules problem: it returns every `Problem` it
finds, each naming its rule and the numbers, so a form can show them all at once. An
as-you-go character (§3.1) may be incomplete until the player says it is finished.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .advancement import Ability
from .errors import RulesError

Method = Literal["as_you_go", "list", "prose"]
METHODS: tuple[Method, ...] = ("as_you_go", "list", "prose")


def read_method(value: object) -> Method:
    """`value` as a method of character creation (text from a sheet or a form)."""
    for method in METHODS:
        if value == method:
            return method
    raise RulesError(f"method must be one of {', '.join(METHODS)}, not {value!r}")


# §3.2 Assigning Ability Ratings.
CONCEPT_RATING = 17  # the defining ability and the distinguishing characteristic
CONCEPT_BREAKOUT_BONUS = 4  # "treat it as a +4"
BASE_RATING = 13  # "All other abilities start at a rating of 13"
CREATION_POINTS = 20
MAX_POINTS_ON_ONE = 10
ABILITY_COUNT = 12  # §3.1 step 6, §3.5 steps 3-5
MAX_CHOSEN_FLAWS = 3  # §3.3 Flaws
# §6.5.1 Sidekick.
SIDEKICK_BASES = (16, 13, 13)
SIDEKICK_POINTS = 15
# §3.6: "The paragraph should be about 100 words long"; we advise outside 75-125.
PROSE_WORDS = 100
PROSE_WORD_RANGE = (75, 125)

_METHOD_RULE = {"as_you_go": "§3.1", "list": "§3.5", "prose": "§3.6"}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a character: the rule it breaks and by how much.

    `advice` problems are guidance (a prose paragraph far from 100 words), not rules
    broken. `subject` names the ability, flaw or sidekick concerned, if any.
    """

    rule: str
    message: str
    subject: str | None = None
    advice: bool = False

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


@dataclass(frozen=True, slots=True)
class Flaw:
    """A flaw (§3.3). `keyword` names the keyword it came with, if any: such flaws do
    not count against the three a player chooses. Order matters: the first flaw is
    rated at the highest ability, the second at the second-highest, the rest at the
    lowest."""

    name: str
    keyword: str | None = None


@dataclass(frozen=True, slots=True)
class Sidekick:
    """A sidekick (§6.5.1): one of the character's abilities, with three of its own."""

    name: str
    abilities: tuple[Ability, ...] = ()


def _base(ability: Ability, concept: set[str]) -> int:
    """What an ability is worth before points (§3.2): 17 or 13, a breakout +4 or +0."""
    in_concept = ability.name.casefold() in concept
    if ability.kind == "breakout":
        return CONCEPT_BREAKOUT_BONUS if in_concept else 0
    return CONCEPT_RATING if in_concept else BASE_RATING


def points_spent(
    abilities: Sequence[Ability], *, defining: str | None = None, distinguishing: str | None = None
) -> dict[str, int]:
    """Points spent on each ability over its starting rating (§3.2).

    A breakout's starting bonus is +0, or +4 as the defining ability or the
    distinguishing characteristic; points raise the bonus one for one.

    >>> points_spent([Ability("Detective", 19, kind="keyword"),
    ...               Ability("Forensics", 2, kind="breakout", keyword="Detective"),
    ...               Ability("Grumpy", 17), Ability("Boxing", 16)],
    ...              defining="Detective", distinguishing="Grumpy")
    {'Detective': 2, 'Forensics': 2, 'Grumpy': 0, 'Boxing': 3}
    """
    concept = {name.casefold() for name in (defining, distinguishing) if name}
    return {a.name: a.rating - _base(a, concept) for a in abilities}


def ability_totals(abilities: Sequence[Ability]) -> dict[str, int]:
    """Each ability's rating to roll; a breakout adds its keyword's rating (§3.3).
    Breakouts under an unknown keyword are left out."""
    keywords = {a.name: a.rating for a in abilities if a.kind == "keyword"}
    totals = {}
    for ability in abilities:
        if ability.kind != "breakout":
            totals[ability.name] = ability.rating
        elif ability.keyword in keywords:
            totals[ability.name] = keywords[ability.keyword] + ability.rating
    return totals


def flaw_rating(abilities: Sequence[Ability], rank: int) -> int:
    """The rating of the flaw at `rank` (1 = first) (§3.3): the highest ability, then
    the second-highest, then the lowest for the third and every later flaw.

    >>> sheet = [Ability("A", 19), Ability("B", 17), Ability("C", 13)]
    >>> [flaw_rating(sheet, rank) for rank in (1, 2, 3, 4)]
    [19, 17, 13, 13]
    """
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise RulesError(f"a flaw's rank is 1 or more, not {rank!r}")
    ranked = sorted(ability_totals(abilities).values(), reverse=True)
    if not ranked:
        raise RulesError("flaws are rated from the character's abilities (§3.3); there are none")
    if rank == 1:
        return ranked[0]
    if rank == 2:
        return ranked[min(1, len(ranked) - 1)]
    return ranked[-1]


def flaw_ratings(abilities: Sequence[Ability], flaws: Sequence[Flaw]) -> dict[str, int]:
    """Every flaw's rating, in the order given (§3.3)."""
    return {flaw.name: flaw_rating(abilities, rank) for rank, flaw in enumerate(flaws, 1)}


def validate_character(
    abilities: Sequence[Ability],
    *,
    method: Method = "as_you_go",
    defining: str | None = None,
    distinguishing: str | None = None,
    flaws: Sequence[Flaw] = (),
    sidekicks: Sequence[Sidekick] = (),
    free_keyword: str | None = None,
    finished: bool = False,
) -> list[Problem]:
    """Every problem with a new character's sheet (§3, §2.20, R16); [] when it is fine.

    `defining` and `distinguishing` name the two abilities of the concept (rated 17);
    `free_keyword` the culture or religion keyword the series gives for free (§3.1
    step 3, §3.5 step 4), which is not one of the 12. A sidekick fills one of the 12.
    With `finished=False` an incomplete sheet is fine (as-you-go, or a list still
    being written); `finished=True` asks for all 12 abilities (prose: no count) and,
    for the list method, all 20 points.

    >>> sheet = [Ability("Detective", 28, kind="keyword"), Ability("Grumpy", 17)]
    >>> for problem in validate_character(sheet, defining="Detective", distinguishing="Grumpy"):
    ...     print(problem)
    §3.2: Detective has 11 extra points; at most 10 on one ability
    """
    method = read_method(method)
    problems: list[Problem] = []
    problems += _name_problems(abilities)
    names = {a.name.casefold(): a for a in abilities}
    problems += _concept_problems(names, defining, distinguishing, finished)
    problems += _point_problems(abilities, method, defining, distinguishing, finished)
    problems += _count_problems(abilities, method, sidekicks, free_keyword, names, finished)
    problems += _flaw_problems(flaws, names)
    for sidekick in sidekicks:
        problems += validate_sidekick(sidekick, finished=finished)
    return problems


def _name_problems(abilities: Sequence[Ability]) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    keywords = {a.name for a in abilities if a.kind == "keyword"}
    for ability in abilities:
        key = ability.name.casefold()
        if key in seen:
            problems.append(
                Problem("§3.1", f"two abilities are named {ability.name!r}", ability.name)
            )
        seen.add(key)
        if ability.kind == "breakout" and ability.keyword not in keywords:
            problems.append(
                Problem(
                    "§3.3",
                    f"{ability.name} breaks out from {ability.keyword!r}, "
                    "which is not one of your keywords",
                    ability.name,
                )
            )
    return problems


def _concept_problems(
    names: dict[str, Ability], defining: str | None, distinguishing: str | None, finished: bool
) -> list[Problem]:
    problems = []
    for role, name in (
        ("defining ability", defining),
        ("distinguishing characteristic", distinguishing),
    ):
        if name is None:
            if finished:
                problems.append(Problem("§3.2", f"name your {role} (it starts at 17)"))
        elif name.casefold() not in names:
            problems.append(
                Problem("§3.2", f"your {role} {name!r} is not one of your abilities", name)
            )
    if defining and distinguishing and defining.casefold() == distinguishing.casefold():
        problems.append(
            Problem(
                "§3.2",
                f"{defining} cannot be both the defining ability and the distinguishing "
                "characteristic: the concept gives two abilities at 17",
                defining,
            )
        )
    return problems


def _point_problems(
    abilities: Sequence[Ability],
    method: str,
    defining: str | None,
    distinguishing: str | None,
    finished: bool,
) -> list[Problem]:
    problems = []
    concept = {name.casefold() for name in (defining, distinguishing) if name}
    spent = points_spent(abilities, defining=defining, distinguishing=distinguishing)
    for ability in abilities:
        points = spent[ability.name]
        if points < 0:
            base = _base(ability, concept)
            shown = f"+{ability.rating}" if ability.kind == "breakout" else str(ability.rating)
            start = f"+{base}" if ability.kind == "breakout" else str(base)
            problems.append(
                Problem(
                    "§3.2",
                    f"{ability.name} is rated {shown} but starts at {start}; "
                    "points only raise ratings",
                    ability.name,
                )
            )
        elif points > MAX_POINTS_ON_ONE:
            problems.append(
                Problem(
                    "§3.2",
                    f"{ability.name} has {points} extra points; "
                    f"at most {MAX_POINTS_ON_ONE} on one ability",
                    ability.name,
                )
            )
    total = sum(max(points, 0) for points in spent.values())
    if total > CREATION_POINTS:
        problems.append(Problem("§3.2", f"you spent {total} of {CREATION_POINTS} points"))
    elif method == "list" and finished and total < CREATION_POINTS:
        problems.append(
            Problem(
                "§2.20.1",
                f"you spent {total} of {CREATION_POINTS} points; "
                "the list method spends them all before play",
            )
        )
    return problems


def _count_problems(
    abilities: Sequence[Ability],
    method: str,
    sidekicks: Sequence[Sidekick],
    free_keyword: str | None,
    names: dict[str, Ability],
    finished: bool,
) -> list[Problem]:
    problems = []
    rule = _METHOD_RULE[method]
    if free_keyword is not None:
        found = names.get(free_keyword.casefold())
        if found is None or found.kind != "keyword":
            problems.append(
                Problem(
                    rule,
                    f"the free keyword {free_keyword!r} is not one of your keywords",
                    free_keyword,
                )
            )
            free_keyword = None
    if len(sidekicks) > 1:
        problems.append(
            Problem(
                rule,
                f"only one of your abilities may be a sidekick; you have {len(sidekicks)}",
            )
        )
    counted = len(abilities) + len(sidekicks) - (1 if free_keyword else 0)
    if method == "prose":
        return problems  # §3.6: "There is no limit to the number of abilities"
    if counted > ABILITY_COUNT:
        problems.append(
            Problem(
                rule,
                f"you have {counted} abilities; a character has {ABILITY_COUNT} "
                "(a free keyword aside)",
            )
        )
    elif finished and counted < ABILITY_COUNT:
        problems.append(Problem(rule, f"you have {counted} of {ABILITY_COUNT} abilities"))
    return problems


def _flaw_problems(flaws: Sequence[Flaw], names: dict[str, Ability]) -> list[Problem]:
    problems = []
    chosen = [flaw for flaw in flaws if flaw.keyword is None]
    if len(chosen) > MAX_CHOSEN_FLAWS:
        problems.append(
            Problem(
                "§3.3",
                f"you chose {len(chosen)} flaws; at most {MAX_CHOSEN_FLAWS} "
                "(flaws from keywords aside)",
            )
        )
    seen: set[str] = set()
    for flaw in flaws:
        if flaw.name.casefold() in seen:
            problems.append(Problem("§3.3", f"two flaws are named {flaw.name!r}", flaw.name))
        seen.add(flaw.name.casefold())
        if flaw.keyword is not None:
            keyword = names.get(flaw.keyword.casefold())
            if keyword is None or keyword.kind != "keyword":
                problems.append(
                    Problem(
                        "§3.3",
                        f"{flaw.name} comes from {flaw.keyword!r}, which is not one of your "
                        "keywords",
                        flaw.name,
                    )
                )
    return problems


def validate_sidekick(sidekick: Sidekick, *, finished: bool = False) -> list[Problem]:
    """Problems with a sidekick's three abilities (§6.5.1, R16): 16, 13 and 13 plus 15
    points, at most 10 on one. The 16 goes to the highest-rated ability (the only
    assignment that can be valid when any is).

    >>> rex = Sidekick("Rex", (Ability("Loyal Dog", 26), Ability("Tracking", 18),
    ...                        Ability("Fierce", 13)))
    >>> [str(p) for p in validate_sidekick(rex, finished=True)]
    []
    """
    problems = []
    who = sidekick.name
    abilities = list(sidekick.abilities)
    count = len(abilities)
    if count > len(SIDEKICK_BASES) or (finished and count < len(SIDEKICK_BASES)):
        problems.append(
            Problem("§6.5.1", f"a sidekick starts with three abilities; {who} has {count}", who)
        )
    for ability in abilities:
        if ability.kind == "breakout":
            problems.append(
                Problem(
                    "§6.5.1",
                    f"{who}'s {ability.name} is a breakout; a sidekick's three abilities "
                    "are standalone abilities or keywords",
                    who,
                )
            )
    ranked = sorted(abilities, key=lambda a: a.rating, reverse=True)
    total = 0
    for ability, base in zip(ranked, SIDEKICK_BASES, strict=False):
        points = ability.rating - base
        if points < 0:
            problems.append(
                Problem(
                    "§6.5.1",
                    f"{who}'s {ability.name} is rated {ability.rating} but starts at {base}; "
                    "points only raise ratings",
                    who,
                )
            )
        elif points > MAX_POINTS_ON_ONE:
            problems.append(
                Problem(
                    "§6.5.1",
                    f"{who}'s {ability.name} has {points} extra points; "
                    f"at most {MAX_POINTS_ON_ONE} on one ability",
                    who,
                )
            )
        total += max(points, 0)
    if total > SIDEKICK_POINTS:
        problems.append(
            Problem("§6.5.1", f"{who}: you spent {total} of {SIDEKICK_POINTS} points", who)
        )
    elif finished and total < SIDEKICK_POINTS:
        problems.append(
            Problem(
                "§6.5.1",
                f"{who}: you spent {total} of {SIDEKICK_POINTS} points; allocate them all",
                who,
            )
        )
    return problems


# --------------------------------------------------------------------- prose (§3.6)

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def word_count(text: str) -> int:
    """Words in a prose paragraph: runs of letters or digits, with inner apostrophes
    and hyphens ("ex-mercenary's" is one word).

    >>> word_count("Kara, a sardonic ex-mercenary, won't sell her sword.")
    8
    """
    return len(_WORD.findall(text))


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(word) for word in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def check_prose(text: str, phrases: Sequence[str]) -> list[Problem]:
    """Check a prose-method paragraph (§3.6): every underlined phrase must occur in the
    text (whole words, any case, any spacing), no phrase twice; a paragraph far from
    about 100 words gets advice.

    >>> text = ("Kara is a sardonic ex-mercenary who guards caravans across the "
    ...         "Salt Waste with her old sword.")
    >>> for problem in check_prose(text, ["sardonic", "guards caravans", "Sea Lore"]):
    ...     print(problem)
    §3.6: 'Sea Lore' does not occur in the paragraph
    §3.6: the paragraph has 16 words; the prose method asks for about 100 (75 to 125)
    """
    problems = []
    seen: set[str] = set()
    for phrase in phrases:
        key = " ".join(phrase.split()).casefold()
        if not key:
            problems.append(Problem("§3.6", "an underlined phrase is empty"))
            continue
        if key in seen:
            problems.append(Problem("§3.6", f"{phrase!r} is underlined twice", phrase))
        seen.add(key)
        if not _phrase_pattern(phrase).search(text):
            problems.append(Problem("§3.6", f"{phrase!r} does not occur in the paragraph", phrase))
    words = word_count(text)
    low, high = PROSE_WORD_RANGE
    if not low <= words <= high:
        problems.append(
            Problem(
                "§3.6",
                f"the paragraph has {words} words; the prose method asks for about "
                f"{PROSE_WORDS} ({low} to {high})",
                advice=True,
            )
        )
    return problems
