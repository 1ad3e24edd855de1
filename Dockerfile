# QuestWorlds Table: the app image that docker-compose.yml runs (Daphne on port 8000).
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
# No --proxy-headers: forwarded headers are believed only from TRUSTED_PROXIES (proxy.py).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "questworlds_site.asgi:application"]
