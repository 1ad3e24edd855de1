"""The serving process keeps the collector off what start-up made (questworlds_site/heap.py)."""

from __future__ import annotations

import gc

import pytest
from django.template import TemplateSyntaxError

from questworlds_site import heap


@pytest.fixture
def restored_gc():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_every_project_template_is_compiled_before_serving(restored_gc):
    compiled = heap.settle_heap()
    on_disk = sum(len(list(d.rglob("*.html"))) for d in heap.project_template_dirs())
    assert compiled == on_disk > 30
    # What start-up made is out of the collector's way, and it runs less often.
    assert gc.get_freeze_count() > 10_000
    assert gc.get_threshold()[0] == heap.YOUNG_THRESHOLD


def test_a_broken_template_stops_start_up(tmp_path, monkeypatch, settings, restored_gc):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "broken.html").write_text("{% if %}")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [folder]}]
    monkeypatch.setattr(heap, "project_template_dirs", lambda: [folder])
    with pytest.raises(TemplateSyntaxError):
        heap.settle_heap()
