"""A session's set-up drawn from its style and number: board, camera, lamp, table, and the --training variations."""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.wari_board import PIT_COUNT, PITS_PER_ROW, pit_column_and_row

from training.wari_render.geometry import linear, normalised, unit_circle
from training.wari_render.scene import (
    BOARD_FINISH, FRAME_SIZE, SEED_STYLES, STYLES, Board, Camera, Hollow, Lamp, Session,
)

# --training: ranges of the seeds' size (x the style's), the bowls' depth (x the board's) and the
# rim clearance (seed radii). The bench's nicker pits hold about 12 nuts' area, ours 8-10. Above
# a clearance of about 1.2 the nuts gather two deep in the bowl's middle and piles of 8-12 often
# hide a nut; the bench's nuts lie side by side up the bowl's walls.
TRAINING_SEED_SCALE = {"nicker": (0.78, 1.0), "glass": (0.88, 1.05)}
TRAINING_DEPTH = (0.55, 1.2)
TRAINING_RIM_CLEARANCE = (0.7, 1.2)
# --training: half the boards varnished (specular strength, shininess drawn from these ranges),
# half oiled: a varnished bowl shows the lamp as a bright spot on its floor, as the bench's
# bowls do, and a counter that never saw one counted it as a seed.
TRAINING_VARNISH = ((0.15, 0.6), (40.0, 250.0))
# --training: how much one seed's shade differs from the next (the SeedStyle's brightness_spread)
# drawn per session from these ranges: the bench's nicker nuts run from pale to dark grey-green,
# more than the plain style's 0.07.
TRAINING_SHADE_SPREAD = {"nicker": (0.04, 0.3), "glass": (0.02, 0.08)}
# --training: how far (mm) the lamp hangs to the side of the board's middle, drawn per session
# (plain sessions: 100-300 at a height of 600-900). A lamp further to the side shades each nut
# darker on one side; a counter trained under the plain range only takes those shaded sides for
# nuts half hidden and reads such piles one high.
TRAINING_LAMP_REACH = (100.0, 450.0)
TRAINING_MOST_SEEDS = (10, 20)
# --training: on this share of the boards the pits' rims are bevelled, cut away as a cone that
# slopes from the board top down to the bowl's rim, as on both the bench's boards (S0's wide and
# plain to see, S1's narrow): the bevel's outline on the board top this many times the rim's
# radius from the middle, its slope this share of the bowl's wall's at the rim (a bevel as steep
# as the wall looks like a wider bowl). Calibration may then find either edge (S0's circles lie
# on the bevel's outline, S1's on the bowl's rim).
TRAINING_BEVELLED = 0.5
TRAINING_BEVEL_WIDTH = (1.04, 1.15)
TRAINING_BEVEL_SLOPE = (0.35, 0.75)


def make_session(style: str, session: int, training: bool = False, lamp_reach: float | None = None) -> Session:
    rng = session_rng(style, session, 1)
    board = make_board(rng)
    made = Session(
        style=SEED_STYLES[style],
        board=board,
        camera=make_camera(board, rng),
        lamp=Lamp(
            centre=np.array([*rng.uniform(100, 300) * unit_circle(rng.uniform(0, 2 * np.pi)), rng.uniform(600, 900)]),
            radius=rng.uniform(20, 60),
            kelvin=int(rng.integers(3500, 7000)),
        ),
        table_colour=linear(random_cloth_colour(rng)),
        ambient=rng.uniform(0.2, 0.3),
        exposure=rng.uniform(0.9, 1.1),
        vignetting=rng.uniform(0.15, 0.4),
        blur=rng.uniform(0.6, 1.3) if rng.random() < 0.4 else 0.0,
        noise=rng.uniform(1.5, 3.5),
        jpeg_quality=int(rng.integers(88, 93)),
    )
    made = varied_for_training(made, style, session) if training else made
    return with_lamp_reach(made, lamp_reach) if lamp_reach is not None else made


def with_lamp_reach(session: Session, reach: float) -> Session:
    """The session with its lamp `reach` mm to the side of the board's middle, in the same direction
    and at the same height."""
    lamp = session.lamp
    side = lamp.centre[:2] * reach / np.linalg.norm(lamp.centre[:2])
    return replace(session, lamp=replace(lamp, centre=np.array([*side, lamp.centre[2]])))


def varied_for_training(session: Session, style: str, number: int) -> Session:
    """The session with its seeds' size and shades, its bowls' depth, its rim clearance, its
    board's finish and how far to the side its lamp hangs drawn too (from generators of their
    own, so that the camera, the board and the lamp's direction, height and colour stay those of
    the plain session)."""
    rng = session_rng(style, number, 4)
    scale = rng.uniform(*TRAINING_SEED_SCALE[style])
    depth = rng.uniform(*TRAINING_DEPTH)
    seeds = replace(
        session.style,
        semi_axes=tuple(scale * a for a in session.style.semi_axes),
        proxy_offsets=tuple(scale * o for o in session.style.proxy_offsets),
        proxy_radius=scale * session.style.proxy_radius,
    )
    hollows = tuple(
        Hollow.cut(h.centre[0], h.centre[1], h.rim[0], h.rim[1], depth * (h.semi_axes[2] - h.centre[2]))
        for h in session.board.hollows
    )
    finish_rng = session_rng(style, number, 5)  # its own, so the draws above stay as they were
    varnished = finish_rng.random() < 0.5
    finish = tuple(finish_rng.uniform(*span) for span in TRAINING_VARNISH) if varnished else BOARD_FINISH
    shades = session_rng(style, number, 6)  # its own too
    seeds = replace(seeds, brightness_spread=shades.uniform(*TRAINING_SHADE_SPREAD[style]))
    varied = replace(
        session, style=seeds, board=replace(session.board, hollows=hollows),
        rim_clearance=rng.uniform(*TRAINING_RIM_CLEARANCE), board_finish=finish,
    )
    varied = with_lamp_reach(varied, session_rng(style, number, 9).uniform(*TRAINING_LAMP_REACH))
    bevels = session_rng(style, number, 10)
    if bevels.random() >= TRAINING_BEVELLED:
        return varied
    widen, slope = bevels.uniform(*TRAINING_BEVEL_WIDTH), bevels.uniform(*TRAINING_BEVEL_SLOPE)
    pits = tuple(bevelled(hollow, widen, slope) for hollow in varied.board.hollows[:PIT_COUNT])
    return replace(varied, board=replace(varied.board, hollows=pits + varied.board.hollows[PIT_COUNT:]))


def bevelled(hollow: Hollow, widen: float, slope: float) -> Hollow:
    """A round bowl with its rim bevelled out to `widen` times its radius, at `slope` times the
    angle of the bowl's wall at the rim. The wall grows steeper above the rim, so the bowl's
    sphere, lowered with its rim, stays inside the bevel's cone."""
    rim, depth = hollow.rim[0], hollow.semi_axes[2] - hollow.centre[2]
    wall = np.arcsin(rim / hollow.semi_axes[2])
    drop = (widen - 1) * rim * np.tan(slope * wall)
    return Hollow.cut(hollow.centre[0], hollow.centre[1], rim, rim, depth, widen * rim, drop)


def make_board(rng: np.random.Generator) -> Board:
    """A board of the bench's proportions (pits about 0.8 of their pitch across), each a little different."""
    pitch = rng.uniform(62, 70)
    row_spacing = pitch * rng.uniform(1.1, 1.2)
    pit_radius = pitch * rng.uniform(0.38, 0.42)
    pit_depth = pit_radius * rng.uniform(0.45, 0.55)
    store_offset = pitch * rng.uniform(1.0, 1.1)
    store_half_length = pitch * rng.uniform(0.4, 0.46)
    store_half_width = row_spacing * rng.uniform(0.7, 0.78)
    margin = pitch * rng.uniform(0.22, 0.35)
    hollows = []
    for region in range(PIT_COUNT + 2):
        x, y = region_centre(region, pitch, row_spacing, store_offset)
        if region < PIT_COUNT:
            hollows.append(Hollow.cut(x, y, pit_radius, pit_radius, pit_depth))
        else:
            hollows.append(Hollow.cut(x, y, store_half_length, store_half_width, pit_depth * rng.uniform(1.0, 1.2)))
    light_wood, dark_wood = np.array([30, 95, 170]), np.array([20, 40, 80])
    wood = light_wood + rng.uniform(0, 1) * (dark_wood - light_wood) + rng.uniform(-12, 12, 3)
    return Board(
        half_length=(PITS_PER_ROW - 1) / 2 * pitch + store_offset + store_half_length + margin,
        half_width=row_spacing / 2 + pit_radius + margin,
        thickness=rng.uniform(25, 40),
        hollows=tuple(hollows),
        wood=linear(np.clip(wood, 10, 255)),
        grain_phases=rng.uniform(0, 2 * np.pi, 4),
    )


def region_centre(region: int, pitch: float, row_spacing: float, store_offset: float) -> tuple[float, float]:
    """Board (x, y) of a pit (contract index) or store (12 South's, 13 North's), laid out as the
    recogniser's board frame has them (`pit_column_and_row`): South's row nearest the camera's
    bottom edge, its pits a..f left to right, North's a..f right to left, each player's store on
    his right hand."""
    end = (PITS_PER_ROW - 1) / 2 * pitch + store_offset
    if region == PIT_COUNT:
        return end, 0.0
    if region == PIT_COUNT + 1:
        return -end, 0.0
    column, row = pit_column_and_row(region)
    return (column - (PITS_PER_ROW - 1) / 2) * pitch, (row - 0.5) * row_spacing


def make_camera(board: Board, rng: np.random.Generator) -> Camera:
    """45-55 cm above the board, looking roughly straight down, the board's rows running across
    the frame (turned a few degrees) and the whole board nearly filling its width."""
    height = rng.uniform(450, 550)
    position = np.array([*rng.uniform(-40, 40, 2), height])
    target = np.array([*rng.uniform(-25, 25, 2), 0.0])
    forward = normalised(target - position)
    up_in_image = np.array([*unit_circle(np.pi / 2 + np.radians(rng.uniform(-9, 9))), 0.0])
    right = normalised(np.cross(forward, up_in_image))
    down = np.cross(forward, right)
    focal = rng.uniform(0.86, 0.96) * FRAME_SIZE[0] * height / (2 * board.half_length)
    return Camera(position, np.stack([right, down, forward], axis=1), focal)


def random_cloth_colour(rng: np.random.Generator) -> np.ndarray:
    """A muted table cloth of any hue (display BGR)."""
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(50, 130), rng.integers(80, 150)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


def session_rng(style: str, session_number: int, *stream: int) -> np.random.Generator:
    """One of a session's generators, each drawing its own things, so that adding draws to one
    leaves the others as they were: 1 the session's set-up, 2 its positions, (3, photo) each
    photo, 4-6 and 9 the --training draws, 7 the near starts' odd pits, (8, photo) each near start's photo."""
    return np.random.default_rng([session_number, STYLES.index(style), *stream])


def photo_rng(style: str, session_number: int, index: int) -> np.random.Generator:
    """The generator of a session's photo `index` (0: the start photo): its seeds are dropped first."""
    return session_rng(style, session_number, 3, index)

