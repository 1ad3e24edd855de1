"""Who is at a campaign's live table, shared by every server process via the database.

A row per open socket, owned by the server process that holds it (`SERVER_ID`). Each
process refreshes its rows' `seen_at` every `HEARTBEAT_SECONDS` (one UPDATE for all of
them, while it has a socket open); a row not refreshed for `EXPIRY_SECONDS` belongs to a
process that died without closing its sockets and is neither listed nor kept.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone

from campaigns.models import Role

from .models import TablePresence

_ROLE_ORDER: dict[str, int] = {Role.GM: 0, Role.PLAYER: 1, Role.SPECTATOR: 2}

# This process, unique across hosts, restarts and reused pids.
SERVER_ID = f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
HEARTBEAT_SECONDS = settings.PRESENCE_HEARTBEAT_SECONDS
# Three missed heartbeats: the process is gone.
EXPIRY_SECONDS = 3 * HEARTBEAT_SECONDS
_last_beat = time.monotonic()


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
        defaults={
            "campaign_id": campaign_id,
            "user": user,
            "role": role,
            "server": SERVER_ID,
            "seen_at": timezone.now(),
        },
    )


def presence_leave(*, channel_name: str) -> None:
    TablePresence.objects.filter(channel_name=channel_name).delete()


def heartbeat_due() -> bool:
    """True for one caller per heartbeat period in this process (the sockets' timers all
    ask; one of them writes)."""
    global _last_beat
    now = time.monotonic()
    if now - _last_beat < HEARTBEAT_SECONDS:
        return False
    _last_beat = now
    return True


def heartbeat() -> int:
    """Mark every row of this process as alive; the number of rows refreshed."""
    return TablePresence.objects.filter(server=SERVER_ID).update(seen_at=timezone.now())


def _stale_before():
    return timezone.now() - timedelta(seconds=EXPIRY_SECONDS)


def clear_stale() -> int:
    """Delete the rows of processes that stopped beating; live processes' rows stay."""
    count, _ = TablePresence.objects.filter(seen_at__lt=_stale_before()).delete()
    return count


def present_people(campaign_id: int) -> list[PresentPerson]:
    """Everyone connected, once each (several tabs count once), GM first, in one query."""
    people: dict[int, PresentPerson] = {}
    rows = TablePresence.objects.filter(
        campaign_id=campaign_id, seen_at__gte=_stale_before()
    ).select_related("user")
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
