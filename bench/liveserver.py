"""Start the real app (uvicorn, as production runs it) in a child process on a fresh
database, for browser tests, the multi-process tests and the benchmarks.

`app_process` is the one place that launches the ASGI server; `app_server` and
`demo_server` wrap it. `SERVERS["uvicorn"]` is production's command line: the Dockerfile
and `make run` use the same options (tests/site/test_asgi_server.py holds them to it).

Every process started here and every database made here is registered with this
process's janitor (bench.janitor), which stops and drops them if this process is killed
before it does so itself."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import http.cookiejar
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from bench.janitor import forget_database, run, start, stop, watch_database

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerError(RuntimeError):
    """The live server did not start: it exited, or did not answer in time."""


def wait_for_http(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    # Loopback only: straight to the server, whatever proxy the environment names.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"the server exited with {process.returncode} before answering {url}")
        with contextlib.suppress(OSError), opener.open(url, timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.3)
    raise ServerError(f"{url} did not answer within {timeout} s")


def _admin_url(base: str) -> str:
    return urllib.parse.urlsplit(base)._replace(path="/postgres").geturl()


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


@contextlib.contextmanager
def fresh_database(tmp_dir: Path, *, template: str | None = None) -> Iterator[str]:
    """A new database of the kind DATABASE_URL names (SQLite file otherwise).

    Empty by default; `template="migrated"` or `"demo"` copies a database that is
    already migrated (and seeded with the demo campaign), made once per code version
    (`prepared_template`), instead of running every migration again.
    """
    base = os.environ.get("DATABASE_URL", "")
    source = prepared_template(template) if template else None
    if not _is_postgres(base):
        path = tmp_dir / "live.sqlite3"
        path.unlink(missing_ok=True)
        if source:
            shutil.copyfile(source, path)
        try:
            yield f"sqlite:///{path}"
        finally:
            path.unlink(missing_ok=True)
        return
    parts = urllib.parse.urlsplit(base)
    name = f"qw_live_{uuid.uuid4().hex[:10]}"
    copy = f' TEMPLATE "{source}"' if source else ""
    watch_database(_admin_url(base), name)
    try:
        with psycopg.connect(_admin_url(base), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(_admin_url(base), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        forget_database(name)


# What a prepared database depends on: the migrations and the demo campaign's code.
_TEMPLATE_SOURCES = ("*/migrations/*.py", "campaigns/demo.py", "campaigns/management/**/*.py")


def _template_version() -> str:
    digest = hashlib.sha256()
    for pattern in _TEMPLATE_SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            if ".venv" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def prepared_template(kind: str) -> str:
    """A migrated (`kind="migrated"`) or demo-seeded (`"demo"`) template database.

    Made once per version of the migrations and demo code, under a lock so parallel
    test workers build it once; older versions are dropped. Kept between runs, as a
    cache: not registered with the janitor, except while it is being built. Returns the
    PostgreSQL database's name, or the SQLite file's path.
    """
    if kind not in ("migrated", "demo"):
        raise ValueError(f"unknown template {kind!r}")
    base = os.environ.get("DATABASE_URL", "")
    version = _template_version()
    # The demo template is the migrated one seeded: one migration run serves both.
    source = prepared_template("migrated") if kind == "demo" else None
    steps = [("seed_demo",)] if source else [("migrate", "--noinput")]
    if not _is_postgres(base):
        folder = Path(tempfile.gettempdir()) / "questworlds-templates"
        folder.mkdir(exist_ok=True)
        path = folder / f"{kind}-{version}.sqlite3"
        with (folder / ".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                for old in folder.glob(f"{kind}-*.sqlite3"):
                    old.unlink()
                building = path.with_suffix(".building")
                building.unlink(missing_ok=True)
                if source:
                    shutil.copyfile(source, building)
                env = server_env(f"sqlite:///{building}")
                for step in steps:
                    manage(env, *step)
                building.rename(path)
        return str(path)
    # Named after the database the run is given, so two checkouts sharing a server
    # (each with its own DATABASE_URL) never drop each other's templates as stale.
    owner = re.sub(r"\W", "_", urllib.parse.urlsplit(base).path.strip("/"))[:20]
    name = f"qw_tpl_{owner}_{kind}_{version}"
    with psycopg.connect(_admin_url(base), autocommit=True) as conn:
        # One builder at a time across processes; the lock ends with the connection.
        conn.execute("SELECT pg_advisory_lock(hashtext('questworlds-test-templates'))")
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return name
        stale = conn.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s",
            (f"qw_tpl_{owner}_{kind}_%",),
        ).fetchall()
        for (old,) in stale:
            conn.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')
        building = f"{name}_building"
        watch_database(_admin_url(base), building)
        conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
        copy = f' TEMPLATE "{source}"' if source else ""
        conn.execute(f'CREATE DATABASE "{building}"{copy}')
        env = server_env(urllib.parse.urlsplit(base)._replace(path=f"/{building}").geturl())
        try:
            for step in steps:
                manage(env, *step)
        except BaseException:
            conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            raise
        finally:
            forget_database(building)
        conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
    return name


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    env = dict(
        os.environ, DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="questworlds_site.settings"
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> str:
    result = run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, timeout=300)
    if result.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def tail(path: Path, size: int = 3000) -> str:
    """The end of a text file ("" if it cannot be read)."""
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-size:]
    return ""


# What uvicorn runs with, everywhere (issue 16; docs/deploy.md says why each is there):
# uvloop, httptools and the sans-I/O websockets protocol, named so that a missing extra
# fails at start instead of falling back to slower ones; no lifespan (Django has none);
# no permessage-deflate (as measured: compressing each broadcast once per socket costs
# CPU and memory a table's small HTML fragments do not repay); messages above 64 KiB
# refused by the server (the table's own limit is 4,096 characters); forwarded headers
# believed by the app alone (questworlds_site/proxy.py, TRUSTED_PROXIES), never by
# uvicorn; no access log (nginx keeps one); a stop waits at most 2 s for open sockets.
UVICORN_OPTIONS = (
    "--loop",
    "uvloop",
    "--http",
    "httptools",
    "--ws",
    "websockets-sansio",
    "--ws-max-size",
    "65536",
    "--ws-per-message-deflate",
    "false",
    "--lifespan",
    "off",
    "--no-proxy-headers",
    "--no-access-log",
    "--timeout-graceful-shutdown",
    "2",
)
APPLICATION = "questworlds_site.asgi:application"

# Each server's module and command line (after `python -m`).
SERVERS = {
    # What production runs (Dockerfile, `make run`) and every test uses.
    "uvicorn": [
        "uvicorn",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        *UVICORN_OPTIONS,
        APPLICATION,
    ],
    # For comparison, if installed (the dev extra has it, for channels.testing; the app
    # does not depend on it): the server the app ran under before issue 16, for
    # `bench.http_path --server daphne`. Its defaults, as measured then.
    "daphne": ["daphne", "-b", "127.0.0.1", "-p", "{port}", APPLICATION],
}
DEFAULT_SERVER = "uvicorn"


@contextlib.contextmanager
def app_process(
    env: dict[str, str],
    port: int | None = None,
    *,
    stderr_path: Path | None = None,
    server: str = DEFAULT_SERVER,
) -> Iterator[tuple[subprocess.Popen, str]]:
    """Serve the ASGI app with the real server (`server`, one of SERVERS: uvicorn unless
    told) on a loopback port (a free one unless given), in a process group of its own;
    yields the process and the base URL once /healthz answers, and always stops it.

    The server's stderr is appended to `stderr_path` when given (the benchmark reads it
    afterwards), else piped; if the server does not start, the error ends with it.
    """
    command = SERVERS[server]
    if importlib.util.find_spec(command[0]) is None:
        raise ServerError(f"{command[0]} is not installed (pip install {command[0]})")
    port = port or free_port()
    with contextlib.ExitStack() as files:
        stderr = files.enter_context(stderr_path.open("ab")) if stderr_path else subprocess.PIPE
        process = start(
            [sys.executable, "-m", *(a.format(port=port) for a in command)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_for_http(f"{base}/healthz", process)
        except ServerError as error:
            stop(process)
            if stderr_path:
                output = tail(stderr_path)
            else:
                output = process.stderr.read().decode(errors="replace")[-3000:]
            raise ServerError(f"{error}\n--- {server} stderr ---\n{output}") from None
        yield process, base
    finally:
        stop(process)
        if process.stderr:
            process.stderr.close()


@contextlib.contextmanager
def app_server(
    env: dict[str, str], port: int | None = None, *, stderr_path: Path | None = None
) -> Iterator[str]:
    """Serve the ASGI app with the real server (uvicorn); yields the base URL."""
    with app_process(env, port, stderr_path=stderr_path) as (_process, base):
        yield base


@contextlib.contextmanager
def demo_server(tmp_dir: Path, **extra: str) -> Iterator[str]:
    """A fresh database with the demo campaign, served by uvicorn (`extra`: more of its
    environment)."""
    with fresh_database(tmp_dir, template="demo") as database_url:
        env = server_env(database_url, **extra)
        with app_server(env) as base:
            yield base


def log_in(base: str, username: str, password: str) -> tuple[urllib.request.OpenerDirector, str]:
    """Log in through the real login form; returns the opener and the page it lands on."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(f"{base}/accounts/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(
        f"{base}/accounts/login/", data=data, headers={"Referer": base}
    )
    with opener.open(request, timeout=10) as response:
        return opener, response.read().decode()


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY_CONF = ROOT / "docs" / "deploy" / "nginx.conf"


def nginx_config(prefix: Path, port: int, upstreams: list[str], static_root: Path | None) -> str:
    """The production proxy's server block (docs/deploy/nginx.conf, which compose mounts)
    for a local run: its upstream servers are `upstreams` ("127.0.0.1:8001"...) instead of
    compose's `web:8000`, it listens on `port` on loopback, and its static files come from
    `static_root` (collectstatic's output). Wrapped in the few top-level lines a nginx run
    as an ordinary user needs (its own pid, logs and temp files under `prefix`)."""
    conf = DEPLOY_CONF.read_text()
    servers = "".join(f"    server {address};\n" for address in upstreams)
    conf, found = re.subn(r"(?m)^    server web:8000[^;]*;\n", servers, conf)
    if found != 1:
        raise ServerError(f"{DEPLOY_CONF} has no 'server web:8000' line to point elsewhere")
    conf = re.sub(r"(?m)^(\s*)listen 80;", rf"\1listen 127.0.0.1:{port};", conf)
    if static_root is not None:
        conf = re.sub(r"(?m)^(\s*)alias /static/;", rf"\1alias {static_root}/;", conf)
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # Started by root (a CI container), nginx's workers would drop to `nobody` and be
    # refused the caller's files (a static root in a private temp folder): keep them as
    # the caller, as an ordinary user's nginx does anyway.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"daemon off;\n{user}worker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'} warn;\n"
        "events { worker_connections 8192; }\n"
        f"http {{\n    access_log off;\n    include /etc/nginx/mime.types;\n{temp}\n{conf}\n}}\n"
    )


@contextlib.contextmanager
def nginx_balancer(
    upstreams: list[str], *, static_root: Path | None = None, port: int | None = None
) -> Iterator[tuple[subprocess.Popen, str]]:
    """Debian's nginx, as an ordinary process, in front of the app processes at
    `upstreams` ("127.0.0.1:8001"...) with the production proxy's configuration (round
    robin, no sticky sessions, websocket upgrades): yields the process and its base URL
    once /healthz answers through it, and always stops it."""
    if not Path(NGINX).exists():
        raise ServerError("nginx is not installed (apt-get install nginx)")
    port = port or free_port()
    prefix = Path(tempfile.mkdtemp(prefix="qw-nginx-"))
    config = prefix / "nginx.conf"
    config.write_text(nginx_config(prefix, port, upstreams, static_root))
    process = start(
        [NGINX, "-p", str(prefix), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_for_http(f"{base}/healthz", process, timeout=30)
        except ServerError as error:
            stop(process)
            output = process.stderr.read().decode(errors="replace") + tail(prefix / "error.log")
            raise ServerError(f"{error}\n--- nginx ---\n{output}") from None
        yield process, base
    finally:
        stop(process)
        if process.stderr:
            process.stderr.close()
        shutil.rmtree(prefix, ignore_errors=True)
