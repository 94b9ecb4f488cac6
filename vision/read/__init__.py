"""Finding the board in a frame and looking at it, in the order a frame meets them: the lens
(``lens``), the board lock (``lock``), the camera's pose over the board (``pose``), the motion
gate (``motion``), where to look (``samples``), the pixels there (``sampling``), and what the
empty board looks like (``empty_board``; made by ``calibration``; colours by ``colour_model``).
Arrays in, values out; imports only :mod:`vision.sheets` and :mod:`vision.pieces`."""
