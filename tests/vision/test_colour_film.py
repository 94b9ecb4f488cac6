"""An Annelids game filmed by the camera model (tilt 25°, k1 −0.1, the set's 4 mm bars at their
real height, the lamp and its shadows, an arm placing each segment) and refereed end to end,
CameraSource → Stabiliser → Referee: every move accepted as played, never a wrong one. Its bars
are under 4 px wide at 720p — read by hue (vision/read/colour_model.py); Gygès' and Anacund's filmed
games are tests/vision/test_film_games.py."""

from bench.decision_latency import Run, filmed_game, play_film
from vision.simulated.scene_film import FilmTiming

BRISK = FilmTiming(fps=6.0, opening_s=1.0, still_s=1.5, closing_s=2.0, reach_s=0.4, lift_s=0.3, carry_s=0.6,
                   lower_s=0.3, withdraw_s=0.4)


def test_filmed_annelids_game_with_real_bars_is_refereed_as_played():
    fg = filmed_game("annelids", tilt=25.0, moves=2, seed=0, timing=BRISK)
    run = Run()
    play_film(fg, run)
    assert (run.wrong, run.intermediate, run.with_hand) == (0, 0, 0)
    assert run.decided == run.moves == 2, f"{run.decided} of 2 moves accepted as played"
