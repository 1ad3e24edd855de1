"""Reading the schema (`schema.py`): one row out to the file, one row in from it, and
the ids inside JSON columns rewritten both ways."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.dateparse import parse_datetime

from questworlds_site import inputs

from .schema import ID_SUFFIXES, MODEL_DEFAULT, Field, Id, JsonIds, Kind, Section, Table


def when_out(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def when_in(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise ValidationError(f"{where}: {value!r} is not a date and time.")
    return parsed


M = TypeVar("M", bound=models.Model)


class Refs:
    """One dict per key table. Exporting: id -> key; importing: key -> new id."""

    def __init__(self) -> None:
        self.tables: dict[Table, dict[Any, Any]] = {table: {} for table in Table}

    def __getitem__(self, table: Table) -> dict[Any, Any]:
        return self.tables[table]

    def key(self, table: Table, key: Any, where: str) -> Any:
        """`key` through `table`, None for no key, or a ValidationError naming it."""
        if key is None:
            return None
        if key not in self.tables[table]:
            raise ValidationError(f"{where}: {table.value} {key!r} is not in the file.")
        return self.tables[table][key]


# --------------------------------------------------------------------- ids in JSON

_DROP = object()  # an id not in the file, taking its list item (or dict entry) with it


def _suffix_table(key: str) -> Table | None:
    for suffixes, table in ID_SUFFIXES:
        if key.endswith(suffixes):
            return table
    return None


def _trie(paths: Mapping[tuple[str, ...], Id]) -> dict:
    root: dict = {}
    for path, spec in paths.items():
        node = root
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = spec
    return root


def _lookup(mapping: dict, value: Any) -> Any:
    """`value` through `mapping`; ids written as text in JSON keys ("12") as well."""
    if value in mapping:
        return mapping[value]
    number = inputs.an_id(value) if isinstance(value, str) else None
    return None if number is None else mapping.get(number)


def rewrite_ids(value: Any, ids: JsonIds, refs: Refs) -> Any:
    """`value` with every id `ids` declares replaced through `refs`: ids by keys on
    export, keys by new ids on import."""
    out = _rewrite(value, _trie(ids.paths), ids.anywhere, refs)
    return None if out is _DROP else out


def _one(value: Any, spec: Id, refs: Refs) -> Any:
    if value is None or isinstance(value, dict | list):
        return value
    new = _lookup(refs[spec.table], value)
    return _DROP if new is None and spec.drop else new


def _rewrite(value: Any, node: dict | Id | None, anywhere: bool, refs: Refs) -> Any:
    if isinstance(node, Id):
        return _one(value, node, refs)
    node = node or {}
    if isinstance(value, list):
        items = (_rewrite(item, node.get("[]"), anywhere, refs) for item in value)
        return [item for item in items if item is not _DROP]
    if not isinstance(value, dict):
        return value
    keyed = node.get("{}")
    out = {}
    for key, item in value.items():
        if isinstance(keyed, Id):  # a dict keyed by ids: an id not in the file goes
            new = _lookup(refs[keyed.table], key)
            if new is not None:
                out[str(new)] = _rewrite(item, None, anywhere, refs)
            continue
        if key in node:
            new = _rewrite(item, node[key], anywhere, refs)
            if new is _DROP:
                return _DROP
        elif anywhere and (table := _suffix_table(key)) is not None:
            mapping = refs[table]
            if isinstance(item, list):
                new = [mapping.get(i) for i in item]
            elif isinstance(item, dict):
                new = _rewrite(item, None, anywhere, refs)
            else:
                new = mapping.get(item) if item is not None else None
        else:
            new = _rewrite(item, None, anywhere, refs)
        out[key] = new
    return out


# --------------------------------------------------------------------- rows


@dataclass
class Exporter:
    """What writing a row needs: the key tables and the usernames by id."""

    refs: Refs
    username: Callable[[int | None], str | None]


def row_out(section: Section, obj: models.Model, out: Exporter, **nested: Any) -> dict:
    """`obj` as its section of the file; NESTED fields come from `nested`."""
    data: dict[str, Any] = {}
    for f in section.fields:
        column = f.column
        if f.kind is Kind.NESTED:
            value = nested[f.key]
        elif f.kind is Kind.VALUE:
            value = f.get(obj) if f.get else getattr(obj, column)
        elif f.kind in (Kind.WHEN, Kind.STAMP):
            value = when_out(getattr(obj, column))
        elif f.kind is Kind.USER:
            value = out.username(getattr(obj, f"{column}_id"))
        elif f.kind is Kind.REF:
            value = out.refs[f.ref_table].get(getattr(obj, f"{column}_id"))
        elif f.kind is Kind.KEY:
            value = out.refs[f.ref_table][obj.pk]
        elif f.kind is Kind.REFS:
            table = out.refs[f.ref_table]
            if _many_to_many(section, column):
                value = sorted(table[r.pk] for r in getattr(obj, column).all() if r.pk in table)
            else:
                value = [table[i] for i in getattr(obj, column) if i in table]
        else:  # JSON
            value = rewrite_ids(getattr(obj, column), f.json_ids, out.refs)
        data[f.key] = value
    return data


def _many_to_many(section: Section, column: str) -> bool:
    return bool(section.model._meta.get_field(column).many_to_many)


@dataclass
class Row:
    """A row read from the file: the model's columns, and what waits for its save."""

    values: dict[str, Any] = field(default_factory=dict)
    stamps: dict[str, datetime] = field(default_factory=dict)  # put back after saving
    many: dict[str, list] = field(default_factory=dict)  # many-to-many, set after saving
    key: Any = None  # the row's own key (a KEY field)

    def new(self, model: type[M], **parents: Any) -> M:
        return model(**parents, **self.values)

    def apply(self, obj: models.Model) -> None:
        for name, value in self.values.items():
            setattr(obj, name, value)

    def saved(self, obj: models.Model) -> None:
        """After `obj.save()`: its many-to-many rows and its stamps."""
        for name, ids in self.many.items():
            getattr(obj, name).set(ids)
        if self.stamps:
            type(obj)._default_manager.filter(pk=obj.pk).update(**self.stamps)

    def stamp(self, obj: models.Model) -> None:
        """The stamps on `obj` (for a bulk update)."""
        for name, value in self.stamps.items():
            setattr(obj, name, value)


@dataclass
class Importer:
    """What reading a row needs: the key tables and the file's accounts by username."""

    refs: Refs
    users: dict[str, Any]

    def user(self, name: Any, where: str) -> Any:
        if name is None:
            return None
        if name not in self.users:
            raise ValidationError(f"{where}: {name!r} is not among the file's users.")
        return self.users[name]


def row_in(section: Section, data: dict, into: Importer, where: str) -> Row:
    """The section's fields of `data`, checked and with keys turned into new ids."""
    row = Row()
    for f in section.fields:
        column = f.column
        if f.kind is Kind.NESTED or (f.kind is Kind.REF and f.later):
            continue
        if f.kind is Kind.VALUE:
            if f.default is MODEL_DEFAULT and f.key not in data:
                continue
            value = data.get(f.key, f.default)
            row.values[column] = f.cast(value) if f.cast else value
        elif f.kind is Kind.WHEN:
            row.values[column] = when_in(data.get(f.key), where)
        elif f.kind is Kind.STAMP:
            stamp = when_in(data.get(f.key), where)
            if stamp is not None:
                row.stamps[column] = stamp
        elif f.kind is Kind.USER:
            row.values[column] = into.user(data.get(f.key), where)
        elif f.kind is Kind.REF:
            row.values[f"{column}_id"] = ref_in(f, data, into, where)
        elif f.kind is Kind.KEY:
            row.key = data.get(f.key)
        elif f.kind is Kind.REFS:
            table = into.refs[f.ref_table]
            ids = [table[k] for k in data.get(f.key, []) if k in table]
            if _many_to_many(section, column):
                row.many[column] = ids
            else:
                row.values[column] = ids
        else:  # JSON
            row.values[column] = rewrite_ids(data.get(f.key, f.default), f.json_ids, into.refs)
    return row


def ref_in(f: Field, data: dict, into: Importer, where: str) -> Any:
    """A REF field's new id (for the later ones, once their table is filled)."""
    key = data.get(f.key)
    if f.strict:
        return into.refs.key(f.ref_table, key, where)
    return into.refs[f.ref_table].get(key) if key is not None else None
