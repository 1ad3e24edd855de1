"""The floor of the stack under the browsers' path: what any table action costs on
Django, uvicorn, Channels, PostgreSQL and Redis here, whatever the app does besides.

`bench.http_path` serves this URLconf (bench/floor_settings.py) in one process, and in
N behind nginx, and drives it with the same browsers, cycle and rates as the real app.
Everything around the action view is the app's own: its middleware (session, user,
CSRF, the security headers), its websocket consumer and channel layer, the pages'
heartbeats. The action view keeps only what no correct action can skip:

- that the poster may act at this table (the GM or a member: one query);
- under a transaction, the contest's row locked (a new contest's row made, for a
  framing), the step's event written with its idempotency key, the contest's step
  number moved on;
- after the commit, one message to the table's group carrying a panel as the app's are
  (a player's broadcast recorded from the real run, `FLOOR_MESSAGE`) for the GM and
  for the players, packed as the app packs its copies (one text, `live.pack`), and the
  acknowledgement as the app answers it.

No rules, no flow, no rendering, no sheet reads; the panel names no player as playing,
so no page reloads its sheet. What the app costs above these figures is its own work.
"""

from __future__ import annotations

import os
import re

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

from campaigns.access import role_in_campaign
from contests.broadcast import send_to_table_sync
from contests.live import pack, render_ack, render_error
from contests.models import Contest, ContestEvent
from questworlds_site.urls import urlpatterns as site_urlpatterns

# The recorded panel, with its contest, step and players left to fill in.
_PANEL = re.sub(r'data-sheet-players="[^"]*"', 'data-sheet-players=""', os.environ["FLOOR_MESSAGE"])
_PANEL = re.sub(r'data-contest-id="\d*"', 'data-contest-id="\x00c"', _PANEL, count=1)
_PANEL = re.sub(r'data-seq="\d+"', 'data-seq="\x00s"', _PANEL, count=1)


def _panel(contest_id: int, seq: int) -> str:
    return _PANEL.replace("\x00c", str(contest_id)).replace("\x00s", str(seq))


@require_POST
def act(request: HttpRequest, campaign_id: int) -> HttpResponse:
    user = request.user
    role_in_campaign(user, campaign_id)  # the GM or a member, in one query (404 otherwise)
    action = request.POST.get("action", "")
    with transaction.atomic():
        if action == "frame":
            last = (
                Contest.objects.select_for_update()
                .filter(campaign_id=campaign_id)
                .order_by("-number")
                .first()
            )
            if last is None:
                raise Http404
            contest = Contest.objects.create(
                campaign_id=campaign_id,
                session_id=last.session_id,
                number=last.number + 1,
                kind=last.kind,
                status=last.status,
                prize=request.POST.get("prize", ""),
                state=last.state,
            )
        else:
            contest = (
                Contest.objects.select_for_update()
                .filter(pk=request.POST.get("contest"), campaign_id=campaign_id)
                .first()
            )
            if contest is None:
                raise Http404
        seq = contest.seq + 1
        ContestEvent.objects.create(
            contest=contest,
            seq=seq,
            actor=user,
            type=action,
            payload={"summary": action},
            idempotency_key=request.POST.get("key", ""),
        )
        Contest.objects.filter(pk=contest.pk).update(seq=seq)
        html = _panel(contest.pk, seq)
        message = {
            "type": "table.contest",
            "contest_id": contest.pk,
            "seq": seq,
            "html": pack({"gm": [html], "public": [html]}),
        }
        transaction.on_commit(lambda: send_to_table_sync(campaign_id, message))
    return HttpResponse(render_error("") + render_ack(seq))


urlpatterns = [
    path("campaigns/<int:campaign_id>/table/act/", act, name="table_act"),
    *site_urlpatterns,
]
