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
    "vision": {"rules"},
}

# vision's rooms, in the order a frame meets them (vision/README.md) -> the rooms each may import;
# ``simulated`` (cameras that are not there) may use them all, and none of them uses it
VISION_ROOMS = {
    "pieces": set(),
    "sheets": {"pieces"},
    "read": {"sheets", "pieces"},
    "readers": {"read", "sheets", "pieces"},
    "camera": {"readers", "read", "sheets", "pieces"},
    "simulated": {"camera", "readers", "read", "sheets", "pieces"},
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


def _vision_imports(room: str) -> set[tuple[str, str]]:
    """(file, room) for each import of another of vision's rooms, at run time (an import only for
    type checking, under ``if TYPE_CHECKING:``, is not a dependency)."""
    found = set()
    for path in (ROOT / "vision" / room).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and ast.unparse(node.test).endswith("TYPE_CHECKING") for n in ast.walk(node)}
        package = ".".join(path.relative_to(ROOT).parent.parts)
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                names = [".".join(base + ([node.module] if node.module else []))]
                if not node.module:  # from . import x: the modules named
                    names = [f"{names[0]}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "vision" and len(parts) > 1 and parts[1] != room:
                    found.add((str(path.relative_to(ROOT)), parts[1]))
    return found


def test_vision_has_the_rooms_its_readme_names():
    rooms = {p.name for p in (ROOT / "vision").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(VISION_ROOMS)
    assert not [p.name for p in (ROOT / "vision").glob("*.py") if p.name != "__init__.py"], \
        "every vision module lives in a room"


@pytest.mark.parametrize("room", sorted(VISION_ROOMS))
def test_vision_rooms_point_one_way(room):
    wrong = sorted((f, r) for f, r in _vision_imports(room) if r not in VISION_ROOMS[room])
    assert not wrong, f"vision/{room} reaches into: {wrong}"
