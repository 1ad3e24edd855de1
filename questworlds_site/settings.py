"""QuestWorlds Table settings: every value comes from the environment (see env.py).

Without any variables this runs on a bare laptop: SQLite in the project folder and
the in-memory channel layer (one process). Production sets DATABASE_URL, REDIS_URL,
SECRET_KEY and DEBUG=false.
"""

import os
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import (
    channel_layer_from_env,
    database_from_url,
    envbool,
    envfloat,
    envint,
    envlist,
    envnetworks,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = envbool("DEBUG", default=True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# Under REQUIRE_SERVICES the test suite (and CI) refuses the embedded fallbacks.
REQUIRE_SERVICES = envbool("REQUIRE_SERVICES", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "questworlds_site.accounts",
    "contests",
    "characters",
    "campaigns",
    "community",
]

MIDDLEWARE = [
    "questworlds_site.proxy.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "questworlds_site.middleware.RejectNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "questworlds_site.security.SecurityHeadersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "questworlds_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "builtins": ["django_htmx.templatetags.django_htmx"],
        },
    },
]

ASGI_APPLICATION = "questworlds_site.asgi.application"

DATABASE_URL = os.environ.get("DATABASE_URL", "sqlite:///db.sqlite3")
DATABASES = {"default": database_from_url(DATABASE_URL, BASE_DIR)}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The ASGI server runs database work on threads (sync_to_async); wait rather than
    # fail on a lock.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    # Tests use a file too: an in-memory database fails concurrent writers with
    # "table is locked" instead of making them wait as a real file does.
    # One file per test process, so parallel runs never share it.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"questworlds-test-{os.getpid()}.sqlite3")
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# pubsub is the default: `make bench` measured it with no faults and the lower p99 under
# 100 busy tables (docs/benchmarks.md); `core` remains a setting.
CHANNEL_LAYER = os.environ.get("CHANNEL_LAYER", "pubsub")
# Apps (or test workers) sharing one Redis keep apart by the prefix of their channel names.
CHANNEL_PREFIX = os.environ.get("CHANNEL_PREFIX", "asgi")
CHANNEL_LAYERS = {"default": channel_layer_from_env(REDIS_URL, CHANNEL_LAYER, CHANNEL_PREFIX)}

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "landing"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic writes here; a deployment or the benchmark may name another folder.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# The proxy in front (docker-compose.yml's nginx), by address or network: only its
# X-Forwarded-For / X-Forwarded-Proto are believed (questworlds_site/proxy.py). Empty:
# no proxy, no forwarded header believed.
TRUSTED_PROXIES = envnetworks("TRUSTED_PROXIES")
if TRUSTED_PROXIES:
    # Safe: TrustedProxyMiddleware removes the header from anyone but the proxy.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Security headers in every mode (questworlds_site/security.py adds the CSP and
# Cache-Control: no-store).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", default=False)
    # The container's health check asks uvicorn directly over plain HTTP (not through
    # the proxy): a redirect to HTTPS would leave the app "unhealthy" and nginx unstarted.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Rate limits (questworlds_site/throttle.py), in the `limits` notation ("N/P unit").
# Table actions per person, by htmx POST and websocket together, across processes.
ACTION_RATE_LIMIT = os.environ.get("ACTION_RATE_LIMIT", "20/10 seconds")
# Failed sign-ins per account name, and per client address.
LOGIN_FAILURE_LIMIT = os.environ.get("LOGIN_FAILURE_LIMIT", "5/15 minutes")
LOGIN_ADDRESS_FAILURE_LIMIT = os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "30/15 minutes")
# New accounts per client address.
SIGNUP_LIMIT = os.environ.get("SIGNUP_LIMIT", "10/hour")
# Invitation links that lead nowhere, per client address.
INVITATION_FAILURE_LIMIT = os.environ.get("INVITATION_FAILURE_LIMIT", "20/hour")

# When a table action is answered "the table is busy" at once instead of queued
# (questworlds_site/admission.py): when the oldest request or socket action still
# waiting for one of the process's threads has waited TABLE_BUSY_WAIT_MS, or when the
# process has TABLE_BUSY_AFTER in flight (queued or running; the bound on a burst that
# arrives at once). 0 turns either off.
TABLE_BUSY_WAIT_MS = envint("TABLE_BUSY_WAIT_MS", 50)
TABLE_BUSY_AFTER = envint("TABLE_BUSY_AFTER", 32)
# Threads for the requests' synchronous part and the sockets' database work, per process
# (questworlds_site/admission.py cap_worker_threads); 0: Python's default (CPUs + 4).
WORKER_THREADS = envint("WORKER_THREADS", 0)

# Table presence (contests/presence.py): each server process marks its sockets alive this
# often; rows not marked for three periods belong to a dead process and expire.
PRESENCE_HEARTBEAT_SECONDS = float(os.environ.get("PRESENCE_HEARTBEAT_SECONDS", "30"))

# The Discord relay (campaigns/webhooks/, docs/deploy.md). A campaign's webhook may point
# only at these hosts ("host" on the scheme's usual port, or "host:port"), so the GM's
# field cannot send the server's requests inside its own network; an IP address is
# accepted only if it is listed itself. Plain http:// only with WEBHOOK_ALLOW_HTTP (a
# local stand-in for Discord: `manage.py webhook_receiver`).
WEBHOOK_ALLOWED_HOSTS = [
    host.lower()
    for host in envlist(
        "WEBHOOK_ALLOWED_HOSTS",
        ["discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"],
    )
]
WEBHOOK_ALLOW_HTTP = envbool("WEBHOOK_ALLOW_HTTP", default=False)
# A message is tried this many times, waiting WEBHOOK_RETRY_SECONDS, then twice that,
# and so on between tries (or longer, when the receiver says so with Retry-After).
WEBHOOK_MAX_ATTEMPTS = envint("WEBHOOK_MAX_ATTEMPTS", 5, minimum=1)
WEBHOOK_RETRY_SECONDS = envfloat("WEBHOOK_RETRY_SECONDS", 2.0, minimum=0.001)
# How long one delivery may take before it counts as failed (the test button: its own).
WEBHOOK_TIMEOUT_SECONDS = envfloat("WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=0.1)
WEBHOOK_TEST_TIMEOUT_SECONDS = envfloat("WEBHOOK_TEST_TIMEOUT_SECONDS", 5.0, minimum=0.1)
# Test messages the GM may send, per person.
WEBHOOK_TEST_LIMIT = os.environ.get("WEBHOOK_TEST_LIMIT", "5/minute")
