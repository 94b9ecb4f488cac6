"""vision — the camera: printed boards with corner markers, board lock, per-space reading,
motion gate, and a source of observations (docs/vision.md).

Modules: ``layout`` (sheet geometry, tag table), ``render`` (printable boards, tag sheets,
PDF), ``samples`` and ``reader`` (calibration, per-space reading), ``lock``, ``motion``,
``capture`` (Picamera2, OpenCV, arrays), ``source`` (CameraSource), ``calibration``;
for tests and benchmarks: ``synth`` (the test renderer), ``video``, ``sessions``.
"""
