from django.db import migrations, models
from django.db.models import F, Q


def publish_earlier_recaps(apps, schema_editor):
    """Recaps written before drafts existed were shown to everyone: they stay published."""
    Session = apps.get_model("campaigns", "Session")
    Session.objects.filter(~Q(recap=""), ended_at__isnull=False).update(
        recap_published_at=F("ended_at")
    )


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0005_rules_options_in_the_play_core")]

    operations = [
        migrations.AddField(
            model_name="session",
            name="recap_published_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Empty: the recap is the GM's draft, not shown to players.",
                null=True,
            ),
        ),
        migrations.RunPython(publish_earlier_recaps, migrations.RunPython.noop),
    ]
