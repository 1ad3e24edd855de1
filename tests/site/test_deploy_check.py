"""`manage.py check --deploy` is clean with the production settings of docs/deploy.md."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.janitor import run

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x7#kq2!vz0p9-production-like-secret-key-of-more-than-fifty-chars",
    "ALLOWED_HOSTS": "table.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://table.example.org",
    "TRUSTED_PROXIES": "172.28.0.10",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
}


def test_check_deploy_is_clean_with_the_documented_production_settings():
    documented = (ROOT / "docs" / "deploy.md").read_text()
    for name in PRODUCTION:
        assert name in documented, f"docs/deploy.md does not document {name}"
    env = {**os.environ, **PRODUCTION}
    result = run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr


HEALTH_AND_PAGE = """
import django
django.setup()
from django.test import Client
client = Client(headers={"Host": "table.example.org"})
print(client.get("/healthz").status_code, client.get("/accounts/login/").status_code)
"""


def test_the_health_check_answers_over_plain_http_when_everything_else_redirects(tmp_path):
    """docker-compose.yml's health check asks uvicorn directly, not through the proxy: a
    redirect to HTTPS there would keep the app "unhealthy" and nginx from starting."""
    env = {
        **os.environ,
        **PRODUCTION,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'health.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "questworlds_site.settings",
    }
    result = run(
        [sys.executable, "-c", HEALTH_AND_PAGE],
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200", "301"]
