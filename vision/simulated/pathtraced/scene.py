"""The path-traced scene (Mitsuba 3): a printed sheet, pieces, three lights and a Camera Module 3.

World coordinates are the camera model's (:mod:`vision.simulated.camera_model`): sheet millimetres, x right,
y down the sheet, z into the table (a point h mm above the board is at z = -h), so the camera is
placed by the same :func:`vision.simulated.camera_model.place_camera` (tilt, fill, yaw) and the reader's
truth is the same ``View``.

* **Sheet**: :func:`vision.sheets.render.draw_sheet` — the artwork ``tableref print-board`` prints — as
  a diffuse texture (paper albedo 0.85, toner 0.04) on a mesh that is not flat: a sheet laid
  down bows and its edges curl up a few millimetres.
* **Pieces** (:func:`placed_pieces`): every token of the view where the camera model stands it
  (:func:`vision.simulated.scene_pieces.solids_for`, the piece set's footprint and height), then moved as a
  hand puts it down: up to ±15 % of the pitch off the space's centre on each axis (never into a
  neighbour), turned any way, its sticker a little off-centre. Gygès's rings are roughened
  metal (a conductor BSDF, aluminium), a ring of height n a stack of n tiers with a groove
  between tiers; the sticker (the tag in a white disc, as ``tableref print-tags`` prints) is
  matte paper on the top face.
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
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from rules.view import View

from vision.pieces.rings import TIERS
from vision.sheets.layout import Sheet, tag_tokens
from vision.sheets.render import draw_sheet, marker_image
from vision.simulated.camera_model import BoardPose, CameraSetup, place_camera
from vision.simulated.scene_pieces import Solid, solids_for


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

    @property
    def hyperfocal_mm(self) -> float:
        coc = 2 * 0.0014  # two of the IMX708's 1.4 µm pixels
        return self.focal_mm ** 2 / (self.f_number * coc) + self.focal_mm


MODULES = {"standard": Module(66.0, 4.74, 1.8), "wide": Module(102.0, 2.75, 2.2)}
LIGHTS = ("all", "desk", "window", "ceiling")
# colour of each light in linear sRGB (black-body 2700 K, 4000 K; daylight D65 is sRGB's white)
WARM, NEUTRAL, DAYLIGHT = (1.0, 0.69, 0.39), (1.0, 0.86, 0.72), (1.0, 1.0, 1.0)
PAPER, TONER = 0.85, 0.04  # diffuse albedo of office paper and of printed black
METAL = "Al"  # Mitsuba's measured aluminium (complex IOR)


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
    roughness: float = 0.2  # the rings' metal (GGX alpha): turned and handled, not a mirror

    def __post_init__(self) -> None:
        if self.lens not in MODULES:
            raise ValueError(f"PTSetup.lens: one of {', '.join(MODULES)}, got {self.lens!r}")
        if self.lights not in LIGHTS:
            raise ValueError(f"PTSetup.lights: one of {', '.join(LIGHTS)}, got {self.lights!r}")

    @property
    def camera(self) -> CameraSetup:
        return CameraSetup(size=self.size, hfov_deg=MODULES[self.lens].hfov_deg, tilt_deg=self.tilt_deg,
                           yaw_deg=self.yaw_deg, fill=self.fill, blur=0.0)

    def pose(self, sheet: Sheet) -> BoardPose:
        return place_camera(self.camera, sheet.size)


@dataclass(frozen=True)
class Piece:
    """A piece as put down: its solid moved and turned, its sticker's offset, its tiers."""

    solid: Solid
    tiers: int  # Gygès: the ring's height (1-3); any other piece: 1
    sticker_dx: float = 0.0
    sticker_dy: float = 0.0


def placed_pieces(sheet: Sheet, view: View, rng: np.random.Generator, off_centre: float = 0.15,
                  askew_mm: float = 1.5) -> list[Piece]:
    """The view's pieces as people put them down: each up to ``off_centre`` of the pitch off its
    space's centre on each axis, turned any way, its sticker up to ``askew_mm`` off the top's
    centre. A spot that would make two pieces touch is drawn again (then halved)."""
    names = tag_tokens(sheet.game) if sheet.game == "gyges" else {}
    centres = np.array([[s.x, s.y] for s in sheet.shapes if s.kind != "area"] or [[0.0, 0.0]])
    out: list[Piece] = []
    for s in solids_for(sheet, view, 1.0):
        if s.furniture or s.shape != "cylinder":
            out.append(Piece(s, 1))
            continue
        c = centres[np.argmin(np.hypot(*(centres - [s.x, s.y]).T))]
        near = abs(s.x - c[0]) < 0.1 * sheet.pitch and abs(s.y - c[1]) < 0.1 * sheet.pitch
        base = c if near else np.array([s.x, s.y])  # a piece in a reserve keeps its slot
        span = off_centre * sheet.pitch if near else 0.0
        xy = base
        for attempt in range(24):
            k = span if attempt < 16 else span / 2
            xy = base + rng.uniform(-k, k, 2)
            if all(math.hypot(xy[0] - p.solid.x, xy[1] - p.solid.y) >= s.radius + p.solid.radius + 0.5
                   for p in out if p.solid.z0 == s.z0):
                break
        else:
            xy = base
        token = names.get(s.tag) if s.tag is not None else None
        tiers = int(token) if token in ("1", "2", "3") else 1
        r, a = askew_mm * math.sqrt(rng.uniform()), rng.uniform(0, 2 * math.pi)
        out.append(Piece(replace(s, x=float(xy[0]), y=float(xy[1]), tag_angle=float(rng.uniform(0, 360))), tiers,
                         r * math.cos(a), r * math.sin(a)))
    return out


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


def sheet_mesh(sheet: Sheet, rng: np.random.Generator, path: Path, curl_mm: float = 3.0, n: int = 24) -> Path:
    """An OBJ of the sheet, bowed and curled at its edges by up to ``curl_mm`` (lifted: z < 0)."""
    w, h = sheet.size
    nx, ny = n, int(round(n * h / w))
    u, v = np.meshgrid(np.linspace(0, 1, nx + 1), np.linspace(0, 1, ny + 1))
    lift = curl_mm * (rng.uniform(0.3, 1.0) * (2 * u - 1) ** 4 + rng.uniform(0.3, 1.0) * (2 * v - 1) ** 4) / 2
    lift += 0.6 * curl_mm * rng.uniform(0, 1) * np.sin(math.pi * u) * np.sin(math.pi * v + rng.uniform(0, 1))
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


def scene_dict(sheet: Sheet, pieces: list[Piece], setup: PTSetup, workdir: Path, seed: int = 0) -> dict:
    """The Mitsuba scene description (``mi.load_dict``) of the sheet, ``pieces`` and the lights,
    seen by ``setup``'s camera. ``workdir`` holds the sheet's mesh (one per seed)."""
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
    d["sheet"] = {"type": "obj", "filename": str(sheet_mesh(sheet, rng, workdir / f"sheet-{seed}.obj")),
                  "face_normals": False,
                  "bsdf": {"type": "twosided", "bsdf": {"type": "diffuse",
                                                        "reflectance": _bitmap(mi, _albedo(art[..., ::-1]))}}}
    d["table"] = {"type": "rectangle", "to_world": T().translate([cx, cy, 1.0]).scale([1500, 1500, 1]),
                  "bsdf": {"type": "twosided", "bsdf": {"type": "diffuse",
                                                        "reflectance": {"type": "rgb", "value": [0.32, 0.2, 0.11]}}}}
    d.update(_lights(mi, setup.lights, (cx, cy), rng))
    metal = {"type": "roughconductor", "material": METAL, "distribution": "ggx", "alpha": setup.roughness}
    for i, p in enumerate(pieces):
        d.update(_piece(mi, sheet, p, i, metal))
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


GROOVE_MM = 0.8  # the seam between two tiers of a ring, 0.6 mm deep


def _piece(mi, sheet: Sheet, p: Piece, i: int, metal: dict) -> dict:
    """A piece's shapes: Gygès's metal tiers (or one cylinder of the piece's colour), its top
    face, and its sticker."""
    T = mi.ScalarTransform4f
    s = p.solid
    out: dict = {}
    if sheet.game == "gyges":
        bsdf = metal
        heights = [top for _, top in TIERS]  # the tiers' tops, as the reader is given them
        tops = heights[:p.tiers] if abs(s.height - heights[p.tiers - 1]) < 0.5 \
            else [s.height * (k + 1) / p.tiers for k in range(p.tiers)]
    else:
        rgb = [float(c) / 255 for c in s.top_bgr[::-1]]
        bsdf = {"type": "twosided", "bsdf": {"type": "plastic", "diffuse_reflectance": {"type": "rgb", "value": rgb}}}
        tops = [s.height]
    z = s.z0
    for k, top in enumerate(tops):
        z_top = s.z0 + top
        seam = GROOVE_MM if k + 1 < len(tops) else 0.0
        out[f"p{i}t{k}"] = {"type": "cylinder", "p0": [s.x, s.y, -z], "p1": [s.x, s.y, -(z_top - seam)],
                            "radius": s.radius, "bsdf": bsdf}
        if seam:
            out[f"p{i}g{k}"] = {"type": "cylinder", "p0": [s.x, s.y, -(z_top - seam)], "p1": [s.x, s.y, -z_top],
                                "radius": s.radius - 0.6, "bsdf": bsdf}
            out[f"p{i}c{k}"] = {"type": "disk", "to_world": T().translate([s.x, s.y, -(z_top - seam)]).scale(s.radius),
                                "bsdf": {"type": "twosided", "bsdf": bsdf} if bsdf is metal else bsdf}
        z = z_top
    out[f"p{i}top"] = {"type": "disk", "to_world": T().translate([s.x, s.y, -z]).scale(s.radius),
                       "bsdf": {"type": "twosided", "bsdf": bsdf} if bsdf is metal else bsdf}
    if s.tag is not None:
        rgb, alpha, side = sticker_images(s.tag, sheet.tag_mm)
        # the texture's rows run down the sheet (+y) as the printed sticker's do; turned by the
        # tag's angle (counter-clockwise as seen from above), 0.1 mm above the top face
        out[f"p{i}sticker"] = {
            "type": "rectangle",
            "to_world": T().translate([s.x + p.sticker_dx, s.y + p.sticker_dy, -(z + 0.1)])
            .rotate([0, 0, 1], -s.tag_angle).scale([side / 2, side / 2, 1]),
            "bsdf": {"type": "mask", "opacity": _bitmap(mi, alpha),
                     "material": {"type": "twosided", "bsdf": {"type": "diffuse", "reflectance": _bitmap(mi, rgb)}}},
        }
    return out


def render_channels(sheet: Sheet, pieces: list[Piece], setup: PTSetup, workdir: str | Path, seed: int = 0) -> np.ndarray:
    """The scene rendered: (H, W, 10) float32 — linear RGB radiance, then the albedo, shading
    normal and depth (mm) that :func:`vision.simulated.pathtraced.denoise.denoise` is guided by."""
    mi = _mi()
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    scene = mi.load_dict(scene_dict(sheet, pieces, setup, work, seed))
    img = np.array(mi.render(scene, spp=setup.spp, seed=seed), dtype=np.float32)[..., :3]
    # the guides in a pass of their own: they are noise-free at a few samples (edges only)
    aov = mi.load_dict({"type": "aov", "aovs": "al:albedo,nn:sh_normal,dd:depth"})
    guides = np.array(mi.render(scene, integrator=aov, spp=4, seed=seed), dtype=np.float32)
    return np.concatenate([img, guides[..., -7:]], axis=2)
