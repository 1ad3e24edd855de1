"""docker-compose.yml runs the same app on PostgreSQL 16 and Redis 7 (issue 2).

No Docker engine runs on CI machines, so this checks the file itself: valid YAML,
the services, images, health checks, ports and an environment that our settings
module accepts and reads as PostgreSQL + Redis.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from questworlds_site.env import channel_layer_from_env, database_from_url

from .test_settings import settings_with

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def resolved(value: str) -> str:
    """Expand `${VAR:-default}` and `${VAR:?message}` the way compose would with no .env."""
    value = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)
    return re.sub(r"\$\{SECRET_KEY:\?[^}]*\}", "compose-test-secret-" + "x" * 40, value)


def test_it_has_the_database_cache_migration_and_web_services(compose):
    services = compose["services"]
    assert set(services) >= {"db", "redis", "migrate", "web"}
    assert services["db"]["image"] == "postgres:16"
    assert services["redis"]["image"] == "redis:7"
    for name in ("db", "redis", "web"):
        assert services[name]["healthcheck"]["test"], f"{name} has no health check"


def test_web_waits_for_migrations_and_only_the_proxy_publishes_a_port(compose):
    web = compose["services"]["web"]
    assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "ports" not in web  # reachable only through nginx (issue 12, item 10)
    assert "/healthz" in " ".join(web["healthcheck"]["test"])
    proxy = compose["services"]["proxy"]
    assert "8000:80" in proxy["ports"]
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    # The app believes forwarded headers from the proxy's fixed address alone.
    address = proxy["networks"]["default"]["ipv4_address"]
    assert web["environment"]["TRUSTED_PROXIES"] == address
    conf = proxy["volumes"][0].split(":")[0]
    text = (ROOT / conf).read_text()
    assert "proxy_pass http://questworlds" in text and "server web:8000" in text
    assert "proxy_set_header X-Forwarded-For $remote_addr" in text
    assert "--proxy-headers" not in (ROOT / "Dockerfile").read_text().split("CMD")[-1]
    migrate = compose["services"]["migrate"]
    assert "migrate" in " ".join(migrate["command"])
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"


def test_the_environment_points_settings_at_the_compose_services(compose):
    env = {k: resolved(str(v)) for k, v in compose["services"]["web"]["environment"].items()}
    database = database_from_url(env["DATABASE_URL"], ROOT)
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (
        database["HOST"] == "db"
        and database["NAME"] == compose["services"]["db"]["environment"]["POSTGRES_DB"]
    )
    hosts = channel_layer_from_env(env["REDIS_URL"], env["CHANNEL_LAYER"])["CONFIG"]["hosts"]
    assert [host["address"] for host in hosts] == ["redis://redis:6379/0"]
    loaded = settings_with(**env)
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert loaded["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert loaded["debug"] is False


def test_the_app_and_migrate_services_share_one_environment(compose):
    services = compose["services"]
    assert services["web"]["environment"] == services["migrate"]["environment"]


def test_the_health_endpoint_answers_without_login(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
