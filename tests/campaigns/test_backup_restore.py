"""A backup is known to restore (docs/deploy.md, "Backups").

Campaigns are played through the services until the database holds campaigns,
characters, sessions, contest events and chat lines; PostgreSQL's own `pg_dump -Fc`
backs it up and `pg_restore` loads the dump into a new empty database, as the deploy
guide tells an operator to. Every row of every table is found again in the restored
database, and the table plays on from it: a new contest and a chat line, played through
the same services by a separate process whose settings name only the restored database.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.parse

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from bench.liveserver import fresh_database, manage, server_env
from campaigns import services as campaign_services
from contests.models import ChatKind
from contests.services import chat_post

from .conftest import ability, play_against

pytestmark = pytest.mark.django_db(transaction=True)

# The rows a campaign's table writes, by table: each must be in the backup.
PLAYED = {
    "campaigns": "campaigns_campaign",
    "characters": "characters_character",
    "sessions": "campaigns_session",
    "contest events": "contests_contestevent",
    "chat lines": "contests_chatmessage",
}

# Run by `manage.py shell` against the restored database alone: the next contest of the
# open session, and a line of chat, through the tests' Table and the chat service.
PLAY_ON = """
import json
from campaigns.models import Campaign
from characters.models import Character
from contests.models import ContestEvent, ChatMessage
from contests.services import chat_post
from tests.table import Table
campaign = Campaign.objects.get(name="The Sunken Crown")
tamsin = Character.objects.get(name="Tamsin Reedwalker")
table = Table(campaign, campaign.gm)
contest = table.frame(pc=tamsin, prize="climb out of the ford")
boatcraft = tamsin.abilities.get(name="Boatcraft")
table.act(contest, tamsin.player, "choose_ability", side="pc", ability_id=boatcraft.pk)
contest = table.act(contest, campaign.gm, "roll", rolls=(3, 17))
chat_post(campaign=campaign, user=tamsin.player, kind="out_of_character", text="after the restore")
print(json.dumps({
    "phase": contest.state["phase"],
    "events": ContestEvent.objects.filter(contest=contest).count(),
    "chat": list(ChatMessage.objects.order_by("pk").values_list("text", flat=True)),
}))
"""


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed (apt-get install postgresql-client)"
        if settings.REQUIRE_SERVICES:
            pytest.fail(f"REQUIRE_SERVICES=1 but {message}")
        pytest.skip(message)
    return path


def _libpq_env(url: str) -> dict[str, str]:
    """pg_dump's and pg_restore's connection, from a database URL (password included)."""
    parts = urllib.parse.urlsplit(url)
    return dict(
        os.environ,
        PGHOST=parts.hostname or "",
        PGPORT=str(parts.port or 5432),
        PGUSER=urllib.parse.unquote(parts.username or ""),
        PGPASSWORD=urllib.parse.unquote(parts.password or ""),
        PGDATABASE=urllib.parse.unquote(parts.path.lstrip("/")),
    )


def _test_database_url() -> str:
    db = connection.settings_dict
    password = f":{urllib.parse.quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    host = db["HOST"] or "localhost"
    return f"postgres://{db['USER']}{password}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


def _everything(url: str) -> dict[str, list]:
    """Every row of every table of the database, in an order of its own."""
    with psycopg.connect(url) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
            )
        ]
        return {
            table: sorted(conn.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
            for table in tables
        }


@pytest.fixture
def played(campaign, gm, alice, bob, tamsin):
    """Two campaigns: the personas' with a session open, a contest played from framing
    to consequences and chat of every kind; a second, just created."""
    campaign_services.campaign_create(gm=gm, name="The Salt Road", genre="Sword and sorcery")
    campaign_services.session_start(campaign=campaign, actor=gm, title="Low water")
    play_against(campaign, gm, tamsin, ability(tamsin, "Boatcraft", 15))
    chat_post(
        campaign=campaign,
        user=alice,
        kind=ChatKind.EMOTE,
        text="wades in, ça va",
        character_id=tamsin.pk,
    )
    chat_post(campaign=campaign, user=alice, kind=ChatKind.WHISPER, text="I pocket the ring")
    chat_post(campaign=campaign, user=gm, kind=ChatKind.IN_CHARACTER, text="The river rises.")
    return campaign


def test_a_pg_dump_restores_into_an_empty_database_and_the_table_plays_on(played, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump backs up PostgreSQL; the laptop run is on SQLite")
    pg_dump, pg_restore = _tool("pg_dump"), _tool("pg_restore")
    source = _test_database_url()
    before = _everything(source)
    for what, table in PLAYED.items():
        assert before[table], f"the played campaigns left no {what} to back up"

    dump = tmp_path / "questworlds.dump"
    subprocess.run(
        [pg_dump, "--format=custom", f"--file={dump}"],
        env=_libpq_env(source),
        check=True,
        timeout=120,
    )
    with fresh_database(tmp_path) as restored:
        subprocess.run(
            [pg_restore, "--no-owner", "--exit-on-error", f"--dbname={restored}", str(dump)],
            env=_libpq_env(restored),
            check=True,
            timeout=120,
        )
        after = _everything(restored)
        assert after.keys() == before.keys()
        for table, rows in before.items():
            assert after[table] == rows, f"{table} differs after the restore"

        played_on = json.loads(
            manage(server_env(restored), "shell", "-c", PLAY_ON).strip().splitlines()[-1]
        )
        # New rows take ids after the restored ones (the sequences came back too).
        assert played_on == {
            "phase": "rolled",
            "events": 3,  # framed, Tamsin's ability chosen, the dice rolled
            "chat": [
                "wades in, ça va",
                "I pocket the ring",
                "The river rises.",
                "after the restore",
            ],
        }
    # The backed-up database went on untouched.
    assert _everything(source) == before
