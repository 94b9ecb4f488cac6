"""Why a space is not read, stated once (vision/readers/reasons.py): each reason the English the
readers have always written, and a phrase the set-up page says in the admin's language."""

from __future__ import annotations

import ast
import copy
import pickle
import re
from pathlib import Path

import pytest

from tableref.i18n import catalog
from vision.readers.reasons import (
    MARKERS_UNSEEN, UNNAMED, Reason, cap_unseen, every_reason, foreign_tag, phrase_of, reason, rotation_unread,
)

READERS = Path(__file__).resolve().parents[2] / "vision" / "readers"


def test_a_reason_is_its_english_text_and_keeps_its_phrase():
    why = foreign_tag(17)
    assert why == "tag 17 is not one of this game's pieces" and isinstance(why, str)
    assert "not one of this game's pieces" in why and f"{why}" == str(why)
    assert why.phrase.msgid == "tag {tag} is not one of this game's pieces"
    for copied in (copy.copy(why), copy.deepcopy(why), pickle.loads(pickle.dumps(why)), dict({"a1": why})["a1"]):
        assert copied == why and phrase_of(copied) == why.phrase
    assert rotation_unread("outer") == "the outer river's rotation cannot be read"
    assert UNNAMED == "something here that is not a readable piece"
    assert phrase_of("glare or shadow").msgid == "glare or shadow"  # a plain text: its own msgid


@pytest.mark.parametrize("lang", ["fr"])
def test_every_reason_is_in_the_catalog(lang):
    c = catalog(lang)
    assert len(every_reason()) >= 30
    for phrase in every_reason():
        said = c.say(phrase)
        assert said != phrase.text and "{" not in said, phrase.msgid
    assert c.say(cap_unseen("blue").phrase) == "une queue bleue dont le bout plat ne se voit pas"
    assert c.say(rotation_unread("middle").phrase) == "la rotation de la rivière du milieu ne se lit pas"
    assert c.say(MARKERS_UNSEEN.phrase) == "aucun des deux repères de rotation de l'anneau ne se voit"


def _text(node: ast.AST) -> bool:
    """A reason written in place: a string literal, an f-string, or either inside a conditional."""
    if isinstance(node, ast.IfExp):
        return _text(node.body) or _text(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(_text(v) for v in node.values)
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)
                                                and node.value != "")


def test_no_reader_writes_a_reason_of_its_own():
    """Every reason comes from reasons.py: a reader that writes ``why[s] = "..."`` (or an
    f-string) would show the admin English on a French page, and nothing would say so."""
    written = []
    for path in sorted(READERS.glob("*.py")):
        if path.name == "reasons.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and re.search(r"why", ast.unparse(target.value)) \
                            and _text(node.value):
                        written.append(f"{path.name}:{node.lineno}")
                    if isinstance(target, ast.Name) and re.search(r"why|trouble|bad", target.id) and _text(node.value):
                        written.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" \
                    and "why" in ast.unparse(node.func.value) and len(node.args) == 2 and _text(node.args[1]):
                written.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2 \
                    and isinstance(node.value.elts[1], ast.JoinedStr):
                # DriftReader._step_of's "or why not" (a constant there is a label: occlusion's "hidden")
                written.append(f"{path.name}:{node.lineno}")
    assert not written, written


def test_reason_made_from_a_template_fills_its_values():
    why = reason("tag {tag} is not one of this game's pieces", tag="3")
    assert isinstance(why, Reason) and why == "tag 3 is not one of this game's pieces"
