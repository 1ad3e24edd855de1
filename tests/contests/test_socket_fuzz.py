"""Thousands of malformed frames through the real ASGI application (issue 12, item 1).

Seeded and bounded: from a player and from the GM, frames of every kind an attacker
probe sent (JSON nested thousands deep, lone surrogates, NUL characters, ids that are
not whole numbers, non-object framings, ratings of 10**30, oversized frames, bytes and
invalid UTF-8, wrong types in every field of every action). Each gets an answer, the
server never closes the socket, nothing is logged as an error, no event is stored, and
no presence row is left once the sockets close.
"""

from __future__ import annotations

import json
import logging
import random

import pytest
from channels.db import database_sync_to_async

from contests.actions import DATA_MODELS
from contests.models import ContestEvent, TablePresence
from questworlds_site.asgi import application

from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)

SEED = 20261124
FRAMES_EACH = 1200  # per person: 2,400 in all
BAD_IDS = ["abc", [1], {"id": 1}, 1.5, True, -1, 10**30, "", "1; DROP TABLE", None]
BAD_SCALARS = [{"nested": [1]}, [[[]]], 10**30, -(10**30), 1.5, "\x00", "\ud800"]


class Frames:
    """Malformed frames of every kind, drawn from one seeded generator."""

    def __init__(self, rng: random.Random, contest_id: int) -> None:
        self.rng, self.contest = rng, contest_id
        self.kinds = [
            self.deep,
            self.surrogate,
            self.nul,
            self.bad_contest_id,
            self.bad_ability_id,
            self.non_object_framing,
            self.huge_rating,
            self.oversized,
            self.raw_bytes,
            self.non_object,
            self.unknown_action,
            self.wrong_field_type,
            self.bad_envelope,
        ]

    def envelope(self, action: str, data) -> dict:
        return {"action": action, "contest": self.contest, "key": self.key(), "data": data}

    def key(self) -> str:
        return f"fuzz-{self.rng.getrandbits(48):x}"

    def text(self, message) -> dict:
        return {"text_data": json.dumps(message)}

    def draw(self) -> tuple[str, dict]:
        kind = self.rng.choice(self.kinds)
        return kind.__name__, kind()

    def deep(self) -> dict:
        depth = self.rng.choice([40, 200, 1000, 3000])
        rng = self.rng
        if rng.random() < 0.5:
            return {"text_data": "[" * depth + "]" * depth}
        return {
            "text_data": '{"action": "set_tactic", "data": '
            + '{"a": ' * depth
            + "1"
            + "}" * depth
            + "}"
        }

    def surrogate(self) -> dict:
        field = self.rng.choice(["tactic", "key", "action"])
        message = self.envelope("set_tactic", {"side": "pc", "tactic": "ford"})
        if field == "tactic":
            message["data"]["tactic"] = "swim \ud83d here"
        else:
            message[field] = "x\udfff"
        if self.rng.random() < 0.5:
            return self.text(message)  # escaped in the JSON: "\ud83d"
        return {"text_data": json.dumps(message, ensure_ascii=False)}  # a raw lone surrogate

    def nul(self) -> dict:
        where = self.rng.choice(["tactic", "key", "narration", "name"])
        if where == "tactic":
            return self.text(self.envelope("set_tactic", {"side": "pc", "tactic": "a\x00b"}))
        if where == "key":
            message = self.envelope("narrate", {"narration": "the river"})
            message["key"] = "k\x00"
            return self.text(message)
        if where == "narration":
            return self.text(self.envelope("narrate", {"narration": "\x00" * 10}))
        framing = {"kind": "simple", "prize": "x", "opponent": {"name": "Grey\x00River"}}
        return self.text(self.envelope("frame", framing))

    def bad_contest_id(self) -> dict:
        message = self.envelope("set_tactic", {"side": "pc", "tactic": "ford"})
        message["contest"] = self.rng.choice([v for v in BAD_IDS if v is not None])
        return self.text(message)

    def bad_ability_id(self) -> dict:
        data = {"side": "pc", "ability_id": self.rng.choice(BAD_IDS[:-1])}
        return self.text(self.envelope("choose_ability", data))

    def non_object_framing(self) -> dict:
        side = self.rng.choice(["pc", "opponent"])
        framing = {"kind": "simple", "prize": "x", side: self.rng.choice([[1], "Tamsin", 5, True])}
        return self.text(self.envelope("frame", framing))

    def huge_rating(self) -> dict:
        rating = self.rng.choice([10**30, -(10**30), "10W99999999999", "abc", 1.5])
        data = {"side": "opponent", "ability": "Flood", "rating": rating}
        return self.text(self.envelope("choose_ability", data))

    def oversized(self) -> dict:
        size = self.rng.choice([5_000, 20_000, 200_000])
        data = {"side": "pc", "tactic": "x" * size}
        return self.text(self.envelope("set_tactic", data))

    def raw_bytes(self) -> dict:
        choices = [b"\xff\xfe\xfd", b'{"action": "roll"}', bytes(self.rng.randbytes(64))]
        return {"bytes_data": self.rng.choice(choices)}

    def non_object(self) -> dict:
        return {"text_data": json.dumps(self.rng.choice([1, "roll", [], None, True, 1.5]))}

    def unknown_action(self) -> dict:
        action = self.rng.choice(["drop_table", "", "ROLL", "roll ", "__class__", "x" * 500])
        return self.text(self.envelope(action, {}))

    def wrong_field_type(self) -> dict:
        action = self.rng.choice(sorted(DATA_MODELS))
        fields = sorted(DATA_MODELS[action].model_fields)
        if not fields:
            return self.text(self.envelope(action, {"unexpected": 1}))
        field = self.rng.choice(fields)
        return self.text(self.envelope(action, {field: self.rng.choice(BAD_SCALARS)}))

    def bad_envelope(self) -> dict:
        message = self.envelope("roll", {})
        what = self.rng.choice(["seq", "data", "key", "extra"])
        if what == "seq":
            message["seq"] = self.rng.choice(["3", [3], 10**30, -5, 1.5])
        elif what == "data":
            message["data"] = self.rng.choice([[1], "x", 5, True])
        elif what == "key":
            message["key"] = self.rng.choice([[1], {"k": 1}, "k" * 500, 5])
        else:
            message["contest"] = self.rng.choice([[self.contest], {"id": self.contest}])
        return self.text(message)


@database_sync_to_async
def frame_contest(table, tamsin):
    return table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )


async def test_malformed_frames_never_close_the_socket_nor_store_anything(
    campaign, table, session, gm, alice, tamsin, settings, caplog
):
    settings.ACTION_RATE_LIMIT = "100000/minute"  # every frame reaches the parser
    contest = await frame_contest(table, tamsin)
    rng = random.Random(SEED)
    seen: dict[str, int] = {}
    with caplog.at_level(logging.WARNING):
        for user in (alice, gm):
            cookie = await database_sync_to_async(session_cookie)(user)
            socket = table_socket(application, campaign.pk, cookie)
            assert (await socket.connect())[0]
            await receive_until(socket, 'id="contest"')
            frames = Frames(rng, contest.pk)
            for _ in range(FRAMES_EACH):
                kind, frame = frames.draw()
                seen[kind] = seen.get(kind, 0) + 1
                await socket.send_to(**frame)
                answer = await socket.receive_output(timeout=10)
                while answer.get("text", "").lstrip().startswith('<ul id="presence"'):
                    answer = await socket.receive_output(timeout=10)  # someone came or went
                assert answer["type"] == "websocket.send", (kind, frame, answer)
                assert 'id="table-error"' in answer["text"], (kind, answer)
                assert (
                    "Nothing was done" in answer["text"] or "nothing was done" in answer["text"]
                ), (kind, answer["text"][:300])
            # Still open: it answers a resync with the whole table.
            await socket.send_to(text_data='{"action": "resync"}')
            assert 'data-seq="1"' in await receive_until(socket, 'id="contest"', limit=40)
            await socket.disconnect()

    assert set(seen) == {kind.__name__ for kind in Frames(rng, 0).kinds}
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert problems == [], [r.getMessage() for r in problems[:5]]
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1  # the framing
    assert await TablePresence.objects.acount() == 0
