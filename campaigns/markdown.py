"""Markdown written by players and GMs (recaps), rendered to HTML that is safe to show.

Markdown allows raw HTML, so the rendered text is always sanitised with nh3 (an
allow-list of tags and attributes; scripts, styles, event handlers and `javascript:`
links never survive) before it is marked safe.
"""

from __future__ import annotations

import html
import re

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "li", "ol", "p", "pre", "s", "strong", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "td": {"align"}, "th": {"align"}}


def render_markdown(text: str) -> SafeString:
    """`text` as sanitised HTML (empty text gives an empty string)."""
    if not text:
        return mark_safe("")  # noqa: S308 - nothing to escape
    html = markdown_lib.markdown(text, extensions=["tables", "sane_lists"], output_format="html")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above


# Characters that make Markdown out of plain text anywhere in a line, escaped with a
# backslash (`<`, `>` and `&` become HTML entities first, and so does `~`, which only
# some Markdowns let a backslash escape), and what starts a block when it begins a line.
_INLINE_MARKUP = re.compile(r"([\\`*_\[\]#!|])")
_BLOCK_START = re.compile(r"^(?:[-+=]|\d{1,9}[.)])(?=\s|$)")


def plain_text(value: object) -> str:
    """`value` as Markdown that reads exactly as typed, on one line."""
    text = " ".join(html.escape(str(value), quote=False).split())
    text = _INLINE_MARKUP.sub(r"\\\1", text).replace("~", "&#126;")
    return _BLOCK_START.sub(lambda start: f"{start[0][:-1]}\\{start[0][-1]}", text)
