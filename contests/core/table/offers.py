"""What the actions every flow shares offer (base.py `BaseFlow`): modifier lines and
augments, physical dice, the reveal of the GM's hidden roll and narration, for the sides
or participants an actor may name (`_keys`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import IllegalAction
from .base import (
    GM,
    MODIFIER_KINDS,
    PLOT_AUGMENTS,
    RESISTANCE_ADJUSTMENTS,
    ActionInput,
    Actor,
    AvailableAction,
    choice,
    number,
    words,
)
from .shared_actions import SharedActions

# The inputs an augment's offers share, whatever the contest: built once, not for every
# actor on every step (a panel works out the offers of every player at the table while
# abilities are chosen; each input is a frozen value, shared as it is).
_PLOT_AUGMENT_INPUTS = (
    choice("kind", "Augment", [("plot", "a plot augment (§2.4.3)")]),
    choice("bonus", "Bonus", ((b, f"+{b}") for b in PLOT_AUGMENTS)),
    words("ability", "Ability", limit=120),
)
_RATED = (
    words("ability", "Ability", limit=120, required=True),
    ActionInput("rating", "rating", "Rating"),
)
_AUGMENT_KINDS = choice(
    "kind", "Augment", [("rolled", "rolled (§2.4.1)"), ("quick", "quick (§2.4.2)")]
)
_HELPER = words("helper", "Helper's name", limit=120, required=True)


class SharedOffers(SharedActions):
    """`BaseFlow` with the offers of its shared actions (the families build on it)."""

    def _shared_offers(self, actor: Actor) -> list[AvailableAction]:
        """Modifier lines, augments, physical dice, the reveal and narration."""
        offers: list[AvailableAction] = []
        keys = self._keys()
        mine = [(k, label) for k, label in keys if self.controls(actor, k)]
        if self.phase == "preparing":
            if actor.is_gm:
                offers += self._modifier_offers(keys)
            if not self.started:
                offers += self._augment_offers(actor, keys, mine)
            if self.state.get("physical_dice") and mine:
                entered = number("entered", "Your d20", 1, 20)
                offers.append(
                    AvailableAction(
                        "enter_roll", "Enter a physical roll", (self._key(mine), entered)
                    )
                )
        if (
            actor.is_gm
            and self.phase == "rolled"
            and not self.state["pending"].get("revealed", True)
        ):
            # In a group contest the GM rolls as one of the participants: "my roll".
            label = "Reveal my roll" if self.KEY == "participant" else "Reveal the GM's roll"
            offers.append(AvailableAction("reveal", label, confirm=True))
        if actor.is_gm and self.phase in ("resolved", "finished"):
            offers.append(
                AvailableAction(
                    "narrate",
                    "Narrate the outcome",
                    (words("narration", "Narration", required=True),),
                )
            )
        return offers

    def _key(self, keys: Iterable[tuple[str, str]]) -> ActionInput:
        return choice(self.KEY, "Who", keys)

    def _modifier_offers(self, keys: list[tuple[str, str]]) -> list[AvailableAction]:
        offers = []
        rules: dict[tuple[tuple[str, ...], int], list[tuple[str, str]]] = {}
        for key, label in keys:
            allowed = self._modifier_rule(key)
            if allowed is not None:
                rules.setdefault(allowed, []).append((key, label))
        for (kinds, bumps), holders in rules.items():
            # Where no bump may be given (a resistance, R18.3), no field that only takes 0.
            inputs: tuple[ActionInput, ...] = (
                self._key(holders),
                choice("kind", "Kind", ((k, k.replace("_", " ")) for k in kinds)),
                number(
                    "value",
                    "Value (not 0 with no bump)" if bumps else "Value (not 0)",
                    -40,
                    40,
                    default=0,
                ),
                *((number("bumps", "Bumps", -bumps, bumps, default=0),) if bumps else ()),
                words("label", "Label", limit=80),
            )
            offers.append(AvailableAction("modifier", "Add a modifier", inputs))
        for key, label in keys:
            record = self.holder(key)
            lines = [
                (i, line["label"])
                for i, line in enumerate(record["modifiers"])
                if self._accepts("remove_modifier", GM, **{self.KEY: key, "index": i})
            ]
            if lines:
                inputs = (self._key([(key, label)]), choice("index", "Modifier", lines))
                offers.append(
                    AvailableAction("remove_modifier", f"Remove a modifier from {label}", inputs)
                )
        return offers

    def _modifier_rule(self, key: str) -> tuple[tuple[str, ...], int] | None:
        """The modifier kinds and the most bumps the GM may give `key` now (None: none):
        a GM resistance takes only a mob's or ganging-up's adjustment (R2, R9, R18.3)."""
        if self.is_resistance(key, self.holder(key)):
            return None if self.started else (RESISTANCE_ADJUSTMENTS, 0)
        return MODIFIER_KINDS, 3

    def _augment_offers(
        self, actor: Actor, keys: list[tuple[str, str]], mine: list[tuple[str, str]]
    ) -> list[AvailableAction]:
        """A plot augment (the GM), one's own (R8: once, until it fails) and a helper's
        of the actor's characters outside the contest (whether that helper has tried
        already is the service's to know: the flow knows helpers by name)."""
        offers: list[AvailableAction] = []
        # An augment raises a PC's target number only (R18.3): none for a resistance.
        keys = [(k, label) for k, label in keys if not self._resistance_key(k)]
        mine = [(k, label) for k, label in mine if not self._resistance_key(k)]
        if not keys:
            return offers
        if actor.is_gm:
            inputs: tuple[ActionInput, ...] = (self._key(keys), *_PLOT_AUGMENT_INPUTS)
            offers.append(AvailableAction("augment", "Give a plot augment", inputs))
        own = [(k, label) for k, label in mine if self._own_augment_open(k)]
        if own:
            inputs = (self._key(own), _AUGMENT_KINDS, *_RATED)
            offers.append(AvailableAction("augment", "Augment your ability", inputs))
        inside = {self.holder(k).get("character_id") for k, _ in keys}
        for key, label in keys:
            # R8: a helper augments a side once: none who has tried it already.
            tried = {a.get("helper_character_id") for a in self.holder(key)["augments"]}
            helpers = sorted(set(actor.character_ids) - inside - tried)
            if helpers:
                who = choice(
                    "helper_character_id", "Helper", ((c, f"character #{c}") for c in helpers)
                )
                inputs = (self._key([(key, label)]), _AUGMENT_KINDS, who, _HELPER, *_RATED)
                offers.append(AvailableAction("augment", "Help with an augment", inputs))
        return offers

    def _resistance_key(self, key: str) -> bool:
        return self.is_resistance(key, self.holder(key))

    def _own_augment_open(self, key: str) -> bool:
        record = self.holder(key)
        try:
            self._check_own_augment(record, record["name"], True)
        except IllegalAction:
            return False
        return True
