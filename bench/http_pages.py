"""The browsers'-path benchmark's pages: what every open table page does besides showing
the broadcasts, its heartbeat's period and the reloads of a player's own sheet
(`PageRecorder`), so that the load offered is the browsers' own."""

from __future__ import annotations

import asyncio
import contextlib
import re

from .http_client import Http
from .table_clients import Client, Recorder

# A table page pings the server this often while it is in view (static/js/table-connection.js).
PAGE_PING_SECONDS = 2.0


# --- What every player's page fetches besides ------------------------------------------------
# static/js/table.js reloads a player's own sheet ("My characters", GET table/me/, 250 ms
# after the last trigger): after a step whose log entry does not say it kept every
# sheet (`data-sheets="kept"`, from the action's declaration), on the pages of those
# the panel names as playing in the contest (data-sheet-players), unless the step
# brought their cards (#my-sheet-at, which it does whenever it read them); after a whole contest
# that is not a framing (a resync) on those pages. A framing or a pick reloads no sheet:
# the picks come with the panel (#my-picks). The page loads the sheet once as it opens;
# the socket's first full state then adds nothing (the sheet was drawn at that step):
# here that first full state stands for the page's own first load.
SHEET_UNCHANGED_RE = re.compile(r'data-sheets="kept"')  # the step's log entry says so
# A step that may change a sheet brings the player's cards with their copy of the panel
# (`contests.live.rendering.sheet_cards`): then the page reloads nothing.
SHEET_CARRIED = 'id="my-sheet-at"'
SHEET_PLAYERS_RE = re.compile(r'id="contest" [^>]*data-sheet-players="([\d ]*)"')
APPENDED = 'hx-swap-oob="afterbegin:#roll-log"'
SHEET_RELOAD_DELAY = 0.25
FRAMING_RE = re.compile(r'id="contest" data-contest-id="\d*" data-seq="1"')


class PageRecorder(Recorder):
    """The recorder, and what each player's page does on a contest message besides
    showing it: fetch its own sheet when static/js/table.js would, over a keep-alive
    connection of its own (a browser's), so that the load offered is the browsers' own."""

    def __init__(self, host: str, port: int, keys: dict[int, str], users: dict[int, int]) -> None:
        super().__init__()
        self.host, self.port, self.keys, self.users = host, port, keys, users
        self.http: dict[int, Http] = {}
        self.timers: dict[int, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task] = set()
        self.sheet_fetches = 0
        self.sheet_errors = 0
        self.opened: set[int] = set()  # pages whose sheet has been loaded

    def on_message(self, client: Client, message: str | bytes, now: float) -> None:
        super().on_message(client, message, now)
        if client.role != "player" or not isinstance(message, str):
            return
        if 'id="contest"' not in message:
            return
        players = SHEET_PLAYERS_RE.search(message)
        mine = players is None or str(self.users[client.index]) in players[1].split()
        if APPENDED in message:
            if SHEET_UNCHANGED_RE.search(message) or not mine or SHEET_CARRIED in message:
                return
        elif client.index in self.opened:
            if not mine or FRAMING_RE.search(message):
                return
        else:
            self.opened.add(client.index)  # the page's first load of its sheet
        waiting = self.timers.pop(client.index, None)
        if waiting is not None:
            waiting.cancel()  # htmx's delay: the last trigger counts
        loop = asyncio.get_running_loop()
        self.timers[client.index] = loop.call_later(SHEET_RELOAD_DELAY, self._start, client)

    def _start(self, client: Client) -> None:
        self.timers.pop(client.index, None)
        task = asyncio.get_running_loop().create_task(self._fetch(client))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _fetch(self, client: Client) -> None:
        http = self.http.get(client.index)
        if http is None:
            http = self.http[client.index] = Http(self.host, self.port, self.keys[client.index])
        try:
            status, _ = await http.request("GET", f"/campaigns/{client.table}/table/me/")
        except (OSError, asyncio.IncompleteReadError):
            status = 0
        self.sheet_fetches += 1
        if status != 200:
            self.sheet_errors += 1

    async def close(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        for task in list(self.tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for http in self.http.values():
            await http.close()
