"""The camera's set-up steps say their progress, result and why they cannot run in the admin's
language (issue 33, item 1): French for a French browser, from the catalog, no English word
left; English for an English one, as before."""

from __future__ import annotations

import re
import time

import pytest

from rules.view import View
from setupscene import SceneCamera, finished, search_again, setup_service, until
from webhelp import admin_client

ENGLISH = {"the", "and", "to", "of", "from", "is", "are", "was", "were", "not", "found", "frames", "saved", "board",
           "empty", "learned", "reading", "with", "it", "now", "read", "by", "tags", "colour", "colours", "learn",
           "corner", "marker", "markers", "bottom-right", "all", "four", "must", "be", "in", "view", "uncovered",
           "first", "collecting", "learning", "saving"}


def english(text: str) -> list[str]:
    text = re.sub(r"\S*/\S*", " ", text)  # paths are the machine's
    return sorted({w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'-]*", text)} & ENGLISH)


@pytest.fixture
def svc(tmp_path):
    camera = SceneCamera("gyges")
    camera.show(View())
    service = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz")
    yield service, camera
    service.close()


def test_the_set_up_steps_speak_the_admins_language(svc):
    service, camera = svc
    client, post = admin_client(service)
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9"
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")

    assert post("/api/setup/calibrate", {"step": "colours"}).status_code == 202
    job = finished(client)
    assert job["result"] == "Gygès se lit par étiquettes, pas par couleur : aucune couleur à apprendre", job

    camera.show(View(), cover_marker=2)
    search_again(service.camera_setup.source)
    time.sleep(0.3)
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    job = finished(client)
    assert job["state"] == "failed" and job["result"].startswith(
        "le repère de coin 2 (en bas à droite) n'a pas été trouvé : les quatre doivent être visibles"), job

    camera.show(View())
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    job = finished(client)
    assert job["state"] == "done" and job["result"].startswith("plateau vide : appris sur "), job
    assert not english(job["result"]) and not english(job["progress"]), job
    assert client.get("/api/setup").get_json()["job"]["result"] == job["result"]

    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"  # the same job, said to an English admin
    assert client.get("/api/setup/job").get_json()["result"].startswith("empty board learned from ")


def test_the_lens_step_says_annelids_needs_it_with_a_wide_lens(svc):
    """Annelids' 4 mm bars through a wide lens's bend with no lens at all: 0 % of path-traced
    frames usable (docs/vision.md); learning the empty board measures it from the board's lines.
    The set-up page's lens step says so, in both languages."""
    service, _ = svc
    client, _ = admin_client(service)
    assert "printed lines, which Annelids needs" in client.get("/setup").get_data(as_text=True)
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9"
    assert "sur les lignes imprimées du plateau, ce dont Annélides a besoin" in client.get("/setup").get_data(as_text=True)


def test_a_board_too_small_in_the_picture_is_said_in_french():
    """The warning the empty-board step adds (tableref/camera_setup.py's scale_warning), in the
    admin's language with its figures; nothing said when the board is big enough."""
    from tableref.camera_setup import scale_warning
    from tableref.i18n import catalog
    from vision.read.scale import BoardScale

    said = catalog("fr").say(scale_warning(BoardScale(0.42, "S", 0.5), "gyges"))
    assert said == (" ; le plateau est petit dans l'image : en S, un millimètre fait 0.42 px, et les pièces de Gygès "
                    "se lisent à partir de 0.50 px : rapprochez la caméra, ou laissez le plateau occuper une plus "
                    "grande part de l'image"), said
    assert not english(said)
    assert scale_warning(BoardScale(0.6, "S", 0.5), "gyges") == ""


def test_the_spaces_read_on_the_set_up_page_are_said_in_the_admins_language(svc):
    """Tapping a space says what was read and why a space is not: the pieces by their names
    (tableref/i18n/pieces.py) and the reader's reasons (vision/readers/reasons.py) from the
    catalog — French for a French admin, not the reader's English nor its tokens ("2")."""
    from rules import Fidelity, get_game

    service, camera = svc
    client, post = admin_client(service)
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    assert finished(client)["state"] == "done"
    view = get_game("gyges").default_setup().view(Fidelity.KIND)
    camera.show(view, hand=True)  # a hand held still over the middle of the board
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9"

    def both():
        spaces = client.get("/api/setup/overlay").get_json()["spaces"]
        read = [s for s in spaces if s["verdict"] == "read"]
        unread = [s for s in spaces if s["verdict"] == "unreadable"]
        return (read, unread) if read and unread else None

    read, unread = until(both)
    names = {"1": "l'anneau simple", "2": "l'anneau double", "3": "l'anneau triple"}
    for s in read:
        assert s["names"] == [names[t] for t in s["tokens"]], s
    for s in unread:
        assert s["why"] and not english(s["why"]) and s["why"] not in ("something here that is not a readable piece",
                                                                        "light uneven here (hand or glare near)"), s
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"
    spaces = client.get("/api/setup/overlay").get_json()["spaces"]
    assert {n for s in spaces for n in s["names"]} <= {"single ring", "double ring", "triple ring"}
    assert all(s["why"] for s in spaces if s["verdict"] == "unreadable")
