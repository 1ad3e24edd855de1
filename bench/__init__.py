"""Benchmarks (`make bench`) and the live-server launcher they share with the tests.

- `bench.odds`: the odds engine's benchmark (`python -m bench.odds [calls]`).
- `bench.table`: the live table under the real Daphne and Redis
  (`python -m bench.table [--small] [--layers core,pubsub]`), split by job over the
  `bench.table_*` modules.
- `bench.liveserver`: starts the real app (Daphne) on a fresh database, for the
  benchmark, the browser tests and the `make run` smoke test.

Nothing in the apps imports this package; it is not part of the Docker image.
"""
