"""The community's live fragments: the notation table and the chart (the community
page), the interval's draws and the GM's frame form's approved draws (the table page),
rendered once for every member and sent to the campaign's table websocket after each
change."""

from __future__ import annotations

from django.template.loader import render_to_string

from contests.broadcast import send_to_table_on_commit

from .models import Community
from .selectors import chart_context, notation_context, table_draws_context


def render_notation_table(community: Community, oob: bool = True) -> str:
    """The notation table with this interval's changes (`#notation-table`); `oob` marks
    it for an out-of-band swap, as broadcasts are."""
    context = {**notation_context(community), "oob": oob}
    return render_to_string("community/page.html#notation", context)


def render_chart(community: Community, oob: bool = True) -> str:
    context = {**chart_context(community), "oob": oob}
    return render_to_string("community/page.html#chart", context)


def render_table_draws(community: Community) -> str:
    """The interval's draws (`#table-draws`) and the approved draws the GM's frame form
    offers (`#frame-draws`), for an out-of-band swap on the table page (§8.2)."""
    context = {**table_draws_context(community), "oob": True}
    return render_to_string("community/table.html#draws", context) + render_to_string(
        "community/table.html#frame_draws", context
    )


def broadcast_community(community: Community) -> None:
    """Send the re-rendered notation table, chart and draws to everyone at the
    campaign's table (the community page connects to it too) once the transaction
    commits: each page swaps in the parts it shows."""
    html = render_notation_table(community) + render_chart(community)
    html += render_table_draws(community)
    send_to_table_on_commit(community.campaign_id, {"type": "table.fragment", "html": html})
