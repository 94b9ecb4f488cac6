"""The path-traced bench's simulated camera (issue 32): not part of the read path.

The project's own camera model (:mod:`vision.simulated.camera_model`) draws with rules written beside the
reader; this package photographs the same printed sheet with Mitsuba 3, a physically based path
tracer nobody here wrote (``pip install -e .[bench]``), so the reader is judged on light transport
it was not tuned to:

* :mod:`vision.simulated.pathtraced.scene` — the scene: the ``print-board`` artwork as matte paper on a
  slightly bent sheet, three lights, a Camera Module 3 (standard or wide) with a thin lens
  focused as a fixed-focus module is;
* :mod:`vision.simulated.pathtraced.pieces` — every game's pieces and their materials (Gygès's
  metal rings, Anacund's painted wooden discs, Annihilation's plastic particles, DRIFT's wooden
  pieces, metal coins and its rings' markers, Annelids' plastic bars), with their stickers, put
  down as people put them (off-centre, turned, stickers askew);
* :mod:`vision.simulated.pathtraced.arm` — a player's hand and forearm reaching in (the camera
  model's arm, as skin), and the piece it carries;
* :mod:`vision.simulated.pathtraced.denoise` — the few-sample frame converged where it is paper (albedo
  apart from light, the light smoothed within a surface), as production renderers' denoisers do;
* :mod:`vision.simulated.pathtraced.sensor` — what the camera does to the rendered light (numpy only):
  auto exposure, photon and read noise, white balance, gamma, JPEG.

Only ``bench/vision_pathtraced.py`` (still frames) and ``bench/pathtraced_film.py`` (filmed
games) render; the tests read committed frames and a committed film (``tests/vision/pathtraced/``).
"""
