"""Forwarded headers are believed only from the configured proxy (TRUSTED_PROXIES).

Behind nginx (docker-compose.yml) the app sees the proxy's address; the proxy says who
the client is (X-Forwarded-For) and whether it came by HTTPS (X-Forwarded-Proto). Any
client can send those headers too, so they are taken only from a request whose peer is
one of TRUSTED_PROXIES (addresses or networks); from anyone else they are removed before
any view, SecurityMiddleware or `request.is_secure()` reads them. With no proxy
configured (the default), none is believed.

Why not uvicorn's `--proxy-headers --forwarded-allow-ips` (read in uvicorn 0.54's
middleware/proxy_headers.py)? It takes networks, walks X-Forwarded-For from the right and
covers websockets, but it does not cover three cases this middleware does:
- a client whose own address is inside a trusted network: uvicorn skips every trusted
  entry, so behind a proxy that appends (`$proxy_add_x_forwarded_for`) the address the
  client wrote itself is believed, a new one per request past the per-address sign-in
  limits; here the entry the trusted proxy wrote is taken, whoever sent the rest;
- forged headers from an untrusted peer: uvicorn only rewrites the scope's client and
  scheme and leaves X-Forwarded-*/Forwarded in the request for Django to read; here they
  are removed;
- a mistyped entry (`172.28.0.10/16`, `172.28.0.300`): uvicorn keeps it as a literal that
  never matches, so the proxy is silently not trusted and every client shares its
  address; settings refuse to start on one (env.envnetworks).
One hop is believed: behind a further proxy (a CDN) let the proxy in front of uvicorn
resolve the chain (nginx's real_ip module) and send the result.
"""

from __future__ import annotations

import functools
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse

FORWARDED = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_REAL_IP",
    "HTTP_FORWARDED",
)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.cache
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def is_trusted_proxy(address: str) -> bool:
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(peer in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


class TrustedProxyMiddleware:
    """First in MIDDLEWARE: rewrite REMOTE_ADDR from a trusted proxy's X-Forwarded-For
    (its last entry: the address the proxy itself saw), else drop forwarded headers."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        if is_trusted_proxy(meta.get("REMOTE_ADDR", "")):
            forwarded = [a.strip() for a in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
            forwarded = [a for a in forwarded if a]
            if forwarded:
                meta["REMOTE_ADDR"] = forwarded[-1]
        else:
            for header in FORWARDED:
                meta.pop(header, None)
        return self.get_response(request)
