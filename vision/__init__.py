"""vision — the camera: printed boards with corner markers, board lock, per-space reading,
motion gate, and a source of observations (docs/vision.md; the map: vision/README.md).

Its rooms, in the order a frame meets them: ``pieces`` and ``sheets`` (what stands on the
table and what is printed), ``read`` (lock, pose, motion gate, sampling, the empty board),
``readers`` (each space read), ``camera`` (capture and :class:`~vision.camera.source.CameraSource`);
apart, ``simulated`` (cameras that are not there, for the tests and the benches).
"""
