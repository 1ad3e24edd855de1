"""The contest panel's forms, built in Python (contests/action_form.py, issue 16): what a
person reads and posts from them, with names and text from the table escaped, on panels
played through the services."""

from __future__ import annotations

import re

import pytest

from characters.models import Ability, Character
from contests.live import render_contest
from tests.table import ability

pytestmark = pytest.mark.django_db

MARKUP = '<img src=x onerror="alert(1)">'


def form_of(html: str, action: str) -> str:
    """The first form whose hidden action is `action`."""
    match = re.search(rf'<form [^>]*data-action="{action}"[^>]*>.*?</form>', html, flags=re.DOTALL)
    assert match, f"no {action} form in the panel"
    return match.group(0)


@pytest.fixture
def marked(campaign, alice):
    """Alice's character whose name and ability are markup, as a person could type them."""
    character = Character.objects.create(name=f"Tam {MARKUP}", player=alice, campaign=campaign)
    Ability.objects.create(character=character, name=f"Swim {MARKUP}", rating=17)
    return character


def test_a_players_form_posts_its_fields_and_shows_their_words(table, session, alice, marked):
    contest = table.frame(pc=marked, opponent={"name": "The Grey River", "level": "moderate"})
    html = render_contest(contest, "player", reader=alice.pk)
    form = form_of(html, "choose_ability")
    # Where it posts and what it carries, like every table form.
    assert f'hx-post="/campaigns/{table.campaign.pk}/table/act/"' in form
    assert f'<input type="hidden" name="contest" value="{contest.pk}">' in form
    assert f'<input type="hidden" name="seq" value="{contest.seq}">' in form
    assert '<input type="hidden" name="key" data-fresh-key>' in form
    # The sheet's abilities to pick from, in words, the markup shown as text.
    swim = ability(marked, f"Swim {MARKUP}")
    assert f'<option value="{swim.pk}">Swim &lt;img src=x' in form
    assert MARKUP not in html
    tactic = form_of(html, "set_tactic")
    assert '<label>Tactic <input name="tactic" maxlength="300" required></label>' in tactic


def test_the_gms_confirm_form_offers_states_with_the_suggestion_chosen(
    table, session, gm, alice, marked
):
    contest = table.frame(pc=marked, opponent={"name": "The Grey River", "level": "moderate"})
    swim = ability(marked, f"Swim {MARKUP}")
    table.act(contest, alice, "choose_ability", side="pc", ability_id=swim.pk)
    table.act(contest, gm, "roll", rolls=(18, 3))  # failure against success: a minor defeat
    table.act(contest, gm, "resolve")
    contest.refresh_from_db()
    assert contest.state["suggested"] == [{"side": "pc", "state": "impaired"}]
    form = form_of(render_contest(contest, "gm"), "apply_consequences")
    assert "this cannot be taken back. Go ahead?" in form  # asks before it is final
    assert 'class="primary"' in form  # the move the table waits on
    assert "Tam &lt;img src=x onerror=&quot;alert(1)&quot;&gt;: consequence" in form
    consequence = re.search(r'<select name="edit.pc">(.*?)</select>', form).group(1)
    assert '<option value="">none</option>' in consequence
    assert '<option value="impaired" selected>impaired</option>' in consequence
    assert consequence.count(" selected") == 1
    benefit = re.search(r'<select name="edit.pc_benefit">(.*?)</select>', form).group(1)
    assert " selected" not in benefit
    assert MARKUP not in form


def test_the_gms_modifier_is_a_number_within_the_rules_bounds(table, session, gm, tamsin):
    """A situational modifier is at most ±40 and ±3 bumps (contests/core/table/base.py): the
    browser is told so, and starts at 0; a resistance's has no bumps to give."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    forms = re.findall(
        r'<form [^>]*data-action="modifier"[^>]*>.*?</form>',
        render_contest(contest, "gm"),
        flags=re.DOTALL,
    )
    sides = {re.search(r'name="side" value="(\w+)"', f).group(1): f for f in forms}
    assert set(sides) == {"pc", "opponent"}
    pc, resistance = sides["pc"], sides["opponent"]
    assert '<input name="value" type="number" min="-40" max="40" value="0" required>' in pc
    assert '<input name="bumps" type="number" min="-3" max="3" value="0" required>' in pc
    # A resistance takes no bump (R18.3): no field that could only hold 0.
    assert '<input name="value" type="number" min="-40" max="40" value="0" required>' in resistance
    assert 'name="bumps"' not in resistance and "Value (not 0)" in resistance
