"""Frames in, observations out: the capture backends (``capture``: Picamera2, OpenCV, arrays —
the one module of ``vision`` that opens a device, in ``start()``) and :class:`CameraSource`
(``source``: capture → lock → motion gate → reader → ``rules.Observation``)."""
