from django import template

from community.models import rating_text

register = template.Library()


@register.filter
def community_rating(total) -> str:
    """A rating total in the community's notation: 32 -> `12W` (§8.1.3)."""
    if total is None or total == "":
        return ""
    return rating_text(int(total))


@register.filter
def signed(value) -> str:
    """A modifier as the notation table writes it: +3, -6; 0 stays blank."""
    if not value:
        return ""
    return f"{int(value):+d}"


@register.filter
def spaced(value) -> str:
    """A stored choice in words: `very_high` -> `very high`."""
    return str(value).replace("_", " ")
