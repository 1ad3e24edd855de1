from django.urls import path

from .consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:campaign_id>/", TableConsumer.as_asgi()),
]
