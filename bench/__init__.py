"""Benchmarks (`make bench`) and the live-server launcher they share with the tests.

- `bench.odds`: the odds engine's benchmark (`python -m bench.odds [calls]`).
- `bench.table`: the live table under the real server (uvicorn) and Redis
  (`python -m bench.table [--small] [--layers core,pubsub]`), split by job over the
  `bench.table_*` modules.
- `bench.http_path`: the browsers' own path (htmx POSTs and the table's sockets), one
  process straight and several behind Debian's nginx (`python -m bench.http_path
  [--small] [--server uvicorn|daphne]`), split by job over the `bench.http_*` modules.
- `bench.liveserver`: starts the real app (uvicorn) on a fresh database, for the
  benchmarks, the browser tests and the multi-process tests.

Nothing in the apps imports this package; it is not part of the Docker image.
"""
