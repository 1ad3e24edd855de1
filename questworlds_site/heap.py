"""Keep the garbage collector's full passes short in a serving process (issue 16).

The browsers'-path benchmark (bench.http_path) found the p99 latency of a table action
set by CPython's full (generation 2) collections: 60–136 ms each, every few seconds under
load, each one walking every object the process had made since it started (modules,
settings, URL patterns, compiled templates: about 140,000 objects) although none of them
ever becomes garbage. Two changes, each measured there:

- what start-up made, with every template of the project compiled, is frozen
  (`gc.freeze`): a full collection no longer walks it;
- the youngest generation is collected after 10,000 new objects rather than 700, so
  collections (and the full ones they lead to) come about fourteen times less often.
  Each young collection then takes a few milliseconds instead of a fraction of one.

Garbage is still collected as before: only when, not whether.
"""

from __future__ import annotations

import gc
from pathlib import Path

from django.conf import settings
from django.template.loader import get_template

YOUNG_THRESHOLD = 10_000


def project_template_dirs() -> list[Path]:
    """The project's own template folders (the site's and each app's), not Django's."""
    base = Path(settings.BASE_DIR)
    return [base / "templates", *sorted(base.glob("*/templates"))]


def compile_templates() -> int:
    """Compile (and cache) every template of the project, as the first page would; a
    template with an error stops start-up here rather than failing a page later."""
    count = 0
    for folder in project_template_dirs():
        for path in sorted(folder.rglob("*.html")):
            get_template(path.relative_to(folder).as_posix())
            count += 1
    return count


def settle_heap() -> int:
    """Compile the templates, then freeze everything start-up made; returns how many
    templates were compiled."""
    compiled = compile_templates()
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
    return compiled
