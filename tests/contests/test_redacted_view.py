"""Each audience's templates receive only what it may see (issue 12, item 5): the GM's
hidden dice are taken out in Python (contests/audience.py) before any template runs,
not hidden with {% if %}.

Each test plays a contest with the campaign's GM rolls hidden, the GM's die a number
(19) that no other value of the contest shows, then walks the whole context a player's
and a spectator's templates get (dicts, lists, dataclasses, objects' attributes): the
number is in none of their values, while the GM's context has it.
"""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests import live
from contests.core.table.state import copy_state as view_copy

from .conftest import ability
from .test_live_group import extended, frame, pc, ready

pytestmark = pytest.mark.django_db

SECRET = 19
OTHERS = ("player", "spectator")
# Keys whose numbers are ids, counters or form limits, not dice (an id may be 19).
NOT_DICE = {"id", "pk", "seq", "number", "for_user", "player_for", "sheet_selected", "value"}
NOT_DICE |= {"minimum", "maximum", "limit"}
# Keys of the contest's state (and its pending roll) that no view carries whole.
STATE_ONLY = {"hide_gm_rolls", "roster", "rounds", "machine", "revealed", "args", "both_fumble"}


def nodes(value, path=(), seen=None):
    """Every (path, value) reachable from a template context, containers included:
    dicts, lists, dataclasses and plain objects' attributes (a model's fields), each
    object once."""
    seen = set() if seen is None else seen
    yield path, value
    if isinstance(value, str | int | float | bool) or value is None or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            yield from nodes(item, (*path, str(key)), seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from nodes(item, path, seen)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from nodes(getattr(value, f.name), (*path, f.name), seen)
    elif hasattr(value, "__dict__"):
        for key, item in vars(value).items():
            if not key.startswith("_"):
                yield from nodes(item, (*path, key), seen)


def is_id(path) -> bool:
    return bool(path) and (path[-1] in NOT_DICE or path[-1].endswith("_id") or "sheet" in path)


def showing(context, number: int = SECRET) -> list:
    """Where `number` is in the context: a number that is not an id, or a word of a text
    (not a section number such as §2.19.2)."""
    word = re.compile(rf"(?<![\d.§]){number}(?!\d|\.\d)")
    found = []
    for path, value in nodes(context):
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and value == number and not is_id(path):
            found.append(path)
        elif isinstance(value, str) and word.search(value):
            found.append((*path, value))
    return found


def texts(context) -> set[str]:
    return {value for _, value in nodes(context) if isinstance(value, str)}


def page_text(html: str) -> str:
    """What a browser shows of the fragments (their attributes hold ids)."""
    return re.sub(r"<[^>]+>", " ", html)


def assert_hidden(contest, *secrets: str) -> dict:
    """The GM's context and page show the hidden die; the players' and spectators'
    hold it nowhere, nor any of `secrets` (texts that would give it away), nor the
    contest's state. Returns the contexts."""
    contexts = {}
    for audience in ("gm", *OTHERS):
        shared: dict = {}
        contexts[audience] = live.contest_context(contest, audience, shared)
        # Nothing in any view is the flow's state or a part of it: views are copies.
        state_parts = {id(v) for _, v in nodes(shared["flow"].state) if isinstance(v, dict | list)}
        shared_parts = [p for p, v in nodes(contexts[audience]) if id(v) in state_parts]
        assert shared_parts == [], (audience, shared_parts)
    assert showing(contexts["gm"]), "the GM's own view lost the roll"
    pages = live.render_audiences(contest)
    assert re.search(rf"(?<![\d.§]){SECRET}(?!\d|\.\d)", page_text(pages["gm"]))
    # Every copy but the GM's: the public one and each player's own.
    readers = [int(name.split(":")[1]) for name in pages if name.startswith("player:")]
    others = {audience: contexts[audience] for audience in OTHERS}
    for reader in readers:
        others[f"player:{reader}"] = live.contest_context(contest, "player", reader=reader)
    for audience, context in others.items():
        assert showing(context) == [], audience
        assert not texts(context) & set(secrets), audience
        assert "flow" not in context and "state" not in context
        assert not hasattr(context["contest"], "state")
        raw = [p for p, v in nodes(context) if isinstance(v, dict) and STATE_ONLY & v.keys()]
        assert raw == [], audience
    for name, html in pages.items():
        if name == "gm":
            continue
        page = page_text(html)
        assert not re.search(rf"(?<![\d.§]){SECRET}(?!\d|\.\d)", page), name
        assert not any(secret in html for secret in secrets), name
        assert "in secret" in page
    return contexts


@pytest.fixture
def hidden_rolls(campaign):
    campaign.roll_visibility = "gm_hidden"
    campaign.physical_dice = True
    campaign.save()
    return campaign


def test_a_hidden_one_on_one_roll_is_in_no_players_view(
    table, hidden_rolls, session, gm, alice, tamsin
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(5, SECRET))
    gm_pending = live.contest_context(contest, "gm")["view"]["pending"]
    assert gm_pending["opponent_roll"] == SECRET and not gm_pending["secret"]
    contexts = assert_hidden(contest, gm_pending["describe"])
    for audience in OTHERS:
        pending = contexts[audience]["view"]["pending"]
        assert pending["secret"] and pending["pc_roll"] == 5  # their own die is theirs
        assert (pending["opponent_roll"], pending["opponent_result"], pending["describe"]) == (
            None,
            None,
            None,
        )
    # A hero point on the hidden roll keeps it hidden.
    table.act(contest, alice, "hero_point", side="pc")
    assert_hidden(contest, live.contest_context(contest, "gm")["view"]["pending"]["describe"])
    table.act(contest, gm, "reveal")
    assert showing(live.contest_context(contest, "player"))  # shown once revealed


def test_a_physical_die_the_gm_entered_is_in_no_players_view(
    table, hidden_rolls, session, gm, tamsin
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(contest, gm, "enter_roll", side="opponent", entered=SECRET)
    assert showing(live.contest_context(contest, "gm"))
    for audience in OTHERS:
        assert showing(live.contest_context(contest, audience)) == [], audience
        assert f"Physical roll entered: {SECRET}" not in live.render_contest(contest, audience)


def test_a_group_simple_contests_hidden_rolls_are_in_no_players_view(
    table, hidden_rolls, session, gm, alice, tamsin, brannoc
):
    contest = frame(
        table,
        "group_simple",
        [
            pc(tamsin, "Boatcraft"),
            pc(brannoc, "Temple singer"),
            {"name": "The Grey River", "level": "high"},
        ],
    )
    # Tamsin rolls 10 and Brannoc 5 in the open; the river's dice are the GM's.
    table.act(contest, gm, "roll", rolls=(10, SECRET, 5, SECRET))
    pairings = live.contest_context(contest, "gm")["view"]["pending"]["pairings"]
    assert [p["resistance_roll"] for p in pairings] == [SECRET, SECRET]
    contexts = assert_hidden(contest, *{p["describe"] for p in pairings})
    for audience in OTHERS:
        shown = contexts[audience]["view"]["pending"]["pairings"]
        assert [(p["roll"], p["resistance_roll"], p["describe"]) for p in shown] == [
            (10, None, None),
            (5, None, None),
        ]
        assert all(p["resistance_secret"] and not p["roll_secret"] for p in shown)
        assert all(p["opponent_result"] is None for p in shown)
    table.act(contest, alice, "hero_point", participant="Tamsin")
    assert_hidden(contest, *{p["describe"] for p in pairings})
    table.act(contest, gm, "reveal")
    assert showing(live.contest_context(contest, "spectator"))


def test_a_long_contests_hidden_roll_is_in_no_players_view(
    table, hidden_rolls, session, gm, alice, tamsin
):
    """A scored contest: the first round's dice are shown once resolved, the second
    round's GM die is hidden again while hero points may be spent."""
    contest = table.frame(
        "scored", pc=tamsin, prize="hold the bridge", opponent={"name": "Raiders", "rating": "14"}
    )
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    # Round 1 is a marginal victory (shown to all once resolved), so the words of round
    # 2's hidden minor victory appear nowhere else.
    table.act(contest, gm, "roll", rolls=(5, 3))
    table.act(contest, gm, "resolve")
    table.act(contest, gm, "roll", rolls=(6, SECRET))
    gm_view = live.contest_context(contest, "gm")
    assert gm_view["totals"] is not None
    assert_hidden(contest, gm_view["view"]["pending"]["describe"])
    table.act(contest, gm, "reveal")
    assert showing(live.contest_context(contest, "player"))


def test_a_long_group_contests_hidden_roll_is_in_no_players_view(
    table, hidden_rolls, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    table.act(contest, bob, "declare", participant="Brannoc", targets="Chief", bid=4)
    table.act(contest, gm, "declare", participant="Chief", targets="Brannoc", bid=6)
    # The Chief acts first (the highest bid) against Brannoc: the Chief's die is the GM's.
    table.act(contest, gm, "act", rolls=(SECRET, 11), participant="Chief")
    pending = live.contest_context(contest, "gm")["view"]["pending"]
    assert [(r["who"], r["roll"]) for r in pending["rolls"]] == [("Chief", SECRET), ("Brannoc", 11)]
    contexts = assert_hidden(contest, pending["summary"])
    for audience in OTHERS:
        shown = contexts[audience]["view"]["pending"]
        assert shown["summary"] is None
        assert [(r["who"], r["roll"], r["secret"]) for r in shown["rolls"]] == [
            ("Chief", None, True),
            ("Brannoc", 11, False),
        ]


def test_no_template_gets_the_contest_row_its_flow_or_its_state(table, session, gm, tamsin):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    for audience in ("gm", *OTHERS):
        context = live.contest_context(contest, audience)
        assert "flow" not in context and "state" not in context
        assert not hasattr(context["contest"], "state")


# The contest's state as JSON holds it: objects, lists, text, numbers, flags, nulls.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=25,
)


def _containers(value, found=None):
    found = [] if found is None else found
    if isinstance(value, dict | list):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


@given(JSON)
def test_a_view_copies_the_state_whole_and_shares_none_of_it(state):
    """Each audience's view, and the state an action puts back when it is refused, is a
    copy of the contest's state (contests/core/table/state.py `copy_state`): equal to
    it, and no dict or list of it is the state's own, so nothing a view or a refused
    action does reaches the state."""
    copied = view_copy(state)
    assert copied == copy.deepcopy(state)
    theirs = {id(c) for c in _containers(state)}
    assert not theirs & {id(c) for c in _containers(copied)}
