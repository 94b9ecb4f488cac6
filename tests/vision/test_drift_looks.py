"""DRIFT's looks for its tags (vision/readers/drift_tags.py), on the shelf bench's own frames
(bench/vision_real.py): the one-pass look on crops enlarged twice, the patient look where it
alone reads a blurred tag, and its larger enlargements taken only round a tag not read yet."""

from __future__ import annotations

import cv2
import numpy as np

from vision_support import assert_read_right, drift_bench_frame


def test_a_blurred_coin_tag_is_read_by_the_patient_look(monkeypatch):
    """The shelf bench's frame (tilt 35, seed 1, its 6th frame): a lone copper coin on O3 and
    red-II on OR22, their tags 3 px a cell, are missed by the one-pass look and the thorough
    detector at the reader's enlargements (its many windows' outlines merged into one that does
    not decode), read by single windows of the patient look; without that look neither is named
    (O3 at best read occupied by its ink, OR22 unreadable)."""
    import vision.readers.drift_tags as drift_tags

    truth, reader, frame, H = drift_bench_frame(monkeypatch, {"tilt_deg": 35.0}, 1, 6)
    assert truth.get_tokens("O3") == ("copper",) and truth.get_tokens("OR22") == ("red-II",)
    reading = reader.read(frame, H)
    assert reading.view.get_tokens("O3") == ("copper",) and reading.view.get_tokens("OR22") == ("red-II",)
    assert not reading.unreadable, reading.why
    assert_read_right(truth, reading)
    monkeypatch.setattr(drift_tags, "PATIENT_SPACES", 0)
    without = reader.read(frame, H)
    assert without.view.get_tokens("O3") != ("copper",) and "OR22" in without.unreadable


def test_the_one_pass_look_reads_a_blurred_coin_from_a_crop_enlarged_twice(monkeypatch):
    """The shelf bench's frame (tilt 30, k1 -0.2, seed 5, its 1st frame): a lone copper coin on
    O22, its tag 2.9 px a cell, is read by the one-pass look on crops enlarged 2x (a cell 5.8 px),
    which cost under half the 3x crops' pixels; at 3x that look and the thorough one missed it,
    and only the patient look read it."""
    import vision.readers.drift_tags as drift_tags

    truth, reader, frame, H = drift_bench_frame(monkeypatch, {"tilt_deg": 30.0, "k1": -0.2}, 5, 1)
    assert truth.get_tokens("O22") == ("copper",)
    monkeypatch.setattr(drift_tags, "PATIENT_SPACES", 0)
    reading = reader.read(frame, H)
    assert reading.view.get_tokens("O22") == ("copper",) and not reading.unreadable, reading.why
    assert_read_right(truth, reading)
    monkeypatch.setattr(drift_tags, "QUICK_CELL_PX", 8.0)  # 3x, as before
    assert reader.read(frame, H).view.get_tokens("O22") != ("copper",)


def test_the_patient_look_enlarges_further_only_where_its_least_enlarged_looks_show_a_new_tag(monkeypatch):
    """The patient look's larger enlargements (4-5x, each look up to three times the cost of
    one at 3x) are taken only where its least enlarged looks decoded a tag not read already:
    round O3's blurred coin every look is taken; round an empty space, only the first three."""
    from vision.readers.reader import Reader
    from vision.readers.drift_tags import patient_looks
    from vision.readers.reasons import UNNAMED

    truth, reader, frame, H = drift_bench_frame(monkeypatch, {"tilt_deg": 35.0}, 1, 6)
    reader.read(frame, H)
    turned = list(reader._readers.values())[-1]
    pose, grey = turned._pose, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    looks = patient_looks(turned._cell_px(pose))
    assert len({up for up, _ in looks}) > 1
    scans = []
    real = Reader._scan

    def counted(self, *args, **kw):
        scans.append(kw.get("upscale"))
        return real(self, *args, **kw)

    read: list = []  # the tags the read's thorough look finds everywhere (not O3's coin)
    turned._scan(grey, pose, list(range(len(turned.grid.spaces))), turned._small_tags, read, upscale=turned.upscale(pose))
    monkeypatch.setattr(Reader, "_scan", counted)
    empty = next(s.id for s in turned.grid.spaces if s.kind != "area" and not truth.get_tokens(s.id)
                 and s.id.startswith("M"))
    for sid, taken in (("O3", len(looks)), (empty, sum(up == looks[0][0] for up, _ in looks))):
        scans.clear()
        found = list(read)
        turned._patient_look(grey, pose, np.array([turned.grid.index[sid]]), found, {sid: UNNAMED}, {})
        assert len(scans) == taken, (sid, scans)
        assert [turned._tags[t] for t, _ in found[len(read):]] == (["copper"] if sid == "O3" else [])
