"""One data model per table action: what a browser may send, and what the server
completes (the sheet's fields, the dice). The declarations are in registry.py."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..rules.extended_group.state import DARING_LEVELS, ORDER_RULES
from ..rules.ratings import RESISTANCE_LEVELS
from ..rules.scored.tables import TACTICS
from ..rules.scored_group.participants import ROLES
from ..terms import MAX_SIDE, MODIFIER_KINDS, VARIANTS
from .declaration import Data, Declared, Pick, Place
from .fields import (
    AUGMENT_KINDS,
    CONTEST_KINDS,
    ESCALATIONS,
    MAX_ID,
    MAX_ROWS,
    ROUNDINGS,
    STAKES,
    Flag,
    Id,
    Level,
    Name,
    Names,
    OneOf,
    RatingValue,
    ShortText,
    Side,
    States,
    Text,
    Whole,
)

# -- the models -----------------------------------------------------------------------------


class Nothing(Data):
    """An action that takes no data."""


class Holder(Data):
    """The side (one-on-one) or participant (group) an action names."""

    side: Side | None = None
    participant: Name | None = None


class SheetChoice(Holder):
    """An ability: the sheet's (`ability_id`), one added as you go (`new_ability`, §3.1,
    with its rating), or the GM's words and rating for a participant without a sheet."""

    GM_ONLY = frozenset({"rating", "states"})

    ability: Name | None = None
    ability_id: Id | None = None
    new_ability: Name | None = None
    rating: RatingValue | None = None
    states: States | None = None


class PartyRef(Data):
    """A side framed from a character's sheet."""

    character_id: Id | None = None
    ability_id: Id | None = None


class Opposition(PartyRef):
    """The opposition: a character, a resistance class or rating, or a library NPC."""

    name: Name | None = None
    level: Level | None = None
    rating: RatingValue | None = None
    npc_id: Id | None = None
    ability: Name | None = None


class ParticipantRow(Opposition):
    """One row of a group contest's participants (a blank row of the form is {}); a
    sidekick from its owner's sheet with the ability it acts with (§5.2.4, §6.5.1)."""

    side: Annotated[str, Text(MAX_SIDE)] | None = None
    role: Annotated[str, OneOf(ROLES)] | None = None
    owner: Name | None = None
    sidekick_ability_id: Id | None = None


class Frame(Data):
    kind: Annotated[str, OneOf(CONTEST_KINDS)] | None = None
    prize: Annotated[str, Text()] | None = None
    secondary_prize: Annotated[str, Text()] | None = None
    obstacle: Annotated[str, Text()] | None = None
    variant: Annotated[str, OneOf(VARIANTS)] | None = None
    stakes: Annotated[str, OneOf(STAKES)] | None = None
    pc: PartyRef | None = None
    opponent: Opposition | None = None
    draw_id: Id | None = None
    participants: Annotated[list[ParticipantRow], Field(max_length=MAX_ROWS)] | None = None
    characters: Annotated[list[Id], Field(max_length=MAX_ROWS)] | None = None
    pc_side: Annotated[str, Text(MAX_SIDE)] | None = None
    order: Annotated[str, OneOf(ORDER_RULES)] | None = None
    # A player's proposal the GM frames, amended as the form says (issue 30).
    proposal: Id | None = None


class ChooseAbility(SheetChoice):
    def gm_only(self) -> frozenset[str]:
        # A new ability added as you go (§3.1) comes with the rating its player gives
        # it, which the character's creation budget bounds (characters.services). Only
        # here: switching abilities or a final action reads one already on the sheet.
        if self.new_ability is not None:
            return self.GM_ONLY - {"rating"}
        return self.GM_ONLY


class SetTactic(Holder):
    tactic: Annotated[str, Text()] | None = None
    round_tactic: Annotated[str, OneOf(TACTICS)] | None = None


class Augment(Holder):
    GM_ONLY = frozenset({"rating", "rounding", "base_resistance", "bonus"})

    kind: Annotated[str, OneOf(AUGMENT_KINDS)] | None = None
    helper: Name | None = None
    ability: Name | None = None
    helper_ability_id: Id | None = None
    bonus: Annotated[int, Whole(-40, 40)] | None = None
    rating: RatingValue | None = None
    rounding: Annotated[str, OneOf(ROUNDINGS)] | None = None
    base_resistance: Annotated[int, Whole(1, 99)] | None = None


class Modifier(Holder):
    GM_ONLY = frozenset({"value", "bumps"})

    kind: Annotated[str, OneOf(MODIFIER_KINDS)] | None = None
    value: Annotated[int, Whole(-40, 40)] | None = None
    bumps: Annotated[int, Whole(-3, 3)] | None = None
    label: Annotated[str, Text(80)] | None = None


class RemoveModifier(Holder):
    index: Annotated[int, Whole(0, 99)]


class EnterRoll(Holder):
    entered: Annotated[int, Whole(1, 20)]


class HeroPoint(Holder):
    pass


class Resolve(Data):
    both_lose_half: Flag | None = None


class Consequence(Data):
    side: Side | None = None
    participant: Name | None = None
    state: ShortText


class ConsequenceEdit(Data):
    """The GM's edit from the form, per side ("" is none): its state of adversity, and
    its state of fortune (a winner may take both, a wound and a benefit: R18.6)."""

    pc: ShortText | None = None
    opponent: ShortText | None = None
    pc_benefit: ShortText | None = None
    opponent_benefit: ShortText | None = None


class ApplyConsequences(Data):
    consequences: Annotated[list[Consequence], Field(max_length=50)] | None = None
    edit: ConsequenceEdit | None = None
    narration: Annotated[str, Text()] | None = None


class Narrate(Data):
    narration: Annotated[str, Text()]


class ConfusingTie(Data):
    pass


class BothFumble(Data):
    participant: Name


class NoRelevantAbility(Holder):
    pass


class Escalate(Data):
    into: Annotated[str, OneOf(ESCALATIONS)]


class Bid(Data):
    bid: Annotated[int, Whole(1, 999)]


class PartingShot(Holder):
    target: Name | None = None
    bid: Annotated[int, Whole(1, 999)] | None = None


class UnrelatedAction(Holder):
    GM_ONLY = frozenset({"resistance_level"})

    description: Annotated[str, Text()] | None = None
    resistance_level: Annotated[str, OneOf(RESISTANCE_LEVELS)] | None = None


class Disengage(Holder):
    opponent: Name | None = None


class Gift(Data):
    GM_ONLY = frozenset({"rating"})

    recipient: Name
    opponent: Name | None = None
    helper: Name | None = None
    ability: Name | None = None
    helper_ability_id: Id | None = None
    rating: RatingValue | None = None
    bid: Annotated[int, Whole(1, 999)] | None = None
    wait_for_hero_point: Flag | None = None


class Boost(Holder):
    pass


class Engage(Data):
    pc: Name
    opponent: Name


class PlayRound(Data):
    pairing: Annotated[int, Whole(1, 99)]


class Assist(Holder):
    GM_ONLY = frozenset({"resistance_shift"})

    recipient: Name | None = None
    pairing: Annotated[int, Whole(1, 99)] | None = None
    resistance_shift: Annotated[int, Whole(-1, 1)] | None = None


class RemoveFollower(Holder):
    follower: Name | None = None


class ShiftPoints(Holder):
    follower: Name | None = None
    pairing: Annotated[int, Whole(1, 99)] | None = None
    points: Annotated[int, Whole(0, 99)] | None = None


class Join(Data):
    GM_ONLY = frozenset({"rating", "level", "npc_id", "states"})

    name: Name | None = None
    side: Annotated[str, Text(MAX_SIDE)] | None = None
    character_id: Id | None = None
    ability_id: Id | None = None
    ability: Name | None = None
    rating: RatingValue | None = None
    level: Level | None = None
    npc_id: Id | None = None
    states: States | None = None
    role: Annotated[str, OneOf(ROLES)] | None = None
    owner: Name | None = None


class SwitchAbility(SheetChoice):
    pairing: Annotated[int, Whole(1, 99)] | None = None


class Declare(Holder):
    targets: Names | None = None
    target: Name | None = None
    bid: Annotated[int, Whole(1, 999)] | None = None
    daring: Annotated[str, OneOf(DARING_LEVELS)] | None = None


class Delay(Holder):
    pass


class Act(Holder):
    target: Name | None = None
    bid: Annotated[int, Whole(1, 999)] | None = None


class Rejoin(Holder):
    # §5.3.9: "the narrator may restore some of your AP".
    GM_ONLY = frozenset({"restore"})

    restore: Annotated[int, Whole(0, 999)] | None = None


class Lend(Holder):
    target: Name | None = None
    amount: Annotated[int, Whole(1, 999)] | None = None


class FinalAction(SheetChoice):
    pass


# -- what the server completes -------------------------------------------------------------
# The flows read an action's data as its completed model: what the browser sent (the
# models above), with what the server filled in: the sheet's fields, read by the
# service (contests/services/sheets.py), and the dice rolled for the action. The event
# stores the completed data, and a replay or an undo reads it back through the same
# model. A message never carries these fields: the browser's models above refuse them.

Die = Annotated[int, Whole(1, 20)]


class Rolls(Data):
    """The dice rolled for an action (by the server, or a physical d20 entered before),
    recorded with its data so that a replay reads them back: one-on-one, each side's and
    a helper's against its resistance; in a group contest under `dice`, by roller (a
    long contest's action) or by participant, then roller (a simple group contest)."""

    pc_roll: Die | None = None
    opponent_roll: Die | None = None
    roll: Die | None = None
    resistance_roll: Die | None = None
    dice: dict[str, Die | dict[str, Die]] | None = None


class Penalty(Data):
    """A community penalty on the chosen ability (§8.2), as the service read it."""

    label: Annotated[str, Text()]
    value: Annotated[int, Whole(-MAX_ID, MAX_ID)]


class CompletedRoll(Rolls):
    pass


class CompletedChooseAbility(ChooseAbility):
    sheet_penalties: Annotated[list[Penalty], Field(max_length=MAX_ROWS)] | None = None


class CompletedAugment(Augment, Rolls):
    helper_character_id: Id | None = None  # who helps, read from the helping ability


class CompletedGift(Gift, Rolls):
    helper_character_id: Id | None = None  # who gives, read from the giving ability


class CompletedJoin(Join):
    player_id: Id | None = None  # the joining character's player


class CompletedDisengage(Disengage, Rolls):
    pass


class CompletedPartingShot(PartingShot, Rolls):
    pass


class CompletedUnrelatedAction(UnrelatedAction, Rolls):
    pass


class CompletedPlayRound(PlayRound, Rolls):
    pass


class CompletedAssist(Assist, Rolls):
    pass


class CompletedRemoveFollower(RemoveFollower, Rolls):
    pass


class CompletedAct(Act, Rolls):
    pass


class CompletedLend(Lend, Rolls):
    pass


class CompletedFinalAction(FinalAction, Rolls):
    pass


# -- the declarations -----------------------------------------------------------------------
# One line per action: everything else the table knows of it is derived (registry.py).

DECLARED: tuple[Declared, ...] = (
    Declared("frame", Frame, "framed the contest", event_type="framed"),
    Declared("undo", Nothing, "undid an action", event_type="undone"),
    Declared(
        "choose_ability",
        ChooseAbility,
        "chose an ability",
        # An ability added as it is chosen (§3.1) reloads its player's sheet apart
        # (contests/services/sheets.py); the pick's offer comes with the panel.
        sheets=False,
        place=Place.HOLDER,
        pick=Pick.ABILITY,
        completed=CompletedChooseAbility,
    ),
    Declared("set_tactic", SetTactic, "chose a tactic", sheets=False, place=Place.HOLDER),
    Declared(
        "augment",
        Augment,
        "augmented",
        sheets=False,
        place=Place.GENERAL,
        pick=Pick.HELPER,
        completed=CompletedAugment,
    ),
    Declared("modifier", Modifier, "added a modifier", sheets=False, place=Place.GENERAL),
    Declared(
        "remove_modifier", RemoveModifier, "removed a modifier", sheets=False, place=Place.EACH_LINE
    ),
    Declared("enter_roll", EnterRoll, "entered a roll", sheets=False, place=Place.HOLDER),
    Declared("roll", Nothing, "rolled", sheets=False, completed=CompletedRoll),
    Declared("reveal", Nothing, "revealed a roll", sheets=False),
    Declared("hero_point", HeroPoint, "spent a hero point", place=Place.HOLDER, in_bar=True),
    Declared("resolve", Resolve, "resolved the roll", sheets=False),
    Declared("apply_consequences", ApplyConsequences, "confirmed the consequences"),
    Declared("narrate", Narrate, "narrated", sheets=False),
    Declared("automatic_victory", Nothing, "took an automatic victory"),
    Declared("pyrrhic", Nothing, "fought for a pyrrhic victory", place=Place.FLOW),
    Declared("escalate", Escalate, "escalated the contest"),
    Declared("confusing_tie", ConfusingTie, "ruled the tie a marginal victory"),
    Declared("both_fumble", BothFumble, "ruled a double fumble a marginal defeat"),
    Declared("no_relevant_ability", NoRelevantAbility, "ruled there is no relevant ability"),
    Declared("bid", Bid, "bid", sheets=False, place=Place.FLOW),
    Declared(
        "parting_shot",
        PartingShot,
        "took a parting shot",
        place=Place.FLOW,
        completed=CompletedPartingShot,
    ),
    Declared(
        "unrelated_action",
        UnrelatedAction,
        "took an unrelated action",
        place=Place.HOLDER,
        completed=CompletedUnrelatedAction,
    ),
    Declared(
        "disengage",
        Disengage,
        "tried to disengage",
        place=Place.HOLDER,
        completed=CompletedDisengage,
    ),
    Declared(
        "gift",
        Gift,
        "gave advantage points",
        place=Place.GENERAL,
        pick=Pick.GIVER,
        completed=CompletedGift,
    ),
    Declared("boost", Boost, "boosted", spends_for="a boost"),
    Declared("engage", Engage, "engaged an opponent", place=Place.GENERAL),
    Declared("play_round", PlayRound, "played a round", completed=CompletedPlayRound),
    Declared("assist", Assist, "assisted", completed=CompletedAssist),
    Declared(
        "remove_follower", RemoveFollower, "removed a follower", completed=CompletedRemoveFollower
    ),
    Declared("shift_points", ShiftPoints, "shifted points"),
    Declared(
        "join",
        Join,
        "joined the contest",
        place=Place.GENERAL,
        pick=Pick.JOINER,
        completed=CompletedJoin,
    ),
    Declared("switch_ability", SwitchAbility, "switched ability", pick=Pick.SWITCH),
    Declared("declare", Declare, "declared an action", sheets=False),
    Declared("delay", Delay, "delayed", sheets=False),
    Declared("act", Act, "acted", sheets=False, completed=CompletedAct),
    Declared("rejoin", Rejoin, "rejoined the contest", place=Place.GENERAL),
    Declared("lend", Lend, "lent advantage points", completed=CompletedLend),
    Declared(
        "final_action",
        FinalAction,
        "took a final action",
        pick=Pick.FINAL,
        completed=CompletedFinalAction,
        spends_for="a final action",
    ),
)
