"""Every tuned constant of Wari vision and calibration, in one place.

Each entry says what it means and how it is fixed: derived from geometry or from the game, or
measured, on what and by which script. "The bench" is ../shared/bench/wari (S0: nicker nuts,
S1: glass beads, each with its start photo, positions and a played sequence); "renders" are
sessions of `python -m training.wari_render` (unseen: not used to choose anything; --training:
what the pile counter learned from); "every camera" means the bench re-shot by
benchmarks/reshoot.py (plain, turned, tilted, soft). bench_wari_vision.py measures recognition,
bench_wari_calibration.py what calibration accepts and refuses, wari_geometry.py how close the
calibrated rims lie to the renders' true ones, bench_tracker.py the tracker's verdicts.
The modules import these names; change one here and re-run those scripts.
"""
from __future__ import annotations

# --- Frame -------------------------------------------------------------------------------------
# Frames are measured at this width: half the 1280-pixel camera width, enough for seeds 11-18 px across.
WORKING_WIDTH = 640

# --- Regions (vision/wari_measure.py) ----------------------------------------------------------
# Pits are measured this share of their radius inside the rim: the rim's highlight and shadow are
# neither seed nor floor. Derived from the rims' width on the bench's photos.
PIT_SHRINK = 0.95
# Seeds are spotted out to this share of a pit's radius: a pile's top seeds rest on the bowl's
# wall and show outside the rim's outline nearer the camera. Geometry: the gap to the next pit is wider.
SPOT_REACH = 1.1
# Share of seed colour a glint's surroundings must show: glare on a bare pit floor is smaller than a seed.
SEED_COVER = 0.6
# Window, in seed diameters, holding one spot where seeds crowd: touching seeds' centres come
# closer than one equal-area diameter (long seeds, a seed over the gap between two below).
CROWDED_WINDOW = 0.8
# A half-buried seed's patch shows at least this share of a seed's area (smaller: a long seed's end).
BURIED_SHARE = 0.3
# ... and is at least this share of a seed across (thinner: a sliver along a rim).
BURIED_SLIVER = 0.3
# A leftover patch darker than this share of the seeds' median lightness ...
SHADED_LIGHTNESS = 0.45
# ... and smaller than this share of a seed is shaded: a crevice between seeds lying apart, or a
# seed deep in a pile's shadow (counted only where the pit's other spots show a pile). Measured on
# the bench's S0, whose nicker nuts of 5-7 read one too many without it.
SHADED_SHARE = 0.45

# --- Seed colours (vision/wari_seeds.py) -------------------------------------------------------
# Chance of "seed" for a vivid colour the start photo never showed: seeds show in few shades,
# the wood in many, so an unseen vivid colour is more likely a seed's (a red bead in a darker corner).
UNSEEN_SEED_PROBABILITY = 0.75
# A colour bin is vivid when its channels span at least this much of 255 (shadows and greys do not).
VIVID = 96

# --- Count model (vision/wari_count.py) --------------------------------------------------------
# Share of a region's floor seeds cover in one layer: fitted on the bench (0.90 for nicker nuts,
# 0.76 for glass beads); FILL_UNCERTAINTY covers the difference.
FLOOR_FILL = 0.83
# Factor by which unseen seeds may pack looser or tighter than FLOOR_FILL.
FILL_UNCERTAINTY = 1.25
# The bowl floors a region may have, as (share of the capacity F, prior weight): the bench's
# boards sit at F, device/synthetic_wari.py's deep bowls at 0.55-0.8 F; more weight below F reads
# the bench's piles of 6-7 one too high (bench_wari_vision.py).
FLOOR_DOUBT = ((1.0, 0.78), (0.8, 0.1), (0.7, 0.05), (0.6, 0.04), (0.5, 0.03))
# Sharpness of the visible-seeds law n / (1 + (n/F)^s)^(1/s): how abruptly piling sets in.
SATURATION_SHARPNESS = 4.0
# Degrees of freedom of the Student-t area noise: heavy tails keep a glint or an odd pile from
# ruling the true count out.
NOISE_DOF = 6.0
# Prior: counts up to this are common ...
COMMON_PILE = 8
# ... and each seed beyond it divides the prior by e^(1/PILE_DECAY): 13+ seeds are rare in play.
PILE_DECAY = 4.0
# Chance floor for a spot count no law explains (a hand's edge, a seed mid-roll).
SPOT_OUTLIER = 0.003
# Seeds' worth of area the lamp's glare on a bare floor may show (0.9 on the bench, more under a warmer lamp).
FLOOR_GLARE = 1.5
# Prior weights of the glare levels 0, 0.2, ..., 1 x FLOOR_GLARE: most pits show none.
GLARE_WEIGHTS = (0.5, 0.1, 0.1, 0.1, 0.1, 0.1)
# Least pit-to-pit spread (seeds) a start photo is credited with: even a perfect photo varies this much.
MIN_SPREAD = 0.12
# The start photo's 12 pits give a rough spread; it is widened by this factor rather than exclude the truth.
SPREAD_MARGIN = 1.3
# From this share of the capacity a region's seeds count as crowded (glints closer, seeds half buried).
CROWDED_FILL = 0.5
# Seeds found only by the crowded count that show the seeds pile whatever the capacity says
# (one alone may be a long seed's second highlight).
PILE_EVIDENCE = 2
# A crowded count's variance grows by this much per seed shown (a hidden glint, a seed counted twice).
CROWDED_MISCOUNT = 0.03
# Weight kept by the spot count (apart / crowded) not judged to fit: a wrong judgement then costs
# a candidate at most ln(1/0.03) = 3.5. On the bench's piles of 5-7 each count is right about as often.
SWITCH_DOUBT = 0.03
# Weight kept by the crowded count where it finds exactly one seed more than the count apart:
# the two are right about equally often on the bench; weighing them alike read S0's stores worse
# (bench_wari_vision.py).
ONE_MORE_DOUBT = 0.25
# Where nothing shows a pile, the hiding law's mean is scaled down below this share of the floor ...
PILE_ONSET = 0.8
# ... by (n / (PILE_ONSET x floor)) to this power. Fitted to the spot counts' misses on the bench's
# S0 and S1 at 0.6-0.8 of the floor (bench_wari_vision.py, wari_cue_ceiling.py); still more than either shows.
PILE_ONSET_POWER = 4.0
# A region's plausible counts hold this much of its posterior ...
KEPT_MASS = 0.997
# ... each at least this much.
MIN_SHOWN = 0.003

# --- Recognition (vision/wari.py) --------------------------------------------------------------
# A count outside a region's plausible set scores this: a misreading costs a fixed amount.
PROBABILITY_FLOOR = 1e-4
# A pile read as n seeds (its likeliest count) hides more than its distribution allows for this
# often, by reading (from n seeds up: share) ...
HIDDEN_PILE_SHARES = ((13, 0.1), (17, 0.3))
# ... and then holds from one more up to this share of n more, each count alike. Both fitted by
# maximum likelihood to the pits of the renders python -m training.wari_render --style nicker|glass
# --positions 0 --sequence 30|60 --play random|hoarding, numbered 9300-9305 by --session: every
# pit reading whose truth had under 1 % of its chance held more seeds than read (13 of 3,312);
# piles read under 13 fit best with no share.
HIDDEN_PILE_SPAN = 0.3
# Regions holding this many seeds or more are piles whose count the camera cannot stand by: a
# judge that finds a move off the reading only there asks the players rather than call a slip
# (arbiter/judge.py ASK_ODDS). On the same 6 sessions the likeliest count was wrong in 0-0.4 % of
# pits read under 8, 5 % of 8-12, 43 % of 13-16 and 72 % of 17 or more.
DOUBTFUL_FROM = 8
# Lab distance within which the board top still looks as at calibration: noise and JPEG move a
# 5x5 patch's mean by a few units, a hand or a shadow by tens.
BOARD_TOP_TOLERANCE = 18.0
# Weight of the stores in a position's likelihood: piled high, often half hidden.
STORE_WEIGHT = 0.3
# A start photo whose pits' seed area spreads by more than this many seeds, with a spotter missing
# a seed somewhere, marks a board whose cues lose seeds (red beads on red wood): the pile counter
# reads every pit. Measured on 60 unseen plain renders (bench_wari_vision.py): such boards
# spread 0.49-0.94, boards read well 0.23-0.31.
MISSED_SPREAD = 0.4

# --- Pile counter (vision/wari_pile_counter.py) ------------------------------------------------
# The network's input: crops this many pixels a side (fixed by the shipped network).
CROP = 64
# Half a crop's side, in pit radii at the pit's own scale: the pit and a rim of board (as trained).
CROP_RADII = 1.2
# Seed diameter over pit radius on which the network learned: the median on 56 unbevelled
# --training renders' start photos (0.504). Crops are scaled by the board's own ratio over it.
TRAINED_SEED_SIZE = 0.5
# ... by at most this share either way: as far as the training crops were scaled.
CROP_SCALE_RANGE = 0.08
# The quarter turns a crop may be read at (the network learned crops turned every way).
QUARTER_TURNS = (0, 1, 2, 3)
# A pit whose likeliest count, weighed with one look, is below this gets all four looks:
# measured on the bench and unseen renders' piles of 8-12 (bench_wari_vision.py); 0.9 left a
# false alarm in bench_tracker.py.
LOOK_AGAIN_BELOW = 0.98
# The network is asked about pits where the cues give PILE_FROM or more seeds at least PILE_CHANCE:
# the cues can be sure of a pit of 5 as 4, a seed hidden (5.5 % of pits read 4 at 0.90-0.97 on
# 142 --training renders). Any chance from 0.1 to 0.5 reads the same.
PILE_FROM = 4
PILE_CHANCE = 0.3
# ... where the cues' likeliest count has less chance than this: the cues can be sure of a pit of
# 4 as 3. On 136 --training renders asking below 0.98 read 9 of 15 such misreads right, none wrong.
UNSURE_BELOW = 0.98
# ... and where the cues' likeliest count is at least this: a fourth seed wholly hidden under
# three shows neither glint nor outline. Chosen on 77 unseen renders through every camera,
# checked on 30 more (bench_wari_vision.py).
ASKED_FROM = 3
# The network's probabilities are raised to this power: about as much say as all the cues
# together, a little under 1 so that its rare sure misreads do not outvote them (1 left a false
# alarm in bench_tracker.py; 0.5 and 1.5 read the bench's piles worse).
NETWORK_POWER = 0.9
# On boards whose cues miss seeds, counts the network gives this much chance join the plausible
# ones (unseen glass renders: anything from 0.01 to 0.2 reads the same).
ADDED_FROM = 0.05
# Where the network is asked and the cues read at most HIDDEN_SEED_UP_TO, each count shares this
# chance with the count one above (a seed hidden under the others). Chosen together on 77 unseen
# renders through every camera: pits the cues gave 4-7 at 0.8-0.98 held one seed more in 2.5-19 %.
HIDDEN_SEED_CHANCE = 0.3
HIDDEN_SEED_UP_TO = 9
# Counts past the network's last class ("that many or more") halve their chance per seed.
NETWORK_BEYOND_DECAY = 0.5
# Added to the network's probability before the power: no count is ruled out by the network alone.
NETWORK_FLOOR = 1e-3

# --- Calibration: the pits' grid (calibration/wari_grid.py) ------------------------------------
# Seeds are the pixels contrasted above these shares of the photo's 99.5th-percentile contrast,
# tried in turn (seeds coloured like the wood stand out half as much; lower, a bowl's shaded wall
# stands out too). Measured on the bench's and renders' start photos (bench_wari_calibration.py).
STANDOUT_SHARES = (0.5, 0.4, 0.35)
# ... and never below this contrast (Lab units, lightness a quarter).
MIN_STANDOUT = 8.0
# The seed mask is opened by a disc this many working pixels across (seeds are 11-18).
SEED_OPENING = 5
# Wider openings a photo whose pits formed no grid is read again with: they drop the glint arcs
# of a varnished, bevelled board's rims and keep the seeds (3 of 4 such --training start photos
# of 128 accepted, bench_wari_calibration.py).
ARC_OPENINGS = (7, 9)
# The 12 pit clusters weigh at least this share of their median ...
ALIKE_PITS = 0.35
# ... or, where no share gives such clusters, at least this (one pit faint; its checks decide).
FAINT_PIT = 0.15
# A grid sparing one heavy blob (a lamp's glare, the board's corner) is preferred if it fits this
# many times as well: over 240 start photos such grids fit 0.12-0.40 times the misfit, others 0.66-0.99.
SPARE_FIT = 0.5
# Most passes of giving blobs to their nearest grid places (a blob may swing between two pits).
REGROUP_PASSES = 10
# Largest misfit (pitches) of 12 centres from the fitted 2x6 grid.
GRID_MISFIT = 0.25
# Largest angle (degrees) of the rows from the image's horizontal: South must be nearest the bottom.
ROW_TILT = 35

# --- Calibration: rims (calibration/wari_rims.py) ----------------------------------------------
# How far (pitches) a pit's circle may move from its seeds' centre onto its rim: seed clusters lie
# up to 0.15 pitches off the true rims' centres on 60 renders (wari_geometry.py).
RIM_REACH = 0.14
# The steps (pitches) a circle moves by, coarse then fine.
RIM_STEPS = (0.02, 0.005)
# Passes of moving the circles and fitting the homography again.
RIM_PASSES = 2
# A circle's edge strength is this percentile of its samples: high all round a rim, not where
# seeds' outlines cross it here and there.
RIM_QUANTILE = 25
# A pit's circle must hold this share of its start seeds' pixels (else crisp seeds in a bowl with
# a soft rim pass for a small pit).
SEEDS_HELD = 0.97
# The pit radii tried (pitches): start, stop, step for numpy.arange.
PIT_RADII = (0.3, 0.5, 0.005)
# Directions a circle is sampled in.
RIM_SAMPLES = 72
# Stores are searched for at centre offsets from (pit radius + first) to the last (pitches) from
# the end pits, in steps: further, the search locks onto the board's ends.
STORE_OFFSETS = (0.45, 1.35, 0.05)
# Store half lengths (pitches) tried: start, largest, step (also kept clear of the end pit).
STORE_HALF_LENGTHS = (0.3, 0.6, 0.05)
# Store half widths tried, in row spacings: start, stop, step.
STORE_HALF_WIDTHS = (0.5, 1.0, 0.05)

# --- Calibration: colours (calibration/wari_colours.py) ----------------------------------------
# A pit's middle, as a share of its radius: outside it lies the band where the bowl's wood shows in shade.
WOOD_RIM_BAND = 0.8
# Lightness bands (Lab units) along which the wood's colour path is traced ...
LIGHTNESS_BAND = 8
# ... each needing this many wood pixels.
BAND_PIXELS = 30
# A pixel is off the wood when its colour lies this many times further from the path than 90 %
# of the band's wood pixels.
WOOD_SPREAD = 1.5

# --- Calibration: spotters (calibration/wari_spotters.py) --------------------------------------
# Glint windows tried, as shares of the seed diameter, in order of preference: touching beads'
# glints lie about one diameter apart.
GLINT_WINDOWS = (1.0, 0.95, 0.9)
# Glint thresholds tried (lightness above the surroundings): start, stop, step.
GLINT_THRESHOLDS = (4.0, 80.0, 2.0)
# Shape thresholds tried (shares of a seed's radius from the blob's edge): start, stop, step.
SHAPE_THRESHOLDS = (0.2, 0.95, 0.05)
# A spotter counts only if, at some threshold, this many of the 12 pits show exactly 4.
SPOT_AGREEMENT = 10
# Another count most pits show refuses the photo only at thresholds where the cue keeps this
# share of its most spots (higher, heaped beads' glints vanish but one).
KEPT_SPOTS = 0.75

# --- Calibration: start checks (calibration/wari.py, calibration/wari_start_checks.py) ---------
# Pits of its own start photo the first profile may misread and still be kept (a glint lost).
START_MISREADS = 1
# A misread start pit is a lost glint if the pile counter still gives 4 seeds at least this
# chance. Over the start photos (168) and near starts (200) of the bench and 40 rendered sessions
# through every camera (bench_wari_calibration.py), near starts' odd pits got at most 0.041 and
# misread start pits 0.014-1.0: 0.05 refuses every near start and asks for every seed in view.
SECOND_WITNESS = 0.05
# The quarter turns the witness reads a pit at (those its threshold was measured with).
WITNESS_TURNS = (0, 1)
# Seeds' worth of area each start pit must show: at least the first, none under the second, at
# most the third. Start photos show 2.5-5.7, a pit of one seed 0.9-1.3, 12 clusters that are
# not pits 0 in some and 8-17 in others (bench_wari_calibration.py).
START_PIT_SEEDS = (0.5, 1.5, 7.0)
# Largest spread (seeds) of the start pits' readings: start photos 0.12-0.79, random positions
# that pass the other checks 0.76-1.58.
START_SPREAD = 1.0
# Share of its radius by which a pit's rim may reach past the photo's edge: calibrated rims lie
# within 0.14 radii of the renders' true ones (wari_geometry.py).
RIM_PAST_EDGE = 0.15
# Profiles kept parsed, by identity (a camera's frames all come with one profile). Fixed: by hand.
PARSED_PROFILES_KEPT = 4
