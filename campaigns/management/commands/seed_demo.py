from django.core.management.base import BaseCommand

from campaigns.demo import DEMO_LOGINS, DEMO_PASSWORD, database_is_empty, demo_campaign_create


class Command(BaseCommand):
    help = "Load the demo campaign (a GM, two players, three characters) into an empty database."

    def handle(self, *args, **options) -> None:
        if database_is_empty():
            campaign = demo_campaign_create()
            self.stdout.write(f"Loaded the demo campaign {campaign.name!r}.")
        else:
            self.stdout.write("The database already has users; the demo campaign was not loaded.")
        self.stdout.write(f"Demo logins (password for each: {DEMO_PASSWORD}):")
        for username, display, role in DEMO_LOGINS:
            self.stdout.write(f"  {username:<6} {display} ({role})")
