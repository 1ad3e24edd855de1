"""Each person's own forms reach only their own sockets and the GM's (issue 27, item 6).

A table of four browsers (the GM, Alice, Bob and Sam the spectator) plays a contest of
every kind, through the services as the table's actions do, while every frame each
socket receives is kept. Each character has abilities and a flaw that the contests never
use, so their names appear on no shared part of the table: only in the forms of that
character's player (the ability pick list, an augment's "with" list), which the player
and the GM must receive and nobody else may.
"""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from contests import live

from .every_kind import PRIVATE, scripts
from .table_seats import Seats

pytestmark = pytest.mark.django_db(transaction=True)


def frame(table, framing):
    data = dict(framing)
    return table.frame(data.pop("kind"), **data)


def act(table, contest, user, action, rolls, data):
    return table.act(contest, user, action, rolls=rolls, **data)


async def test_no_socket_gets_another_persons_forms(table, session, gm, alice, bob, sam, sheets):
    users = {"gm": gm, "alice": alice, "bob": bob, "sam": sam}
    seats = Seats(table.campaign)
    for name, user in users.items():
        await seats.seat(name, user)
    played = []
    try:
        for kind, framing, steps in await database_sync_to_async(scripts)(table, sheets):
            contest = await database_sync_to_async(frame)(table, framing)
            await seats.step(contest.pk, contest.seq)
            for who, action, rolls, data in steps:
                try:
                    contest = await database_sync_to_async(act)(
                        table, contest, users[who], action, rolls, data
                    )
                except Exception as error:
                    error.add_note(f"at {kind}: {who} {action}")
                    raise
                await seats.step(contest.pk, contest.seq)
            played.append(kind)
    finally:
        await seats.close()
    assert len(played) == 8

    frames = {name: "".join(seen) for name, seen in seats.frames.items()}
    for player, (private, flaw) in PRIVATE.items():
        # The player's own forms reach their own sockets and the GM's...
        for reader in (player, "gm"):
            assert private in frames[reader] and flaw in frames[reader], (reader, player)
        # ...and nobody else's.
        for reader in set(users) - {player, "gm"}:
            assert private not in frames[reader], (reader, player)
            assert flaw not in frames[reader], (reader, player)
    # No frame of a player or the spectator holds a form tagged for someone else, and
    # the spectator gets no forms of anyone's but the chat's.
    for reader in ("alice", "bob", "sam"):
        others = {str(u.pk) for name, u in users.items() if name != reader}
        assert not set(re.findall(r'data-for-user="(\d+)"', frames[reader])) & others
    assert 'data-action-form data-action="' not in frames["sam"]
    # Each player has had forms of their own: a pick list of their own sheet.
    assert 'data-action="choose_ability"' in frames["alice"]
    assert 'data-action="choose_ability"' in frames["bob"]


@pytest.mark.parametrize("visibility", ["open", "gm_hidden"])
def test_each_copy_rendered_at_once_is_that_readers_panel(
    table, session, gm, alice, bob, sheets, visibility
):
    """A broadcast renders the panel once with every reader's own parts (their forms,
    their bar) in the same pass (`render_audiences`): each copy it puts together is the
    panel that reader's page gets when it asks for the table's state, at every step of
    every kind of contest, with the GM's rolls open or hidden."""
    table.campaign.roll_visibility = visibility
    table.campaign.save(update_fields=["roll_visibility"])
    users = {"gm": gm, "alice": alice, "bob": bob}
    seen_own = set()
    for kind, framing, steps in scripts(table, sheets):
        contest = frame(table, framing)
        for who, action, rolls, data in [(None, None, (), {}), *steps]:
            if who is not None:
                contest = act(table, contest, users[who], action, rolls, data)
            copies = live.render_audiences(contest)
            where = f"{kind}, after {action or 'framing'}"
            assert copies["gm"] == live.render_contest(contest, "gm"), where
            assert copies[live.PUBLIC] == live.render_contest(contest, "spectator"), where
            for name in ("alice", "bob"):
                user = users[name]
                mine = copies.get(live.own_copy(user.pk), copies[live.PUBLIC])
                assert mine == live.render_contest(contest, "player", reader=user.pk), where
                if live.own_copy(user.pk) in copies:
                    seen_own.add(name)
    # Both players had forms of their own, which only their copy holds.
    assert seen_own == {"alice", "bob"}
