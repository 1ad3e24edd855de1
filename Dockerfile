# QuestWorlds Table: the app image that docker-compose.yml runs (uvicorn on port 8000).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml README.md ./
RUN pip install --upgrade pip && pip install .
COPY . .
RUN DEBUG=false SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home questworlds && chown -R questworlds /app
USER questworlds
EXPOSE 8000
# One uvicorn process a container (compose scales containers); the options are the
# Makefile's UVICORN_OPTIONS (docs/deploy.md says why each). --no-proxy-headers: uvicorn
# would believe X-Forwarded-* from 127.0.0.1 by default; the app believes them from
# TRUSTED_PROXIES alone (questworlds_site/proxy.py).
CMD ["uvicorn", "--host", "0.0.0.0", "--port", "8000", \
     "--loop", "uvloop", "--http", "httptools", "--ws", "websockets-sansio", \
     "--ws-max-size", "65536", "--ws-per-message-deflate", "false", "--lifespan", "off", \
     "--no-proxy-headers", "--no-access-log", "--timeout-graceful-shutdown", "2", \
     "questworlds_site.asgi:application"]
