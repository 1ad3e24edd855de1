"""What an action's declaration says (`Declared`): its data (a `Data` model), its words,
and where its control sits on the panel. The declarations themselves are in models.py,
beside each action's model."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Data(BaseModel):
    """An action's data: only the fields listed, each checked as typed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    # The fields that decide a roll (a rating, a bonus, a resistance, a modifier's size):
    # only the GM sends them; a player's are read from the sheet, the library, the
    # framing or the campaign's options (issue 12).
    GM_ONLY: ClassVar[frozenset[str]] = frozenset()

    def gm_only(self) -> frozenset[str]:
        """The GM-only fields for this message (a model may depend on what else is sent)."""
        return self.GM_ONLY


class Place(StrEnum):
    """Where an action's control sits on the table's panel (contests/live/controls.py)."""

    # Under the side or participant it names when it can name only one (a group
    # contest's row); among the general controls, with a choice of whom, otherwise.
    NAMED = "named"
    # One form for each side or participant the actor may name, under each.
    HOLDER = "holder"
    # Among the general controls always (naming whom it is for in a field).
    GENERAL = "general"
    # Under the side the flow names when it offers it (`AvailableAction.under`: whose
    # turn it is to bid, who takes the parting shot, the PC's pyrrhic victory).
    FLOW = "flow"
    # One button for each line it removes, among the general controls.
    EACH_LINE = "each_line"


class Pick(StrEnum):
    """A choice the panel offers from a character's sheet, read by the service."""

    NONE = ""
    # The holder's abilities, the chosen one selected (a new one, as you go, §3.1).
    ABILITY = "ability"
    # The participant's abilities, to switch to (§5.3.6).
    SWITCH = "switch"
    # The participant's abilities, or the same one, for a final action (§5.3.10).
    FINAL = "final"
    # The helper's abilities, for an augment (§2.4).
    HELPER = "helper"
    # The giver's abilities, for an AP gift (§5.3.5).
    GIVER = "giver"
    # The joining character (from the ability the form picks) or the GM's resistance,
    # for a join (§4.4.4): read by the service, offered by the join form itself.
    JOINER = "joiner"


@dataclass(frozen=True)
class Declared:
    """What the table knows of an action from its declaration: its name, its typed data,
    the words the log and the archive use for the event it writes ("chose an ability"),
    and whether doing it can change a character sheet (hero points, states, the ability
    a player is asked to pick); the browsers reload a player's sheet only after those
    (the log entry's `data-sheets`, static/js/table.js). `event_type`: the event type
    it writes, when not its name (the framing's "framed", an undo's "undone"). `place`
    and `pick`: where the panel puts its control and what it offers from a sheet; the
    control reaches the GM and the player whose side or participant it acts for."""

    name: str
    data: type[Data]
    logged: str
    sheets: bool = True
    event_type: str = ""
    place: Place = Place.NAMED
    pick: Pick = Pick.NONE
    # Offered in the "your move" bar too, as a choice that will not wait (a hero point).
    in_bar: bool = False
    # The data as the flows read it and the event stores it, when the server completes
    # it (the sheet's fields, the dice): a subclass of `data`.
    completed: type[Data] | None = None
    # What the ledger says a hero point the action spends was for (§2.3.5.5, §4.5.3).
    spends_for: str = "a bump"

    @property
    def completed_model(self) -> type[Data]:
        return self.completed or self.data

    @property
    def event(self) -> str:
        return self.event_type or self.name


class By(StrEnum):
    """Who may take an action on the table (`OnTable.by`): the values of a campaign
    member's role (campaigns.models.Role), read at the moment the action is taken."""

    PLAYER = "player"
    GM = "gm"


@dataclass(frozen=True)
class OnTable:
    """An action on the table rather than on a contest (a player's proposal, the GM's
    answer): its name, its typed data, what it does in the words a refusal names it by
    ("withdraw a proposal"), and who may take it. No flow takes it and it writes no
    contest event; the service that carries it out registers its handler under its name
    (contests/services/on_table.py)."""

    name: str
    data: type[Data]
    words: str
    by: By
