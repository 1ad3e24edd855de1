"""Sheets, guided creation and the ledger of steps (issue 4).

The ledger becomes steps (`LedgerStep`, what one action did, undoable as a whole) with
their lines (`LedgerEntry`). No code wrote the old one-table ledger, so it is dropped
and created anew rather than altered.

SQLite cannot change a CHECK constraint in place: Django rebuilds `characters_ability`,
and the rebuild drops the triggers 0002 put on the old table. The last operation puts
them back, so a breakout's keyword still belongs to the same character. (PostgreSQL
keeps its composite foreign key through these operations.) Any later migration that
rebuilds this table on SQLite must do the same; tests/characters/test_models.py fails
if it does not.
"""

import importlib

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models

same_character = importlib.import_module(
    "characters.migrations.0002_breakout_keyword_same_character"
)


def restore_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        same_character.drop(apps, schema_editor)
        same_character.add(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('characters', '0002_breakout_keyword_same_character'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed last: migrating back to 0002 rebuilds the table again.
        migrations.RunPython(migrations.RunPython.noop, restore_sqlite_triggers),
        migrations.DeleteModel(
            name='LedgerEntry',
        ),
        migrations.RemoveConstraint(
            model_name='ability',
            name='breakouts_and_only_breakouts_have_a_keyword',
        ),
        migrations.AddField(
            model_name='ability',
            name='creation_role',
            field=models.CharField(blank=True, choices=[('defining', 'Defining ability'), ('distinguishing', 'Distinguishing characteristic'), ('free_keyword', 'Free keyword')], default='', max_length=16),
        ),
        migrations.AddField(
            model_name='ability',
            name='phrase',
            field=models.CharField(blank=True, help_text='The words underlined in the prose (§3.6).', max_length=200),
        ),
        migrations.AddField(
            model_name='character',
            name='awarded_this_session',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='character',
            name='catch_ups',
            field=models.JSONField(blank=True, default=list, help_text='Catch-ups on offer: [{"ability": id, "rating": n}].'),
        ),
        migrations.AddField(
            model_name='character',
            name='creation_complete',
            field=models.BooleanField(default=False, help_text='False while the sheet is being built; as-you-go sheets stay open in play.'),
        ),
        migrations.AddField(
            model_name='character',
            name='experience_earned',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='character',
            name='in_session',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='character',
            name='raised_this_session',
            field=models.JSONField(blank=True, default=list, help_text='Ids of abilities raised this session (classic).'),
        ),
        migrations.AddField(
            model_name='condition',
            name='applied_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='condition',
            name='ended_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='ability',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'breakout'), ('keyword__isnull', False)), ('kind__in', ['standalone', 'flaw']), models.Q(('kind__in', ['keyword', 'relationship']), ('keyword__isnull', True)), _connector='OR'), name='breakouts_have_a_keyword_keywords_do_not', violation_error_message='A breakout sits under a keyword; keywords and relationships sit under none (§3.3).'),
        ),
        migrations.AddConstraint(
            model_name='ability',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('character'), condition=models.Q(('follower__isnull', True), models.Q(('kind', 'flaw'), _negated=True)), name='ability_names_unique_per_character', violation_error_message='This character already has an ability with that name.'),
        ),
        migrations.AddConstraint(
            model_name='ability',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('character'), condition=models.Q(('kind', 'flaw')), name='flaw_names_unique_per_character', violation_error_message='This character already has a flaw with that name.'),
        ),
        migrations.AddConstraint(
            model_name='ability',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('follower'), condition=models.Q(('follower__isnull', False)), name='follower_ability_names_unique', violation_error_message='This sidekick already has an ability with that name.'),
        ),
        migrations.AddConstraint(
            model_name='ability',
            constraint=models.UniqueConstraint(condition=models.Q(('creation_role', ''), _negated=True), fields=('character', 'creation_role'), name='one_ability_per_creation_role', violation_error_message='Another ability already has that role in the concept.'),
        ),
        migrations.CreateModel(
            name='LedgerStep',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(choices=[('creation', 'Creation'), ('import', 'Imported'), ('advance', 'Advance'), ('catch_up', 'Catch-up'), ('directed', 'Directed improvement'), ('classic', 'Hero point improvement'), ('hp_spend', 'Hero point spent'), ('hp_award', 'Hero point award'), ('session_start', 'Session start'), ('session_end', 'Session end'), ('follower', 'Follower left'), ('undo', 'Undone')], max_length=16)),
                ('note', models.CharField(blank=True, max_length=300)),
                ('state_before', models.JSONField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('undone_at', models.DateTimeField(blank=True, null=True)),
                ('actor', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('character', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ledger', to='characters.character')),
                ('undone_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='LedgerEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('field', models.CharField(choices=[('rating', 'Rating'), ('hero_points', 'Hero points'), ('experience_points', 'Experience'), ('new_ability', 'Ability'), ('kind', 'Kind'), ('catch_up', 'Catch-up')], max_length=20)),
                ('ability_name', models.CharField(blank=True, max_length=120)),
                ('before', models.IntegerField(blank=True, null=True)),
                ('after', models.IntegerField(blank=True, null=True)),
                ('note', models.CharField(blank=True, max_length=300)),
                ('ability', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='characters.ability')),
                ('step', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='characters.ledgerstep')),
            ],
            options={
                'verbose_name_plural': 'ledger entries',
                'ordering': ['id'],
            },
        ),
        migrations.AddIndex(
            model_name='ledgerstep',
            index=models.Index(fields=['character', '-created_at', '-id'], name='ledger_step_latest'),
        ),
        migrations.AlterConstraint(
            model_name='follower',
            name='one_sidekick_per_character',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'sidekick')), fields=('owner',), name='one_sidekick_per_character', violation_error_message='A character has one sidekick at most (§6.5.1).'),
        ),
        migrations.RunPython(restore_sqlite_triggers, migrations.RunPython.noop),
    ]
