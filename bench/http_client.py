"""The browsers'-path benchmark's HTTP client: one browser's keep-alive HTTP/1.1
connection (its cookies and CSRF token), as bench.http_path's pages and actors use it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import urllib.parse
from typing import Any

from .table_common import BenchError

TOKEN_RE = re.compile(r'"X-CSRFToken": "([^"]+)"')


# --- A keep-alive HTTP/1.1 client ------------------------------------------------------------
# Hand-written on purpose: the load generator shares this 2-core machine with the server,
# and a request here is a few writes and one read on a loopback socket, no parsing beyond
# what the benchmark needs (a general client would spend the server's CPU).


class Http:
    """One browser's connection: its cookies, its CSRF token, requests in turn."""

    def __init__(self, host: str, port: int, session_key: str) -> None:
        self.host, self.port = host, port
        self.cookies = {"sessionid": session_key}
        self.token = ""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict | None = None
    ) -> tuple[int, bytes]:
        async with self.lock:
            for attempt in range(2):
                try:
                    return await self._once(method, path, body, headers or {})
                except (ConnectionError, asyncio.IncompleteReadError):
                    # A keep-alive connection the server (or nginx) closed: open again.
                    await self.close()
                    if attempt:
                        raise
            raise AssertionError("unreachable")

    async def _once(self, method: str, path: str, body: bytes, headers: dict) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Cookie: {cookie}",
            f"Content-Length: {len(body)}",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length, chunked, closing = 0, False, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and value.lower() == b"close":
                closing = True
            elif name == b"set-cookie":
                cookie_name, _, rest = value.decode().partition("=")
                self.cookies[cookie_name] = rest.split(";", 1)[0]
        if chunked:
            data = bytearray()
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                data += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                del data[-2:]
            payload = bytes(data)
        else:
            payload = await self.reader.readexactly(length)
        if closing:
            await self.close()
        return status, payload

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def log_in_to_table(self, campaign_id: int) -> None:
        """GET the table page, as a browser opens it: the CSRF cookie and token."""
        status, page = await self.request("GET", f"/campaigns/{campaign_id}/table/")
        found = TOKEN_RE.search(page.decode(errors="replace"))
        if status != 200 or not found:
            raise BenchError(f"the table page answered {status} without a CSRF token")
        self.token = found.group(1)

    async def post_form(self, path: str, fields: dict[str, Any]) -> tuple[int, bytes]:
        body = urllib.parse.urlencode(fields).encode()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "X-CSRFToken": self.token,
            "Origin": f"http://{self.host}:{self.port}",
        }
        return await self.request("POST", path, body, headers)
