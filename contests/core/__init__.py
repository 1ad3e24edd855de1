"""The play core: the QuestWorlds rules engine (`rules`), the table's flows (`table`) and
the declaration of every table action (`actions`), in pure Python.

Nothing here imports Django, Channels or any app, not even the rest of `contests`
(import-linter holds it: pyproject.toml). The apps build on it: `contests` plays it at
the table, `characters`, `community` and `campaigns` take the rules from it.
"""
