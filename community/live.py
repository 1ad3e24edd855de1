"""The community's live fragments: the notation table and the chart, rendered once
for every member and sent to the campaign's table websocket after each change."""

from __future__ import annotations

from django.template.loader import render_to_string

from contests.broadcast import send_to_table_on_commit

from .models import Community
from .selectors import chart_context, notation_context


def render_notation_table(community: Community, oob: bool = True) -> str:
    """The notation table with this interval's changes (`#notation-table`); `oob` marks
    it for an out-of-band swap, as broadcasts are."""
    context = {**notation_context(community), "oob": oob}
    return render_to_string("community/page.html#notation", context)


def render_chart(community: Community, oob: bool = True) -> str:
    context = {**chart_context(community), "oob": oob}
    return render_to_string("community/page.html#chart", context)


def broadcast_community(community: Community) -> None:
    """Send the re-rendered notation table and chart to everyone at the campaign's
    table (the community page connects to it too) once the transaction commits."""
    html = render_notation_table(community) + render_chart(community)
    send_to_table_on_commit(community.campaign_id, {"type": "table.fragment", "html": html})
