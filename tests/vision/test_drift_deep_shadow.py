"""DRIFT in a dark room lit by one desk lamp (the camera model's lamp with an ambient of 0.2):
a home pile's shadow falls at 0.27-0.30 of the paper across an empty space, darker than the 0.3
the reader takes for a shadow's floor. Read as a token whose tag cannot be read ("occupied,
more"), it was a false accept; a deep grey beside a named piece within twice its height is now
left unreadable (vision/readers/occlusion.py, DEEP_LIKE and DEEP_CAST)."""

import pytest

from bench.vision_pathtraced import BASE
from bench.vision_real import Setting, run_setting
from vision.simulated.camera_model import Lamp

# the path-traced bench's desk-lamp row on the camera model (bench/vision_pathtraced.py model_row)
DESK = Setting("desk", {"tilt_deg": BASE["tilt_deg"], "fill": BASE["fill"], "k1": 0.0, "hfov_deg": 66.0},
               {"lamp": Lamp(ambient=0.2)})


@pytest.mark.parametrize("rule_on", [True, False])
def test_a_pile_s_deep_shadow_is_not_a_token(monkeypatch, rule_on):
    import vision.readers.occlusion as occlusion

    if not rule_on:
        monkeypatch.setattr(occlusion, "DEEP_LIKE", 1.01)  # never deep enough: the rule off
    row = run_setting("drift", (1920, 1080), DESK, 5, 0)  # frame 5: OR0, half in a pile's shadow
    assert row.lock == 5
    if rule_on:
        assert row.false_accepts == 0 and row.wrong_spaces == 0, row
    else:
        assert row.false_accepts >= 1, row
