"""What the app's own work costs a table action, in instructions:
`.venv/bin/python -m bench.action_cost [--cycles N]`.

The benchmark's realistic cycle (bench/http_cycle.py: an ability chosen, a tactic, the
roll, its resolution, the consequences confirmed, the next contest framed) is played on
a table as bench.http_path's (a GM and seven players, each with a character of a full
sheet, so that the panel offers every player an augment while abilities are chosen),
each step as the browser's form posts it, through `perform` (reading the form, the
services, the commit) and its broadcast's rendering and packing (`live.pack`; the
message is not sent). Django, PostgreSQL and the dice are as in the app; the dice are
seeded, so each run plays the same contests.

Counted by callgrind (Debian's valgrind), the instructions are the same from one run to
the next whatever else this shared machine does, which its seconds are not (one side's
CPU an action at one rate moved by 20% between runs of bench.http_path): use it to
compare two commits of the app's own work. It counts this process only: the database's
and Redis's work, and the server's, are bench.http_path's to measure. Prints JSON: the
instructions an action (the whole step) and, of them, the broadcast's rendering, each
the mean over the cycles' actions. Without valgrind (`--seconds`), the same cycles' CPU
seconds, which vary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from .http_cycle import CYCLE, add_abilities
from .liveserver import fresh_database
from .table_data import make_tables, setup_django

# The regions counted: the whole cycle runs inside `breakpoint()` (callgrind collects
# only inside it, `--toggle-collect`), each broadcast's rendering inside `eval` of a
# compiled call (its instructions read from `eval`'s inclusive count; not `exec`, inside
# which `python -m` runs the whole module).
_TOGGLE = "*builtin_breakpoint*"
_RENDER_FUNCTION = "builtin_eval"


def _play(cycles: int, warm: int) -> dict[str, Any]:
    """The tables made and `warm` cycles played, then `cycles` cycles inside
    `breakpoint()`, each broadcast rendered inside `eval`: the figures of this process."""
    from django.contrib.auth import get_user_model
    from django.http import QueryDict

    from contests.core.rules import dice
    from contests.live import rendering
    from contests.models import Contest
    from contests.table_actions import perform
    from contests.views import _message_from_post

    from .http_cycle import Playing

    dice._SYSTEM_RANDOM = random.Random(2022)  # type: ignore[assignment]  # the same contests each run
    table = make_tables(1)[0]
    owned = add_abilities([table])
    users = get_user_model().objects.in_bulk([table.seats[0].user_id, table.seats[1].user_id])
    gm, player = users[table.seats[0].user_id], users[table.seats[1].user_id]
    character_id, ability_id = owned[table.campaign_id]
    contest = Contest.objects.filter(campaign_id=table.campaign_id).latest("pk")
    playing = Playing(table, character_id, ability_id, contest.pk, contest.seq, gm, player)  # type: ignore[arg-type]

    render_code = compile("render(contest, event, flow)", "<broadcast>", "eval")
    rendered_ns: dict[str, Any] = {}

    def broadcast(contest: Contest, event: Any, flow: Any = None) -> None:
        first = event.seq == 1
        namespace = {
            "render": lambda c, e, f: rendering.pack(
                rendering._copies(c, None if first else e, f, [e] if first else None)
            ),
            "contest": contest,
            "event": event,
            "flow": flow,
        }
        started = time.process_time()
        eval(render_code, namespace)
        rendered_ns["seconds"] = rendered_ns.get("seconds", 0.0) + time.process_time() - started

    # The broadcast each step's commit makes, rendered and packed but not sent.
    import contests.services.common as common

    common.broadcast_contest = broadcast  # type: ignore[assignment]

    def step() -> None:
        user, action, fields = playing.fields()
        message = _message_from_post(QueryDict(urlencode(fields)))  # as the view reads the form
        reply = perform(campaign_id=table.campaign_id, user=user, message=message, form=True)  # type: ignore[arg-type]
        if reply.error or not reply.created:
            raise RuntimeError(f"{action} was refused: {reply.error}")
        playing.seq = reply.seq
        if action == "frame":
            latest = Contest.objects.filter(campaign_id=table.campaign_id).latest("pk")
            playing.contest_id, playing.seq = latest.pk, latest.seq
        playing.step += 1

    for _ in range(warm * len(CYCLE)):
        step()
    rendered_ns.clear()

    def measured() -> None:
        for _ in range(cycles * len(CYCLE)):
            step()

    sys.breakpointhook = measured
    started = time.process_time()
    breakpoint()
    seconds = time.process_time() - started
    actions = cycles * len(CYCLE)
    return {
        "actions": actions,
        "cpu_ms_an_action": round(seconds * 1000 / actions, 3),
        "rendering_cpu_ms_an_action": round(rendered_ns.get("seconds", 0.0) * 1000 / actions, 3),
    }


def _django(database_url: str) -> None:
    """Django in this process with the servers' production settings (`DEBUG=false`, as
    bench.http_path runs them: no query log kept, no template looked at again for a
    change; with the settings' default, `DEBUG` on, an action counted 11.38M
    instructions against 10.36M). The GM acts faster than a person may
    (ACTION_RATE_LIMIT): the limiter is still asked on every action, as the servers do."""
    os.environ["ACTION_RATE_LIMIT"] = "100000/10 seconds"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-action-cost-" + os.urandom(8).hex())
    setup_django(database_url)


def _inner(cycles: int, warm: int) -> None:
    """Run in the process being counted, on the database the outer one made."""
    _django(os.environ["DATABASE_URL"])
    figures = _play(cycles, warm)
    from django.db import connections

    connections.close_all()
    print(json.dumps(figures))


def _inclusive(out_file: Path, function: str) -> int:
    """A function's inclusive instructions in a callgrind output (callgrind_annotate)."""
    annotate = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in annotate.splitlines():
        if re.search(rf"[:\s]{function}(\s|$)", line):
            number = line.split()[0].replace(",", "")
            if number.isdigit():
                return int(number)
    return 0


def counted(cycles: int, warm: int) -> dict[str, Any]:
    """The cycles played under callgrind, on a fresh database made here (its migrations
    not counted): the instructions an action and of its rendering."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("bench.action_cost: valgrind is not installed (apt-get install valgrind)")
    with (
        tempfile.TemporaryDirectory(prefix="bench_cost_") as work,
        fresh_database(Path(work), template="migrated") as database_url,
    ):
        out_file = Path(work) / "callgrind.out"
        started = time.monotonic()
        run = subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--toggle-collect={_TOGGLE}",
                f"--callgrind-out-file={out_file}",
                sys.executable,
                "-m",
                "bench.action_cost",
                "--inner",
                f"--cycles={cycles}",
                f"--warm={warm}",
            ],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, "DATABASE_URL": database_url},
        )
        if run.returncode:
            raise SystemExit(f"bench.action_cost: the counted run failed:\n{run.stderr[-3000:]}")
        total = re.search(r"Collected : (\d+)", run.stderr)
        if total is None:
            raise SystemExit(f"bench.action_cost: callgrind counted nothing:\n{run.stderr[-2000:]}")
        inner = json.loads(run.stdout.strip().splitlines()[-1])
        actions = inner["actions"]
        rendering = _inclusive(out_file, _RENDER_FUNCTION)
        return {
            "benchmark": "action_cost",
            "cycle": [action for _, action in CYCLE],
            "actions": actions,
            "instructions_an_action": int(total.group(1)) // actions,
            "rendering_instructions_an_action": rendering // actions,
            "elapsed_seconds": round(time.monotonic() - started, 1),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=5, help="cycles counted (6 actions each)")
    parser.add_argument("--warm", type=int, default=1, help="cycles played first, not counted")
    parser.add_argument(
        "--seconds", action="store_true", help="CPU seconds without valgrind (noisy)"
    )
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cycles < 1 or args.warm < 1:
        parser.error("--cycles and --warm: 1 or more")
    if args.inner:
        _inner(args.cycles, args.warm)
        return 0
    if args.seconds:
        with (
            tempfile.TemporaryDirectory(prefix="bench_cost_") as work,
            fresh_database(Path(work), template="migrated") as database_url,
        ):
            _django(database_url)
            figures = {"benchmark": "action_cost", **_play(args.cycles, args.warm)}
            from django.db import connections

            connections.close_all()
    else:
        figures = counted(args.cycles, args.warm)
    figures["database"] = (
        "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    )
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
