"""The path-traced bench's denoiser (``vision/simulated/pathtraced/denoise.py``) on channels made
here: numpy only, no renderer."""

import numpy as np

from vision.simulated.pathtraced.denoise import denoise


def _channels(h: int = 24, w: int = 24) -> np.ndarray:
    """Paper lit evenly (radiance 0.6, albedo 0.85, facing up, 600 mm away)."""
    ch = np.zeros((h, w, 10), np.float32)
    ch[..., :3] = 0.6
    ch[..., 3:6] = 0.85
    ch[..., 8] = 1.0
    ch[..., 9] = 600.0
    return ch


def test_a_silhouette_pixel_keeps_its_light():
    """A pixel on a piece's outline averages two faces' normals into a vector shorter than 1.
    Compared unnormalised it matched no neighbour, itself included, and came out black: the
    black dots that made an Annelids tail's far end look like its dark cap."""
    ch = _channels()
    n = np.array([0.1, 0.0, 0.91], np.float32)  # |n| ≈ 0.92: half one face, half another; z still "facing up"
    ch[12, 12, 6:9] = n
    out = denoise(ch)
    assert out[12, 12].min() > 0.5, out[12, 12]
    assert np.allclose(out[5, 5], 0.6, atol=0.02)


def test_light_is_smoothed_but_never_across_a_change_of_height():
    """Noise in the light falling on the paper is smoothed; a sticker's top 12 mm nearer the
    camera is never mixed with the paper round it."""
    rng = np.random.default_rng(0)
    ch = _channels()
    ch[..., :3] *= rng.uniform(0.7, 1.3, ch.shape[:2])[..., None].astype(np.float32)
    ch[8:16, 8:16, :3] = 0.1  # a darker top
    ch[8:16, 8:16, 9] = 588.0
    out = denoise(ch)
    paper = out[:6, :6, 0]
    assert paper.std() < 0.5 * ch[:6, :6, 0].std()
    assert np.allclose(out[10:14, 10:14], 0.1, atol=0.01)


def test_a_metal_side_s_glitter_is_smoothed_but_never_into_the_top_above_it():
    """A ring's side (metal: no diffuse albedo; facing the camera) comes from 16 samples as
    glitter; it is smoothed among pixels of its own normal and depth, and the flat top above it
    (another normal) is never mixed in: a tier's edge stays where it is."""
    rng = np.random.default_rng(1)
    ch = _channels()
    ch[12:, :, 3:6] = 0.0  # the side: a conductor, no diffuse albedo
    ch[12:, :, 6:9] = [0.0, -1.0, 0.0]  # facing the camera, not up
    ch[12:, :, 9] = 590.0
    ch[12:, :, :3] = 0.3 * rng.choice([0.5, 1.0, 1.5], size=(12, 24))[..., None].astype(np.float32)
    out = denoise(ch)
    side = out[15:21, 5:19, 0]
    assert side.std() < 0.5 * ch[15:21, 5:19, 0].std()
    assert abs(float(side.mean()) - float(ch[12:, :, 0].mean())) < 0.03  # smoothed, not darkened or lit
    assert np.allclose(out[:11, :, 0], 0.6, atol=0.02)  # the top keeps its own light


def test_a_side_s_two_colours_keep_their_edge():
    """An Annelids tail's side: its body's colour and its dark cap's on one face (one normal,
    one depth), told apart by their albedos: smoothing never carries the body's light onto the cap."""
    ch = _channels()
    ch[:, :, 6:9] = [0.0, -1.0, 0.0]  # one side face, facing the camera
    ch[:, :, 9] = 590.0
    ch[:, :12, 3:6], ch[:, :12, :3] = 0.7, 0.5  # the body
    ch[:, 12:, 3:6], ch[:, 12:, :3] = 0.05, 0.04  # the cap
    out = denoise(ch)
    assert np.allclose(out[:, 12:, 0], 0.04, atol=0.005)
    assert np.allclose(out[:, :12, 0], 0.5, atol=0.01)


def test_a_glossy_bar_s_gloss_stays_on_the_bar():
    """An orange bar's top 4 mm above the paper (it faces up, like the paper) mirrors the ceiling
    panel: in its blue channel, where its albedo is 0.02, nearly all it sends is that gloss. Its
    "light" there (radiance over albedo) was 5x the paper's; a pixel on its outline, half bar,
    half paper, took that light and came out violet, and a JPEG's half-resolution colour averaged
    the violet with the orange into grey: an Annelids segment read as bare paper."""
    ch = _channels()
    bar = np.array([0.65, 0.23, 0.02], np.float32)  # RGB albedo
    gloss = 0.1  # the panel's mirror image, white
    ch[:, 8:12, :3] = 0.6 * bar + gloss
    ch[:, 8:12, 3:6] = bar
    ch[:, 8:12, 9] = 596.0
    ch[:, 12, :3] = 0.5 * (0.6 * bar + gloss) + 0.5 * 0.6  # the outline: half bar, half paper
    ch[:, 12, 3:6] = 0.5 * bar + 0.5 * 0.85
    ch[:, 12, 9] = 598.0
    out = denoise(ch)
    assert np.allclose(out[:, 12], ch[:, 12, :3], atol=0.03), out[5, 12]  # not violet
    assert np.allclose(out[:, 9:11], ch[:, 9:11, :3], atol=0.01)  # the bar keeps its colour and gloss
    assert np.allclose(out[:, 16:], 0.6, atol=0.02)  # the paper its own light
