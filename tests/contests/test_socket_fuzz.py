"""Thousands of malformed frames through the real ASGI application (issue 12, item 1).

The probe that found the crashes: "Of 10,000 malformed frames, 412 closed the socket
with 1011 and a traceback: JSON nested about 1,000 deep, a lone surrogate in any text,
a NUL character, non-numeric ids, a non-object pc/opponent in frame, a rating of 10**30.
Each crash left its presence row behind."

Here, from a player and from the GM: first a sweep of every field of every action (from
the action models, nested rows included) with values of every wrong kind, NUL and lone
surrogates in every text, then frames drawn from one seeded generator (deep nesting in
every part of a message, bytes and invalid UTF-8, oversized frames, odd JSON, unknown
actions, missing fields, non-object JSON). Every frame gets an answer a browser can be
sent (UTF-8), the server never closes the socket, nothing is logged as an error, no
event is stored beyond the framing, and no presence row is left once the sockets close.

Then the values the types accept, at their extremes (the largest rating and id, text at
its limit), through `perform` for every action at a table of each kind: the services
refuse or carry them out, and never raise.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import transaction
from pydantic import BaseModel

from contests.core.actions import DATA_MODELS, MAX_DEPTH
from contests.core.actions.fields import MAX_ID, MAX_RATING
from contests.models import ContestEvent, TablePresence
from contests.table_actions import perform
from questworlds_site.asgi import application
from tests.examples import examples

from .socket_helpers import receive_until, session_cookie, table_socket
from .test_action_numbers import base_data, bounds, fields_of, frame, kinds_playing, with_value

SEED = 20261124
# Per person, after the sweep (1,700 frames a person): 225 under the "ci" Hypothesis
# profile, each of the 13 kinds about 17 times; 9,000 under "thorough" (tests/examples.py).
RANDOM_FRAMES = examples(900)
MAX_FRAME = 4096  # contests.consumers.MAX_MESSAGE_BYTES

# Wrong values for each kind of field (None is not among them: an optional field takes it).
WRONG = {
    "Whole": ["abc", "1", [1], {"id": 1}, 1.5, True, -(2**31), 2**31, 10**30, ""],
    "_rating": [10**30, -1, 1000, "20M99999999", "99999999999", "abc", 1.5, False, [17], "7M\x00"],
    "Text": [5, [1], {"a": 1}, True, 1.5],
    "OneOf": ["nope", 5, ["pc"], {"pc": 1}, "PC ", True],
    "_flag": ["yes", 1, 0, [True], "true"],
    "_names": [5, [5], [["x"]], {"a": "b"}, ["x"] * 21],
}
BAD_OBJECTS = [[1], "Tamsin", 5, True, [{"character_id": 1}]]
BAD_LISTS = ["x", {"a": 1}, [None], [[1]], 7]
ODD_JSON = [
    "",
    " ",
    "{",
    '{"action": "roll"',
    '{"action": "roll"} trailing',
    "\ufeff{}",
    "NaN",
    '{"action": NaN}',
    '{"action": "roll", "contest": Infinity, "key": "k"}',
    '{"action": "roll", "contest": 1e400, "key": "k"}',
    '{"action": "roll", "contest": -0, "key": "k"}',
    '{"action": "roll", "action": "frame"}',
    '{"action": "roll", "contest": ' + "9" * 5000 + "}",
    '{"\\u0000": 1}',
    '{"action": "\\ud800\\udc00"}',
    '"\\udfff"',
    "null",
]


def typing_model(annotation) -> bool:
    """Whether a field holds an object (a nested model, as the framing's pc does)."""
    return any(
        isinstance(t, type) and issubclass(t, BaseModel)
        for t in (annotation, *getattr(annotation, "__args__", ()))
    )


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


class Frames:
    """Malformed frames, each with a name saying what is wrong with it."""

    def __init__(self, rng: random.Random, contest_id: int) -> None:
        self.rng, self.contest = rng, contest_id

    def key(self) -> str:
        return f"fuzz-{self.rng.getrandbits(48):x}"

    def envelope(self, action: str, data: Any) -> dict:
        return {"action": action, "contest": self.contest, "key": self.key(), "data": data}

    def text(self, message: Any, *, raw: bool = False) -> dict:
        """As JSON text; `raw` keeps non-ASCII (a lone surrogate) unescaped in the frame."""
        return {"text_data": json.dumps(message, ensure_ascii=not raw)}

    # -- the sweep: every field of every action ---------------------------------------

    def sweep(self) -> Iterator[tuple[str, dict]]:
        for action, model in sorted(DATA_MODELS.items()):
            data = base_data(action, "simple")
            for path, kind, validator in fields_of(model):
                for value in self.wrong(kind, validator):
                    message = self.envelope(action, with_value(data, path, value))
                    yield f"{action}.{path}={value!r:.20}", self.text(message)
                if kind in ("Text", "_names", "OneOf", "_rating"):
                    for value, raw in (("a\x00b", False), ("x\ud800y", False), ("\udfff", True)):
                        message = self.envelope(action, with_value(data, path, value))
                        yield f"{action}.{path} text {value!r}", self.text(message, raw=raw)
            for name, info in model.model_fields.items():
                if typing_model(info.annotation):
                    for value in BAD_OBJECTS:
                        message = self.envelope(action, {**data, name: value})
                        yield f"{action}.{name} object {value!r:.20}", self.text(message)
                if "list[" in repr(info.annotation):
                    for value in BAD_LISTS:
                        message = self.envelope(action, {**data, name: value})
                        yield f"{action}.{name} list {value!r:.20}", self.text(message)
                if info.is_required():
                    message = self.envelope(action, {k: v for k, v in data.items() if k != name})
                    yield f"{action}.{name} missing", self.text(message)
            yield f"{action} unknown field", self.text(self.envelope(action, {**data, "x": 1}))
            message = self.envelope(action, data)
            del message["key"]  # every action needs its idempotency key
            yield f"{action} without a key", self.text(message)

    @staticmethod
    def wrong(kind: str, validator) -> list[Any]:
        values = list(WRONG[kind])
        made = bounds(validator)
        if kind == "Whole":
            values += [made["minimum"] - 1, made["maximum"] + 1]
        if kind == "Text":
            values.append("x" * min(made["limit"] + 1, MAX_FRAME))
        return values

    # -- drawn at random ----------------------------------------------------------------

    def draw(self) -> tuple[str, dict]:
        kind = self.rng.choice(self.KINDS)
        return kind.__name__, kind(self)

    def deep(self) -> dict:
        depth = self.rng.choice([MAX_DEPTH + 1, 40, 200, 900, 990, 1000, 1500])
        where = self.rng.choice(["whole", "action", "key", "contest", "seq", "data", "field"])
        if where == "whole":
            return {"text_data": "[" * depth + "]" * depth}
        message = self.envelope("set_tactic", {"side": "pc", "tactic": "ford"})
        if where == "field":
            message["data"]["tactic"] = nested(depth)
        else:
            message[where] = nested(depth)
        try:
            return self.text(message)
        except RecursionError:  # deeper than json.dumps goes: write it by hand
            return {"text_data": '{"action": ' + "[" * depth + "]" * depth + "}"}

    def lone_surrogate(self) -> dict:
        message = self.envelope("narrate", {"narration": "the river"})
        where = self.rng.choice(["action", "key", "data", "name"])
        if where == "name":
            message["data"] = {"\ud83d": "x"}
        elif where == "data":
            message["data"]["narration"] = "swim \ud83d here"
        else:
            message[where] = "x\udfff"
        return self.text(message, raw=self.rng.random() < 0.5)

    def nul(self) -> dict:
        message = self.envelope("narrate", {"narration": "the river"})
        where = self.rng.choice(["action", "key", "name", "framing"])
        if where == "name":
            message["data"] = {"narr\x00ation": "x"}
        elif where == "framing":
            message = self.envelope(
                "frame", {"kind": "simple", "opponent": {"name": "Grey\x00River", "level": "low"}}
            )
        else:
            message[where] = message[where] + "\x00"
        return self.text(message)

    def bad_id(self) -> dict:
        value = self.rng.choice(WRONG["Whole"] + [0, MAX_ID + 1])
        where = self.rng.choice(["contest", "ability_id", "pc", "participants", "characters"])
        if where == "contest":
            message = self.envelope("set_tactic", {"side": "pc", "tactic": "ford"})
            message["contest"] = value
        elif where == "ability_id":
            message = self.envelope("choose_ability", {"side": "pc", "ability_id": value})
        elif where == "pc":
            message = self.envelope("frame", {"kind": "simple", "pc": {"character_id": value}})
        elif where == "participants":
            rows = [{"name": "Raider", "npc_id": value}]
            message = self.envelope("frame", {"kind": "group_scored", "participants": rows})
        else:
            message = self.envelope("frame", {"kind": "group_simple", "characters": [value]})
        return self.text(message)

    def huge_rating(self) -> dict:
        rating = self.rng.choice(WRONG["_rating"] + [MAX_RATING + 1, 10**300])
        where = self.rng.choice(["choose_ability", "join", "opponent", "participants"])
        if where == "opponent":
            message = self.envelope("frame", {"kind": "simple", "opponent": {"rating": rating}})
        elif where == "participants":
            rows = [{"name": "Raider", "rating": rating}]
            message = self.envelope("frame", {"kind": "group_extended", "participants": rows})
        else:
            data = {"name": "Raider", "rating": rating}
            if where == "choose_ability":
                data = {"side": "opponent", "ability": "Flood", "rating": rating}
            message = self.envelope(where, data)
        return self.text(message)

    def non_object_framing(self) -> dict:
        side = self.rng.choice(["pc", "opponent", "participants", "edit"])
        value = self.rng.choice(BAD_OBJECTS + BAD_LISTS)
        if side == "edit":
            return self.text(self.envelope("apply_consequences", {"edit": value}))
        return self.text(self.envelope("frame", {"kind": "simple", "prize": "x", side: value}))

    def oversized(self) -> dict:
        size = self.rng.choice([MAX_FRAME + 1, 20_000, 200_000])
        return self.text(self.envelope("set_tactic", {"side": "pc", "tactic": "x" * size}))

    def raw_bytes(self) -> dict:
        choices = [
            b"\xff\xfe\xfd",
            b'{"action": "roll"}',
            "{}".encode("utf-16"),
            b'{"action": "narrate", "data": {"narration": "\xed\xa0\x80"}}',  # a surrogate
            b"\xc0\x80",  # an overlong NUL
            self.rng.randbytes(64),
        ]
        return {"bytes_data": self.rng.choice(choices)}

    def odd_json(self) -> dict:
        return {"text_data": self.rng.choice(ODD_JSON)}

    def non_object(self) -> dict:
        return self.text(self.rng.choice([1, "roll", [], [{"action": "roll"}], None, True, 1.5]))

    def unknown_action(self) -> dict:
        action = self.rng.choice(
            ["drop_table", "", "ROLL", "roll ", "__class__", "_do_roll", "resync\x00", "x" * 500]
        )
        return self.text(self.envelope(action, {}))

    def bad_envelope(self) -> dict:
        message = self.envelope("narrate", {"narration": "x"})
        what = self.rng.choice(["seq", "data", "key", "extra", "missing"])
        if what == "seq":
            message["seq"] = self.rng.choice(["3", [3], 10**30, -5, 1.5, True])
        elif what == "data":
            message["data"] = self.rng.choice([[1], "x", 5, True])
        elif what == "key":
            message["key"] = self.rng.choice([[1], {"k": 1}, "k" * 65, 5, ""])
        elif what == "extra":
            message[self.rng.choice(["user", "role", "gm", "actor"])] = 1
        else:
            del message[self.rng.choice(["action", "key", "contest"])]
        return self.text(message)

    def random_field(self) -> dict:
        """One field of one action with a wrong value, drawn from the models."""
        action = self.rng.choice(sorted(DATA_MODELS))
        fields = list(fields_of(DATA_MODELS[action]))
        data = base_data(action, "simple")
        if not fields:
            return self.text(self.envelope(action, {**data, "unexpected": 1}))
        path, kind, validator = self.rng.choice(fields)
        value = self.rng.choice(self.wrong(kind, validator))
        return self.text(self.envelope(action, with_value(data, path, value)))

    KINDS = [
        deep,
        lone_surrogate,
        nul,
        bad_id,
        huge_rating,
        non_object_framing,
        oversized,
        raw_bytes,
        odd_json,
        non_object,
        unknown_action,
        bad_envelope,
        random_field,
    ]


@database_sync_to_async
def frame_contest(table, tamsin, brannoc):
    return frame(table, "simple", tamsin, brannoc)


async def send(socket, frame_sent: dict) -> None:
    """One frame as the server receives it (`send_to` refuses an empty text frame)."""
    message = {"type": "websocket.receive"}
    if "text_data" in frame_sent:
        message["text"] = frame_sent["text_data"]
    else:
        message["bytes"] = frame_sent["bytes_data"]
    await socket.send_input(message)


async def answer_to(socket, what: str, frame_sent: dict) -> str:
    """The server's answer to one frame (presence updates aside): an error, never a close."""
    while True:
        answer = await socket.receive_output(timeout=10)
        assert answer["type"] == "websocket.send", (what, frame_sent, answer)
        text = answer["text"]
        if not text.lstrip().startswith('<ul id="presence"'):
            break
    text.encode("utf-8")  # servers send UTF-8: a lone surrogate here would crash it
    assert 'id="table-error"' in text, (what, text[:300])
    assert "nothing was done" in text.lower(), (what, text[:300])
    return text


@pytest.mark.django_db(transaction=True)
async def test_malformed_frames_never_close_the_socket_nor_store_anything(
    campaign, table, session, gm, alice, tamsin, brannoc, settings, caplog
):
    settings.ACTION_RATE_LIMIT = "100000/minute"  # every frame reaches the parser
    contest = await frame_contest(table, tamsin, brannoc)
    rng = random.Random(SEED)
    seen: dict[str, int] = {}
    swept = 0
    with caplog.at_level(logging.WARNING):
        for user in (alice, gm):
            cookie = await database_sync_to_async(session_cookie)(user)
            socket = table_socket(application, campaign.pk, cookie)
            assert (await socket.connect())[0]
            await receive_until(socket, 'id="contest"')
            assert await TablePresence.objects.acount() == 1
            frames = Frames(rng, contest.pk)
            for what, frame_sent in frames.sweep():
                await send(socket, frame_sent)
                await answer_to(socket, what, frame_sent)
                swept += 1
            for _ in range(RANDOM_FRAMES):
                kind, frame_sent = frames.draw()
                seen[kind] = seen.get(kind, 0) + 1
                await send(socket, frame_sent)
                await answer_to(socket, kind, frame_sent)
            # Still open: it answers a resync with the whole table.
            await socket.send_to(text_data='{"action": "resync"}')
            assert 'data-seq="1"' in await receive_until(socket, 'id="contest"', limit=40)
            await socket.disconnect()

    assert swept > 3000  # every field of every action, from each person
    assert set(seen) == {kind.__name__ for kind in Frames.KINDS}
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert problems == [], [r.getMessage() for r in problems[:5]]
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1  # the framing
    assert await TablePresence.objects.acount() == 0


# -- the values the types accept, at their extremes -----------------------------------------

EXTREMES = {
    "Whole": lambda made: [made["minimum"], made["maximum"]],
    "_rating": lambda made: [0, MAX_RATING, "19M49", "0", " 7 m 3 "],
    "OneOf": lambda made: list(made["allowed"]),
    "_flag": lambda made: [True, False],
    "Text": lambda made: ["", " ", "x" * made["limit"], "\u202eevil", "<b>{{ x }}</b>%s"],
    "_names": lambda made: [["x"] * 20, "Tamsin"],
}


class RolledBack(Exception):
    """Undo a message that was carried out: the next starts from the same table."""


@pytest.mark.django_db
def test_the_services_refuse_or_carry_out_the_extremes_and_never_raise(
    campaign, table, session, gm, alice, tamsin, brannoc, settings, caplog
):
    """Alice for Tamsin, the GM for the opposition (whose numbers are the GM's to give):
    each field of each action at its extremes, at a table of each kind that plays it."""
    settings.ACTION_RATE_LIMIT = "100000/minute"
    rng = random.Random(SEED)
    tables: dict[str, Any] = {}
    tried = 0
    for action, model in sorted(DATA_MODELS.items()):
        for kind in kinds_playing(action):
            if kind not in tables:
                tables[kind] = frame(table, kind, tamsin, brannoc)
            players = base_data(action, kind)
            gms = {**players}
            gms.update({k: v for k, v in OPPOSITION.items() if k in players})
            for path, field_kind, validator in fields_of(model):
                values = EXTREMES[field_kind](bounds(validator))
                if len(values) > 3:  # both ends and one between
                    values = [values[0], rng.choice(values[1:-1]), values[-1]]
                for value, (user, data) in itertools.product(values, ((alice, players), (gm, gms))):
                    message = {
                        "action": action,
                        "contest": tables[kind].pk,
                        "key": f"x{tried}",
                        "data": with_value(data, path, value),
                    }
                    tried += 1
                    try:
                        with transaction.atomic():
                            reply = perform(campaign_id=campaign.pk, user=user, message=message)
                            reply.error.encode("utf-8")
                            raise RolledBack
                    except RolledBack:
                        pass
    assert tried > 1000
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


OPPOSITION = {"side": "opponent", "participant": "The Grey River"}
