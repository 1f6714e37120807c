"""Tuned parameters of Varanasi vision and calibration, each with its meaning and how it is fixed."""
from __future__ import annotations

import numpy as np

# How far (mm) a disc's centre may sit off the centre of the disc below it.
MAX_STEP_OFFSET_MM = 4.0

# How far (mm) a vote peak may lie from the bottom disc's centre (it may come from a disc higher up).
SEED_REACH_MM = 6.0

# Camera height assumed for the slight growth of higher discs (the issue says 40-55 cm); at this
# distance each 5 mm level looks about 1% larger.
CAMERA_HEIGHT_MM = 480.0

# A vote peak is worth examining once it reaches this share of the weakest disc's peak in
# calibration (a white disc on a cream board shows only its shadowed side).
SEED_SHARE = 0.6

# A weaker vote peak, down to half that share, is examined too where nearly all of the frame
# around it (within half the smallest disc's radius) is labelled a disc colour: a tower's middle
# is its discs' faces, crossed only by the thin rims of the discs on it (measured: at least 0.97 on
# 99% of the bench's and synthetic towers), while a weak peak on the board lies on board, drawn
# lines and shadows (at most 0.79 there). A disc's rim votes less where the view shows it as an
# ellipse (a tilted camera's corners: 10% on a synthetic 4red at -10 degrees, 0.58 of the bar).
WEAK_SEED_SHARE = SEED_SHARE / 2

COLOURED_MIDDLE_SHARE = 0.9

# Rim coverage turns into a presence probability around this share of the weakest rim seen in
# calibration (a white disc on a cream board shows only its shadowed side).
PRESENCE_MIDPOINT = 0.55

PRESENCE_SOFTNESS = 0.06

# On a disc of its own colour, a disc's rim shows as a dark line only where its side and its
# shadow fall, about half of it; sizes pieced together from the rims and shadows of the tower's
# other discs mostly reach about a third (on the bench: real ones 0.42-0.54, made-up ones at
# most 0.35 but for two). The bench reads best from 0.4 to 0.45 of the rim; 0.35 lets ghosts in.
SAME_COLOUR_MIDPOINT = 0.4

# There the line must be darker than both sides by this many standard deviations of that face's
# pixel noise (1 lets face texture make rims up; 2 loses a black disc on black).
VALLEY_NOISE_FACTOR = 1.5

# A disc whose ring just inside its rim is mostly the colour below is still judged by its colour
# step when other colours hold at least this many pixels there per pixel of the colour below.
STEP_SHARE = 0.5

# A face's pixel noise is measured on every this many pixels each way.
FACE_NOISE_SAMPLING = 3

# A disc found by edges alone, with no coloured disc in its tower, needs nearly as much rim as the
# weakest calibration disc showed: arcs of the board's drawing must not make towers.
ALONE_MIDPOINT = 0.9

# The colour footprint shortlists this many sizes, nearest radius first; the nearest stands
# unless its rim does not show.
CHAIN_SIZE_CHOICES = 2

# A size bigger than the bottom disc's is kept as a doubtful slot when its presence reaches this.
DOUBTFUL = 0.05

# Labels are read on the reduced frame, box-averaged over this many pixels across.
LABEL_SMOOTHING = 3

# The board around a tower is read from a crop border this many pixels wide, if at least this
# share of it looks like the calibrated board; its covariance floor is tighter than a colour's
# because the average of LABEL_SMOOTHING**2 pixels has little noise left.
LOCAL_BORDER = 2

LOCAL_BOARD_SHARE = 0.5

LOCAL_BOARD_FLOOR = 1.0

# Pixels farther than this (in standard deviations) from every colour and the board are OTHER.
LABEL_SIGMA = 4.0

# Edge-only tests need edges this many times stronger than the noise threshold: disc faces
# have texture; much more would lose colour edges, which JPEG's chroma subsampling blurs.
EDGE_STRICTNESS = 1.5

# Edge tests ignore this band (mm) around rims already found: their thick edges would answer.
EDGE_GAP_MM = 2.5

# A disc's own colour is read this far (in size spacings) inside its rim, clear of its side.
RIM_INSET = 0.2

# The colour chain's circle is refitted to the face's own edge (see `_face_centre`): points of one
# rim scatter by about a pixel (texture, the pixel grid), the next rim lies a size step away, so
# points farther than this from the fitted circle, and than FACE_EDGE_OUTLIER times the median
# distance of the points kept (a soft view scatters them more), belong to something else.
FACE_EDGE_SPREAD_PX = 1.5

FACE_EDGE_OUTLIER = 2.5

# Colour rings are read this far (full-res pixels) inside the circles bounding them: rims blur.
EDGE_MARGIN_PX = 1.0

MIN_RING_PIXELS = 4

# A colour ring leaves out pixels matching no colour (sides, shadows) unless fewer than this share
# of it match one (0.5 cost a synthetic disc; 0.25 changed no synthetic frame).
COLOURED_SHARE = 0.25

# A ring counts as the board in shade when its chromaticity lies this share of the way, or less,
# from the board's beyond the rim towards the nearest colour of the set (see `shaded_board`).
SHADE_CHROMA_SHARE = 0.25

# A drawn band at a rim reaches this close (px) to it: the rim test's band (RIM_BAND_PX either
# side) and a fitted circle a pixel off.
BAND_NEAR_PX = 2

# Width (px) of the band beyond a rim whose median stands for what the disc rests on.
OUTSIDE_BAND_PX = 3.0

# Probabilities never reach 0 or 1: the tracker must be able to weigh a doubtful reading.
PROBABILITY_FLOOR = 1e-3

# An assignment no reading allows (finite: the Hungarian method's potentials must stay numbers).
IMPOSSIBLE_COST = 1e6

# A tower the recogniser cannot see costs this much per disc in `log_likelihood`.
MISSING_DISC_LOG = np.log(PROBABILITY_FLOOR)

# Share of the calibrated board area that must still look like board for full confidence; below
# BOARD_GONE the board is taken to be out of view. Confidence then scales with the share seen.
BOARD_VISIBLE = 0.85

BOARD_GONE = 0.3

HIDDEN_BOARD_CONFIDENCE = 0.2

WORK_SCALE = 0.5

# At most 62: the compiled rim tests take a circle's directions as the bits of one int64.
RIM_ANGLES = 48

# An edge counts once its gradient is this many times the frame's median gradient, which on a
# mostly empty board is the sensor noise; a floor keeps a flat synthetic image from lighting up.
EDGE_NOISE_FACTOR = 4.0

EDGE_FLOOR = 12.0

# That median is taken on every this many pixels each way.
NOISE_SAMPLING = 4

RADIAL_ALIGNMENT = 0.85

# Rims of nested discs lie a few pixels apart, so a rim must be found within a pixel of its circle.
RIM_BAND_PX = 1.0

GRID_PX = 3.0

# A dark rim line must be darker than the faces this far (px) to either side of it.
VALLEY_SIDE_PX = 4.0

# A dark line is judged on the lightness of each direction averaged with its neighbours either
# way (a short arc: pixel noise falls by sqrt(3)), against its depth divided by VALLEY_ARC_EASING
# (3 ** 0.25: half the noise gain; the full sqrt(3) let face shading make ghosts on the plain
# bench), but never less than a whole grey level on average (a face of one grey level through a
# soft lens has a noise, and so a depth, of 0). A line 1-2 grey levels deep through a soft or
# resampling lens then shows. The mean spreads one dark speck over three directions, so a
# direction counts in runs of five there, not three.
VALLEY_ARC_EASING = 3.0 ** 0.25

VALLEY_LEAST_DEPTH = 2.0 / 3.0  # averages of whole grey levels step by a third

# A 3x3 Sobel answers a step of h with about 4h: an edge threshold over this is a step in
# lightness.
SOBEL_GAIN = 4.0

# Centre votes are counted per unit of circumference, 2 pi r.
# Votes are smoothed by a Gaussian of sigma 1 px cut at 2 sigma (OpenCV's own size for it reaches
# 4 sigma, for about 5% of the weight at twice the cost).
VOTE_BLUR_SIZE = 5

VOTE_WEIGHT = 2.0 * np.pi
