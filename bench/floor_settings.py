"""The app's settings, with `table/act/` served by the stack's floor (bench/floor_urls.py).

Only `bench.http_path` runs a server with these (its "stack_floor" figures); nothing of
the app imports them.
"""

from questworlds_site.settings import *  # noqa: F403 (the app's settings, all of them)

ROOT_URLCONF = "bench.floor_urls"
