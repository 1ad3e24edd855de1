"""Settings come from the environment with safe embedded defaults (issue 2).

Each case imports the settings module in a fresh interpreter with exactly the
given environment, as `make run` or CI would start it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from bench.janitor import run
from questworlds_site.env import database_from_url

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json
from django.conf import settings
import django
django.setup()
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "name": str(settings.DATABASES["default"]["NAME"]),
    "host": settings.DATABASES["default"].get("HOST", ""),
    "port": settings.DATABASES["default"].get("PORT", ""),
    "user": settings.DATABASES["default"].get("USER", ""),
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "hosts": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("hosts"),
    "debug": settings.DEBUG,
    "secure_cookies": getattr(settings, "SESSION_COOKIE_SECURE", False),
    "allowed_hosts": settings.ALLOWED_HOSTS,
    "webhook_hosts": settings.WEBHOOK_ALLOWED_HOSTS,
    "webhook_http": settings.WEBHOOK_ALLOW_HTTP,
}))
"""


def load_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    clean.update(DJANGO_SETTINGS_MODULE="questworlds_site.settings", **env)
    return run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=clean,
        timeout=60,
    )


def settings_with(**env: str) -> dict:
    result = load_settings(**env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_without_variables_it_uses_sqlite_and_the_in_memory_layer():
    loaded = settings_with()
    assert loaded["engine"] == "django.db.backends.sqlite3"
    assert loaded["name"] == str(ROOT / "db.sqlite3")
    assert loaded["layer"] == "channels.layers.InMemoryChannelLayer"
    assert loaded["debug"] is True


def test_with_variables_it_uses_postgresql_and_redis():
    loaded = settings_with(
        DATABASE_URL="postgres://player:secret@db.internal:5433/questworlds",
        REDIS_URL="redis://cache.internal:6379/2",
    )
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert (loaded["name"], loaded["host"], loaded["port"], loaded["user"]) == (
        "questworlds",
        "db.internal",
        "5433",
        "player",
    )
    assert loaded["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert [host["address"] for host in loaded["hosts"]] == ["redis://cache.internal:6379/2"]
    # Idle sockets must not time out inside the layer's blocking reads (redis-py 8).
    assert loaded["hosts"][0]["socket_timeout"] is None


def test_the_core_layer_is_a_setting():
    loaded = settings_with(REDIS_URL="redis://127.0.0.1:6379/0", CHANNEL_LAYER="core")
    assert loaded["layer"] == "channels_redis.core.RedisChannelLayer"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "false"}, "SECRET_KEY must be set"),
        ({"DEBUG": "maybe"}, "DEBUG='maybe'"),
        ({"DATABASE_URL": "mysql://x/y"}, "only sqlite"),
        ({"DATABASE_URL": "sqlite://"}, "names no SQLite file"),
        ({"DATABASE_URL": "postgres://player@db.internal/"}, "names no database"),
        ({"TRUSTED_PROXIES": "172.28.0.10,172.28.0.300"}, "'172.28.0.300' is neither"),
        ({"REDIS_URL": "redis://x", "CHANNEL_LAYER": "carrier-pigeon"}, "CHANNEL_LAYER"),
        ({"WEBHOOK_ALLOW_HTTP": "perhaps"}, "WEBHOOK_ALLOW_HTTP='perhaps'"),
        ({"WEBHOOK_RETRY_SECONDS": "soon"}, "WEBHOOK_RETRY_SECONDS='soon': a number"),
        ({"WEBHOOK_TIMEOUT_SECONDS": "0"}, "WEBHOOK_TIMEOUT_SECONDS='0': at least 0.1"),
        ({"WEBHOOK_MAX_ATTEMPTS": "0"}, "WEBHOOK_MAX_ATTEMPTS='0': at least 1"),
    ],
)
def test_it_refuses_to_start_on_unsafe_or_unreadable_settings(env, message):
    result = load_settings(**env)
    assert result.returncode != 0
    assert message in result.stderr


def test_the_discord_relay_sends_to_discord_over_https_unless_told_otherwise():
    loaded = settings_with()
    assert loaded["webhook_hosts"] == [
        "discord.com",
        "discordapp.com",
        "ptb.discord.com",
        "canary.discord.com",
    ]
    assert loaded["webhook_http"] is False
    local = settings_with(
        WEBHOOK_ALLOWED_HOSTS="127.0.0.1:8765, Hooks.Example.org", WEBHOOK_ALLOW_HTTP="1"
    )
    assert local["webhook_hosts"] == ["127.0.0.1:8765", "hooks.example.org"]
    assert local["webhook_http"] is True


def test_production_settings_are_safe():
    loaded = settings_with(DEBUG="false", SECRET_KEY="x" * 50, ALLOWED_HOSTS="table.example.org")
    assert loaded["debug"] is False
    assert loaded["secure_cookies"] is True
    assert loaded["allowed_hosts"] == ["table.example.org"]


def test_a_database_url_that_cannot_be_read_says_which_part_and_hides_its_password():
    result = load_settings(DATABASE_URL="postgres://player:s3cret@db.internal:54x2/questworlds")
    assert result.returncode != 0
    assert "DATABASE_URL='postgres://player:***@db.internal:54x2/questworlds'" in result.stderr
    assert "the port is a number" in result.stderr
    assert "s3cret" not in result.stderr


def test_percent_encoded_parts_a_socket_directory_and_options_are_read(monkeypatch):
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "4")
    database = database_from_url(
        "postgres://player:p%40ss%2Fw%3Ard@%2Frun%2Fpostgresql/quest%20worlds?sslmode=require",
        ROOT,
    )
    assert (database["USER"], database["PASSWORD"]) == ("player", "p@ss/w:rd")
    assert (database["HOST"], database["PORT"], database["NAME"]) == (
        "/run/postgresql",
        "",
        "quest worlds",
    )
    assert database["OPTIONS"]["sslmode"] == "require"
    assert database["OPTIONS"]["pool"]["max_size"] == 4
    assert database["CONN_MAX_AGE"] == 0


def test_a_sqlite_file_is_found_beside_the_code_or_where_it_is_named(tmp_path):
    assert database_from_url("sqlite:///db.sqlite3", ROOT)["NAME"] == str(ROOT / "db.sqlite3")
    absolute = tmp_path / "table.sqlite3"
    assert database_from_url(f"sqlite:///{absolute}", ROOT)["NAME"] == str(absolute)
    with pytest.raises(ImproperlyConfigured, match="names no SQLite file"):
        database_from_url("sqlite:///:memory:", ROOT)
