"""The demo GM and a demo player open the table and see each other (issue 2)."""

from __future__ import annotations

from playwright.sync_api import expect

from bench.liveserver import app_server, free_port, fresh_database, server_env


def open_table(page):
    # Other browser tests share the server and may add campaigns: open the demo's.
    page.locator(".card", has_text="The Sunken Crown").get_by_role(
        "link", name="Open the table"
    ).click()
    expect(page.locator("#connection-status")).to_have_text("Connected")


def test_gm_and_player_see_each_other_at_the_table(log_in_page):
    gm = log_in_page("gm")
    open_table(gm)
    gm_presence = gm.locator("#presence")
    expect(gm_presence).to_contain_text("Gwen the GM")

    alice = log_in_page("alice")
    open_table(alice)
    alice_presence = alice.locator("#presence")
    expect(alice_presence).to_contain_text("Gwen the GM")
    expect(alice_presence).to_contain_text("Alice")
    expect(gm_presence).to_contain_text("Alice")
    expect(gm_presence.locator("li", has_text="Alice")).to_contain_text("Player")
    expect(alice_presence.locator("li", has_text="Gwen the GM")).to_contain_text("Game master")

    alice.close()
    expect(gm_presence).not_to_contain_text("Alice")


def test_the_table_reconnects_after_a_server_restart(browser, tmp_path):
    """Stop the server under an open table: the page says so, then reconnects by itself
    and gets the full table state again from the restarted server."""
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(database_url)
        port = free_port()
        context = browser.new_context()
        page = context.new_page()
        with app_server(env, port) as base:
            page.goto(f"{base}/accounts/login/")
            page.get_by_label("Username").fill("bob")
            page.get_by_label("Password").fill("questworlds")
            page.get_by_role("button", name="Log in").click()
            open_table(page)
            expect(page.locator("#presence")).to_contain_text("Bob")
        expect(page.locator("#connection-status")).to_have_attribute("data-state", "reconnecting")
        with app_server(env, port):
            expect(page.locator("#connection-status")).to_have_text("Connected", timeout=20_000)
            expect(page.locator("#presence")).to_contain_text("Bob")
        context.close()
