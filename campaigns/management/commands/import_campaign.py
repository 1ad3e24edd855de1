import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from campaigns.transfer import campaign_import


class Command(BaseCommand):
    help = (
        "Recreate a campaign from an export_campaign JSON file. People are matched by "
        "username; missing ones get inactive accounts for an administrator to activate."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")

    def handle(self, *args, path: str, **options) -> None:
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from exc
        try:
            campaign = campaign_import(data=data)
        except ValidationError as exc:
            raise CommandError("Nothing was imported: " + " ".join(exc.messages)) from exc
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # As on the import page: a shape the import's checks do not name; its
            # transaction has rolled back whatever it had created.
            raise CommandError(
                "Nothing was imported: the file does not have the shape of a campaign export."
            ) from exc
        self.stdout.write(f"Imported {campaign.name!r} as campaign {campaign.pk}.")
