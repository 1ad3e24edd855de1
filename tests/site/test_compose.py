"""docker-compose.yml runs the same app on PostgreSQL 16 and Redis 7 (issue 2), as N
replicas behind nginx (issue 16).

No Docker engine runs on CI machines, so this checks the file itself: valid YAML,
the services, images, health checks, ports and an environment that our settings
module accepts and reads as PostgreSQL + Redis.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

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
    # Each replica's own uvicorn, not the proxy (which would answer for any replica).
    assert "http://127.0.0.1:8000/healthz" in " ".join(web["healthcheck"]["test"])
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
    # uvicorn would believe X-Forwarded-* from 127.0.0.1 of itself: the app decides alone.
    assert "--no-proxy-headers" in (ROOT / "Dockerfile").read_text().split("\nCMD ")[-1]
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


def test_the_web_service_can_be_scaled_behind_the_proxy(compose):
    """`docker compose up --scale web=N`: nothing on `web` may be one container's alone
    (a name, a host port, an address), and nginx reaches the replicas by the service's
    name, which compose's DNS answers with every replica's address."""
    web = compose["services"]["web"]
    assert "container_name" not in web and "ports" not in web
    assert "ipv4_address" not in str(web.get("networks", ""))
    conf = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
    upstream = re.search(r"upstream questworlds \{(.*?)\}", conf, re.S).group(1)
    assert re.findall(r"server (\S+);", upstream) == ["web:8000"]
    # The fixed address of the proxy stays out of the range replicas are given.
    network = compose["networks"]["default"]["ipam"]["config"][0]
    proxy = ipaddress.ip_address(
        compose["services"]["proxy"]["networks"]["default"]["ipv4_address"]
    )
    assert proxy in ipaddress.ip_network(network["subnet"])
    assert proxy not in ipaddress.ip_network(network["ip_range"])


def test_the_proxy_serves_the_static_files_collectstatic_writes(compose):
    services = compose["services"]
    assert "static" in compose["volumes"]
    # The migrate service fills the volume where the image's settings collect them...
    static_root = "/app/" + settings.STATIC_ROOT.name  # the Dockerfile's WORKDIR is /app
    assert "WORKDIR /app" in (ROOT / "Dockerfile").read_text()
    assert f"static:{static_root}" in services["migrate"]["volumes"]
    assert "collectstatic --noinput" in " ".join(services["migrate"]["command"])
    # ...and nginx reads it, read-only, where its /static/ location points.
    assert "static:/static:ro" in services["proxy"]["volumes"]
    conf = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
    location = re.search(r"location /static/ \{(.*?)\}", conf, re.S).group(1)
    # bench.liveserver.nginx_config rewrites exactly this line for local runs.
    assert re.search(r"(?m)^\s*alias /static/;$", location)
    assert "$static_cache_control" in location and "immutable" in conf
