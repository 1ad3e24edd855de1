"""The browsers'-path benchmark's tables playing the realistic cycle: who acts at each
step and with which form, the characters' sheets, and one step posted and followed to
every socket of its table."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from .http_client import Http
from .table_clients import Action, Client, Recorder
from .table_common import LOST_AFTER_S, BenchError
from .table_data import Table

# The realistic cycle: who acts (the GM, or the player of the contest's character).
CYCLE = (
    ("player", "choose_ability"),
    ("player", "set_tactic"),
    ("gm", "roll"),
    ("gm", "resolve"),
    ("gm", "apply_consequences"),
    ("gm", "frame"),
)
# The confirm form's selects, for the PC's side and the opponent's.
CONSEQUENCE_SELECTS = ("pc", "pc_benefit", "opponent", "opponent_benefit")
ACK_RE = re.compile(rb'data-acked="(\d+)"')
ERROR_RE = re.compile(rb'id="table-error"[^>]*>([^<]*)<')
BUSY_RE = re.compile(rb"The table is busy")
# Steps played before the measurement are tried again when the process is busy.
BUSY_RETRIES, BUSY_RETRY_S = 50, 0.2


# --- The tables, playing the cycle -----------------------------------------------------------


@dataclass
class Playing:
    """One table's state as its two actors' browsers know it."""

    table: Table
    character_id: int
    ability_id: int
    contest_id: int
    seq: int
    gm: Http
    player: Http
    step: int = 0
    busy: bool = False
    contests: int = 0

    def fields(self) -> tuple[Http, str, dict[str, Any]]:
        who, action = CYCLE[self.step % len(CYCLE)]
        fields: dict[str, Any] = {"action": action, "key": uuid.uuid4().hex}
        if action == "frame":
            self.contests += 1
            fields.update(
                {
                    "kind": "simple",
                    "prize": f"Cross the river, attempt {self.contests}",
                    "pc.character_id": self.character_id,
                    "opponent.name": "The Grey River",
                    "opponent.level": "moderate",
                }
            )
        else:
            fields.update({"contest": self.contest_id, "seq": self.seq})
        if action == "choose_ability":
            fields.update(side="pc", ability_id=self.ability_id)
        elif action == "set_tactic":
            fields.update(side="pc", tactic="Swim for the far bank")
        elif action == "apply_consequences":
            # The confirm form with "none" chosen for every side: the same character
            # plays hundreds of contests in a run, and would otherwise end up dying.
            fields.update({f"edit.{name}": "" for name in CONSEQUENCE_SELECTS})
        return (self.gm if who == "gm" else self.player), action, fields


# A sheet as a table has them (docs/benchmarks.md): a dozen abilities, one a flaw. Every
# player at a table has a character with one, so that the panel offers each of them
# augments while abilities are chosen, as it does at a real table.
SHEET = (
    ("Swimming", 15),
    ("Boatcraft", 14),
    ("Climbing", 13),
    ("Sword fighting", 17),
    ("Riddles", 12),
    ("Haggling", 13),
    ("Singing", 11),
    ("Tracking", 16),
    ("Horse riding", 14),
    ("Lore of the river", 18),
    ("Stubborn", 15),
    ("Afraid of heights", 13),
)


def add_abilities(tables: list[Table]) -> dict[int, tuple[int, int]]:
    """Every player at each table gets a character with a full sheet (the first player's
    is the one in the cycle's contests): {campaign id: (character, its first ability)}."""
    from characters.models import Ability, AbilityKind, Character

    existing = {
        c.campaign_id: c
        for c in Character.objects.filter(campaign_id__in=[t.campaign_id for t in tables])
    }
    Character.objects.bulk_create(
        Character(
            name=f"Companion {t.index}-{i}", player_id=seat.user_id, campaign_id=t.campaign_id
        )
        for t in tables
        for i, seat in enumerate(t.seats[2:], start=2)
    )
    everyone = Character.objects.filter(campaign_id__in=[t.campaign_id for t in tables])
    Ability.objects.bulk_create(
        Ability(
            character=character,
            name=name,
            rating=rating,
            position=position,
            kind=AbilityKind.FLAW if name.startswith("Afraid") else AbilityKind.STANDALONE,
        )
        for character in everyone
        for position, (name, rating) in enumerate(SHEET)
    )
    first = {
        a.character_id: a.pk
        for a in Ability.objects.filter(
            character__in=[c.pk for c in existing.values()], name=SHEET[0][0]
        )
    }
    return {
        t.campaign_id: (existing[t.campaign_id].pk, first[existing[t.campaign_id].pk])
        for t in tables
    }


async def play_step(
    playing: Playing, recorder: Recorder, sockets: list[Client], actions: list[Action]
) -> None:
    """One step of a table's cycle, posted; done once every socket of the table has it
    (or it is counted as lost after LOST_AFTER_S)."""
    http, name, fields = playing.fields()
    action = Action(playing.table.campaign_id, playing.contest_id, fields["key"], 0.0, kind=name)
    actions.append(action)
    path = f"/campaigns/{playing.table.campaign_id}/table/act/"
    action.sent_at = time.perf_counter()
    try:
        status, answer = await http.post_form(path, fields)
    except (OSError, asyncio.IncompleteReadError) as error:
        action.error = f"{name}: {type(error).__name__}"
        return
    acked = ACK_RE.search(answer)
    if status == 503 and BUSY_RE.search(answer):
        # The process is full: refused at once in words, nothing done (the step is
        # offered again later, as a person clicks again).
        action.busy_after = time.perf_counter() - action.sent_at
        return
    if status != 200 or not acked:
        said = ERROR_RE.search(answer)
        said = said.group(1).decode()[:120] if said else answer[:120].decode(errors="replace")
        action.error = f"{name}: {status} {said}"
        return
    action.seq = int(acked.group(1))
    if name == "frame":
        gm_socket = next(c for c in sockets if c.role == "gm")
        action.contest_id = await recorder.new_contest(gm_socket, playing.contest_id, LOST_AFTER_S)
        playing.contest_id = action.contest_id
    if await recorder.all_have(action.contest_id, action.seq, len(sockets), LOST_AFTER_S):
        playing.seq = action.seq
        playing.step += 1


async def advance(
    playing: Playing, steps: int, recorder: Recorder, sockets_of: dict[int, list[Client]]
) -> None:
    """Play `steps` steps of one table's cycle, one after the other, not counted."""
    for _ in range(steps):
        done = playing.step
        tried: list[Action] = []
        for _attempt in range(BUSY_RETRIES):
            await play_step(playing, recorder, sockets_of[playing.table.campaign_id], tried)
            if tried[-1].busy_after is None:
                break
            # "The table is busy": tried again a moment later, as a person would.
            await asyncio.sleep(BUSY_RETRY_S)
        if playing.step == done:
            last = tried[-1]
            why = last.error or ("busy" if last.busy_after is not None else "not every page had it")
            raise BenchError(
                f"table {playing.table.campaign_id}: a step did not go through ({why}, "
                f"{len(tried)} tries)"
            )
