"""Sessions and hero points: gaining, awarding, spending and cashing them (§7.1, 1e §6.1)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import RulesError
from .character import (
    MAX_AWARDS_PER_SESSION,
    SESSION_HERO_POINTS,
    Change,
    Character,
    Step,
    _pay,
    _require_economy,
    new_character,  # noqa: F401 - the start_session example uses it
)

# --------------------------------------------------------------------- sessions


def start_session(character: Character) -> Step:
    """Begin a session: +1 HP (`advances`, §7.1) or +3 HP (`classic`, 1e §6.1).

    >>> hero, changes = start_session(new_character())
    >>> hero.hero_points, changes[0].reason
    (4, '§7.1: each session starts with 1 HP')
    """
    if character.in_session:
        raise RulesError("a session has already started; end it before starting the next")
    gain = SESSION_HERO_POINTS[character.economy]
    rule = "§7.1: each session starts with 1 HP" if gain == 1 else "1e §6.1: 3 HP each session"
    after = replace(
        character,
        hero_points=character.hero_points + gain,
        in_session=True,
        awarded_this_session=0,
        raised_this_session=(),
    )
    return after, [Change("hero points", character.hero_points, after.hero_points, rule)]


def end_session(character: Character) -> Step:
    """End a session: unspent HP become XP (`advances`, §7.1) or are lost (1e §6.1)."""
    if not character.in_session:
        raise RulesError("no session is running: start one before ending it")
    unspent = character.hero_points
    changes = []
    if character.economy == "advances":
        after = replace(
            character,
            hero_points=0,
            experience=character.experience + unspent,
            experience_earned=character.experience_earned + unspent,
            in_session=False,
        )
        if unspent:
            reason = "§7.1: unspent HP become XP at the end of the session"
            changes.append(Change("hero points", unspent, 0, reason))
            changes.append(Change("XP", character.experience, after.experience, reason))
    else:
        after = replace(character, hero_points=0, in_session=False)
        if unspent:
            changes.append(
                Change("hero points", unspent, 0, "1e §6.1: unspent HP are lost at session end")
            )
    return after, changes


def award_hero_points(character: Character, count: int = 1, *, reason: str = "") -> Step:
    """The GM awards `count` HP for a significant action (§7.1), at most 5 a session."""
    _require_economy(character, "advances", "GM hero point awards")
    if not character.in_session:
        raise RulesError("the GM awards hero points during a session (§7.1); none is running")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RulesError(f"award at least 1 hero point, not {count!r}")
    room = MAX_AWARDS_PER_SESSION - character.awarded_this_session
    if count > room:
        raise RulesError(
            f"the GM awards at most {MAX_AWARDS_PER_SESSION} HP a session (§7.1): "
            f"{character.awarded_this_session} awarded already, so {room} more at most, not {count}"
        )
    after = replace(
        character,
        hero_points=character.hero_points + count,
        awarded_this_session=character.awarded_this_session + count,
    )
    why = f"§7.1: GM award{': ' + reason if reason else ''}"
    return after, [Change("hero points", character.hero_points, after.hero_points, why)]


def spend_hero_point(character: Character, *, reason: str = "a bump in a contest") -> Step:
    """Spend one HP in play, e.g. to bump a result (§2.3.5.5)."""
    _pay(character, 1, "a hero point")
    after = replace(character, hero_points=character.hero_points - 1)
    return after, [Change("hero points", character.hero_points, after.hero_points, reason)]
