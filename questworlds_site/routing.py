"""Websocket URL routes of the whole site."""

from contests.routing import websocket_urlpatterns as contest_routes

websocket_urlpatterns = [*contest_routes]
