"""The architecture's import contracts ([tool.importlinter] in pyproject.toml), which
`make lint` checks: they hold for the code, and they catch a breach."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from bench.janitor import run

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("campaigns", "characters", "community", "contests", "questworlds_site", "bench")


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    return run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=folder,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def copy_of_the_code(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_code_keeps_every_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_rules_engine_importing_django_breaks_a_contract(tmp_path):
    code = copy_of_the_code(tmp_path)
    (code / "contests" / "core" / "rules" / "leak.py").write_text("from django.db import models\n")
    result = lint_imports(code)
    assert result.returncode == 1
    assert "The play core imports no Django and no app BROKEN" in result.stdout


def test_a_table_flow_importing_the_contests_app_breaks_a_contract(tmp_path):
    code = copy_of_the_code(tmp_path)
    flow = code / "contests" / "core" / "table" / "simple.py"
    flow.write_text(flow.read_text() + "\nfrom contests import presence  # noqa\n")
    result = lint_imports(code)
    assert result.returncode == 1
    assert "The play core imports no Django and no app BROKEN" in result.stdout


def test_the_play_core_contract_names_every_module_of_the_contests_app():
    """The contract lists the app's modules one by one (import-linter cannot say "all of
    contests but its core"): a module added to the app is added to the list."""
    contract = next(
        c
        for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
            "contracts"
        ]
        if c["name"] == "The play core imports no Django and no app"
    )
    app = {
        f"contests.{path.stem}"
        for path in (ROOT / "contests").iterdir()
        if path.stem not in ("__init__", "core", "__pycache__")
        and (path.suffix == ".py" or (path / "__init__.py").exists())
    }
    assert app - set(contract["forbidden_modules"]) == set()


def test_a_cycle_between_two_modules_breaks_a_contract(tmp_path):
    code = copy_of_the_code(tmp_path)
    (code / "contests" / "events.py").write_text(
        (code / "contests" / "events.py").read_text() + "\nfrom contests import live  # noqa\n"
    )
    result = lint_imports(code)
    assert result.returncode == 1
    assert "No import cycles among the modules of any package BROKEN" in result.stdout


def test_a_model_importing_a_service_breaks_the_layers(tmp_path):
    code = copy_of_the_code(tmp_path)
    models = code / "characters" / "models.py"
    models.write_text(models.read_text() + "\nfrom characters import services  # noqa\n")
    result = lint_imports(code)
    assert result.returncode == 1
    assert "Each app in layers: views, services, selectors, models BROKEN" in result.stdout
