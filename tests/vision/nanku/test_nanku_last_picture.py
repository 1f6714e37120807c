"""A Nanku picture judged after the last picture of the position reached is read with the camera
fitted on that one (`NankuObservation.weighed_after`), whose whole structure the game knows."""
from __future__ import annotations

import math
from random import Random

from arbiter.judge import Judge
from calibration.nanku import calibrate
from device.synthetic_nanku import Look, cubes_of, random_game, random_pose, render
from engines.nanku import NankuRules, canonical_cubes
from vision.nanku import recognize


def test_the_camera_fitted_on_the_last_picture_reads_the_next_one():
    """Camera leaning 9.5 degrees, five pieces standing: the next placement is judged as played,
    read with a camera whose lean is the true one within 1.5 degrees in each direction."""
    seed = 8100
    rng, look = Random(seed), Look.drawn(seed)
    states, moves = random_game(rng, rng.randint(12, 20))
    rules = NankuRules()
    profile = calibrate(render(cubes_of(states[1]), look, random_pose(rng, cubes_of(states[1])), 1))
    before, after = states[5], states[6]
    judge = Judge(rules, [before])
    seen = judge.judge(recognize(render(cubes_of(before), look, random_pose(rng, cubes_of(before)), 2), profile))
    assert seen.legal and seen.kind == "same"
    judge.apply(seen)
    verdict = judge.judge(recognize(render(cubes_of(after), look, random_pose(rng, cubes_of(after)), 3), profile))
    assert verdict.legal and canonical_cubes(verdict.state) == canonical_cubes(after)
    assert [rules.notation(m) for m in verdict.moves] == [rules.notation(moves[5])]
    camera = verdict.observation.drawn_reading()[2].camera
    assert abs(math.degrees(camera.pitch - look.camera.pitch)) < 1.5
    assert abs(math.degrees(camera.roll - look.camera.roll)) < 1.5
