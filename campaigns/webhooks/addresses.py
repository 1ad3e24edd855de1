"""Where a webhook may point: the guard that keeps the GM's URL field from becoming a
way to make the server send requests inside its own network (server-side request
forgery: a cloud's metadata address, a database's admin port, a router).

A URL is accepted only if its host (with its port, unless it is the scheme's usual one)
is in `settings.WEBHOOK_ALLOWED_HOSTS`; https only, unless `WEBHOOK_ALLOW_HTTP`; no
user name before an @ (`https://discord.com@127.0.0.1/` goes to 127.0.0.1); an IP
address only where it is listed itself. A name is never trusted to point inside: if it
resolves to a loopback, private, link-local or otherwise non-public address it is
refused, when the GM saves it and again each time a message is sent (names can change
what they resolve to), and the connection goes to the address that was checked.

Every refusal says why in words, for the GM.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from ..models import WEBHOOK_URL_MAX

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"https": 443, "http": 80}


class Refused(Exception):
    """A webhook URL that may not be used, with the reason in words for the GM."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(Exception):
    """The host's name could not be resolved now (a passing failure: tried again later)."""


@dataclass(frozen=True)
class Target:
    """A checked webhook URL, in the parts a connection needs."""

    scheme: str
    host: str  # lowercased; an IPv6 address without its brackets
    port: int
    path: str  # with its query
    literal: IPAddress | None  # the host, when it is an IP address (listed itself)

    @property
    def shown_host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host


def allowed_hosts() -> list[str]:
    return [host.lower() for host in settings.WEBHOOK_ALLOWED_HOSTS]


def _listed() -> str:
    hosts = allowed_hosts()
    return ", ".join(hosts) if hosts else "none (the administrator has allowed no host)"


def internal_kind(address: IPAddress) -> str | None:
    """What kind of non-public address this is, in words; None for a public one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return "loopback: this server itself"
    if address.is_link_local:
        return "link-local, where cloud servers keep their credentials"
    if address.is_private:
        return "a private network"
    if address.is_unspecified or address.is_multicast or address.is_reserved:
        return "not a public address"
    if not address.is_global:
        return "not a public address"
    return None


def _ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None


def checked(url: str) -> Target:
    """The URL's parts, if this server may send to it; else `Refused` saying why.
    Reads only the URL and the settings (no network)."""
    url = url.strip()
    if not url:
        raise Refused("Give the webhook's address (it starts with https://).")
    if len(url) > WEBHOOK_URL_MAX:
        raise Refused(f"That address is too long (at most {WEBHOOK_URL_MAX} characters).")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise Refused("A webhook's address has no spaces or invisible characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Refused(
            "That address cannot be read: check its host and that its port is a number "
            "from 1 to 65535."
        ) from None
    scheme = parts.scheme.lower()
    if scheme == "http" and not settings.WEBHOOK_ALLOW_HTTP:
        raise Refused(
            "Only https:// addresses are accepted: a webhook's address is a secret and "
            "must travel encrypted."
        )
    if scheme not in DEFAULT_PORTS:
        raise Refused("A webhook's address starts with https:// (copy it whole from Discord).")
    if "@" in parts.netloc:
        raise Refused(
            "An address with a name and @ before its host (such as "
            "https://discord.com@example.org/) is refused: the message would go to the "
            "host after the @, not the one it seems to name."
        )
    host = (parts.hostname or "").lower()
    if not host:
        raise Refused("That address names no host (it reads https://discord.com/api/webhooks/…).")
    literal = _ip(host)
    shown = f"[{host}]" if ":" in host else host
    default = DEFAULT_PORTS[scheme]
    entry = shown if port in (None, default) else f"{shown}:{port}"
    if entry not in allowed_hosts():
        if literal is not None:
            kind = internal_kind(literal)
            what = f"an internal address ({kind})" if kind else "an IP address"
            raise Refused(
                f"{entry} is {what}: refused. Messages go only to the hosts this server "
                f"allows ({_listed()})."
            )
        raise Refused(
            f"{entry} is not a host this server sends to. Messages go only to the hosts "
            f"this server allows ({_listed()}); an administrator may add one "
            "(WEBHOOK_ALLOWED_HOSTS)."
        )
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return Target(scheme, host, port or default, path, literal)


def resolved(target: Target) -> str:
    """The address to connect to for `target`: its own, if it is an IP address (listed
    itself, so meant); else what its name resolves to, if every address it resolves to
    is public (`Refused` otherwise). `NotFound` if the name cannot be resolved now."""
    if target.literal is not None:
        return str(target.literal)
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise NotFound(f"{target.host} could not be found ({exc})") from None
    addresses = [_ip(str(info[4][0])) for info in infos]
    for address in addresses:
        kind = internal_kind(address) if address is not None else "not an address"
        if kind is not None:
            raise Refused(
                f"{target.host} resolves to {address}, an internal address ({kind}): "
                "refused. Only an address listed itself in WEBHOOK_ALLOWED_HOSTS may be "
                "internal."
            )
    first = addresses[0]
    assert first is not None, "every address was checked above"
    return str(first)


def checked_for_saving(url: str) -> Target:
    """`checked`, and the name must not resolve inside (if it resolves now: a name that
    cannot be found is checked again at each sending)."""
    target = checked(url)
    with contextlib.suppress(NotFound):
        resolved(target)
    return target


def scrub(text: str, url: str) -> str:
    """`text` without the URL or its path (where the token is): what an error message
    may say before it is stored or logged."""
    if not url:
        return text
    secrets = {url, url.strip()}
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        parts = None
    if parts is not None:
        secrets |= {parts.path, parts.query}
        # A token alone (a long segment of the path), however it was quoted.
        secrets |= {segment for segment in parts.path.split("/") if len(segment) >= 16}
    for secret in sorted((s for s in secrets if len(s) >= 8), key=len, reverse=True):
        text = text.replace(secret, "…")
    return text
