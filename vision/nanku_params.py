"""Every tuned constant of Nanku vision and calibration, in one place.

Each says what it means and how it is fixed. Nanku frames are compared with drawings of candidate
structures (vision/nanku_camera.py), so most of these are geometry, not fitted to photos;
benchmarks/bench_nanku_vision.py measures recognition on the bench (../shared/bench/nanku) and on
fresh synthetic sessions (`device.synthetic_nanku`, seeds the benchmark draws).
"""
from __future__ import annotations

import math

# --- Frame -------------------------------------------------------------------------------------
# Frames are compared at the scale where a cube on the table is this many pixels across: a half
# cube (an off-grid piece) is then 8 pixels, far above a pixel of pose error.
WORKING_CUBE_PX = 32.0

# --- Colours (calibration/nanku.py, vision/nanku_pixels.py) ------------------------------------
# Each class (table, white top, white side, black top, black side) is a colour seen brighter or
# darker within a range (a lamp's fall-off, shadows, the sides turned from the lamp), as a share of
# the calibration photo's colour. Sides are the top's colour turned away from the lamp: down to
# this share of it.
SIDE_DARKEST = 0.25
# A lamp above the table lights the tops more than any side: a white cube's side is at most this
# share of its top's light, so that a drawing's tops and sides are told apart (that is where a
# cube's height shows). Black faces are too dark for the difference to show above the noise.
SIDE_BRIGHTEST = 0.85
# The lamp's light at each place is measured on the table around it (vision/nanku_pixels.py
# local_light), smoothed over this many cubes, and divided out of every pixel: what is left of a
# face's brightness varies by this share either way (its own shading, the camera's noise).
LIGHT_REACH = 3.0
# The light is measured on the frame reduced to this many pixels a blur's sigma: a Gaussian of
# that width is carried by its samples to a thousandth (bilinear enlarging's error, (1/16)^2/8).
LIGHT_SAMPLES = 16.0
LAMP_SPREAD = 0.12
# The table in a cube's shadow keeps this share of its light at least.
TABLE_DARKEST = 0.4
# Each picture's faces are measured where the structure known from the game is drawn
# (vision/nanku_pixels.py measured): a class is measured where the structure shows at least this
# share of a cube's area of it (its inner pixels); fewer keep the calibration's colour and range.
MEASURED_SHARE = 0.25
# ... its brightness range spans these quantiles of its pixels' brightness (faces of one class lit
# differently, the sides turned different ways), never less than the lamp's spread either way.
MEASURED_QUANTILES = (0.05, 0.95)
# Least colour spread (sRGB units) of a class: camera noise and a felt's texture.
SPREAD_FLOOR = 6.0
# The white a standing first piece with black on top hides is guessed from the black by the
# pieces' albedo ratio, as a grey: its hue is unknown (ivory, cream or bluish white plastic: tints
# of 20-40 sRGB units), so it is compared with this spread at least, and its brightness (the
# albedo ratio varies by maker, 0.05-0.2, and the black's brightness is a few units) within this
# range of the guessed one's lamp range.
GUESSED_SPREAD = 20.0
GUESSED_RANGE = (0.6, 1.5)
# No pixel costs more than this (nats): a glint, a shadow's edge, a hand's tip do not outweigh the
# shape of the structure.
PIXEL_COST_CAP = 4.0
# Neighbouring pixels of a face are not independent evidence (blur, texture): a patch this share
# of a cube across counts as one observation, so a whole cube's difference costs tens of nats, not
# thousands, and the judge's odds stay graded.
PATCH_SHARE = 0.25

# A frame's confidence is exp(-A / (this many cubes' area)), A the area no class explains (a
# hand, an arm): the tracker's bar (arbiter.tracker.MIN_CONFIDENCE) is then about a cube's worth.
FOREIGN_CUBES = 4.0

# --- Pose (vision/nanku_pose.py) ---------------------------------------------------------------
# A structure may be turned any way between pictures: turns tried before refining, a full circle
# in steps this fine (a quarter turn's symmetry makes coarser steps miss).
TURN_STEPS = 24
# ... and from each turn, shifted by these many cubes either way along both table axes.
START_SHIFTS = (-1.0, 0.0, 1.0)
# The last structure is laid at this many of its best poses and the frame read from each: the new
# piece may look like an old one, and the old structure fit best over it.
POSES_TRIED = 3
# Pattern-search steps: first and last, in cubes and radians.
POSE_STEP_FIRST = (0.3, 0.3, math.radians(6.0))
POSE_STEP_LAST = (0.02, 0.02, math.radians(0.25))

# The camera (lean, height, scale) is fitted again on every frame to the structure before it, which
# shows the lean and height far better than the first piece did: steps (pitch, roll in radians,
# height in cubes, scale as a share), first and last, and the limits of what a table camera does.
CAMERA_STEPS_FIRST = (math.radians(2.0), math.radians(2.0), 2.0, 0.03)
CAMERA_STEPS_LAST = (math.radians(0.25), math.radians(0.25), 0.25, 0.005)
LEAN_LIMIT = math.radians(15.0)
HEIGHT_LIMITS = (8.0, 40.0)
# A structure of at least this many pieces shows the camera well enough to fit it.
CAMERA_FIT_PIECES = 3

# --- Candidates (vision/nanku.py) ----------------------------------------------------------------
# A new piece is looked for where the picture shows what the last structure does not explain: a
# candidate whose drawing covers unexplained pixels worth at least this share of a cube's area.
UNEXPLAINED_SHARE = 0.2
# ... the most covering first, at most this many drawn: a piece's place shows as a patch of
# unexplained pixels, and far more candidates cover part of it than fit it.
CANDIDATES_DRAWN = 120
# Cells this far beyond the last structure's extent (in cubes) hold candidates: a piece that
# touches nothing lies a cube or more away.
SEARCH_MARGIN = 3
# A second new piece (two placed at once) or a missing one is read only where it explains this
# much more of the picture (nats) than the best single placement: a whole cube's difference costs
# about 30 and more at PATCH_SHARE.
SECOND_CHANGE_NATS = 12.0
# The cheapest readings at the last structure's pose are each refitted at their own pose, this
# many: a reading holding the new piece shows the pose and the camera's scale better than the
# last structure alone, and a small error of either costs a whole piece at the far end.
SETTLED = 6
# ... from the last structure's pose, with first steps this small (cubes, cubes, radians): one
# piece more moves the best pose by a fraction of a cube.
SETTLE_STEP_FIRST = (0.08, 0.08, math.radians(1.5))
# Every candidate the judge weighs within this many nats of the best reading is refitted so too.
SETTLE_WITHIN = 40.0
# Placements shifted half a cube (off the grid) are tried for this many best placements.
OFF_GRID_TRIED = 12

# --- Calibration (calibration/nanku.py) --------------------------------------------------------
# The camera's height (in cubes) until the structure shows it: 30-40 cm over cubes of 15-25 mm
# spans 12-27 cubes; the middle of that.
CAMERA_HEIGHT = 18.0
# The first piece must differ from the table by at least this much (sRGB distance) to be seen.
PIECE_CONTRAST = 30.0
# Its outline covers this share of the picture at most, and a cube at least this many pixels.
PIECE_MAX_SHARE = 0.2
CUBE_MIN_PX = 8.0
