"""The judge picks the legal explanation the evidence supports, or says why none fits."""
from __future__ import annotations

import pytest

from arbiter.judge import (ASK_MARGIN, FIT_MARGIN, ILLEGAL, MOVE, MOVES, OPENING, SAME, STILL_UNSURE, TWO_MOVES, UNDO,
                          UNSURE, Judge)
from tests.tracker.fakes import FakeObservation, random_varanasi_game, random_wari_game

COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")


def random_game(rules, seed: int, plies: int = 30) -> list:
    """Six colours, 12-24 discs: towers varied enough for every kind of move."""
    return random_varanasi_game(rules, seed, plies, COLOURS)


def seen(state) -> FakeObservation:
    return FakeObservation(state.to_json())


def started(rules, state) -> Judge:
    judge = Judge(rules)
    judge.apply(judge.judge(seen(state)))
    return judge


@pytest.mark.parametrize("seed", range(6))
def test_every_move_of_a_random_game_is_inferred(varanasi, seed):
    states = random_game(varanasi, seed)
    judge = Judge(varanasi)
    verdicts = []
    for state in states:
        verdict = judge.judge(seen(state))
        judge.apply(verdict)
        verdicts.append(verdict)
    assert verdicts[0].kind == OPENING
    assert [v.kind for v in verdicts[1:]] == [MOVE] * (len(states) - 1)
    for before, after, verdict in zip(states, states[1:], verdicts[1:]):
        assert varanasi.apply(before, verdict.moves[0]) == after
    assert judge.state == states[-1]


def test_unchanged_table_is_the_same_position(varanasi):
    state = random_game(varanasi, 1, plies=0)[0]
    judge = started(varanasi, state)
    verdict = judge.judge(seen(state))
    assert verdict.kind == SAME and verdict.moves == ()


def test_a_missed_photo_is_explained_by_two_moves(varanasi):
    states = random_game(varanasi, 2, plies=2)
    judge = started(varanasi, states[0])
    verdict = judge.judge(seen(states[2]))
    assert verdict.kind == TWO_MOVES
    assert varanasi.apply(varanasi.apply(states[0], verdict.moves[0]), verdict.moves[1]) == states[2]
    transition = verdict.transition("a.jpg", "b.jpg")
    # A missed picture and a player moving twice look alike: the players are asked.
    assert not transition["legal"] and transition["move"] is None and len(transition["moves"]) == 2
    assert "two moves since the last picture" in transition["reason"] and transition["state"] == states[2].to_json()
    judge.apply(verdict)
    assert judge.state == states[0]  # flagged: the position waits for the players


def test_play_going_on_from_flagged_moves_takes_them_as_played(wari):
    states = random_wari_game(wari, 3, plies=5)
    judge = started(wari, states[0])
    judge.apply(judge.judge(seen(states[1])))
    flagged = judge.judge(seen(states[3]))
    judge.apply(flagged)
    assert not flagged.legal and judge.state == states[1]
    verdict = judge.judge(seen(states[4]))
    assert verdict.legal and verdict.kind == MOVES and len(verdict.moves) == 3
    assert "played on from the flagged table" in verdict.note
    judge.apply(verdict)
    assert judge.history == states[:5] and judge.alerts == 0 and judge.pending is None


class EitherObservation(FakeObservation):
    """A picture that fits two positions equally well (and nothing else)."""

    def __init__(self, first, second):
        super().__init__(first.to_json())
        self.other = FakeObservation(second.to_json())

    def log_likelihood(self, state_json: dict) -> float:
        return max(super().log_likelihood(state_json), self.other.log_likelihood(state_json))


def test_several_moves_the_picture_cannot_tell_apart_are_asked_not_guessed(wari):
    start = wari.start()
    ends = {}
    for first in wari.legal_moves(start):
        after = wari.apply(start, first)
        for second in wari.legal_moves(after):
            ends.setdefault(wari.apply(after, second), (first, second))
    one, other = list(ends)[:2]
    judge = started(wari, start)
    judge.apply(judge.judge(FakeObservation({"game": "wari", "pits": [9] * 12, "stores": [0, 0]})))
    assert judge.alerts == 1  # two moves would be allowed now, were the picture clear
    verdict = judge.judge(EitherObservation(one, other))
    assert verdict.kind == TWO_MOVES and not verdict.legal
    assert "more than one line of play" in verdict.reason and "confirm" in verdict.reason
    judge.apply(verdict)
    assert judge.state == start and judge.alerts == 2


@pytest.mark.parametrize("seed", range(3))
def test_a_game_with_every_third_picture_missing_is_judged_to_its_end(wari, varanasi, seed):
    for rules, states in ((wari, random_wari_game(wari, seed, plies=40)), (varanasi, random_game(varanasi, seed))):
        judge = started(rules, states[0])
        flagged = 0
        for number, state in enumerate(states[1:], start=1):
            if number % 3 == 0 and number < len(states) - 2:
                continue
            verdict = judge.judge(seen(state))
            judge.apply(verdict)
            if verdict.legal:
                # The pictures' positions are judged; a missed picture's position only where the
                # order of its moves shows (two takes of different colours end alike either way).
                assert judge.state == state
            else:
                flagged += 1
                assert "two moves since the last picture" in verdict.reason
        assert judge.state == states[-1] and len(judge.history) == len(states)
        assert flagged == len([n for n in range(1, len(states)) if n % 3 == 0 and n < len(states) - 2])


def test_two_moves_right_after_an_alert_are_legal(varanasi):
    """The flagged picture showed the first move, misread: the next one resolves it."""
    states = random_game(varanasi, 5, plies=2)
    judge = started(varanasi, states[0])
    judge.apply(judge.judge(FakeObservation({"game": "varanasi", "stacks": [["4white"]]})))
    verdict = judge.judge(seen(states[2]))
    assert verdict.kind == TWO_MOVES and verdict.legal and verdict.reason is None
    judge.apply(verdict)
    assert judge.state == states[2]


@pytest.mark.parametrize("seed", range(4))
def test_a_missed_wari_photo_is_explained_by_two_moves(wari, seed):
    states = random_wari_game(wari, seed, plies=11)
    assert len(states) == 12
    judge = started(wari, states[0])
    for state in states[1:9]:
        judge.apply(judge.judge(seen(state)))
    verdict = judge.judge(seen(states[10]))
    assert verdict.kind == TWO_MOVES and verdict.state == states[10]


def test_after_two_misread_pictures_three_moves_are_legal(varanasi):
    states = random_game(varanasi, 6, plies=3)
    judge = started(varanasi, states[0])
    for _ in range(2):
        judge.apply(judge.judge(FakeObservation({"game": "varanasi", "stacks": [["4white"]]})))
    verdict = judge.judge(seen(states[3]))
    assert verdict.kind == MOVES and verdict.legal and len(verdict.moves) == 3
    judge.apply(verdict)
    assert judge.state == states[3] and judge.alerts == 0


def test_the_table_going_back_is_an_undo(varanasi):
    states = random_game(varanasi, 3, plies=2)
    judge = started(varanasi, states[0])
    for state in states[1:]:
        judge.apply(judge.judge(seen(state)))
    verdict = judge.judge(seen(states[1]))
    assert verdict.kind == UNDO
    judge.apply(verdict)
    assert judge.history == states[:2]


def test_bigger_disc_on_smaller_is_illegal_with_the_engines_reason(varanasi):
    start = varanasi.state_from_json({"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]]})
    judge = started(varanasi, start)
    verdict = judge.judge(FakeObservation({"game": "varanasi", "stacks": [["4red", "2blue", "3green"]]}))
    assert verdict.kind == ILLEGAL
    assert "3green" in verdict.reason and "2blue" in verdict.reason
    transition = verdict.transition("a", "b")
    assert transition["legal"] is False and transition["move"] is None
    assert transition["state"]["stacks"] == [["4red", "2blue", "3green"]]
    assert judge.state == start


def test_an_uncertain_disc_does_not_hide_the_move(varanasi):
    start = varanasi.state_from_json({"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"], ["1red"]]})
    judge = started(varanasi, start)
    # The camera misreads 1red (on 2blue) as 1orange, but is unsure of that disc.
    reading = {"game": "varanasi", "stacks": [["4red", "2blue", "1orange"], ["3green"]]}
    verdict = judge.judge(FakeObservation(reading, confusable={"1orange": "1red"}))
    assert verdict.kind == MOVE
    assert verdict.moves[0].to_json() == {"move": "1red", "onto": "2blue"}


def test_a_confident_misreading_is_not_forced_into_a_move(varanasi):
    start = varanasi.state_from_json({"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"], ["1red"]]})
    judge = started(varanasi, start)
    misread = FakeObservation({"game": "varanasi", "stacks": [["4red", "2blue", "1orange"], ["3green"]]})
    verdict = judge.judge(misread)
    # 1orange is not in play: the picture is taken as misread, and the next one decides.
    assert verdict.kind == SAME and verdict.waited and not verdict.moves
    judge.apply(verdict)
    assert judge.judge(misread).kind == ILLEGAL


def test_the_last_take_ends_the_set_with_the_engines_score(varanasi):
    start = varanasi.state_from_json({"game": "varanasi", "stacks": [["4red"], ["2red"]]})
    judge = started(varanasi, start)
    verdict = judge.judge(FakeObservation({"game": "varanasi", "stacks": []}))
    assert verdict.kind == MOVE and verdict.result == {"over": True, "winner": 0, "scores": {0: 2, 1: 0}}
    judge.apply(verdict)
    assert judge.over


def test_wari_expects_the_standard_start(wari):
    judge = Judge(wari)
    moved = wari.apply(wari.start(), wari.legal_moves(wari.start())[0])
    verdict = judge.judge(seen(moved))
    assert verdict.kind == ILLEGAL and "standard start" in verdict.reason and verdict.state is None
    verdict = judge.judge(seen(wari.start()))
    assert verdict.kind == OPENING and verdict.state == wari.start()


def test_a_wari_game_whose_start_was_misread_opens_at_the_start_with_its_first_move(wari):
    start = wari.start()
    misread = {**start.to_json(), "pits": [4] * 7 + [3] + [4] * 4}  # a hidden seed
    sown = wari.apply(start, wari.legal_moves(start)[2])
    judge = Judge(wari)
    judge.apply(judge.judge(FakeObservation(misread)))
    assert judge.state is None and judge.alerts == 1
    verdict = judge.judge(seen(sown))
    assert verdict.kind == MOVE and verdict.legal and verdict.moves == (wari.legal_moves(start)[2],)
    judge.apply(verdict)
    assert judge.history == [start, sown]


def test_while_waiting_for_the_wari_start_a_picture_no_play_from_it_explains_stays_flagged(wari):
    judge = Judge(wari)
    judge.apply(judge.judge(FakeObservation({**wari.start().to_json(), "pits": [4] * 11 + [3]})))
    verdict = judge.judge(FakeObservation({**wari.start().to_json(), "pits": [5] * 6 + [3] * 6}))
    assert verdict.kind == ILLEGAL and "standard start" in verdict.reason and verdict.state is None


def test_wari_turn_passes_to_the_reading_after_an_illegal_move(wari):
    judge = started(wari, wari.start())
    assert judge.as_next_turn({"game": "wari", "pits": [4] * 12, "stores": [0, 0]})["to_move"] == "north"


@pytest.mark.parametrize("seed", range(3))
def test_every_move_of_a_random_wari_game_is_inferred(wari, seed):
    states = random_wari_game(wari, seed, plies=39)
    judge = Judge(wari)
    kinds = []
    for state in states:
        verdict = judge.judge(seen(state))
        judge.apply(verdict)
        kinds.append(verdict.kind)
    assert kinds == [OPENING] + [MOVE] * (len(states) - 1)
    assert judge.state == states[-1]


def test_a_wari_pile_read_short_of_its_hidden_seeds_still_fits_the_move(wari):
    from vision.wari import WariObservation

    before = wari.state_from_json({"game": "wari", "pits": [3, 1, 2, 0, 1, 11, 2, 2, 1, 3, 2, 4],
                                   "stores": [10, 6], "to_move": "south"})
    move = next(m for m in wari.legal_moves(before) if wari.apply(before, m).to_json()["pits"][5] == 12)
    after = wari.apply(before, move).to_json()

    def reading(position: dict) -> WariObservation:
        """Every pit and store read for sure but the pile, where the camera sees 9 or 10 seeds."""
        regions = [{n: 1.0} for n in position["pits"] + position["stores"]]
        regions[5] = {9: 0.6, 10: 0.397, 12: 0.003}
        return WariObservation(None, tuple(regions), 0.9)

    observation = reading(after)
    # Against its own best reading (two seeds short) the true position would not fit.
    assert observation.log_likelihood(after) < observation.best_log_likelihood() - FIT_MARGIN
    judge = Judge(wari, history=[before])
    verdict = judge.judge(observation)
    assert verdict.kind == MOVE and verdict.moves == (move,)
    # A seed sown into the wrong pit changes two pits read for sure: still flagged.
    slipped = dict(after, pits=list(after["pits"]))
    slipped["pits"][0] += 1
    slipped["pits"][1] -= 1
    assert judge.judge(reading(slipped)).kind == ILLEGAL


def test_a_verdict_says_how_sure_it_is(wari):
    states = random_wari_game(wari, 1, plies=3)
    judge = started(wari, states[0])
    clear = judge.judge(seen(states[1]))
    assert clear.legal and clear.confidence > 0.99
    assert clear.transition("a", "b")["confidence"] == round(clear.confidence, 4)
    # Two positions fit the picture equally: no verdict can be surer than a coin toss.
    start = wari.start()
    first, second = (wari.apply(start, move) for move in wari.legal_moves(start)[:2])
    torn = started(wari, start).judge(EitherObservation(first, second))
    assert torn.confidence <= 0.5
    # A picture no legal move explains: the illegal verdict is sure of itself.
    far = FakeObservation({"game": "wari", "pits": [0] * 11 + [48], "stores": [0, 0]})
    flagged = started(wari, start).judge(far)
    assert not flagged.legal and flagged.confidence > 0.99


def _wari_reading(position: dict, overrides: dict):
    """A WariObservation reading every pit and store for sure, but for `overrides` (region -> distribution)."""
    from vision.wari import WariObservation

    regions = [{n: 1.0} for n in position["pits"] + position["stores"]]
    for region, distribution in overrides.items():
        regions[region] = distribution
    return WariObservation(None, tuple(regions), 0.9)


def _sowing_onto_a_pile(wari):
    """A position, the move that sows into South's pile of 11 (making 12), and the table after it."""
    before = wari.state_from_json({"game": "wari", "pits": [3, 1, 2, 0, 1, 11, 2, 2, 1, 3, 2, 4],
                                   "stores": [10, 6], "to_move": "south"})
    move = next(m for m in wari.legal_moves(before) if wari.apply(before, m).to_json()["pits"][5] == 12)
    after = wari.apply(before, move).to_json()
    return before, move, after


def test_a_move_off_the_reading_only_in_piles_is_asked_about_not_called_illegal(wari):
    before, move, after = _sowing_onto_a_pile(wari)
    # The pile of 12 read as 13 for sure (a seed from the store at its side taken for one of its
    # own): the move is off the reading by odds between 1:100 and 1:10,000, only in the pile and a store.
    seen = dict(after, pits=list(after["pits"]), stores=list(after["stores"]))
    seen["pits"][5] += 1
    seen["stores"][0] -= 1
    observation = _wari_reading(seen, {5: {13: 0.999, 12: 0.001}, 12: {9: 0.9, 10: 0.1}})
    gap = observation.best_log_likelihood(after) - observation.log_likelihood(after)
    assert FIT_MARGIN < gap < ASK_MARGIN
    verdict = Judge(wari, history=[before]).judge(observation)
    assert verdict.legal and verdict.kind == MOVE and verdict.moves == (move,)
    assert verdict.note.startswith(UNSURE) and "South's pit f" in verdict.note
    assert verdict.confidence < 0.99


def test_a_miscount_no_slip_explains_is_asked_about_and_a_slip_is_called(wari):
    before, move, after = _sowing_onto_a_pile(wari)
    # A pit of 2 read as 3 for sure, South's store one short: no slip of a player leaves that
    # table (a seed moves between two pits, or a capture empties a pit), so the camera is doubted.
    small = dict(after, pits=list(after["pits"]), stores=list(after["stores"]))
    small["pits"][0] += 1
    small["stores"][0] -= 1
    doubted = Judge(wari, history=[before]).judge(
        _wari_reading(small, {0: {after["pits"][0] + 1: 0.999, after["pits"][0]: 0.001}, 12: {9: 0.9, 10: 0.1}}))
    assert doubted.legal and doubted.moves == (move,)
    assert doubted.note.startswith(UNSURE) and "South's pit a" in doubted.note and doubted.confidence < 0.99
    # The same seed knocked into the neighbouring pit (South's a to b), read as surely: a slip.
    knocked = dict(after, pits=list(after["pits"]))
    knocked["pits"][0] -= 1
    knocked["pits"][1] += 1
    flagged = Judge(wari, history=[before]).judge(_wari_reading(knocked, {}))
    assert flagged.kind == ILLEGAL and "South's pit" in flagged.reason


def test_a_move_far_off_the_reading_in_piles_is_still_illegal(wari):
    before, move, after = _sowing_onto_a_pile(wari)
    seen = dict(after, pits=list(after["pits"]), stores=list(after["stores"]))
    seen["pits"][5] -= 3
    seen["stores"][0] += 3
    # Read for sure as 9: three seeds fewer, outside every doubt the recogniser allows for.
    verdict = Judge(wari, history=[before]).judge(_wari_reading(seen, {5: {9: 1.0}}))
    assert verdict.kind == ILLEGAL


def test_the_same_doubt_is_asked_about_once_while_it_lasts(wari):
    before, move, after = _sowing_onto_a_pile(wari)

    def misread(position: dict):
        """The pile of South's f read one seed high for sure, the store beside it one low."""
        seen = dict(position, pits=list(position["pits"]), stores=list(position["stores"]))
        seen["pits"][5] += 1
        seen["stores"][0] -= 1
        pile = position["pits"][5]
        return _wari_reading(seen, {5: {pile + 1: 0.999, pile: 0.001}, 12: {seen["stores"][0]: 0.9, position["stores"][0]: 0.1}})

    judge = Judge(wari, history=[before])
    first = judge.judge(misread(after))
    assert first.note.startswith(UNSURE) and first.doubt == "South's pit f"
    judge.apply(first)
    following = wari.legal_moves(judge.state)[0]
    later = wari.apply(judge.state, following).to_json()
    assert later["pits"][5] >= 8  # still a pile, still misread the same way
    second = judge.judge(misread(later))
    assert second.legal and second.moves == (following,) and second.note.startswith(STILL_UNSURE)
    judge.apply(second)
    judge.apply(judge.judge(_wari_reading(wari.apply(judge.state, wari.legal_moves(judge.state)[0]).to_json(), {})))
    assert judge.doubt is None  # a picture that fits without doubt ends it


def test_a_move_off_the_reading_only_in_the_stores_is_taken_without_a_question(wari):
    before, move, after = _sowing_onto_a_pile(wari)
    seen = dict(after, stores=[after["stores"][0] - 2, after["stores"][1] + 2])  # two seeds read in the wrong store
    store = {seen["stores"][0]: 0.9999, after["stores"][0]: 0.0001}
    other = {seen["stores"][1]: 0.9999, after["stores"][1]: 0.0001}
    observation = _wari_reading(seen, {12: store, 13: other})
    gap = observation.best_log_likelihood(after) - observation.log_likelihood(after)
    assert FIT_MARGIN < gap < ASK_MARGIN
    verdict = Judge(wari, history=[before]).judge(observation)
    assert verdict.legal and verdict.moves == (move,) and verdict.note is None


def test_after_three_flagged_pictures_the_judge_catches_up_on_four_moves(wari):
    # The positions on the way need not look like the picture (a sowing changes pits far off):
    # behind, every line of four Wari moves is searched, not only the nearest few.
    states = random_wari_game(wari, 0, plies=30)
    garbage = FakeObservation({"game": "wari", "pits": [0] * 11 + [48], "stores": [0, 0]})
    for start in (0, 9, 12):
        judge = Judge(wari, [states[start]])
        for _ in range(3):
            judge.apply(judge.judge(garbage))
        verdict = judge.judge(seen(states[start + 4]))
        assert verdict.legal and verdict.kind == MOVES and verdict.state == states[start + 4]


def _glare_beside_the_pile(wari):
    """The move sowing onto South's pile, and its table read with a seed too many in the pit beyond
    the pile (North's a: a lamp's glare taken for a seed) and the pile a seed short: what a seed
    knocked out of the pile would leave."""
    before, move, after = _sowing_onto_a_pile(wari)
    beyond = after["pits"][6]
    seen = {5: {11: 0.6, 12: 0.4}, 6: {beyond + 1: 0.9999, beyond: 0.0001}}
    return before, move, after, seen


def test_a_pit_in_question_is_looked_at_again_before_a_move_is_flagged(wari):
    from vision.wari import WariObservation

    before, move, after, seen = _glare_beside_the_pile(wari)
    first = _wari_reading(after, seen)
    assert not Judge(wari, history=[before]).judge(first).legal  # the knocked seed explains it best
    asked = []

    def second_look(pits: list[int]) -> dict:
        asked.append(pits)
        return {pit: ({after["pits"][pit]: 0.999, after["pits"][pit] + 1: 0.001}) for pit in pits}

    looking = WariObservation(None, first.regions, 0.9, second_look=second_look)
    verdict = Judge(wari, history=[before]).judge(looking)
    assert verdict.kind == MOVE and verdict.moves == (move,) and verdict.note is None
    # Read again once, only where the legal tables in question (the move, the table before it) and
    # the reading part: the pile and the pit beyond it, perhaps the pit the move emptied.
    assert len(asked) == 1 and {5, 6} <= set(asked[0]) <= {4, 5, 6}
    assert verdict.observation.looked_at == set(asked[0])
    assert verdict.observation.pits[6] == after["pits"][6] and verdict.recognised["pits"][6] == after["pits"][6]


def test_a_slip_the_second_look_confirms_is_still_flagged(wari):
    from vision.wari import WariObservation

    before, move, after, seen = _glare_beside_the_pile(wari)
    first = _wari_reading(after, seen)
    confirmed = WariObservation(None, first.regions, 0.9, second_look=lambda pits: {pit: first.regions[pit] for pit in pits})
    verdict = Judge(wari, history=[before]).judge(confirmed)
    assert verdict.kind == ILLEGAL and "knocked into the next pit" in verdict.reason
    # A picture that fits its move is not looked at again: no network time on a clean table.
    clean = WariObservation(None, _wari_reading(after, {}).regions, 0.9, second_look=lambda pits: pytest.fail(str(pits)))
    assert Judge(wari, history=[before]).judge(clean).moves == (move,)


def test_a_move_other_explanations_weigh_on_is_taken_with_a_question(wari, varanasi):
    # Two moves the picture cannot tell apart: the note names both.
    start = wari.start()
    first, second = (wari.apply(start, move) for move in wari.legal_moves(start)[:2])
    torn = started(wari, start).judge(EitherObservation(first, second))
    assert torn.legal and torn.note == f"{UNSURE}: the table fits South a, but also South b; please check the table"
    # A move whose table differs from the picture in a disc the camera half confuses: sure enough
    # at a cost of 1 nat, asked about at 3 (the reading, which no move leaves, then keeps over a tenth).
    states = random_varanasi_game(varanasi, 3, plies=2)
    after = states[1].to_json()
    disc = after["stacks"][0][-1]
    other = disc[0] + next(c for c in ("red", "blue", "green", "yellow") if c not in disc)
    read = dict(after, stacks=[after["stacks"][0][:-1] + [other]] + after["stacks"][1:])
    for cost, asked in ((1.0, False), (3.0, True)):
        verdict = started(varanasi, states[0]).judge(FakeObservation(read, confusable={other: disc}, doubt_cost=cost))
        assert verdict.legal and verdict.state == states[1]
        assert (verdict.note or "").startswith(UNSURE) == asked and (verdict.confidence < 0.9) == asked


class Following(FakeObservation):
    """Remembers which picture the judge weighed it after (`weighed_after`)."""

    def weighed_after(self, previous):
        follower = Following(self.state)
        follower.after = previous
        return follower


def test_each_picture_is_weighed_after_the_last_picture_of_a_legal_position(varanasi):
    states = random_game(varanasi, 3, plies=2)
    judge = Judge(varanasi)
    pictures = [Following(state.to_json()) for state in states]
    verdicts = []
    for picture in pictures:
        verdicts.append(judge.judge(picture))
        judge.apply(verdicts[-1])
    assert not hasattr(verdicts[0].observation, "after")  # nothing before the set-up
    assert verdicts[1].observation.after is verdicts[0].observation
    assert verdicts[2].observation.after is verdicts[1].observation
    flagged = judge.judge(Following({"game": "varanasi", "stacks": [["4red", "3red"]]}))
    judge.apply(flagged)
    assert not flagged.legal and judge.seen is verdicts[2].observation  # a flagged picture is no anchor
    judge.override(states[0])
    assert judge.seen is None
    assert Judge(varanasi, [states[2]], seen=pictures[2]).judge(Following(states[2].to_json())).observation.after is pictures[2]


def test_a_picture_showing_a_disc_that_left_the_game_waits_for_the_next(varanasi):
    states = random_game(varanasi, 4, plies=3)
    judge = started(varanasi, states[0])
    judge.apply(judge.judge(seen(states[1])))
    gone = next(iter(set(states[0].places) - set(states[1].places)))  # taken, or else the game's first disc
    misread = states[2].to_json()
    misread["stacks"] = [[str(gone)]] + misread["stacks"]
    waited = judge.judge(FakeObservation(misread))
    assert waited.legal and waited.kind == SAME and waited.waited and waited.moves == ()
    assert waited.note == f"{UNSURE}: the camera reads {gone}, which is not in play; waiting for the next picture"
    judge.apply(waited)
    assert judge.state == states[1] and judge.alerts == 1
    # The next picture shows a move more: taken, as after a flagged picture.
    caught_up = judge.judge(seen(states[3]))
    assert caught_up.legal and caught_up.kind == TWO_MOVES and caught_up.state == states[3]
    judge.apply(caught_up)
    # The same impossible table twice in a row is no misread: flagged.
    again = FakeObservation({**misread, "stacks": [[str(gone)]] + states[3].to_json()["stacks"]})
    judge.apply(judge.judge(again))
    assert judge.judge(again).kind == ILLEGAL
