"""Every form of the community pages refuses a NUL or text past its limit with a 400,
its page with the message, and no change, and takes text at the limit (issue 12, items
2 and 3); the pages show each limit."""

from __future__ import annotations

import pytest
from django.urls import reverse

from community import services
from community.models import AnswerMode
from tests.form_limits import Form, assert_limits_shown, cases, check_limit, snapshot, text

from .conftest import resource

pytestmark = pytest.mark.django_db


@pytest.fixture
def bare(campaign, gm):
    """A community without its resources yet."""
    return services.community_create(campaign=campaign, actor=gm, name="Ashfen")


@pytest.fixture
def draws_ready(community, ashfen_born, session):
    """In a session, with Tamsin's relationship to lobby with."""
    return community


def _url(name: str, community, *args) -> str:
    return reverse(f"community:{name}", args=[community.campaign_id, *args])


def _wealth(community) -> int:
    return resource(community, "Wealth").pk


COMMUNITY = {"name": 120, "description": 4_000, "interval_name": 40}
SETTINGS = {"name": "Ashfen", "interval_name": "season", "answer_mode": AnswerMode.CONSENSUS}

FORMS = {
    "create": Form(
        url=lambda c: reverse("community:create", args=[c.pk]),
        data=lambda c: SETTINGS,
        fields=COMMUNITY,
        user="gm",
    ),
    "edit": Form(
        url=lambda c: _url("edit", c),
        data=lambda c: SETTINGS,
        fields=COMMUNITY,
        user="gm",
        subject="community",
    ),
    "found": Form(
        url=lambda c: _url("found", c),
        data=lambda c: {f"name_{i}": name for i, name in enumerate("ABCDE", 1)},
        fields={"name_1": 60, "name_5": 60},
        user="gm",
        subject="bare",
    ),
    "resource-add": Form(
        url=lambda c: _url("resource_add", c),
        data=lambda c: {"name": "Trade", "rating": "14"},
        fields={"name": 60},
        user="gm",
        subject="bare",
    ),
    "resource-edit": Form(
        url=lambda c: _url("resource_edit", c, _wealth(c)),
        data=lambda c: {"name": "Wealth", "rating": "12W"},
        fields={"name": 60},
        user="gm",
        subject="community",
    ),
    "required-use": Form(
        url=lambda c: _url("required_add", c),
        data=lambda c: {"resource": _wealth(c), "action": "Hiring mercenaries"},
        fields={"action": 120},
        user="gm",
        subject="community",
    ),
    "question": Form(
        url=lambda c: _url("question_add", c),
        data=lambda c: {"text": "Who rules?", "choice_1": "The elders", "choice_2": "Nobody"},
        fields={"text": 300, "choice_1": 200, "choice_4": 200},
        user="gm",
        subject="community",
    ),
    "plot": Form(
        url=lambda c: _url("plot", c),
        data=lambda c: {"resource": _wealth(c), "change": "2", "reason": "a rich harvest"},
        fields={"reason": 200},
        user="gm",
        subject="community",
    ),
    "cement": Form(
        url=lambda c: _url("cement", c, _wealth(c)),
        data=lambda c: {"reason": "the harvest"},
        fields={"reason": 200},
        user="gm",
        subject="community",
        accepts=False,  # a background bonus to cement
    ),
    "crisis": Form(
        url=lambda c: _url("crisis_narrate", c, _wealth(c)),
        data=lambda c: {"text": "Hunger"},
        fields={"text": 500},
        user="gm",
        subject="community",
        accepts=False,  # a resource in crisis
    ),
    "draw": Form(
        url=lambda c: _url("draw_start", c),
        data=lambda c: {
            "resource": _wealth(c),
            "ability": c.campaign.characters.get().abilities.get().pk,
            "purpose": "grain",
            "resistance_level": "moderate",
            "used_as": "ability",
        },
        fields={"purpose": 300},
        user="gm",
        subject="draws_ready",
    ),
    "penalty": Form(
        url=lambda c: _url("penalty", c),
        data=lambda c: {"resource": _wealth(c), "outcome_level": "-1"},
        fields={"reason": 200},
        user="gm",
        subject="community",
    ),
    "penalty-states": Form(
        url=lambda c: _url("penalty", c),
        data=lambda c: {"resource": _wealth(c)},
        fields={"states": 200},
        user="gm",
        subject="community",
        accepts=False,  # the states are named
    ),
    "bolster": Form(
        url=lambda c: _url("bolster", c),
        data=lambda c: {"resource": _wealth(c), "outcome_level": "1"},
        fields={"reason": 200},
        user="gm",
        subject="community",
    ),
    "concede": Form(
        url=lambda c: _url("concede", c),
        data=lambda c: {"resource": _wealth(c)},
        fields={"reason": 200},
        user="gm",
        subject="community",
    ),
}


@pytest.mark.parametrize(("form", "field"), cases(FORMS))
def test_nul_and_overlong_text_are_refused(client, request, form, field):
    spec = FORMS[form]
    client.force_login(request.getfixturevalue(spec.user))
    check_limit(client, spec, request.getfixturevalue(spec.subject), field)


def test_a_refused_action_answers_400_with_its_page(client, community, gm):
    """A refusal of the rules (here: no session for crisis tests) is a 400 too."""
    client.force_login(gm)
    before = snapshot()
    response = client.post(_url("crisis", community))
    assert response.status_code == 400
    assert 'class="message error"' in text(response) and "<h1" in text(response)
    assert snapshot() == before


@pytest.mark.parametrize("page", ["page", "setup", "questionnaire", "draws", "edit"])
def test_the_pages_show_every_limit(client, draws_ready, gm, page):
    client.force_login(gm)
    assert assert_limits_shown(text(client.get(_url(page, draws_ready)))) >= 1


def test_the_create_page_shows_every_limit(client, campaign, gm):
    client.force_login(gm)
    page = text(client.get(reverse("community:create", args=[campaign.pk])))
    assert assert_limits_shown(page) == 3 and "Up to 4,000 characters." in page
