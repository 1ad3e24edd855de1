"""The SQLite triggers of 0002 (a breakout's keyword belongs to the same character,
§3.3) put back: 0005 altered the ability table, which on SQLite Django rebuilds as a
new table, and the triggers went with the old one. PostgreSQL keeps its composite
foreign key through such changes: nothing to do there. A later migration that alters
the ability table must do the same on SQLite (tests/characters/test_models.py would
fail there without it)."""

import importlib

from django.db import migrations

same_character = importlib.import_module(
    "characters.migrations.0002_breakout_keyword_same_character"
)


def restore(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        same_character.drop(apps, schema_editor)
        same_character.add(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("characters", "0008_sidekick_improvement")]
    operations = [migrations.RunPython(restore, migrations.RunPython.noop)]
