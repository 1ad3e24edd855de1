"""ASGI entry point: HTTP through Django, websockets through Channels (served by uvicorn)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "questworlds_site.settings")
django.setup(set_prefix=False)  # as get_asgi_application(), before importing consumers

from .handler import OneThreadASGIHandler  # noqa: E402

# Django's handler, but the middleware and the view run in one thread (handler.py).
django_asgi_app = OneThreadASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from .heap import settle_heap  # noqa: E402
from .routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# Start-up is over: keep the collector's full passes off what it made (heap.py).
settle_heap()
