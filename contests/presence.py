"""Who is at a campaign's live table, shared by every server process via the database."""

from __future__ import annotations

from dataclasses import dataclass

from django.template.loader import render_to_string

from campaigns.models import Role

from .models import TablePresence

_ROLE_ORDER = {Role.GM: 0, Role.PLAYER: 1, Role.SPECTATOR: 2}


@dataclass(frozen=True)
class PresentPerson:
    user_id: int
    name: str
    role: str
    connections: int

    @property
    def role_label(self) -> str:
        return Role(self.role).label


def presence_join(*, campaign_id: int, user, role: str, channel_name: str) -> None:
    TablePresence.objects.update_or_create(
        channel_name=channel_name,
        defaults={"campaign_id": campaign_id, "user": user, "role": role},
    )


def presence_leave(*, channel_name: str) -> None:
    TablePresence.objects.filter(channel_name=channel_name).delete()


def present_people(campaign_id: int) -> list[PresentPerson]:
    """Everyone connected, once each (several tabs count once), GM first, in one query."""
    people: dict[int, PresentPerson] = {}
    rows = TablePresence.objects.filter(campaign_id=campaign_id).select_related("user")
    for row in rows:
        known = people.get(row.user_id)
        people[row.user_id] = PresentPerson(
            user_id=row.user_id,
            name=row.user.shown_name,
            role=row.role,
            connections=(known.connections if known else 0) + 1,
        )
    return sorted(people.values(), key=lambda p: (_ROLE_ORDER.get(p.role, 9), p.name.lower()))


def render_presence(campaign_id: int) -> str:
    """The presence list as an out-of-band fragment for the htmx ws extension."""
    return render_to_string(
        "contests/table.html#presence", {"people": present_people(campaign_id), "oob": True}
    )
