"""A whole campaign as JSON (export and re-import) and as a Markdown chronicle.

The JSON names people by username and refers to rows by stable keys, never by
database ids, so it imports into a fresh install and exports again to the same file:
characters by their place in the export (`1`, `2`, ...), abilities by character and
name (`1:Boatcraft`, `1:flaw:Greedy`, `1:Oro/Sharp eyes`), sessions and contests by
number. Ids inside JSON columns (a contest's framing and state, event payloads, ledger
snapshots) are rewritten the same way: keys ending in `character_id`, `player_id`,
`user_id`, `ability_id` and `npc_id` (NPCs by name), and the keys `schema.py` names
(the conditions and the joined participant an event's undo reverses, the follower a
ledger step's undo restores). The community's resources go by name and its draws by
their place in the export; the resource ids in questionnaire scores and in finished
intervals' rows become names too.

Each character's sheet goes through the characters app's own export and import
(`character_export`, `character_import`); the campaign adds what belongs to the table:
session counters, conditions and the ledger. Invitations and the public link are
secrets and are not exported.

By job:

- `schema.py`: the one declared schema, every section's fields and where ids hide in
  JSON columns; the export and the import both read it.
- `rows.py`: reading the schema, one row out or in, and the ids in JSON rewritten.
- `export.py`: `campaign_export`.
- `load.py`: `campaign_import`, and `missing_usernames` for the import page.
- `chronicle.py`: `campaign_chronicle`, the Markdown.
"""

from .chronicle import campaign_chronicle
from .export import ability_key, campaign_export
from .load import campaign_import, missing_usernames
from .schema import EXPORT_FORMAT, EXPORT_VERSION

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "ability_key",
    "campaign_chronicle",
    "campaign_export",
    "campaign_import",
    "missing_usernames",
]
