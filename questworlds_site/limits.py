"""How long free text may be, by what it is (issue 12). Models enforce it (a validator
on every TextField, max_length on every CharField), forms show it (the `maxlength`
attribute and a hint), and `RejectNulMiddleware` refuses any posted value past
POSTED_VALUE_MAX outright, whatever the form.

| What | Limit |
| --- | --- |
| a name, a keyword, a label | 120 (CharField max_length) |
| a line of table chat | 500 |
| a short description (portrait, an ability's or follower's description) | 1,000–2,000 |
| a campaign's, NPC's or community's description | 4,000 |
| private notes (a character's, an NPC's, the GM's) | 10,000 |
| a session recap (Markdown) | 20,000 |
"""

from __future__ import annotations

from django.core.validators import MaxLengthValidator

CHAT_LINE = 500
PORTRAIT = 1_000
SHORT_DESCRIPTION = 2_000
PROSE = 2_000
DESCRIPTION = 4_000
NOTES = 10_000
RECAP = 20_000
# Past this, any posted value is refused before a view runs (the longest limit above).
POSTED_VALUE_MAX = RECAP
# A search or a link's query value: a search is a few words.
QUERY_VALUE_MAX = 1_000


def hint(limit: int) -> str:
    return f"Up to {limit:,} characters."


def text_limit(limit: int, help_text: str = "") -> dict:
    """A TextField's max_length (shown by forms), validator (enforced by full_clean) and
    help text ending with the limit."""
    return {
        "max_length": limit,
        "validators": [MaxLengthValidator(limit)],
        "help_text": f"{help_text} {hint(limit)}".strip(),
    }
