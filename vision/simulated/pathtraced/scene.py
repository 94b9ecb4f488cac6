"""The path-traced scene (Mitsuba 3): a printed sheet, pieces, three lights and a Camera Module 3.

World coordinates are the camera model's (:mod:`vision.simulated.camera_model`): sheet millimetres, x right,
y down the sheet, z into the table (a point h mm above the board is at z = -h), so the camera is
placed by the same :func:`vision.simulated.camera_model.place_camera` (tilt, fill, yaw) and the reader's
truth is the same ``View``.

* **Sheet**: :func:`vision.sheets.render.draw_sheet` — the artwork ``tableref print-board`` prints — as
  a diffuse texture (paper albedo 0.85, toner 0.04) on a mesh that is not flat: a sheet laid
  down bows and its edges curl up a few millimetres.
* **Pieces** (:mod:`.pieces`: every game's): every token of the view where the camera model stands it
  (:func:`vision.simulated.scene_pieces.solids_for`, the piece set's footprint and height), then moved as a
  hand puts it down: up to ±15 % of the pitch off the space's centre on each axis (never into a
  neighbour), turned any way, its sticker a little off-centre; each stands on the bent paper.
  Gygès's rings are roughened metal (a conductor BSDF, aluminium; or, ``PTSetup.ring_finish``
  "wood", varnished beech), a ring of height n a stack of n tiers with a groove between tiers; the sticker (the tag in a white disc, as
  ``tableref print-tags`` prints) is matte paper (or coated: ``PTSetup.sticker``) on the top face.
  The other games' discs, coins and bars: :mod:`.pieces`.
* **Lights**: a ceiling panel (area light, neutral 4000 K), a desk lamp (spot, warm 2700 K, off
  to one side as the camera model's lamp) and a window (a large area light on the other side,
  daylight white); ``lights`` picks which are on. A dim grey sky stands for the room's bounce.
* **Camera**: a thin lens with a Camera Module 3's field of view (standard 66°, wide 102°
  horizontal), its aperture (f/1.8 on 4.74 mm, f/2.2 on 2.75 mm) and its focus fixed at the
  hyperfocal distance (circle of confusion two native 1.4 µm pixels): at shelf distance the
  board is slightly out of focus, as the issue's fixed-focus module is.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rules.view import View

from vision.sheets.layout import Sheet
from vision.sheets.render import draw_sheet, marker_image
from vision.simulated.camera_model import BoardPose, CameraSetup, Hand, place_camera

from .arm import arm_shapes, held_pieces
from .pieces import Piece, linear_albedo, piece_shapes, ring_markers


@dataclass(frozen=True)
class Module:
    """A camera module's lens: horizontal field of view, focal length, f-number."""

    hfov_deg: float
    focal_mm: float
    f_number: float

    @property
    def aperture_mm(self) -> float:
        """The entrance pupil's radius."""
        return self.focal_mm / (2 * self.f_number)

    pixel_um: float = 1.4  # the sensor's native pixel (the IMX708's)

    @property
    def hyperfocal_mm(self) -> float:
        coc = 2 * self.pixel_um / 1000  # two native pixels
        return self.focal_mm ** 2 / (self.f_number * coc) + self.focal_mm


# Camera Module 3 standard and wide; a USB webcam of the cheap fixed-focus kind (a 1/4" 720p
# sensor of 2.8 µm pixels behind a 3.7 mm f/2.4 lens, about 60° across its diagonal)
MODULES = {"standard": Module(66.0, 4.74, 1.8), "wide": Module(102.0, 2.75, 2.2),
           "webcam": Module(52.0, 3.7, 2.4, pixel_um=2.8)}
LIGHTS = ("all", "desk", "window", "ceiling")
STICKERS = ("matte", "glossy", "none")
# Gygès's rings: turned aluminium (the seed's metal), or turned beech under a satin varnish (a
# wooden set): a varnish's faint gloss over wood's diffuse colour
RING_FINISHES = ("metal", "wood")
# colour of each light in linear sRGB (black-body 2700 K, 4000 K; daylight D65 is sRGB's white)
WARM, NEUTRAL, DAYLIGHT = (1.0, 0.69, 0.39), (1.0, 0.86, 0.72), (1.0, 1.0, 1.0)
PAPER, TONER = 0.85, 0.04  # diffuse albedo of office paper and of printed black
METAL = "Al"  # Mitsuba's measured aluminium (complex IOR)
RING_WOOD_BGR = (130, 175, 215)  # varnished beech, 8-bit sRGB


@dataclass(frozen=True)
class PTSetup:
    """One bench row's camera and lights."""

    lens: str = "standard"
    tilt_deg: float = 25.0
    fill: float = 0.6
    lights: str = "all"
    size: tuple[int, int] = (1280, 720)
    yaw_deg: float = 3.0
    spp: int = 16
    # The denoiser's guides (albedo, normal, depth). At 4 samples a pixel a thin printed line's
    # albedo carried its own sampling noise into every frame: Annelids' empty edges read
    # "something here" 40-50 a frame; at 64 none on the empty board, 2-3 a frame (sixth session).
    guide_spp: int = 32
    roughness: float = 0.2  # the rings' metal (GGX alpha): turned and handled, not a mirror
    sticker: str = "matte"  # the stickers' finish: "matte" paper, "glossy" (coated), "none" (.rings)
    ring_lean_deg: float = 0.0  # Gygès: a double or triple ring's upper rings tilted on its first, up to this
    ring_finish: str = "metal"  # Gygès's rings: one of RING_FINISHES

    def __post_init__(self) -> None:
        if self.lens not in MODULES:
            raise ValueError(f"PTSetup.lens: one of {', '.join(MODULES)}, got {self.lens!r}")
        if self.lights not in LIGHTS:
            raise ValueError(f"PTSetup.lights: one of {', '.join(LIGHTS)}, got {self.lights!r}")
        if self.sticker not in STICKERS:
            raise ValueError(f"PTSetup.sticker: one of {', '.join(STICKERS)}, got {self.sticker!r}")
        if self.ring_finish not in RING_FINISHES:
            raise ValueError(f"PTSetup.ring_finish: one of {', '.join(RING_FINISHES)}, got {self.ring_finish!r}")

    @property
    def camera(self) -> CameraSetup:
        return CameraSetup(size=self.size, hfov_deg=MODULES[self.lens].hfov_deg, tilt_deg=self.tilt_deg,
                           yaw_deg=self.yaw_deg, fill=self.fill, blur=0.0)

    def pose(self, sheet: Sheet) -> BoardPose:
        return place_camera(self.camera, sheet.size)


# -- the Mitsuba scene ------------------------------------------------------------------------


def _mi():
    import mitsuba as mi

    if mi.variant() is None:
        variant = os.environ.get("TABLEREF_MITSUBA_VARIANT", "scalar_rgb")
        try:
            mi.set_variant(variant)
        except (ImportError, AttributeError, RuntimeError):  # a variant this build lacks: the scalar CPU one
            mi.set_variant("scalar_rgb")
    return mi


def _srgb_to_linear(img: np.ndarray) -> np.ndarray:
    x = img.astype(np.float32) / 255.0
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _albedo(rgb_u8: np.ndarray) -> np.ndarray:
    """A printed image's diffuse albedo: white paper PAPER, full black TONER."""
    return (TONER + (PAPER - TONER) * _srgb_to_linear(rgb_u8)).astype(np.float32)


def _bitmap(mi, arr: np.ndarray) -> dict:
    return {"type": "bitmap", "bitmap": mi.Bitmap(np.ascontiguousarray(arr)), "raw": True, "filter_type": "bilinear"}


def sheet_lift(sheet: Sheet, rng: np.random.Generator, curl_mm: float = 3.0, n: int = 24) -> np.ndarray:
    """How far the sheet lifts off the table's plane (mm; the mesh's z is minus this) on an
    (n·h/w + 1) × (n + 1) grid: bowed, and curled at its edges by up to ``curl_mm``."""
    w, h = sheet.size
    nx, ny = n, int(round(n * h / w))
    u, v = np.meshgrid(np.linspace(0, 1, nx + 1), np.linspace(0, 1, ny + 1))
    lift = curl_mm * (rng.uniform(0.3, 1.0) * (2 * u - 1) ** 4 + rng.uniform(0.3, 1.0) * (2 * v - 1) ** 4) / 2
    lift += 0.6 * curl_mm * rng.uniform(0, 1) * np.sin(math.pi * u) * np.sin(math.pi * v + rng.uniform(0, 1))
    return lift


def lift_at(sheet: Sheet, lift: np.ndarray):
    """The paper's height at a sheet point (mm): the mesh's, interpolated as its triangles are
    (near enough: bilinear). Off the sheet, the table: 0."""
    w, h = sheet.size
    ny, nx = lift.shape[0] - 1, lift.shape[1] - 1

    def at(x: float, y: float) -> float:
        if not (0 <= x <= w and 0 <= y <= h):
            return 0.0
        fx, fy = x / w * nx, y / h * ny
        i, j = min(int(fx), nx - 1), min(int(fy), ny - 1)
        tx, ty = fx - i, fy - j
        return float((lift[j, i] * (1 - tx) + lift[j, i + 1] * tx) * (1 - ty)
                     + (lift[j + 1, i] * (1 - tx) + lift[j + 1, i + 1] * tx) * ty)

    return at


def sheet_mesh(sheet: Sheet, lift: np.ndarray, path: Path) -> Path:
    """An OBJ of the sheet lifted by ``lift`` (:func:`sheet_lift`; lifted: z < 0)."""
    w, h = sheet.size
    ny, nx = lift.shape[0] - 1, lift.shape[1] - 1
    u, v = np.meshgrid(np.linspace(0, 1, nx + 1), np.linspace(0, 1, ny + 1))
    xs, ys, zs = u * w, v * h, -lift
    lines = [f"v {x:.3f} {y:.3f} {z:.3f}" for x, y, z in zip(xs.ravel(), ys.ravel(), zs.ravel())]
    lines += [f"vt {a:.6f} {1 - b:.6f}" for a, b in zip(u.ravel(), v.ravel())]
    for j in range(ny):
        for i in range(nx):
            a = j * (nx + 1) + i + 1
            b, c, d = a + 1, a + nx + 2, a + nx + 1
            lines += [f"f {a}/{a} {b}/{b} {c}/{c}", f"f {a}/{a} {c}/{c} {d}/{d}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def sticker_images(tag: int, tag_mm: float, px_per_mm: float = 10.0) -> tuple[np.ndarray, np.ndarray, float]:
    """A round sticker as ``tableref print-tags`` prints it (the tag, its diagonal and 2 mm of
    white): (albedo RGB, opacity, its square's side in mm)."""
    side = int(round(tag_mm * px_per_mm))
    k = int(math.ceil((tag_mm * math.sqrt(2) + 4) * px_per_mm))
    grey = np.full((k, k), 255, np.uint8)
    o = (k - side) // 2
    grey[o:o + side, o:o + side] = marker_image(tag, side)
    alpha = np.zeros((k, k), np.float32)
    cv2.circle(alpha, (k // 2, k // 2), k // 2 - 1, 1.0, -1, cv2.LINE_AA)
    rgb = _albedo(np.repeat(grey[..., None], 3, axis=2))
    return rgb, alpha[..., None], k / px_per_mm


def scene_dict(sheet: Sheet, pieces: list[Piece], setup: PTSetup, workdir: Path, seed: int = 0,
               view: View | None = None, sheet_seed: int | None = None, hands: Sequence[Hand] = ()) -> dict:
    """The Mitsuba scene description (``mi.load_dict``) of the sheet, ``pieces`` and the lights,
    seen by ``setup``'s camera. ``workdir`` holds the sheet's mesh (one per seed). ``view``:
    DRIFT's river-ring markers stand where its rotations put them (none: rotation 0).
    ``hands``: players' arms reaching in, with the pieces they carry (:mod:`.arm`)."""
    mi = _mi()
    T = mi.ScalarTransform4f
    rng = np.random.default_rng(seed)
    w, h = sheet.size
    cx, cy = w / 2, h / 2
    module = MODULES[setup.lens]
    pose = setup.pose(sheet)
    R, origin = pose.R, pose.position
    target = origin + R[2] * (-origin[2] / R[2][2])  # where the optical axis meets the board
    d: dict = {"type": "scene", "integrator": {"type": "path", "max_depth": 4}}
    d["camera"] = {
        "type": "thinlens", "fov": module.hfov_deg, "fov_axis": "x",
        "aperture_radius": module.aperture_mm, "focus_distance": module.hyperfocal_mm,
        "near_clip": 10.0, "far_clip": 20000.0,
        "to_world": T().look_at(origin=[float(v) for v in origin], target=[float(v) for v in target],
                                up=[float(v) for v in -R[1]]),
        "film": {"type": "hdrfilm", "width": setup.size[0], "height": setup.size[1], "pixel_format": "rgb",
                 "rfilter": {"type": "box"}},
        "sampler": {"type": "multijitter", "sample_count": setup.spp, "seed": seed},
    }
    art = draw_sheet(sheet, 4.0)
    lift = sheet_lift(sheet, rng)  # drawn even when the sheet's own seed is given: the lamps' nudges stay the same
    if sheet_seed is not None:  # the sheet left in place: its bend is the same render after render
        lift = sheet_lift(sheet, np.random.default_rng(sheet_seed))
    d["sheet"] = {"type": "obj", "filename": str(sheet_mesh(sheet, lift, workdir / f"sheet-{seed}.obj")),
                  "face_normals": False,
                  "bsdf": {"type": "twosided", "bsdf": {"type": "diffuse",
                                                        "reflectance": _bitmap(mi, _albedo(art[..., ::-1]))}}}
    d["table"] = {"type": "rectangle", "to_world": T().translate([cx, cy, 1.0]).scale([1500, 1500, 1]),
                  "bsdf": {"type": "twosided", "bsdf": {"type": "diffuse",
                                                        "reflectance": {"type": "rgb", "value": [0.32, 0.2, 0.11]}}}}
    d.update(_lights(mi, setup.lights, (cx, cy), rng))
    ring = {"type": "roughconductor", "material": METAL, "distribution": "ggx", "alpha": setup.roughness}
    if setup.ring_finish == "wood":
        ring = {"type": "roughplastic", "distribution": "ggx", "alpha": 0.3, "int_ior": 1.5,
                 "diffuse_reflectance": {"type": "rgb", "value": linear_albedo(RING_WOOD_BGR)}}
    on_paper = lift_at(sheet, lift)  # pieces and stickers stand on the bent paper, not in it
    for i, p in enumerate(pieces):
        d.update(piece_shapes(mi, sheet, p, i, ring, setup.sticker, on_paper, workdir))
    d.update(ring_markers(mi, sheet, view if view is not None else View(), setup.sticker, on_paper))
    for k, hand in enumerate(hands):
        d.update(arm_shapes(pose, sheet.size, hand, f"arm{k}"))
    for j, p in enumerate(held_pieces(sheet, hands)):  # in the air: the paper's bend is not under them
        d.update(piece_shapes(mi, sheet, p, len(pieces) + j, ring, setup.sticker, lambda x, y: 0.0, workdir))
    return d


def _lights(mi, which: str, centre: tuple[float, float], rng: np.random.Generator) -> dict:
    """Ceiling panel, desk lamp and window, their strengths set so that each alone gives the
    board about the same light (the camera's exposure follows): only their colours, directions
    and sizes differ. A dim grey sky is the room's bounce light."""
    T = mi.ScalarTransform4f
    cx, cy = centre
    out: dict = {"room": {"type": "constant", "radiance": {"type": "rgb", "value": [0.04, 0.04, 0.04]}}}
    if which in ("all", "ceiling"):
        # a 300 mm panel 2.2 m up: solid angle about 0.019 sr
        out["ceiling"] = {"type": "rectangle",
                          "to_world": T().translate([cx + float(rng.uniform(-300, 300)), cy + float(rng.uniform(-300, 300)),
                                                     -2200.0]).scale([150, 150, 1]),
                          "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [50 * c for c in NEUTRAL]}}}
    if which in ("all", "desk"):
        az, el, dist = math.radians(200 + float(rng.uniform(-15, 15))), math.radians(50.0), 700.0
        pos = [cx + dist * math.cos(el) * math.cos(az), cy + dist * math.cos(el) * math.sin(az), -dist * math.sin(el)]
        out["desk"] = {"type": "spot", "cutoff_angle": 45.0, "beam_width": 30.0,
                       "to_world": T().look_at(origin=pos, target=[cx, cy, 0.0], up=[0.0, 0.0, -1.0]),
                       "intensity": {"type": "rgb", "value": [6.0e5 * c for c in WARM]}}
    if which in ("all", "window"):
        az = math.radians(20 + float(rng.uniform(-20, 20)))
        pos = [cx + 1300 * math.cos(az), cy + 1300 * math.sin(az), -600.0]
        out["window"] = {"type": "rectangle",
                         "to_world": T().look_at(origin=pos, target=[cx, cy, 0.0], up=[0.0, 0.0, -1.0]).scale([500, 600, 1]),
                         "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [4.0 * c for c in DAYLIGHT]}}}
    return out


def render_channels(sheet: Sheet, pieces: list[Piece], setup: PTSetup, workdir: str | Path, seed: int = 0,
                    view: View | None = None, sample_seed: int | None = None,
                    sheet_seed: int | None = None, hands: Sequence[Hand] = ()) -> np.ndarray:
    """The scene rendered: (H, W, 10) float32 — linear RGB radiance, then the albedo, shading
    normal and depth (mm) that :func:`vision.simulated.pathtraced.denoise.denoise` is guided by.
    ``seed`` sets the scene (the paper's bend, the lamps' nudges); ``sample_seed`` (default
    ``seed``) the path tracer's samples: the same scene again with other render noise;
    ``sheet_seed`` (default ``seed``) the paper's bend alone."""
    mi = _mi()
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    scene = mi.load_dict(scene_dict(sheet, pieces, setup, work, seed, view, sheet_seed, hands))
    samples = seed if sample_seed is None else sample_seed
    img = np.array(mi.render(scene, spp=setup.spp, seed=samples), dtype=np.float32)[..., :3]
    # the guides in a pass of their own (Mitsuba's multijitter rounds 32 samples up to 35; the pass
    # costs about 10 s of a frame's 25-55 at 1280x720)
    aov = mi.load_dict({"type": "aov", "aovs": "al:albedo,nn:sh_normal,dd:depth"})
    guides = np.array(mi.render(scene, integrator=aov, spp=setup.guide_spp, seed=samples), dtype=np.float32)
    return np.concatenate([img, guides[..., -7:]], axis=2)
