"""Community resources and support (§8, RULINGS.md R17).

A community has up to five resources (Wealth, Diplomacy, Morale...), each an ability
with a rating and two running columns (§8.1.4): **Total**, the sum of the modifiers on
it now, and **PC**, the bonuses the player characters earned (and cemented). Drawing
on a resource depletes it, defeats can penalise it, victories bolster it, background
events and crisis tests roll against the average of all resources, and at the end of
each interval the columns turn into small permanent changes and reset.

`Community` is a JSON-serialisable state object. Its methods take explicit rolls and
return the `ResourceChange`s they made, so the app can log and broadcast them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple

from .dice import check_roll
from .errors import RulesError
from .ratings import Rating
from .simple import DEGREES, Outcome, simple_contest
from .states import ADVERSITY, State

MAX_RESOURCES = 5  # §8.1.1: "no more than five or so"
STARTING_RATINGS: tuple[str, ...] = ("12W", "9W", "18", "18", "12")  # §8.1.3, R17

# Outcome levels are signed, as `Outcome.level`: +4 complete victory ... 0 tie ...
# -4 complete defeat.

# §8.2 Resource Depletion Table. A tie is not in the table: see `depletion_penalty`.
DEPLETION_PENALTY: dict[int, int] = {4: 0, 3: -3, 2: -3, 1: -3, -1: -6, -2: -6, -3: -6, -4: -9}
WITHDRAWAL_PENALTY = DEPLETION_PENALTY[-3]  # §8.2.2: "equivalent to a major defeat"

# §8.2.4 Resource Fluctuation Table; a tie sits between two zeros.
FLUCTUATION: dict[int, int] = {4: 9, 3: 6, 2: 3, 1: 0, 0: 0, -1: 0, -2: -3, -3: -6, -4: -9}

# §8.2.2 with the Consequences of Defeat Table (§2.11.1): the state's penalty. Dying
# (and dead) carry no number there; no §8 table goes beyond -9, so neither do we.
STATE_PENALTY: dict[State, int] = {
    State.HURT: -3,
    State.IMPAIRED: -6,
    State.INJURED: -9,
    State.DYING: -9,
    State.DEAD: -9,
}
DEFEAT_PENALTY: dict[int, int] = {-1: -3, -2: -6, -3: -9, -4: -9}

# §8.2.3 with the Benefits of Victory Table (§2.11.2); heroic (a bump) becomes +9 too.
BOLSTER_BONUS: dict[int, int] = {1: 3, 2: 6, 3: 9, 4: 9}

# §8.2 optional rule: lingering social penalties shed 3 points at each interval's end.
SOCIAL_PENALTY_SHED = 3

# §8.3 Changes to Resource Ratings.
POINTS_PER_STEP = 3
MAX_RISE = 3
MAX_DROP = 2

OutcomeLike = int | str | Outcome


def outcome_level(outcome: OutcomeLike) -> int:
    """A signed outcome level from an `Outcome`, an int -4..4 or words such as
    "minor victory", "tie" or "complete defeat".

    >>> outcome_level("major defeat"), outcome_level("tie"), outcome_level(2)
    (-3, 0, 2)
    """
    if isinstance(outcome, Outcome):
        return outcome.level
    if isinstance(outcome, int) and not isinstance(outcome, bool):
        if -4 <= outcome <= 4:
            return outcome
        raise RulesError(f"an outcome level runs from -4 to 4, not {outcome}")
    if isinstance(outcome, str):
        words = outcome.strip().lower().split()
        if words == ["tie"]:
            return 0
        if len(words) == 2 and words[0] in DEGREES and words[1] in ("victory", "defeat"):
            step = DEGREES.index(words[0]) + 1
            return step if words[1] == "victory" else -step
    raise RulesError(
        f"{outcome!r} is not an outcome: give a level from -4 to 4, an Outcome, or words "
        "such as 'minor victory', 'tie' or 'complete defeat'"
    )


def describe_level(level: int) -> str:
    """Plain words for a signed outcome level: 3 -> 'major victory'."""
    if level == 0:
        return "tie"
    return f"{DEGREES[abs(level) - 1]} {'victory' if level > 0 else 'defeat'}"


def depletion_penalty(outcome: OutcomeLike) -> int:
    """The Resource Depletion Table (§8.2): what drawing on a resource costs it.

    A tie is not in the table; we read it as the mildest use (-3): "nothing
    consequential occurs" (§2.10), yet the resource was spent.

    >>> [depletion_penalty(level) for level in (4, 3, 2, 1, 0, -1, -2, -3, -4)]
    [0, -3, -3, -3, -3, -6, -6, -6, -9]
    """
    level = outcome_level(outcome)
    return DEPLETION_PENALTY.get(level, -3)


def social_penalty(outcome: OutcomeLike) -> int:
    """The penalty on the PCs' social and community abilities with community members
    after drawing on a resource (§8.2): the depletion penalty when the prize was not
    secured (any defeat, or a tie), else 0. It ends with the interval (or lingers: see
    `social_penalty_in_force`)."""
    level = outcome_level(outcome)
    return depletion_penalty(level) if level <= 0 else 0


def social_penalty_in_force(penalty: int, drawn_in: int, now: int, *, linger: bool) -> int:
    """What is left in interval `now` of a draw's social `penalty` (0 or negative)
    taken in interval `drawn_in` (§8.2).

    By the standard rule depletion penalties "end at the end of the current interval":
    the penalty holds in its own interval and is 0 after. With the optional rule
    (`linger`), characters "shed a 3-point penalty at the end of each interval": each
    interval ended since the draw takes 3 off, and it never rises above 0.

    >>> [social_penalty_in_force(-7, 2, now, linger=True) for now in (2, 3, 4, 5)]
    [-7, -4, -1, 0]
    >>> [social_penalty_in_force(-7, 2, now, linger=False) for now in (2, 3)]
    [-7, 0]
    """
    for name, value in (("penalty", penalty), ("drawn_in", drawn_in), ("now", now)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{name} must be a whole number, not {value!r}")
    if penalty > 0:
        raise RulesError(f"a social penalty is 0 or negative (§8.2), not {penalty:+d}")
    if drawn_in < 1:
        raise RulesError(f"the interval number is 1 or more, not {drawn_in}")
    if now < drawn_in:
        raise RulesError(
            f"a penalty drawn in interval {drawn_in} is not in force in interval {now}"
        )
    ended = now - drawn_in  # §8.2: one shedding per interval end since the draw
    if ended == 0:
        return penalty
    if not linger:
        return 0
    return min(0, penalty + SOCIAL_PENALTY_SHED * ended)


def own_augments_allowed(*, required_resource_augment: bool) -> int:
    """Own augments allowed in a contest (R8: one), two when one of them is a required
    resource use (§8.2.1: "you can also add a second augment from some other ability")."""
    return 2 if required_resource_augment else 1


def average_rating(totals: Sequence[int]) -> Rating:
    """The average of resource ratings, rounded half up (R17).

    >>> str(average_rating([32, 29, 18, 18, 12]))
    '2M'
    """
    if not totals:
        raise RulesError("a community needs at least one resource to average")
    count = len(totals)
    # floor(sum / count + 1/2) in integers: half rounds up, negatives included.
    return Rating((2 * sum(totals) + count) // (2 * count))


class ResourceChange(NamedTuple):
    """One change to the resource notation: which resource, which column ("rating",
    "total", "pc", "background", "crisis"), from what, to what, and why."""

    resource: str
    column: str
    before: Any
    after: Any
    reason: str


@dataclass(slots=True)
class Resource:
    """One resource and its notation columns (§8.1.4).

    `total` is the Total column (every modifier now), `pc` the PC column (bonuses from
    PC activity and cemented background bonuses), `background` the uncemented bonus
    from this interval's background event, `crisis` how bad a crisis is (0: none).
    """

    name: str
    rating: int
    total: int = 0
    pc: int = 0
    background: int = 0
    crisis: int = 0

    @property
    def effective(self) -> Rating:
        """The rating to roll now: rating plus the Total column."""
        return Rating(self.rating + self.total)


class Community:
    """A community's resources through the intervals (§8).

    >>> village = Community.founded(["Wealth", "Morale", "Diplomacy", "Military", "Magic"])
    >>> [row["rating"] for row in village.notation()]
    ['12W', '9W', '18', '18', '12']
    >>> for change in village.draw("Wealth", "minor defeat"):
    ...     print(change.resource, change.column, change.before, change.after)
    Wealth total 0 -6
    >>> str(village.effective("Wealth"))
    '6M'
    """

    def __init__(
        self,
        resources: Mapping[str, int | str] | Sequence[tuple[str, int | str]],
        *,
        interval: int = 1,
        better_roll: Literal["high", "low"] = "high",
    ) -> None:
        pairs = list(resources.items()) if isinstance(resources, Mapping) else list(resources)
        if not pairs:
            raise RulesError("a community needs at least one resource (§8.1.1)")
        if len(pairs) > MAX_RESOURCES:
            raise RulesError(
                f"a community tracks at most {MAX_RESOURCES} resources (§8.1.1), not {len(pairs)}"
            )
        if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
            raise RulesError(f"the interval number is 1 or more, not {interval!r}")
        if better_roll not in ("high", "low"):
            raise RulesError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
        self.resources: dict[str, Resource] = {}
        for name, rating in pairs:
            if not isinstance(name, str) or not name.strip():
                raise RulesError(f"a resource needs a name, not {name!r}")
            if name.casefold() in (known.casefold() for known in self.resources):
                raise RulesError(f"two resources are named {name!r}")
            try:
                total = Rating.parse(rating).total
            except (TypeError, ValueError) as exc:
                raise RulesError(f"resource {name}: {exc}") from exc
            self.resources[name] = Resource(name, total)
        self.interval = interval
        self.last_ended: int | None = interval - 1 if interval > 1 else None
        self.background_done = False
        self.better_roll = better_roll
        self.required_uses: dict[str, str] = {}
        self.tests: list[dict[str, Any]] = []

    @classmethod
    def founded(cls, ranked_names: Sequence[str], **options: Any) -> Community:
        """A new community with the §8.1.3 spread, highest first: 12W, 9W, 18, 18, 12."""
        if len(ranked_names) != len(STARTING_RATINGS):
            raise RulesError(
                f"the starting ratings 12W, 9W, 18, 18 and 12 go to five resources (§8.1.3); "
                f"you named {len(ranked_names)}"
            )
        return cls(list(zip(ranked_names, STARTING_RATINGS, strict=True)), **options)

    # ----------------------------------------------------------------- reading

    def resource(self, name: str) -> Resource:
        key = name.casefold() if isinstance(name, str) else name
        for resource in self.resources.values():
            if resource.name.casefold() == key:
                return resource
        raise RulesError(
            f"no resource named {name!r} (this community has: {', '.join(self.resources)})"
        )

    def effective(self, name: str) -> Rating:
        """A resource's rating to use now, as an ability or an augment (§8.2)."""
        return self.resource(name).effective

    def average(self) -> Rating:
        """The resistance of background events and crisis tests: the average of all
        resource ratings, rounded half up (§8.2.4, §8.2.5, R17)."""
        return average_rating([r.rating for r in self.resources.values()])

    def penalized(self) -> list[str]:
        """Resources with a penalty in their Total column: they face crisis tests."""
        return [r.name for r in self.resources.values() if r.total < 0]

    def notation(self, glyph: str = "W") -> list[dict[str, Any]]:
        """The Resource Notation Table (§8.1.4): a row per resource."""
        rows = []
        for r in self.resources.values():
            rows.append(
                {
                    "name": r.name,
                    "rating": str(Rating(r.rating)).replace("M", glyph),
                    "total": r.total,
                    "pc": r.pc,
                    "background": r.background,
                    "crisis": r.crisis,
                    "effective": str(r.effective).replace("M", glyph),
                }
            )
        return rows

    # ----------------------------------------------------------------- using resources

    def draw(self, name: str, outcome: OutcomeLike, *, reason: str = "") -> list[ResourceChange]:
        """Deplete a resource after it was used in a contest with this `outcome`
        (§8.2 Resource Depletion Table). The depletion replaces the usual consequences
        of defeat; on a defeat the PCs' social abilities also take `social_penalty`."""
        level = outcome_level(outcome)
        why = f"§8.2 drew on {self.resource(name).name}: {describe_level(level)}"
        return self._modify(name, depletion_penalty(level), _with(why, reason))

    def withdraw(self, name: str, *, reason: str = "") -> list[ResourceChange]:
        """The group conceded a contest by withdrawing: depletion as a major defeat
        (§8.2.2, R17: -6)."""
        why = "§8.2.2 withdrew from a contest: depletion as a major defeat"
        return self._modify(name, WITHDRAWAL_PENALTY, _with(why, reason))

    def penalize(
        self, name: str, outcome: OutcomeLike, *, reason: str = ""
    ) -> list[ResourceChange]:
        """Apply a simple contest defeat's consequence to a resource (§8.2.2 with the
        Consequences of Defeat Table: -3, -6, -9; complete: -9)."""
        level = outcome_level(outcome)
        if level >= 0:
            raise RulesError(
                f"a penalty to a resource follows a defeat (§8.2.2), not a {describe_level(level)}"
            )
        why = f"§8.2.2 penalty: {describe_level(level)}"
        return self._modify(name, DEFEAT_PENALTY[level], _with(why, reason))

    def penalize_after_long_contest(
        self, name: str, states: Sequence[str | State], *, reason: str = ""
    ) -> list[ResourceChange]:
        """Penalise a resource after a long contest lost (§8.2.2): the second-worst
        state of adversity among the defeated group members (theirs if only one)."""
        suffered = []
        for value in states:
            try:
                state = State(value)
            except ValueError:
                raise RulesError(f"{value!r} is not a state of adversity (§2.11.1)") from None
            if state not in ADVERSITY:
                raise RulesError(f"{state.value} is not a state of adversity (§2.11.1)")
            suffered.append(state)
        suffered.sort(key=ADVERSITY.index, reverse=True)
        if not suffered:
            raise RulesError("name the states of adversity the defeated members suffered")
        counted = suffered[1] if len(suffered) > 1 else suffered[0]
        why = f"§8.2.2 penalty after a long contest: second-worst state {counted.value}"
        return self._modify(name, STATE_PENALTY[counted], _with(why, reason))

    def bolster(self, name: str, outcome: OutcomeLike, *, reason: str = "") -> list[ResourceChange]:
        """The PCs won a contest for the community: the Benefits of Victory bonus goes
        to the resource (§8.2.3: +3, +6, +9; complete +9), and any crisis is reversed
        (§8.2.5). Only the part that lifts the Total above 0 enters the PC column
        (§8.1.4: a penalty reduced but not eliminated leaves the PC column blank)."""
        level = outcome_level(outcome)
        if level <= 0:
            raise RulesError(f"bolstering needs a victory (§8.2.3), not a {describe_level(level)}")
        resource = self.resource(name)
        bonus = BOLSTER_BONUS[level]
        why = _with(f"§8.2.3 bolstered: {describe_level(level)}", reason)
        changes = self._modify(name, bonus, why)
        earned = min(bonus, max(0, resource.total))
        if earned:
            changes.append(self._set(resource, "pc", resource.pc + earned, why))
        if resource.crisis:
            changes.append(
                self._set(resource, "crisis", 0, "§8.2.5 bolstered: the crisis is reversed")
            )
        return changes

    def cement(self, name: str, *, reason: str = "") -> list[ResourceChange]:
        """The PCs overcame a major story obstacle to cement this interval's background
        bonus (§8.2.6): it moves to the PC column and will count at the interval's end."""
        resource = self.resource(name)
        if resource.background <= 0:
            raise RulesError(
                f"{resource.name} has no background event bonus to cement this interval (§8.2.6)"
            )
        why = _with("§8.2.6 cemented the background bonus", reason)
        bonus = resource.background
        return [
            self._set(resource, "pc", resource.pc + bonus, why),
            self._set(resource, "background", 0, why),
        ]

    def plot_event(self, name: str, change: int, *, reason: str = "") -> list[ResourceChange]:
        """A remarkable triumph or catastrophe alters the rating itself (§8.4)."""
        if isinstance(change, bool) or not isinstance(change, int) or change == 0:
            raise RulesError(f"a plot event changes the rating by a whole number, not {change!r}")
        resource = self.resource(name)
        why = _with("§8.4 plot event", reason)
        return [self._set(resource, "rating", resource.rating + change, why)]

    # ----------------------------------------------------------------- rolling

    def background_events(
        self, rolls: Mapping[str, Sequence[int]], *, reason: str = ""
    ) -> list[ResourceChange]:
        """Roll each resource against the average of all resources (§8.2.4), once per
        interval: `rolls` maps every resource to (its roll, the resistance's roll). No
        augments, no hero points. The Resource Fluctuation Table's modifier goes to the
        Total column; a bonus is also noted as this interval's background bonus."""
        if self.background_done:
            raise RulesError(
                f"the background events of interval {self.interval} are rolled already (§8.2.4)"
            )
        self._check_rolls(rolls, list(self.resources), "background events (§8.2.4)")
        resistance = self.average()
        changes: list[ResourceChange] = []
        for resource in self.resources.values():
            outcome = self._contest("background", resource, resistance, rolls)
            modifier = FLUCTUATION[outcome.level]
            why = _with(f"§8.2.4 background event: {outcome.describe}", reason)
            if modifier:
                changes += self._modify(resource.name, modifier, why)
            if modifier > 0:
                changes.append(
                    self._set(resource, "background", resource.background + modifier, why)
                )
        self.background_done = True
        return changes

    def crisis_tests(
        self, rolls: Mapping[str, Sequence[int]], *, reason: str = ""
    ) -> list[ResourceChange]:
        """At a session's start, each penalised resource rolls its effective rating
        against the average of all resources (§8.2.5); on any defeat the community
        suffers: a crisis starts, or worsens. `rolls` maps exactly the penalised
        resources to (its roll, the resistance's roll)."""
        self._check_rolls(rolls, self.penalized(), "crisis tests (§8.2.5)")
        resistance = self.average()
        changes: list[ResourceChange] = []
        for name in self.penalized():
            resource = self.resources[name]
            outcome = self._contest("crisis", resource, resistance, rolls)
            if outcome.level < 0:
                what = "worsens" if resource.crisis else "starts"
                why = _with(f"§8.2.5 crisis test: {outcome.describe}, a crisis {what}", reason)
                changes.append(self._set(resource, "crisis", resource.crisis + 1, why))
        return changes

    # ----------------------------------------------------------------- intervals

    def end_interval(self, interval: int) -> list[ResourceChange]:
        """End interval `interval` (§8.3): a PC column of 3 or more raises the rating 1
        per 3 points (at most +3); a penalty in the Total column lowers it 1 per 3
        points (at most -2); then every modifier returns to 0 and the next interval
        begins. Ending an interval already ended changes nothing."""
        if isinstance(interval, bool) or not isinstance(interval, int):
            raise RulesError(f"the interval number is a whole number, not {interval!r}")
        if interval < self.interval:
            return []  # already ended: idempotent
        if interval > self.interval:
            raise RulesError(f"interval {self.interval} is the current one, not {interval}")
        changes: list[ResourceChange] = []
        for resource in self.resources.values():
            rise = min(resource.pc // POINTS_PER_STEP, MAX_RISE) if resource.pc > 0 else 0
            drop = min(-resource.total // POINTS_PER_STEP, MAX_DROP) if resource.total < 0 else 0
            if rise or drop:
                parts = []
                if rise:
                    parts.append(f"+{rise} from PC bonus {resource.pc}")
                if drop:
                    parts.append(f"-{drop} from penalty {resource.total}")
                why = f"§8.3 end of interval {interval}: " + ", ".join(parts)
                changes.append(self._set(resource, "rating", resource.rating + rise - drop, why))
            reset = f"§8.3 end of interval {interval}: modifiers reset"
            for column in ("total", "pc", "background", "crisis"):
                if getattr(resource, column):
                    changes.append(self._set(resource, column, 0, reset))
        self.last_ended = interval
        self.interval = interval + 1
        self.background_done = False
        return changes

    # ----------------------------------------------------------------- required use

    def require_resource(self, action: str, name: str) -> None:
        """Setting design (§8.2.1): `action` always requires drawing on `name`."""
        if not isinstance(action, str) or not action.strip():
            raise RulesError("describe the action that requires a resource")
        self.required_uses[action.strip()] = self.resource(name).name

    def required_resource(self, action: str) -> str | None:
        """The resource `action` must draw on (§8.2.1), if any."""
        return self.required_uses.get(action.strip())

    # ----------------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "interval": self.interval,
            "last_ended": self.last_ended,
            "background_done": self.background_done,
            "better_roll": self.better_roll,
            "resources": [asdict(r) for r in self.resources.values()],
            "required_uses": dict(self.required_uses),
            "tests": [dict(t) for t in self.tests],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Community:
        rows = data["resources"]
        community = cls(
            [(row["name"], row["rating"]) for row in rows],
            interval=data.get("interval", 1),
            better_roll=data.get("better_roll", "high"),
        )
        for row in rows:
            resource = community.resources[row["name"]]
            for column in ("total", "pc", "background", "crisis"):
                value = row.get(column, 0)
                if isinstance(value, bool) or not isinstance(value, int):
                    raise RulesError(f"resource {row['name']}: {column} must be a whole number")
                setattr(resource, column, value)
        community.last_ended = data.get("last_ended", community.last_ended)
        community.background_done = bool(data.get("background_done", False))
        for action, name in data.get("required_uses", {}).items():
            community.require_resource(action, name)
        community.tests = [dict(t) for t in data.get("tests", [])]
        return community

    # ----------------------------------------------------------------- helpers

    def _modify(self, name: str, amount: int, reason: str) -> list[ResourceChange]:
        resource = self.resource(name)
        if amount == 0:
            return []
        return [self._set(resource, "total", resource.total + amount, reason)]

    def _set(self, resource: Resource, column: str, value: Any, reason: str) -> ResourceChange:
        before = getattr(resource, column)
        setattr(resource, column, value)
        return ResourceChange(resource.name, column, before, value, reason)

    def _check_rolls(
        self, rolls: Mapping[str, Sequence[int]], expected: list[str], what: str
    ) -> None:
        if not isinstance(rolls, Mapping):
            raise RulesError(f"{what}: give the rolls as {{resource: (roll, resistance roll)}}")
        missing = [name for name in expected if name not in rolls]
        extra = [name for name in rolls if name not in expected]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing rolls for {', '.join(missing)}")
            if extra:
                parts.append(f"no roll is due for {', '.join(map(str, extra))}")
            raise RulesError(f"{what}: {'; '.join(parts)}")
        for name in expected:
            pair = rolls[name]
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
                raise RulesError(f"{what}: {name} needs two rolls (its own, the resistance's)")
            for roll in pair:
                try:
                    check_roll(roll)
                except ValueError as exc:
                    raise RulesError(f"{what}: {name}: {exc}") from exc

    def _contest(
        self, kind: str, resource: Resource, resistance: Rating, rolls: Mapping[str, Sequence[int]]
    ) -> Outcome:
        # §8.2.4/§8.2.5: a plain simple contest: no augments, no hero points.
        own_roll, resistance_roll = rolls[resource.name]
        outcome = simple_contest(
            resource.effective,
            own_roll,
            resistance,
            resistance_roll,
            better_roll=self.better_roll,
        )
        self.tests.append(
            {
                "interval": self.interval,
                "kind": kind,
                "resource": resource.name,
                "rating": resource.effective.total,
                "resistance": resistance.total,
                "roll": own_roll,
                "resistance_roll": resistance_roll,
                "outcome": outcome.describe,
                "level": outcome.level,
            }
        )
        return outcome


def _with(rule: str, reason: str) -> str:
    return f"{rule} ({reason})" if reason else rule
