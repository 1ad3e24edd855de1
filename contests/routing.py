from django.urls import path

from .consumers import TableConsumer
from .heartbeat import HeartbeatMiddleware

websocket_urlpatterns = [
    # The page's heartbeat is answered before the consumer (heartbeat.py).
    # Channels routes ASGI applications with Django's path(); django-stubs expects a view.
    path(
        "ws/tables/<int:campaign_id>/",
        HeartbeatMiddleware(TableConsumer.as_asgi()),  # type: ignore[arg-type]
    ),
]
