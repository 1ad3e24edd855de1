"""SQL the ORM has no word for, on both databases the site runs on (PostgreSQL, and
SQLite for `make run`)."""

from __future__ import annotations

from typing import Any

from django.db.models import Func, JSONField


class JSONList(Func):
    """The rows of a subquery as one JSON list: `Subquery(rows.annotate(x=JSONList(
    JSONObject(...))).values("x"))` reads a row's related rows in the row's own
    statement. SQL's aggregate is written as a function, so the subquery has no GROUP
    BY and is one row (NULL when there are no rows: read it as `or []`); order the
    list after reading it, as neither database promises the subquery's order inside."""

    function = "JSONB_AGG"
    output_field = JSONField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return super().as_sql(compiler, connection, function="JSON_GROUP_ARRAY", **extra)
