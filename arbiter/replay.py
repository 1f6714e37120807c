"""Judging a game's photos one after another (contract `arbiter replay`)."""
from __future__ import annotations

from typing import Iterable, Iterator

from arbiter.judge import MOVE, Judge, Verdict
from engines.errors import ArbiterError


def replay(profile: dict, rules, image_paths: Iterable[str]) -> Iterator[dict]:
    """Contract `arbiter replay`: one transition per pair of consecutive stable photos."""
    from vision import recognize
    from vision.io import read_image

    judge = Judge(rules)
    previous, flagged = None, None
    for path in image_paths:
        observation = recognize(read_image(path), profile)
        verdict = judge.judge(observation)
        if not verdict.legal and flagged is not None:
            judge, verdict = played_on(judge, flagged, observation) or (judge, verdict)
        judge.apply(verdict)
        flagged = None if verdict.legal and not verdict.waited else verdict
        if previous is not None:
            yield verdict.transition(previous, path)
        previous = path


def played_on(judge: Judge, flagged: Verdict, observation) -> tuple[Judge, Verdict] | None:
    """A judge that takes the flagged table as it stood, if a legal move from it explains this photo.

    Live, players answer an alert by restoring the table or accepting it. Photos cannot answer,
    but play that goes on from the flagged table shows it was kept (or was read wrong before,
    as a misread opening), so `replay` carries on from it rather than flag every later photo.
    """
    try:
        kept = judge.rules.state_from_json(judge.as_next_turn(flagged.recognised))
    except ArbiterError:
        return None
    resumed = Judge(judge.rules, [kept])
    verdict = resumed.judge(observation)
    return (resumed, verdict) if verdict.kind == MOVE else None
