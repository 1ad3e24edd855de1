"""A breakout's keyword must belong to the same character (§3.3), enforced by the database.

PostgreSQL gets a composite foreign key onto the (id, character) unique constraint;
SQLite, which cannot add one to an existing table, gets triggers with the same effect.
"""

from django.db import migrations

PG_ADD = """
ALTER TABLE characters_ability
  ADD CONSTRAINT breakout_keyword_same_character
  FOREIGN KEY (keyword_id, character_id) REFERENCES characters_ability (id, character_id)
  DEFERRABLE INITIALLY DEFERRED
"""
PG_DROP = "ALTER TABLE characters_ability DROP CONSTRAINT breakout_keyword_same_character"

SQLITE_CHECK = """
SELECT RAISE(ABORT, 'a breakout must belong to a keyword of the same character')
WHERE NEW.keyword_id IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM characters_ability k
  WHERE k.id = NEW.keyword_id AND k.character_id = NEW.character_id
);
"""
SQLITE_ADD = [
    f"CREATE TRIGGER breakout_keyword_same_character_{event} BEFORE {event.upper()} "
    f"ON characters_ability BEGIN {SQLITE_CHECK} END"
    for event in ("insert", "update")
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS breakout_keyword_same_character_{event}"
    for event in ("insert", "update")
]


def add(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = [PG_ADD] if vendor == "postgresql" else SQLITE_ADD if vendor == "sqlite" else []
    for statement in statements:
        schema_editor.execute(statement)


def drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = [PG_DROP] if vendor == "postgresql" else SQLITE_DROP if vendor == "sqlite" else []
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("characters", "0001_initial")]
    operations = [migrations.RunPython(add, drop)]
