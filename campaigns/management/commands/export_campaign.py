import json

from django.core.management.base import BaseCommand, CommandError

from campaigns.models import Campaign
from campaigns.transfer import campaign_export


class Command(BaseCommand):
    help = "Write a whole campaign as JSON (import it elsewhere with import_campaign)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign_id", type=int)
        parser.add_argument("--output", "-o", help="A file to write (default: standard output).")

    def handle(self, *args, campaign_id: int, output: str | None = None, **options) -> None:
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            raise CommandError(f"There is no campaign {campaign_id}.")
        text = json.dumps(campaign_export(campaign), indent=1, ensure_ascii=False)
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
            self.stderr.write(f"Wrote {campaign.name!r} to {output}.")
        else:
            self.stdout.write(text)
