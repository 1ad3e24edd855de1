"""The QuestWorlds rules engine: pure Python, no Django (see docs/rules.md).

Every rule the app uses lives here; section marks (`§5.3.1`) refer to
`questworlds-srd-2.2.txt`, and RULINGS.md settles its gaps (R1-R17).
"""

from .dice import Result, Roller, d20, fixed_rolls, roll_result
from .ratings import RESISTANCE_LEVELS, Rating, resistance
from .simple import DEGREES, Outcome, simple_contest

__all__ = [
    "DEGREES",
    "RESISTANCE_LEVELS",
    "Outcome",
    "Rating",
    "Result",
    "Roller",
    "d20",
    "fixed_rolls",
    "resistance",
    "roll_result",
    "simple_contest",
]
