"""Cameras that are not there, for the tests and the benches — never used by the read path.

* the test renderer: ``synth`` (a flat drawing under a random pose), ``video`` (a board script
  as video), ``sessions`` (calibrated synthetic set-ups), ``hand_script`` (a hand in the frames);
* the project's camera model: ``camera_model``, ``scene_pieces``, ``ring_solids``,
  ``scene_film`` (filmed games), ``own_board`` (a players' own board);
* ``pathtraced``: the path-traced bench's scene (Mitsuba 3).
"""
