"""SQL the ORM has no word for, on both databases the site runs on (PostgreSQL, and
SQLite for `make run`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, Func, JSONField, Model, QuerySet
from django.db.models.query import get_related_populators


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


def _db() -> Any:
    """The default database's connection of this thread, looked up once a call: every
    attribute read of `django.db.connection` looks it up again (in `connections`, a
    thread-local), and a step's statements read it some thirty times (issue 29)."""
    return connections[DEFAULT_DB_ALIAS]


def _columns(model: type[Model], skip: tuple[str, ...] = ()) -> list[Field[Any, Any]]:
    """The model's concrete columns but its primary key and `skip` (attribute names)."""
    return [
        f
        for f in model._meta.concrete_fields
        if not f.primary_key and f.attname not in skip and f.column is not None
    ]


def update_sql(
    instance: Model, columns: Sequence[str], match: dict[str, Any]
) -> tuple[str, list[Any]]:
    """An `UPDATE` of `columns` (field names) to `instance`'s values, on the rows that
    `match` (column names and values), with its parameters: for a statement of its own,
    or a clause of `insert_family`'s or a contest step's one statement."""
    meta = type(instance)._meta
    connection = _db()
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in columns]
    assert all(isinstance(f, Field) for f in fields), "the columns are concrete fields"
    concrete = cast("list[Field[Any, Any]]", fields)
    sets = ", ".join(f"{quote(f.column or f.attname)} = %s" for f in concrete)
    values = [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in concrete]
    where = " AND ".join(f"{quote(column)} = %s" for column in match)
    return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {where}", [*values, *match.values()]


def _prepared(field: Field[Any, Any], row: Model) -> Any:
    """The value `save()` would write to `field`'s column for a new `row`."""
    return field.get_db_prep_save(field.pre_save(row, add=True), _db())


@dataclass
class Gathered:
    """Writes gathered to go out in another statement on PostgreSQL (a contest step's,
    contests/services/acting.py `_write_step`): each a data-modifying `WITH` clause, with
    its parameters. A row inserted so has no primary key until then: gather only writes
    whose ids nobody reads before."""

    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)


def insert_family(
    parent: Model,
    children: Sequence[tuple[str, Sequence[Model]]] = (),
    also: Sequence[tuple[str, list[Any]]] = (),
    *,
    into: Gathered | None = None,
) -> None:
    """Insert `parent` and its `children` (each: the name of their foreign key to it,
    and the rows, unsaved, that key left unset), and run the `also` statements (an
    UPDATE each, with its parameters) with them: on PostgreSQL in one statement, the
    children and the updates as data-modifying `WITH` clauses that name the parent's
    new id (or, `into` another statement's, gathered: see `Gathered`); elsewhere
    (SQLite, for `make run`) one statement each, at once. The parent's primary key (and
    each child's key to it) is set as `save()` would set them, once written."""
    connection = _db()
    quote = connection.ops.quote_name
    meta = parent._meta
    assert meta.pk is not None and meta.pk.column is not None, "a row has an id column"
    fields = _columns(type(parent))
    first = [_prepared(f, parent) for f in fields]
    insert = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(str(f.column)) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(first))}) RETURNING {quote(meta.pk.column)}"
    )
    postgres = connection.vendor == "postgresql"
    # Each family's clauses are named apart from those already gathered.
    prefix = f"f{len(into.clauses)}_" if into is not None else ""
    made = quote(f"{prefix}made")
    clauses, params = [f"{made} AS ({insert})"], list(first)
    # Elsewhere: each child table's INSERT, with its rows' values (the parent's id first).
    separate: list[tuple[str, list[list[Any]]]] = []
    returned: list[str] = []  # on PostgreSQL, each child table's new ids
    filled: list[Sequence[Model]] = []  # the children, by table, as inserted
    for n, (key, rows) in enumerate(children):
        if not rows:
            continue
        model = type(rows[0])
        fk = model._meta.get_field(key)
        assert isinstance(fk, Field) and fk.column is not None, "a child's key is a column"
        own = _columns(model, skip=(fk.attname,))
        names = ", ".join(quote(str(f.column)) for f in [fk, *own])
        table = quote(model._meta.db_table)
        values = [[_prepared(f, r) for f in own] for r in rows]
        if postgres:
            typed = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in own)
            aliases = ", ".join(f"c{i}" for i in range(len(own)))
            child_pk = quote(str(model._meta.pk.column))
            clauses.append(
                f"{quote(f'{prefix}child_{n}')} AS (INSERT INTO {table} ({names})"
                f" SELECT {made}.{quote(meta.pk.column)}, {aliases} FROM {made},"
                f" (VALUES {', '.join(f'({typed})' for _ in rows)}) AS v({aliases})"
                f" RETURNING {child_pk})"
            )
            # The children's new ids, in the order they were inserted (their VALUES').
            returned.append(
                f"(SELECT array_agg({child_pk} ORDER BY {child_pk})"
                f" FROM {quote(f'{prefix}child_{n}')})"
            )
            params += [value for row in values for value in row]
        else:
            slots = f"({', '.join(['%s'] * (len(own) + 1))})"
            sql = (
                f"INSERT INTO {table} ({names}) VALUES {', '.join([slots] * len(rows))}"
                f" RETURNING {quote(str(model._meta.pk.column))}"
            )
            separate.append((sql, values))
        filled.append(rows)
    if postgres:
        for n, (sql, values) in enumerate(also):
            clauses.append(f"{quote(f'{prefix}also_{n}')} AS ({sql})")
            params += values
        if into is not None:
            into.clauses += clauses
            into.params += params
            return
    ids: list[list[Any]] = []
    with connection.cursor() as cursor:
        if postgres:
            selected = ", ".join([f"{made}.{quote(meta.pk.column)}", *returned])
            cursor.execute(f"WITH {', '.join(clauses)} SELECT {selected} FROM {made}", params)
            row = cursor.fetchone()
            assert row is not None, "an INSERT ... RETURNING returns its row"
            ids = [list(found) for found in row[1:]]
        else:
            cursor.execute(insert, first)
            row = cursor.fetchone()
            assert row is not None, "an INSERT ... RETURNING returns its row"
            for sql, values in separate:
                cursor.execute(sql, [v for rest in values for v in (row[0], *rest)])
                ids.append(sorted(found for (found,) in cursor.fetchall()))
            for sql, values in also:
                cursor.execute(sql, values)
    parent.pk = row[0]
    parent._state.adding = False
    for key, rows in children:
        for child in rows:
            setattr(child, f"{key}_id", parent.pk)
    for rows, new_ids in zip(filled, ids, strict=True):
        for child, pk in zip(rows, new_ids, strict=True):
            child.pk = pk
            child._state.adding = False


# Stand-ins for a prepared read's arguments while Django builds its SQL: numbers no id,
# count or rating of the site takes, each told apart by its place.
_STAND_IN = -7_340_000_000


def _text_stand_in(n: int) -> str:
    return f"\x00stand-in {n}\x00"  # no text the site stores holds a NUL


class PreparedRead:
    """A read on the hot path whose SQL Django builds once per database and shape of
    arguments (a number, or a list of so many numbers), then runs again with each
    call's arguments: no query building per request, where the profile shows it costs
    more than the query (issue 29). `build(*args)` returns the queryset; `rows(*args)`
    its rows, each value converted as Django would; `objects(*args)` its models. An
    argument is a whole number, a list of them, or a text compared as it is (`exact`:
    a lookup that rewrites its text, such as `contains`, is refused as it is built)."""

    def __init__(self, build: Callable[..., QuerySet[Any, Any]]) -> None:
        self.build = build
        self._built: dict[tuple[Any, ...], tuple[str, list[Any], list[Any]]] = {}
        self._models: dict[tuple[Any, ...], Any] = {}

    def objects(self, *args: int | str | list[int]) -> list[Model]:
        """The model instances of a queryset of models (with what it `select_related`
        and its annotations), built as Django builds them, from `rows`."""
        rows = self.rows(*args)
        connection = _db()
        built = self._models[self._key(args, connection)]
        model, init_list, start, end, related, annotations = built
        instances = []
        alias = connection.alias
        for row in rows:
            instance = model.from_db(alias, init_list, row[start:end])
            for populator in related:
                populator.populate(row, instance)
            for name, position in annotations:
                setattr(instance, name, row[position])
            instances.append(instance)
        return instances

    @staticmethod
    def _key(args: tuple[Any, ...], connection: Any) -> tuple[Any, ...]:
        """What the SQL depends on: the database, and each argument's kind and length."""
        return (
            connection.vendor,
            *(len(a) if isinstance(a, list) else type(a).__name__ for a in args),
        )

    def rows(self, *args: int | str | list[int]) -> list[tuple[Any, ...]]:
        for a in args:
            for v in a if isinstance(a, list) else [a]:
                if type(v) not in (int, str):  # the SQL takes them as they are
                    raise TypeError(f"a prepared read takes whole numbers and text, not {v!r}")
        connection = _db()
        shape = self._key(args, connection)
        built = self._built.get(shape)
        if built is None:
            built = self._built[shape] = self._prepare(args, shape, connection)
        sql, slots, converters = built
        flat = [v for a in args for v in (a if isinstance(a, list) else [a])]
        params = [flat[s[1]] if isinstance(s, tuple) else s for s in slots]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if not converters:
            return rows
        converted = []
        for row in rows:
            values = list(row)
            for position, (functions, expression) in converters:
                for function in functions:
                    values[position] = function(values[position], expression, connection)
            converted.append(tuple(values))
        return converted

    def _prepare(
        self, args: tuple[Any, ...], shape: tuple[Any, ...], connection: Any
    ) -> tuple[str, list[Any], list[Any]]:
        n = 0
        stand_ins: list[Any] = []
        for a in args:
            if isinstance(a, list):
                stand_ins.append([_STAND_IN - (n + i) for i in range(len(a))])
                n += len(a)
            else:
                stand_ins.append(_text_stand_in(n) if isinstance(a, str) else _STAND_IN - n)
                n += 1
        query = self.build(*stand_ins).query
        compiler = query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        # Each parameter is an argument's (its place among them all) or the query's own.
        texts = {_text_stand_in(i): i for i in range(n)}
        slots = [
            ("arg", _STAND_IN - p)
            if isinstance(p, int) and _STAND_IN - n < p <= _STAND_IN
            else ("arg", texts[p])
            if isinstance(p, str) and p in texts
            else p
            for p in params
        ]
        used = {s[1] for s in slots if isinstance(s, tuple)}
        assert used == set(range(n)), "every argument is a parameter (some, more than once)"
        found = compiler.get_converters([column for column, _, _ in compiler.select])
        if compiler.klass_info is not None:
            # A read of models: how Django builds them from a row (ModelIterable).
            info = compiler.klass_info
            start, end = info["select_fields"][0], info["select_fields"][-1] + 1
            self._models[shape] = (
                info["model"],
                [f[0].target.attname for f in compiler.select[start:end]],
                start,
                end,
                # (django-stubs describe Django 6's signature; this is 5.2's.)
                get_related_populators(info, compiler.select, connection.alias),  # type: ignore[call-arg]
                list((compiler.annotation_col_map or {}).items()),
            )
        return sql, slots, sorted(found.items())
