"""A filmed Annelids game refereed end to end when no tail's dark cap is ever seen: the camera
model at 1080p (tilt 25°, the board filling 60 %), real bar heights, an arm laying each segment;
frames → CameraSource (lock, motion gate, colour reader) → stabiliser → referee, through the
film bench's own harness (``bench/decision_latency.py``). Every tail is then read by its colour
alone, named in part (``blue:?``): history gives its heading, so every move is still accepted as
played — and before, every frame was unreadable."""

from __future__ import annotations

from bench.decision_latency import Run, filmed_game, play_film
from vision.simulated.scene_film import FilmTiming

QUICK = FilmTiming(fps=5.0, opening_s=0.8, still_s=1.0, closing_s=1.0, reach_s=0.4, lift_s=0.2, carry_s=0.4,
                   lower_s=0.2, withdraw_s=0.4)


def test_a_filmed_annelids_game_whose_tails_caps_are_never_seen_is_refereed_as_played(monkeypatch):
    import vision.readers.annelid_bars as bars

    monkeypatch.setattr(bars.AnnelidBars, "_headings", lambda self, *a, **k: {})  # no cap seen, ever
    fg = filmed_game("annelids", tilt=25.0, moves=3, seed=5, k1=0.0, timing=QUICK)
    seen_in_part = []
    read = fg.reader.read

    def reading(frame, H):
        got = read(frame, H)
        seen_in_part.append(len(got.view.in_part))
        return got

    monkeypatch.setattr(fg.reader, "read", reading)
    run = Run()
    play_film(fg, run, seed=5)
    assert max(seen_in_part, default=0) >= 8, "the tails were not read in part"
    assert (run.wrong, run.intermediate, run.with_hand) == (0, 0, 0)
    assert run.decided == run.moves == 3, f"{run.decided} of 3 moves accepted as played"
