from django.core.management.base import BaseCommand

from contests.presence import EXPIRY_SECONDS, clear_stale


class Command(BaseCommand):
    help = (
        "Forget the table connections of server processes that stopped (no heartbeat for "
        f"{EXPIRY_SECONDS:.0f} s). Safe while other processes serve: their rows stay."
    )

    def handle(self, *args, **options) -> None:
        count = clear_stale()
        self.stdout.write(f"Cleared {count} stale table connection(s).")
