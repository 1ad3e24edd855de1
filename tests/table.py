"""Play contests through the services, the way the live table does, for tests.

`Table(campaign, gm)` frames and acts with fixed dice and fresh idempotency keys; the
`table` fixture of tests/conftest.py gives one for the personas' campaign.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from contests.core.rules import fixed_rolls
from contests.models import Contest
from contests.services import ActionResult, ContestError, actor_for, contest_act, contest_frame

_keys = itertools.count(1)


def key() -> str:
    """A fresh idempotency key, as each browser action carries one."""
    return f"k{next(_keys)}"


def ability(character, name: str):
    return character.abilities.get(name=name)


def post_the_benchmarks_cycle(
    client,
    contest: Contest,
    character,
    gm,
    player,
    cycles: int,
    around: Callable[[str], AbstractContextManager[Any]] = lambda action: contextlib.nullcontext(),
) -> int:
    """Play `cycles` of the benchmark's cycle (bench/http_cycle.py) from `contest` on:
    each form as the benchmark's browsers post it (`Playing.fields`, an htmx POST to
    table_act), by the person it names, inside `around(action)`; each acknowledged, a
    framing's at step 1 of the campaign's next contest. The actions posted."""
    from django.urls import reverse

    from bench.http_cycle import CYCLE, Playing

    url = reverse("table_act", args=[contest.campaign_id])
    playing = Playing(
        table=None,  # type: ignore[arg-type]  # the forms do not read the table
        character_id=character.pk,
        ability_id=ability(character, "Boatcraft").pk,
        contest_id=contest.pk,
        seq=contest.seq,
        gm=gm,
        player=player,
    )
    for _ in range(cycles * len(CYCLE)):
        user, action, fields = playing.fields()
        client.force_login(user)
        with around(action):
            answer = client.post(url, fields, HTTP_HX_REQUEST="true")
        acked = re.search(rb'data-acked="(\d+)"', answer.content)
        assert answer.status_code == 200 and acked, (action, answer.content[:300])
        playing.seq, playing.step = int(acked[1]), playing.step + 1
        if action == "frame":
            latest = Contest.objects.filter(campaign_id=contest.campaign_id).latest("number")
            assert playing.seq == 1 and latest.number == contest.number + playing.contests
            playing.contest_id = latest.pk
    return cycles * len(CYCLE)


class Table:
    """A campaign's live table, driven through `contest_frame` and `contest_act`."""

    def __init__(self, campaign, gm) -> None:
        self.campaign = campaign
        self.gm = gm

    def frame(
        self,
        kind: str = "simple",
        *,
        pc=None,
        opponent: dict | None = None,
        prize: str = "cross the flooded ford",
        user=None,
        **extra: Any,
    ) -> Contest:
        """Frame a contest as the GM; `pc` is a character (or a framing dict)."""
        data: dict[str, Any] = {"kind": kind, "prize": prize, **extra}
        if pc is not None:
            data["pc"] = pc if isinstance(pc, dict) else {"character_id": pc.pk}
        if opponent is not None or "participants" not in extra:
            data["opponent"] = (
                opponent if opponent is not None else {"name": "The Grey River", "level": "high"}
            )
        return contest_frame(
            campaign=self.campaign, user=user or self.gm, data=data, idempotency_key=key()
        ).contest

    def send(self, contest: Contest, user, action: str, rolls=(), **data: Any) -> ActionResult:
        """One action with fixed dice, the service's answer as it is: `act` without
        reading the contest back (so a count of queries is the action's own)."""
        return contest_act(
            contest_id=contest.pk,
            user=user,
            action=action,
            data=data,
            idempotency_key=key(),
            roller=fixed_rolls(*rolls),
        )

    def act(self, contest: Contest, user, action: str, rolls=(), **data: Any) -> Contest:
        """One action with fixed dice; returns the contest as stored after it."""
        self.send(contest, user, action, rolls=rolls, **data)
        contest.refresh_from_db()
        return contest

    def perform(self, contest: Contest, user, action: str, **data: Any):
        """One action as a browser sends it, through the typed boundary (`perform`),
        with the server's dice: the reply as it is (an `error` is a refusal)."""
        from contests.table_actions import perform

        message = {"action": action, "contest": contest.pk, "key": key(), "data": data}
        return perform(campaign_id=self.campaign.pk, user=user, message=message)

    def refused(self, contest: Contest, user, action: str, message: str, rolls=(), **data):
        """The action is refused with `message` and nothing changes: no event, same state."""
        before = (contest.seq, contest.state)
        with pytest.raises(ContestError, match=message):
            self.act(contest, user, action, rolls=rolls, **data)
        contest.refresh_from_db()
        assert (contest.seq, contest.state) == before

    @staticmethod
    def rebuilt(contest: Contest):
        """The flow replayed from the framing and the stored events (less undone ones)."""
        from contests.core.table import flow_class

        events = list(contest.events.select_related("actor").order_by("seq"))[1:]
        undone = {e.payload["undoes"] for e in events if e.type == "undone"}
        events = [e for e in events if e.type != "undone" and e.seq not in undone]
        return flow_class(contest.framing["kind"]).replay(
            contest.framing,
            [(e.type, e.payload["data"], actor_for(contest.campaign, e.actor)) for e in events],
        )


def split_writes(action: str) -> int:
    """The statements a step's writes take beyond their count on PostgreSQL, where each
    is one statement (contests/services/acting.py `_write_step`: the event, the
    contest's row, a participant record and a hero point's ledger step with its entry
    and the hero points; questworlds_site/sql.py `insert_family`: a condition with its
    abilities):
    elsewhere (SQLite, `make run`) one statement each."""
    from django.db import connection

    if connection.vendor == "postgresql":
        return 0
    if action == "frame":
        return 2  # the contest, its participant records, its first event
    return 1 + {"choose_ability": 1, "hero_point": 3, "apply_consequences": 1}.get(action, 0)
