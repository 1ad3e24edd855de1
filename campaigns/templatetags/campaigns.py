"""Template helpers of the campaign pages: Markdown recaps and archive links."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString

from campaigns.access import ArchiveViewer
from campaigns.markdown import render_markdown
from campaigns.selectors import outcome_text
from contests.core.rules.ratings import Rating

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    """Render Markdown written at the table, sanitised (see campaigns.markdown)."""
    return render_markdown(text)


@register.simple_tag
def archive_url(viewer: ArchiveViewer, page: str, *args) -> str:
    """The URL of an archive page for this viewer: under the campaign for members,
    under the public link for everyone else (`page`: timeline, session, contests,
    contest, search)."""
    if viewer.is_public:
        return reverse(f"public_{page}", args=[viewer.public_token, *args])
    return reverse(f"archive_{page}", args=[viewer.campaign.pk, *args])


@register.filter
def outcome(level: int | None) -> str:
    """A contest's outcome level in words, from the PC side."""
    return outcome_text(level)


@register.filter
def rating(total: int | None) -> str:
    """A rating total in mastery notation (27 -> 7M)."""
    return "" if total is None else str(Rating(total))
