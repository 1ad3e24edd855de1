from django.core.management.base import BaseCommand

from contests.models import TablePresence


class Command(BaseCommand):
    help = "Forget every table connection (run at server start: no socket survives a restart)."

    def handle(self, *args, **options) -> None:
        count, _ = TablePresence.objects.all().delete()
        self.stdout.write(f"Cleared {count} stale table connection(s).")
