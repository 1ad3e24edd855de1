"""Helpers of the campaign tests: characters, and contests played at the table.

Every contest is played the way the live table plays it: framed and acted through
`contests.services.contest_frame` / `contest_act` with fixed dice, in a session opened
and closed with `campaigns.services`. So the archive reads the events the table writes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import transaction
from django.db.models import prefetch_related_objects

from characters import services as character_services
from contests.core.rules import fixed_rolls
from contests.models import Contest, ContestEvent, ContestParticipant, ContestStatus
from contests.services import contest_act, contest_frame

_keys = itertools.count(1)


@pytest.fixture
def tamsin(campaign, alice):
    return character_services.character_create(
        player=alice, name="Tamsin Reedwalker", concept="Stubborn river guide", campaign=campaign
    )


@contextmanager
def committed_at_once():
    """For fixtures that write outside the tests' transactions (module-scoped ones): one
    commit for the whole build, not one per action, and no broadcast of each action to
    the table's browsers (nobody is watching)."""
    with mock.patch("contests.live.broadcast_contest"), transaction.atomic():
        yield


def key() -> str:
    """A fresh idempotency key, as the table's forms send with every action."""
    return f"campaign-test-{next(_keys)}"


def ability(character, name: str, rating: int):
    """An ability added to the sheet by the character's player (as you go, §3.1)."""
    return character_services.character_ability_add(
        character=character, actor=character.player, name=name, rating=rating
    )


def frame(campaign, gm, kind: str, **data) -> Contest:
    """The GM frames a contest in the open session."""
    return contest_frame(
        campaign=campaign, user=gm, data={"kind": kind, **data}, idempotency_key=key()
    ).contest


def act(contest: Contest, user, action: str, rolls=(), **data) -> Contest:
    """One action at the table, with `rolls` as the dice; the contest as it is after."""
    contest_act(
        contest_id=contest.pk,
        user=user,
        action=action,
        data=data,
        idempotency_key=key(),
        roller=fixed_rolls(*rolls),
    )
    contest.refresh_from_db()
    return contest


def play_rounds(contest: Contest, gm, pc_roll: int, opponent_roll: int) -> Contest:
    """The GM calls for the roll and resolves it, with the same dice each round, until
    the contest is decided (one round for a simple contest)."""
    while contest.status == ContestStatus.RUNNING:
        act(contest, gm, "roll", rolls=(pc_roll, opponent_roll))
        act(contest, gm, "resolve")
    return contest


def play_against(
    campaign,
    gm,
    character,
    ability_row,
    *,
    kind: str = "simple",
    dice: tuple[int, int] | None = (5, 16),
    resistance: tuple[str, int] = ("The Grey River", 14),
    consequences: list | None = None,
    **framing,
) -> Contest:
    """A one-on-one contest of `character` (using `ability_row`) against a resistance,
    from framing to the GM's confirmation of the consequences: the suggested ones, or
    `consequences` (`[]` for none). With `dice=None` it stops before the first roll."""
    contest = frame(
        campaign,
        gm,
        kind,
        pc={"character_id": character.pk},
        opponent={"name": resistance[0], "rating": str(resistance[1])},
        **framing,
    )
    act(contest, character.player, "choose_ability", side="pc", ability_id=ability_row.pk)
    if dice is None:
        return contest
    play_rounds(contest, gm, *dice)
    chosen = {} if consequences is None else {"consequences": consequences}
    return act(contest, gm, "apply_consequences", **chosen)


def totals(html: str, kind: str = "RP") -> list[dict[str, str]]:
    """Each step's totals as the play-by-play shows them ("RP: Tamsin 2, The river 0"),
    by name: the stored order of the names is the database's."""
    steps = re.findall(rf'<p class="muted">{re.escape(kind)}: (.*?)</p>', html)
    return [dict(part.rsplit(" ", 1) for part in step.split(", ")) for step in steps]


def contests_repeat(
    copies: dict[int, tuple[Contest, object]], words: Callable[[int], dict[str, str]]
) -> list[Contest]:
    """Contests played at the table, again: `copies` maps each new contest's number to
    (the played contest it repeats, its session). Each repeat has its source's kind,
    outcome, participants and events, rows and payloads as the table wrote them, with
    `words(number)` for its own prize, obstacle or GM notes. Playing hundreds of
    contests would take minutes; copying them takes a few bulk inserts."""
    sources = {number: source for number, (source, _) in copies.items()}
    prefetch_related_objects(list(set(sources.values())), "participants", "events")
    # Every field a played contest has, but its id, number, session and creation time.
    copied = (
        "campaign_id", "kind", "status", "prize", "obstacle", "resistance_name",
        "resistance_rating", "framing", "state", "seq", "winner", "degree", "outcome_level",
        "narration", "gm_notes", "finished_at",
    )  # fmt: skip
    repeats = Contest.objects.bulk_create(
        Contest(
            **{name: getattr(source, name) for name in copied} | words(number),
            session=session,
            number=number,
        )
        for number, (source, session) in copies.items()
    )
    ContestParticipant.objects.bulk_create(
        ContestParticipant(
            contest=repeat,
            character_id=p.character_id,
            name=p.name,
            side=p.side,
            ability=p.ability,
            rating=p.rating,
        )
        for repeat in repeats
        for p in sources[repeat.number].participants.all()
    )
    ContestEvent.objects.bulk_create(
        (
            ContestEvent(
                contest=repeat,
                seq=e.seq,
                actor_id=e.actor_id,
                type=e.type,
                payload=e.payload,
                idempotency_key=e.idempotency_key,
            )
            for repeat in repeats
            for e in sources[repeat.number].events.all()
        ),
        batch_size=2000,
    )
    return repeats
