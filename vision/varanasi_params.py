"""Tuned parameters of Varanasi vision and calibration: each with its meaning and how it is fixed.

"bench" below is `benchmarks/bench_varanasi_vision.py` on the photo sessions S0 and S1 of
../shared/bench/varanasi; "synthetic" is the same script with `--synthetic` (renders of
`device/synthetic_varanasi.py`: three boards, plain, blue and orange lamps, tilts of -10, 0 and
10 degrees). "By hand" marks a value set once from the renders and photos looked at, with no
sweep recorded. Lengths in px are full-resolution pixels unless said otherwise.
"""
from __future__ import annotations

import numpy as np

# --- Work frame and colour edges ------------------------------------------------------------

# Scale of the reduced frame that edges, votes and labels are computed on. Fixed: by hand, for
# speed; the smallest disc keeps a radius of about 10 px at the bench's scale.
WORK_SCALE = 0.5
# Directions sampled around a circle in every rim test. Fixed: at most 62, as the compiled rim
# tests hold a circle's directions as the bits of one int64; 48 by hand.
RIM_ANGLES = 48
# An edge counts once its gradient is this many times the frame's median gradient (the sensor
# noise on a mostly empty board). Fixed: by hand.
EDGE_NOISE_FACTOR = 4.0
# Least edge threshold (Sobel units): keeps a flat synthetic frame from lighting up. Fixed: by hand
# on synthetic.
EDGE_FLOOR = 12.0
# The median gradient is taken on every this many pixels each way. Fixed: by hand, for speed.
NOISE_SAMPLING = 4
# A rim pixel's gradient must point along the radius by at least this cosine. Fixed: by hand.
RADIAL_ALIGNMENT = 0.85
# A rim must be found within this many px of its circle: rims of nested discs lie a few px apart.
# Fixed: by hand.
RIM_BAND_PX = 1.0
# Spacing (px) of the grid of centres a circle search scores before refining around the best.
# Fixed: about the width of the band judged around a radius (2 RIM_BAND_PX plus a pixel).
GRID_PX = 3.0
# A dark rim line must be darker than the faces this far (px) to either side of it. Fixed: by hand.
VALLEY_SIDE_PX = 4.0
# A dark line's depth is divided by this, judged on directions averaged with their neighbours
# (noise falls by sqrt(3)); half that gain. Fixed: on the bench (the full sqrt(3) let face
# shading make ghost discs).
VALLEY_ARC_EASING = 3.0 ** 0.25
# Least depth (grey levels) of a dark line, so that a face of one grey level through a soft lens
# (noise 0) still needs a line. Fixed: derived (averages of three whole grey levels step by 1/3).
VALLEY_LEAST_DEPTH = 2.0 / 3.0
# A 3x3 Sobel answers a step of h with about 4h. Fixed: derived from the kernel.
SOBEL_GAIN = 4.0
# Centre votes are smoothed by a Gaussian of sigma 1 px cut at 2 sigma. Fixed: by hand (OpenCV's
# own 4-sigma size costs twice as much for about 5% of the weight).
VOTE_BLUR_SIZE = 5
# Votes are counted per unit of circumference. Fixed: derived (2 pi r).
VOTE_WEIGHT = 2.0 * np.pi

# --- Tower search ---------------------------------------------------------------------------

# A vote peak is examined once it reaches this share of the weakest disc's peak in calibration
# (a white disc on a cream board shows only its shadowed side). Fixed: by hand on the bench.
SEED_SHARE = 0.6
# A weaker peak, down to this share, is examined where the frame around it is mostly disc
# colours (COLOURED_MIDDLE_SHARE): a tilted camera's corner discs vote less. Fixed: derived.
WEAK_SEED_SHARE = SEED_SHARE / 2
# Share of a weak peak's middle (within half the smallest radius) that must be labelled a disc
# colour. Fixed: measured on bench and synthetic towers (at least 0.97 on 99% of them, at most
# 0.79 on board, drawn lines and shadows).
COLOURED_MIDDLE_SHARE = 0.9
# How far (mm) a vote peak may lie from the bottom disc's centre (it may come from a disc higher
# up). Fixed: by hand.
SEED_REACH_MM = 6.0
# How far (mm) a disc's centre may sit off the centre of the disc below it. Fixed: by hand.
MAX_STEP_OFFSET_MM = 4.0
# Camera height assumed for the slight growth of higher discs (each 5 mm level looks about 1%
# larger). Fixed: derived: the middle of the 40-55 cm camera height the set-up asks for.
CAMERA_HEIGHT_MM = 480.0

# --- Presence of a disc from its rim --------------------------------------------------------

# Rim coverage turns into a presence probability (a logistic) around this share of the weakest
# rim seen in calibration. Fixed: by hand on the bench.
PRESENCE_MIDPOINT = 0.55
# Width of that logistic, in shares of the weakest rim. Fixed: by hand.
PRESENCE_SOFTNESS = 0.06
# Midpoint for a disc on one of its own colour, whose rim shows as a dark line only along its
# side and shadow (real 0.42-0.54 of the rim on the bench, made-up ones at most 0.35). Fixed:
# measured on the bench (best from 0.4 to 0.45; 0.35 lets ghosts in).
SAME_COLOUR_MIDPOINT = 0.4
# Midpoint for a disc found by edges alone, with no coloured disc in its tower: arcs of the
# board's drawing must not make towers. Fixed: by hand on bench and synthetic.
ALONE_MIDPOINT = 0.9
# A size bigger than the bottom disc's is kept as a doubtful slot when its presence reaches this.
# Fixed: by hand.
DOUBTFUL = 0.05

# --- Edge tests -----------------------------------------------------------------------------

# Edge-only tests need edges this many times the noise threshold: faces have texture, and much
# more would lose colour edges blurred by JPEG's chroma subsampling. Fixed: by hand on the bench.
EDGE_STRICTNESS = 1.5
# Edge tests ignore this band (mm) around rims already found, whose thick edges would answer.
# Fixed: by hand.
EDGE_GAP_MM = 2.5
# A dark line must be darker than both sides by this many standard deviations of the face's
# pixel noise. Fixed: measured on the bench (1 lets face texture make rims; 2 loses black on black).
VALLEY_NOISE_FACTOR = 1.5
# A disc whose inner ring is mostly the colour below is still judged by its colour step when
# other colours hold at least this many pixels there per pixel of that colour. Fixed: by hand.
STEP_SHARE = 0.5
# A face's pixel noise is measured on every this many pixels each way. Fixed: by hand, for speed.
FACE_NOISE_SAMPLING = 3
# A drawn band at a rim reaches this close (px) to it: the rim test's band either side and a
# fitted circle a pixel off. Fixed: derived from RIM_BAND_PX.
BAND_NEAR_PX = 2
# Width (px) of the band beyond a rim whose median stands for what the disc rests on. Fixed: by
# hand.
OUTSIDE_BAND_PX = 3.0
# A ring counts as the board in shade when its chromaticity lies this share of the way, or less,
# from the board's towards the nearest colour of the set. Fixed: by hand on synthetic shadows.
SHADE_CHROMA_SHARE = 0.25

# --- Colour chain ---------------------------------------------------------------------------

# The colour footprint shortlists this many sizes, nearest radius first; the nearest stands
# unless its rim does not show. Fixed: by hand.
CHAIN_SIZE_CHOICES = 2
# A disc's own colour is read this far (in size spacings) inside its rim, clear of its side.
# Fixed: by hand.
RIM_INSET = 0.2
# Points of a face's edge farther than this (px) from the fitted circle belong to something else
# (one rim's points scatter by about a pixel; the next rim lies a size step away). Fixed: derived.
FACE_EDGE_SPREAD_PX = 1.5
# ... and farther than this many times the median distance of the points kept (a soft view
# scatters them more). Fixed: by hand on synthetic soft renders.
FACE_EDGE_OUTLIER = 2.5

# --- Pixel labels and the board around a tower ---------------------------------------------

# Labels are read on the reduced frame, box-averaged over this many pixels across. Fixed: by hand.
LABEL_SMOOTHING = 3
# Width (work px) of the crop border the board around a tower is read from. Fixed: by hand.
LOCAL_BORDER = 2
# ... used when at least this share of that border looks like the calibrated board. Fixed: by hand.
LOCAL_BOARD_SHARE = 0.5
# Covariance floor (Lab units squared) of that local board: tighter than a colour's, as the
# average of LABEL_SMOOTHING**2 pixels has little noise left. Fixed: by hand.
LOCAL_BOARD_FLOOR = 1.0
# Pixels farther than this (standard deviations) from every colour and the board are OTHER.
# Fixed: by hand.
LABEL_SIGMA = 4.0

# --- Colour rings and colour models ---------------------------------------------------------

# Colour rings are read this far (px) inside the circles bounding them: rims blur. Fixed: by hand.
EDGE_MARGIN_PX = 1.0
# Fewest pixels a colour ring (or a masked median) is read from. Fixed: by hand.
MIN_RING_PIXELS = 4
# A colour ring leaves out pixels matching no colour (sides, shadows) unless fewer than this share
# of it match one. Fixed: measured on synthetic (0.5 cost a disc; 0.25 changed no frame).
COLOURED_SHARE = 0.25
# Share of a disc's pixels trimmed at each end (highlights, darker sides) before its colour is
# measured. Fixed: by hand on the bench's calibration photos.
TRIM_FRACTION = 0.15
# Added to every colour covariance (Lab units squared): JPEG and sensor noise never vanish.
# Fixed: by hand.
COVARIANCE_FLOOR = 9.0
# Spread (1 sd, Lab units) allowed in lightness on top of calibration's, for the lamp's falloff,
# shadows and glare within a session. Fixed: by hand on the bench.
LIGHTING_SPREAD_L = 25.0
# ... and along each colour's own chroma direction (washing out towards grey). Fixed: by hand.
LIGHTING_SPREAD_CHROMA = 15.0
# Below this chroma a colour (white, black, grey) has no direction to wash out along. Fixed: by hand.
MIN_CHROMA = 8.0
# Prior probability that a ring is its colour under glare, whose clipped channels turn its hue.
# Fixed: measured on bench and synthetic (any value from 0.001 to 0.1 reads the same).
GLARE_PRIOR = 0.01
# Glare strengths tried, as the share of full scale added to every channel, up to a face clipped
# white. Fixed: by hand (steps of 5 grey levels; finer steps read every ring the same).
GLARE_STRENGTHS = np.linspace(0.0, 1.0, 51)

# --- Readings and scene confidence ----------------------------------------------------------

# Probabilities never reach 0 or 1: the tracker must be able to weigh a doubtful reading.
# Fixed: by hand.
PROBABILITY_FLOOR = 1e-3
# Cost of an assignment no reading allows (finite: the Hungarian method's potentials must stay
# numbers). Fixed: derived (far above any log-probability).
IMPOSSIBLE_COST = 1e6
# Log-likelihood per disc of a tower the recogniser cannot see. Fixed: derived from the floor.
MISSING_DISC_LOG = np.log(PROBABILITY_FLOOR)
# Log prior that a tower stands more than its bottom disc's radius from where the last picture
# showed it, though no move took it: towers stay where they were set up (a move puts discs onto
# another tower or takes them off), so a tower found elsewhere is one knocked aside, once in a
# thousand pictures. Fixed: a choice (a prior, not measured).
SHIFTED_TOWER_LOG = float(np.log(1e-3))
# Share of the calibrated board area that must still look like board for full confidence.
# Fixed: by hand.
BOARD_VISIBLE = 0.85
# Below this share the board is taken to be out of view. Fixed: by hand.
BOARD_GONE = 0.3
# Scene confidence when the board is out of view. Fixed: by hand.
HIDDEN_BOARD_CONFIDENCE = 0.2
# Lightness on a board varies with vignetting and the lamp far more than its tint: it gets this
# much more tolerance than the colour axes. Fixed: by hand on the bench.
LIGHTNESS_SLACK = 4.0
# A board-check cell is board when its colour lies within this many standard deviations. Fixed:
# by hand.
BOARD_SIGMA = 4.0
# Cells within this many radii of a disc's centre are left out of the board check. Fixed: by hand.
DISC_MARGIN = 1.3
# The board check's cells are judged on this many samples each way. Fixed: by hand, for speed.
CELL_SIDE = 4
# Profiles kept parsed, by identity (a camera's frames all come with one profile). Fixed: by hand.
PARSED_PROFILES_KEPT = 4
# Below this confidence the overlay outlines a disc in the warning colour. Fixed: by hand.
OVERLAY_DOUBT = 0.8

# --- Calibration ----------------------------------------------------------------------------

# A detected circle may differ from its size's expected radius by this log-ratio (~15%) before it
# is taken for something else (a drawn ring, a coin). Fixed: by hand, from the size steps.
MAX_SIZE_MISMATCH = 0.15
# Disc pixels used for colour lie within this share of the radius, away from side and shadow.
# Fixed: by hand.
COLOUR_SAMPLE_RADIUS = 0.7
# The board colour is read from this ring (in radii) just outside each disc, clear of its
# shadow. Fixed: by hand.
BOARD_RING = (1.35, 1.7)
# Cells (columns, rows) of the board-area map stored in the profile. Fixed: by hand.
BOARD_GRID = (40, 30)
# Rounds of colour naming: against the lamp-corrected hints first, then against the set's own
# colours. Fixed: by hand.
COLOUR_NAMING_ROUNDS = 3
# Most rounds of refitting sizes and the scale plane in turn: a keystoned view (sizes +-10%
# across the frame) can take several to settle. Fixed: by hand on synthetic keystones.
MAX_SIZE_ROUNDS = 10
# Hough centres may be a pixel or two off: the rim is measured at the best centre within this.
# Fixed: by hand.
RIM_SEARCH_PX = 3.0
# Canny's upper threshold (grey-level Sobel) of the first circle search: clear rims. Fixed: by
# hand on the bench's calibration photos.
CLEAR_RIM_THRESHOLD = 60.0
# Fainter rims are looked for down to this share of the board's brightness (a rim's contrast
# follows the light; a fixed threshold loses white discs on a cream board under a dimmer lamp).
# Fixed: by hand on synthetic dim lamps.
FAINT_RIM_CONTRAST = 0.2
# The board's brightness: this quantile of the grey frame (table, shadows and most discs are
# darker). Fixed: by hand.
BOARD_BRIGHTNESS_QUANTILE = 0.9
