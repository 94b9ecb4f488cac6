"""The colour reader's rules (Anacund's discs, Annelids' segments and tails), stated once: each
a share of a space's pixels, a distance in the frame or on the sheet, with why it is that figure.
Read by :mod:`vision.readers.colour_reading` and :mod:`vision.readers.annelid_bars`; docs/vision.md
("Colour reading") says where each was measured."""

from __future__ import annotations

COVER_MIN = 0.5  # a piece read by colour covers at least this share of its body
CLASS_MIN = 0.75  # share of core points matching the winning colour
CLASS_LEAN = 0.5  # ... in each of two looks that agree
OTHER_MAX = 0.05  # share matching any other colour
OTHER_SAY = 0.25  # ... in any other look, beyond which the looks are at odds
FOOT_ONLY_TOP = 0.25  # a colour plain only at a piece's foot: at least this share of it on top
BLEED_PX = 10.0  # pixels a JPEG's colour spreads beyond a saturated piece's edge
EDGE_SPILL_MAX = 0.45  # share of an empty edge's body a neighbouring bar may spill over
EDGE_MIDDLE = 0.3  # share of an edge's half-length, round its middle, no spill reaches
FOOT_HIDDEN = 0.5  # share of a bar's foot a bar in front must hide to trust its top look alone
BARE_TOP_MAX = 0.05  # share of a top look's pixels voting for any colour, where no bar stands
SPILL_PX = 3.0  # pixels a bar's edge spreads in the frame (lens blur, a JPEG's half-resolution colour)
VISIBLE_SHARE = 0.35  # share of an edge's body left in view by the bars beside it, to read it empty
EDGE_LEFT_MAX = 0.03  # share of its body foreign that nothing beside it explains, still read empty
DOUBT_SAT = 0.75  # under doubtful light: the colour's saturation, at least this share of its own
DOUBT_NEAR = 1.5  # pitches round a space where doubtful light nothing read explains keeps its own unsure
DOUBT_PEERS = 3  # ... of its own in this frame, where this many of its colour are read under a calm light
CLIPPED_MAX = 0.01  # share of clipped pixels in a space beyond which its colour is not read (glare)
BAND_RATIO = 0.62  # an Annelids tail's dark end: at most this bright relative to its other end
# ... or, on a bar's top face, at most this bright in the channel where the piece's colour is
# brightest: the cap is dark in every channel, a dark body (blue) is bright in its own. A
# glossy cap reflects a window or a ceiling panel as the body does, which lifts both ends by
# the same light: on path-traced frames (issue 32) a blue tail's cap stood at 0.38-0.75 of its
# body in that channel, at 0.6-0.9 in the mean of the channels. Through the fixed denoiser at
# 1080p (four rows, 260 looks at tails) 0.23-0.85, p50 0.49: 0.7 missed a tail put down 1 mm
# towards its cap (0.76). A segment's ends never name it (its colour does), and a tail's looks
# must agree on its end; on every path-traced set and the camera model, 0 wrong up to 0.85.
BAND_PEAK_RATIO = 0.78
BAND_OWN_MAX = 0.1  # ... or darker, with at most this share of the piece's colour,
BAND_OTHER_MIN = 0.6  # ... where the other end has at least this share of it
# Without a lens file a barrel lens puts the sheet's far parts 2-3 px (2-3 mm at 720p) off where
# the homography says, most of a 4 mm bar's width and more than its core's: an edge's core is
# also looked at shifted this far along and across the edge (mm), and the shift that shows one
# colour plainest is kept — the bar is still its own (the core stays clear of the edge's ends,
# where other edges' bars are).
EDGE_SHIFTS_MM = (0.0, 1.2, 2.4)
SHIFT_FROM = 0.3  # ... where the unshifted core has at least this share of that colour already
SHIFT_ON_MATE = 0.5  # ... and no more than this share of it, shifted, where a bar read beside it may show
CAP_MM = 3.0  # an Annelids tail's dark cap: this long at its flat end (samples.py's end bands lie inside)
CAP_SEEN = 0.5  # share of the foot look's dark end lying within the cap the top look sees at the other end
CAP_REST_MIN = 0.25  # the body outside a cap, to judge it by (tilt 35, far side: a cap over 2/3 of it)
CAP_BLUR_PX = 1.5  # pixels the cap's dark edge spreads in the frame (lens blur; a JPEG halves colour, not grey)
# A foot look's dark end toward the camera, against the top look's heading, showing this much more of
# the body's colour than its other end: the bar's own end face in shade, not a cap (path-traced, 313
# foot headings read right: at most 0.2 more; a face under the desk lamp alone: 0.4)
NEAR_FACE_OWN = 0.3
