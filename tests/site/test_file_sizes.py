"""Issue 29: no application file over 600 lines (the code the app runs, the benchmarks'
included; not the tests, the docs or the migrations Django writes)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPLICATION = ("campaigns", "characters", "community", "contests", "questworlds_site", "bench")
MOST_LINES = 600


def application_files() -> list[Path]:
    files = [p for package in APPLICATION for p in (ROOT / package).rglob("*.py")]
    files += (ROOT / "static").rglob("*.js")
    return [p for p in files if "migrations" not in p.parts and "__pycache__" not in p.parts]


def test_no_application_file_is_over_600_lines():
    found = application_files()
    assert len(found) > 100, "the application's files were found"
    long = {
        str(p.relative_to(ROOT)): n
        for p in found
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert not long, f"split these along their seams: {long}"
