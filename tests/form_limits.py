"""What the `test_*_limits.py` files share (issue 12, items 2 and 3): a form of the site,
posted with a NUL character or with text one character past its field's limit, answers
400 with a readable message and changes nothing; text at the limit is taken.

Each app's file lists its forms as `Form`s, one test per (form, text field).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps

from questworlds_site.limits import POSTED_VALUE_MAX

NUL = "Grey\x00River"
HTMX = {"HX-Request": "true"}
# The apps whose rows a form can create or change.
APPS = ("accounts", "campaigns", "characters", "community", "contests")


@dataclass(frozen=True)
class Form:
    """A form as a user posts it: `url(subject)`, valid `data(subject)` and its text
    fields' limits, posted by the `user` fixture about the `subject` fixture."""

    url: Callable[[Any], str]
    data: Callable[[Any], dict]
    fields: dict[str, int]
    user: str = "alice"
    subject: str = "campaign"
    htmx: bool = False
    # Text at the limit is taken and stored (False where the form's action needs more
    # than the form: experience to spend, a running session).
    accepts: bool = True


def cases(forms: dict[str, Form]) -> list[tuple[str, str]]:
    return [(name, text) for name, form in forms.items() for text in form.fields]


def snapshot() -> dict[str, list]:
    """Every row of the apps, as values: equal before and after, nothing was stored."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if model._meta.app_label in APPS
    }


def text(response) -> str:
    return html.unescape(response.content.decode())


def check_limit(client, form: Form, subject: Any, name: str) -> None:
    """NUL and one character too many in `name` are refused (400, a message, nothing
    stored); `limit` characters are taken."""
    url, data, limit = form.url(subject), form.data(subject), form.fields[name]
    headers = HTMX if form.htmx else {}
    before = snapshot()

    response = client.post(url, {**data, name: NUL}, headers=headers)
    assert response.status_code == 400, (url, name, response.status_code)
    assert "NUL character" in text(response)
    assert snapshot() == before

    response = client.post(url, {**data, name: "x" * (limit + 1)}, headers=headers)
    assert response.status_code == 400, (url, name, response.status_code)
    if limit < POSTED_VALUE_MAX:
        message = f"at most {limit} characters (it has {limit + 1})"
    else:  # the longest text is refused before any form (RejectNulMiddleware)
        message = f"longer than any field takes ({limit:,} characters)"
    assert message in text(response), (url, name)
    assert snapshot() == before

    if form.accepts:
        response = client.post(url, {**data, name: "x" * limit}, headers=headers)
        errors = re.findall(r'class="(?:errorlist|message error)[^>]*>(.*?)</', text(response))
        assert response.status_code in (200, 302), (url, name, errors)
        assert snapshot() != before, (url, name)


TAG = re.compile(r"<(input|textarea)\b([^>]*)>", re.S)
SKIPPED_INPUTS = {"hidden", "number", "checkbox", "radio", "password", "file", "submit"}


def assert_limits_shown(page: str) -> int:
    """Every text input and textarea of `page` carries `maxlength`; every textarea's
    limit is also written next to it ("Up to 4,000 characters."). The count checked."""
    checked = 0
    for tag, attrs in TAG.findall(page):
        kind = re.search(r'type="(\w+)"', attrs)
        if tag == "input" and kind and kind.group(1) in SKIPPED_INPUTS:
            continue
        limit = re.search(r'maxlength="(\d+)"', attrs)
        assert limit, f"<{tag}{attrs}> has no maxlength"
        if tag == "textarea":
            assert f"Up to {int(limit.group(1)):,} characters." in page, attrs
        checked += 1
    return checked
