"""All the table derives from the declarations (models.py `DECLARED`, the contest's
actions; proposals.py `PROPOSALS`, the actions on the table): the models by name, the
actions that change no sheet, and the message unions the browsers' input is read
through."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from .declaration import Data, Declared, OnTable
from .fields import MAX_ID, MAX_KEY_LENGTH, Id, Text, Whole
from .models import DECLARED
from .proposals import PROPOSALS

DECLARED_BY_NAME: dict[str, Declared] = {action.name: action for action in DECLARED}
DATA_MODELS: dict[str, type[Data]] = {action.name: action.data for action in DECLARED}
COMPLETED_MODELS: dict[str, type[Data]] = {
    action.name: action.completed_model for action in DECLARED
}
# The actions that change no sheet; any other step (and an event that is no action,
# such as the framing or an undo) may.
SHEETS_KEPT = frozenset(action.name for action in DECLARED if not action.sheets)


class Message(BaseModel):
    """The envelope every action shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contest: Id | None = None
    key: Annotated[str, Text(MAX_KEY_LENGTH)] | None = None
    seq: Annotated[int, Whole(0, MAX_ID)] | None = None
    # Each action's model narrows these two: `action` to its own name (the union's
    # discriminator) and `data` to its Data model.
    action: str
    data: Data


def _message_model(action: str, data: type[Data]) -> type[Message]:
    name = "".join(part.title() for part in action.split("_")) + "Message"
    return create_model(
        name,
        __base__=Message,
        __module__=__name__,
        # A Literal of a name known only at run time: Any to the type checker.
        action=(cast(Any, Literal)[action], ...),
        data=(data, ...),
    )


MESSAGE_MODELS: dict[str, type[Message]] = {
    action: _message_model(action, data) for action, data in DATA_MODELS.items()
}
ACTIONS = frozenset(MESSAGE_MODELS)
# The union of the models built above, which only run time knows: statically a Message.
_ANY_MESSAGE: Any = Annotated[
    cast(Any, Union)[tuple(MESSAGE_MODELS.values())],  # noqa: UP007
    Field(discriminator="action"),
]
ACTION_ADAPTER: TypeAdapter[Message] = TypeAdapter(_ANY_MESSAGE)


# The actions on the table rather than on a contest (`OnTable`), and their union.
ON_TABLE: tuple[OnTable, ...] = (*PROPOSALS,)
ON_TABLE_BY_NAME: dict[str, OnTable] = {action.name: action for action in ON_TABLE}
TABLE_ACTIONS = frozenset(ON_TABLE_BY_NAME)
_ANY_ON_TABLE: Any = Annotated[
    cast(Any, Union)[tuple(_message_model(a.name, a.data) for a in ON_TABLE)],  # noqa: UP007
    Field(discriminator="action"),
]
ON_TABLE_ADAPTER: TypeAdapter[Message] = TypeAdapter(_ANY_ON_TABLE)
