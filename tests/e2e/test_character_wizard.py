"""A player creates a character through the wizard with the prose method (issue 4): the
paragraph, words selected in it turned into abilities, and the finished sheet."""

from __future__ import annotations

from playwright.sync_api import expect

PROSE = (
    "Wren is a curious river witch who reads fortunes in the mud of the Grey River. "
    "She trades charms with the bargemen for news and bread, and she keeps a tame otter "
    "called Pip who steals for her. Her grandmother taught her the drowned gods' names, "
    "and she whispers them when the water rises. She is stubborn, and she will not leave "
    "Ashfen even when the floods come, because the river still owes her a debt."
)

SELECT = """(phrase) => {
  const box = document.getElementById("prose-text");
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(phrase);
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + phrase.length);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
      return true;
    }
  }
  return false;
}"""


def settled(page, press) -> None:
    """Press, then wait until htmx has settled the swap it answers with: the paragraph's
    phrases are underlined anew then, which would drop a selection made before."""
    page.evaluate(
        """() => { window.qwSettled = new Promise(done =>
             document.addEventListener("htmx:afterSettle", () => done(true), {once: true})); }"""
    )
    press()
    page.evaluate("() => window.qwSettled")


def take_phrase(page, phrase, *, kind, rating, role):
    """Select `phrase` in the paragraph, send it to the form, rate it, add it."""
    assert page.evaluate(SELECT, phrase)
    page.get_by_role("button", name="Make the selected words an ability").click()
    form = page.locator("#ability-form")
    name = phrase[0].upper() + phrase[1:]
    expect(form.get_by_label("Words in your paragraph")).to_have_value(phrase)
    expect(form.get_by_label("Name")).to_have_value(name)
    form.get_by_label("Kind").select_option(kind)
    form.get_by_label("Rating").fill(rating)
    form.get_by_label("Concept").select_option(role)
    settled(page, form.get_by_role("button", name="Add to the sheet").click)
    # Wait for this answer, not the last one: the wizard is swapped in place.
    expect(page.locator("#creation p[role=status]")).to_have_text(f"{name} is on the sheet.")


def test_a_player_creates_a_character_with_the_prose_method(log_in_page):
    page = log_in_page("alice")
    page.get_by_role("link", name="My characters").click()
    page.get_by_role("link", name="Create a character").click()
    page.get_by_label("Name").fill("Wren")
    page.get_by_label("Concept").fill("curious river witch")
    page.get_by_label("Prose (§3.6)").check()
    page.get_by_label("Campaign").select_option(label="The Sunken Crown")
    page.get_by_role("button", name="Next: abilities").click()
    expect(page.get_by_role("heading", name="Creating Wren")).to_be_visible()

    page.get_by_role("textbox", name="Paragraph").fill(PROSE)
    settled(page, page.get_by_role("button", name="Save the paragraph").click)
    expect(page.locator("#prose-text")).to_contain_text("curious river witch")

    take_phrase(page, "river witch", kind="Keyword", rating="17", role="Defining ability")
    keyword = page.locator("#prose-text u.phrase-keyword")
    expect(keyword).to_have_text("river witch")  # double-underlined in the paragraph
    take_phrase(page, "curious", kind="Ability", rating="17", role="Distinguishing characteristic")
    expect(page.locator("#creation .abilities")).to_contain_text("River witch")
    expect(page.locator("#creation .abilities")).to_contain_text("Curious")

    # A phrase that breaks a rule is refused with the rule and the numbers.
    assert page.evaluate(SELECT, "tame otter")
    page.get_by_role("button", name="Make the selected words an ability").click()
    form = page.locator("#ability-form")
    form.get_by_label("Rating").fill("25")
    settled(page, form.get_by_role("button", name="Add to the sheet").click)
    expect(page.locator("#ability-form .errorlist")).to_contain_text(
        "§3.2: Tame otter has 12 extra points; at most 10 on one ability"
    )
    expect(page.locator("#creation .abilities")).not_to_contain_text("Tame otter")

    page.get_by_role("button", name="Finish the character").click()
    page.wait_for_url("**/characters/*/")
    expect(page.get_by_role("heading", name="Wren", exact=True)).to_be_visible()
    expect(page.locator(".messages")).to_contain_text("Wren is ready to play.")
    expect(page.locator("#sheet .sheet-abilities")).to_contain_text("River witch")

    # The GM sees the new character on the campaign's roster and opens the sheet.
    gm = log_in_page("gm")
    gm.goto(page.url.split("/characters/")[0] + "/characters/")
    gm.get_by_role("link", name="The Sunken Crown: the roster").click()
    gm.get_by_role("link", name="Wren").click()
    expect(gm.locator("#sheet")).to_contain_text("Curious")
