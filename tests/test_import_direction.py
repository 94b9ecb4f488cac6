"""Imports point one way: the shared vocabularies sit below their consumers.

``rules`` and ``engine`` import nothing of the project's above them; ``decisions`` (what the
referee publishes and the commands it takes) imports only ``rules``; the device packages and the
page never reach up into ``tableref``'s core for the vocabulary."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = {"rules", "engine", "decisions", "tableref", "web", "hardware", "vision", "firmware_bridge", "hub_web"}

# package -> the project packages it may import
ALLOWED = {
    "rules": set(),
    "engine": {"rules"},
    "decisions": {"rules"},
    "hardware": {"rules", "decisions"},
}


def _imports(package: str) -> set[tuple[str, str]]:
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in PROJECT and top != package:
                    found.add((str(path.relative_to(ROOT)), top))
    return found


@pytest.mark.parametrize("package", sorted(p for p in ALLOWED if (ROOT / p).is_dir()))
def test_imports_point_one_way(package):
    wrong = sorted((f, top) for f, top in _imports(package) if top not in ALLOWED[package])
    assert not wrong, f"{package} reaches up into: {wrong}"


def test_the_vocabulary_lives_below_tableref():
    assert not (ROOT / "tableref" / "decisions.py").exists()
    assert (ROOT / "decisions" / "__init__.py").exists()
