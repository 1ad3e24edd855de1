"""One POST of one message to a webhook, and what came of it in words.

The standard library's http.client, not urllib or a client library: it follows no
redirect (a redirect could point inside the network the allow-list keeps out), and it
connects to the address `addresses.resolved` checked, not to whatever the name resolves
to a moment later. Discord's body: the text, and no mention parsed, so a name such as
"@everyone" in a prize pings nobody.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import socket
import ssl
from dataclasses import dataclass
from datetime import UTC, datetime

from .addresses import NotFound, Refused, Target, checked, resolved, scrub

USER_AGENT = "QuestWorldsTable-webhook/1"
# Past this, a receiver's Retry-After is read as an hour: a queue never sleeps for days.
LONGEST_WAIT = 3600.0
REASONS = {
    301: "a redirect, which is not followed",
    302: "a redirect, which is not followed",
    303: "a redirect, which is not followed",
    307: "a redirect, which is not followed",
    308: "a redirect, which is not followed",
    400: "the message was refused",
    401: "the webhook's token is wrong",
    403: "not allowed",
    404: "no such webhook: it may have been deleted in Discord",
    429: "too many messages: it asked to wait",
}


@dataclass(frozen=True)
class Answer:
    """What came of one delivery: the receiver's status (None: no answer), in words."""

    status: int | None
    detail: str
    retry_after: float | None = None
    refused: bool = False

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def worth_retrying(self) -> bool:
        """A passing failure: no answer, too many messages, or the receiver's own error."""
        if self.refused or self.delivered:
            return False
        return self.status is None or self.status == 429 or self.status >= 500

    @property
    def words(self) -> str:
        """For the GM: "Delivered (the receiver answered 204).", "Not delivered: …"."""
        if self.refused:
            return f"Refused: {self.detail}"
        if self.delivered:
            return f"Delivered (the receiver answered {self.status})."
        return f"Not delivered: {self.detail}"


class _PinnedHTTP(http.client.HTTPConnection):
    """Plain HTTP to the address that was checked (the Host header keeps the name)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to the address that was checked, verifying the certificate of the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


def body(text: str) -> bytes:
    """Discord's JSON for a message: its text, and no @mention parsed (nobody pinged)."""
    return json.dumps({"content": text, "allowed_mentions": {"parse": []}}).encode()


def post(url: str, text: str, *, timeout: float) -> Answer:
    """Send `text` to the webhook at `url` once; never raises, never follows a redirect.
    Every word of the answer is scrubbed of the URL."""
    try:
        target = checked(url)
        address = resolved(target)
    except Refused as refusal:
        return Answer(None, scrub(refusal.message, url), refused=True)
    except NotFound as missing:
        return Answer(None, scrub(f"{missing}.", url))
    try:
        return _send(target, address, body(text), timeout, url)
    except TimeoutError:
        return Answer(None, f"the receiver did not answer within {timeout:g} seconds.")
    except (OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return Answer(None, scrub(f"could not reach {target.shown_host} ({reason}).", url))


def _send(target: Target, address: str, payload: bytes, timeout: float, url: str) -> Answer:
    connection_class = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = connection_class(target.host, target.port, address, timeout)
    try:
        connection.request(
            "POST",
            target.path,
            body=payload,
            headers={"Content-Type": "application/json", "User-Agent": USER_AGENT},
        )
        response = connection.getresponse()
        # Enough of the body for Discord's error and rate-limit JSON; never all of it.
        content = response.read(8192)
        status = response.status
        retry_header = response.getheader("Retry-After")
    finally:
        connection.close()
    if 200 <= status < 300:
        return Answer(status, "")
    said = _said(content)
    reason = REASONS.get(status) or ("the receiver's own error" if status >= 500 else "")
    words = f"the receiver answered {status}"
    words += f" ({'; '.join(x for x in (reason, said) if x)})" if reason or said else ""
    retry_after = _retry_after(retry_header, content) if status in (429, 503) else None
    return Answer(status, scrub(words + ".", url), retry_after)


def _said(content: bytes) -> str:
    """The receiver's own words: Discord's JSON `message`, or the start of a text body."""
    text = content.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        text = data["message"]
    elif data is not None:
        return ""
    text = " ".join(text.split())
    return text[:120] + ("…" if len(text) > 120 else "")


def _retry_after(header: str | None, content: bytes) -> float | None:
    """How long the receiver asked to wait, in seconds: its Retry-After header (seconds
    or a date) or Discord's JSON `retry_after`, whichever is longer."""
    waits: list[float] = []
    if header:
        try:
            waits.append(float(header))
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(header)
            except (TypeError, ValueError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=UTC)
                waits.append((when - datetime.now(UTC)).total_seconds())
    try:
        data = json.loads(content.decode("utf-8", "replace"))
    except ValueError:
        data = None
    if isinstance(data, dict):
        value = data.get("retry_after")
        if isinstance(value, int | float) and not isinstance(value, bool):
            waits.append(float(value))
    waits = [w for w in waits if math.isfinite(w)]
    if not waits:
        return None
    return min(max(0.0, max(waits)), LONGEST_WAIT)
