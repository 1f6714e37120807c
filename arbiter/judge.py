"""Judging successive pictures of one game against its Rules engine.

`Judge` is the game-agnostic core: it keeps the positions the game went through and, for each new
observation, picks the explanation the recogniser's evidence supports best (no change, one legal
move, going back to an earlier position), or flags the change: several legal moves since the last
picture (a missed picture, or one player moved twice: from one picture the two look alike), or an
illegal move with the engine's reason. Flagged moves are asked about once: a picture that shows
play going on from them takes them as played, so that a missed picture never stops the judging;
a set-up the first picture misread is put right once later pictures show it (`RivalLines`).
`arbiter.replay.replay` runs it over photos (contract `arbiter replay`); `arbiter.tracker.Tracker`
runs it live over a camera.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable

from arbiter.rival_lines import RivalLines
from arbiter.verdict import ILLEGAL, MOVE, MOVES, OPENING, SAME, TWO_MOVES, UNDO, Verdict
from engines.errors import ArbiterError

# A candidate position "fits" the picture when the recogniser finds it at most this many times less
# likely than its own best reading: a likelihood-ratio test at odds of 1:100 (log 100 = 4.6 nats).
# One uncertain disc or one miscounted pile costs less than that; a real difference of one move
# (a disc moved, a pit emptied) costs far more on the recognisers' graded likelihoods.
FIT_ODDS = 100.0
FIT_MARGIN = math.log(FIT_ODDS)
# Between the fitting bar and odds of 1:10,000 the picture leaves the judge unsure: with players
# slipping once in a hundred moves, a picture that favours a slip by R to 1 makes it a slip with
# chance R / (R + 99), from one half at the fitting bar to 0.99 here. Where the recogniser says
# the difference lies only where it cannot count well (`doubtful`: Wari piles that hide seeds),
# such a picture is not called illegal: the legal move (or no change) it nearly fits is taken and
# the players are asked to check. Past these odds, or where the recogniser sees clearly, a slip
# is called.
ASK_ODDS = 10_000.0
ASK_MARGIN = math.log(ASK_ODDS)
# A move taken with less confidence than this (its share of the picture's weight among every
# explanation weighed, slips at their odds) is taken with a question: a tenth of the weight left
# to other explanations is too much to pass over in silence.
ASK_BELOW = 0.9

# How many positions back the table may be put when players take moves back (the position
# "went back"); going further back is a correction the players make explicitly (an override).
UNDO_DEPTH = 4

# Several moves since the last legal position (pictures missed: a camera outage, a restart, a move
# the motion gate did not see) are searched level by level, expanding only the positions nearest
# to the picture, this many: every move of a Wari position (at most 6), and in Varanasi, where
# moves that do not show in the picture score far lower, the few that do.
MOVES_BEAM = 6
# Behind after flagged pictures (catching up on several moves), more of them, nearest first,
# while a level holds fewer than this many positions: in Wari every line of up to 4 moves
# (6^4 = 1,296), whose earlier positions need not look like the picture (a move sows far); in
# Varanasi, whose positions have some hundred moves each, a dozen or so.
SEARCH_BUDGET = 1_300
# At most this many moves are looked for between two judged positions; a table further ahead is
# put right by the players (a correction).
MAX_MOVES_BETWEEN = 4

# How a verdict counts the moves since the last picture, in the words players read.
COUNTS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}

# How the note of a move taken in doubt begins (ASK_ODDS); a doubt about what the last question
# asked about already (a pile or store the camera keeps misreading) is noted, not asked again.
UNSURE = "not sure"
STILL_UNSURE = "still not sure"

class Judge:
    """Engine-guided judging of successive observations of one game."""

    def __init__(self, rules, history: Iterable = (), setup_until_first_move: bool = False, seen=None):
        """`seen`: the observation of the last picture of the position reached, where one was
        taken (the recogniser may weigh the next picture against it: `weighed_after`)."""
        self.rules = rules
        self.history = list(history)
        self.seen = seen
        # Live, a camera watches players build a free set-up (Varanasi towers) piece by piece; until
        # the first move every new still picture of it is the set-up so far. Photos for `replay`
        # start once set-up is done, so there a change no move explains is flagged from the start.
        self.setup_until_first_move = setup_until_first_move and self.standard_start() is None
        # Pictures flagged since the last legal one. Each may have shown one more move (misread, or
        # put right by the players), so after k of them, up to k + 1 legal moves are judged legal.
        self.alerts = 0
        # The latest flagged verdict of several legal moves, until a legal verdict: play that goes on
        # from its position shows that its moves were played.
        self.pending: Verdict | None = None
        # Where the last question about a doubtful table asked the players to look, until a
        # picture fits without doubt: the same doubt again is noted but not asked about again.
        self.doubt: str | None = None
        # The other set-ups the first picture nearly supported, followed beside the game.
        self.rivals: RivalLines | None = None
        # The last picture was taken as misread (`Verdict.waited`): the next is judged as it shows.
        self.waited = False

    @property
    def state(self):
        return self.history[-1] if self.history else None

    @property
    def over(self) -> bool:
        return self.state is not None and self.rules.is_over(self.state)

    def standard_start(self):
        """The game's fixed opening position, or None where players set up freely (Varanasi)."""
        return self.rules.start() if self.rules.has_standard_start else None

    def judge(self, observation) -> Verdict:
        """The verdict on one stable picture; the judge's position changes only through `apply`.

        Its confidence weighs the explanations as the recogniser's likelihoods do: each position
        weighed counts as much as the picture supports it, and "no legal move explains the picture"
        as much as a position at the fitting bar. A legal verdict's confidence is its position's
        share, an illegal one's the bar's share.
        """
        weighed_after = getattr(observation, "weighed_after", None)
        if weighed_after is not None and self.seen is not None:
            # Where the last picture showed things the game keeps in place (Varanasi: where each
            # tower stands), a candidate that moves them costs what moving them is unlikely.
            observation = weighed_after(self.seen)
        # Where one misread pit could decide the verdict, the recogniser looks at the pits in
        # question again (Wari: the pile counter reads them too): before judging, where the
        # likeliest one-move explanations show the picture in question, and after, should the
        # verdict be in question still.
        seen = self._looked_at_first(observation)
        verdict, scores, threshold = self._weighed(seen)
        contested = self._contested(verdict, scores) if hasattr(seen, "looked_again") else []
        second = seen.looked_again(contested) if contested else seen
        if second is not seen:
            verdict, scores, threshold = self._weighed(second)
        if (not verdict.legal or verdict.doubt) and self.rivals is not None:
            verdict = self._on_rival_line(second, scores) or verdict
        verdict = replace(verdict, observation=second)
        weights = list(scores.values()) + [threshold]
        top = max(weights)
        total = sum(math.exp(w - top) for w in weights)
        chosen = scores[verdict.state] if verdict.legal and verdict.state is not None else threshold
        verdict = replace(verdict, confidence=math.exp(chosen - top) / total)
        if verdict.legal and verdict.moves and verdict.note is None and verdict.confidence < ASK_BELOW and self.history:
            # Other explanations keep more than a tenth of the picture's weight: taken, but the
            # players are asked to check, as where the recogniser says it cannot count.
            rival = max((state for state in scores if state != verdict.state), key=scores.get, default=None)
            if rival is not None and scores[rival] >= threshold:
                played = " then ".join(self.rules.notation(move) for move in verdict.moves)
                note = f"{UNSURE}: the table fits {played}, but also {self._line_to(rival)}; please check the table"
                verdict = replace(verdict, note=note, doubt=played, expected=verdict.state.to_json())
            else:
                verdict = self._in_doubt(second, self.state, verdict, verdict.recognised, "unsure")
        return verdict

    def _on_rival_line(self, observation, scores: dict) -> Verdict | None:
        """The verdict of the rival line (`RivalLines`) that explains this picture by no move or one
        legal move, fitting it as surely as a move taken without a question, where the evidence of
        every picture since the set-up favours that line by FIT_ODDS over the line followed (its
        best explanation of this picture by no move or one included); asked about below ASK_ODDS.
        None otherwise. `scores` gains the line's position."""
        followed = self.rivals.followed + self._nearest(observation)[3]
        found = None
        for line in self.rivals.lines:
            judge = Judge(self.rules, line.history)
            nearest = judge._nearest(observation)
            fit = nearest[3]
            best = observation.best_log_likelihood(line.history[-1].to_json())
            lead = line.evidence + fit - followed
            if fit >= max(best - FIT_MARGIN, judge._bar(observation, best)) and lead >= FIT_MARGIN:
                if found is None or lead > found[0]:
                    found = (lead, line, judge, nearest)
        if found is None:
            return None
        lead, line, judge, (kind, state, moves, fit) = found
        scores[state] = fit
        describe = getattr(self.rules, "difference", None)
        misread = describe(self.state, line.history[-1]) if describe is not None else "another set-up"
        note = f"the set-up was misread; the table shows {misread}: the game is corrected from its set-up on"
        sure = lead >= ASK_MARGIN
        if not sure:
            note = f"{UNSURE}: {note}; please check the table"
        verdict = judge._verdict(kind, state, observation.to_json()["state"], moves, note=note)
        return replace(verdict, rebased=line, doubt=None if sure else "set-up", expected=None if sure else state.to_json())

    def _nearest(self, observation) -> tuple:
        """(kind, position, moves, log-likelihood) of the likeliest of the position and its
        one-move successors."""
        options = self._no_move_or_one()
        fits = [observation.log_likelihood(state.to_json()) for _, state, _ in options]
        return (*options[fits.index(max(fits))], max(fits))

    def _no_move_or_one(self) -> list[tuple]:
        """(kind, position, moves): the position unchanged, then after each legal move."""
        return [(SAME, self.state, ())] + [(MOVE, state, moves) for state, moves in self._successors(self.state, ())]

    def _line_to(self, state) -> str:
        """How play reached `state` from the judge's position, in words: no move, a move, or more."""
        if state == self.state:
            return "no move yet"
        moves = [move for move in self.rules.legal_moves(self.state) if self.rules.apply(self.state, move) == state]
        return self.rules.notation(moves[0]) if moves else "another line of play"

    def _weighed(self, observation) -> tuple[Verdict, dict, float]:
        """The verdict on a picture, every position weighed with its log-likelihood, and the bar."""
        # Candidates are measured against the picture's best reading of a position the game can be
        # in (for Wari: holding its seeds), not against a reading that lost a seed under a pile.
        followed = self.state if self.history else self.standard_start()
        best = observation.best_log_likelihood(followed.to_json() if followed is not None else None)
        sure = best - FIT_MARGIN  # the bar where no other explanation is modelled
        threshold = self._bar(observation, best)
        scores: dict = {}  # every position weighed -> its log-likelihood
        verdict = self._judge(observation, scores, threshold, sure)
        if verdict.legal and verdict.state is not None and verdict.state not in scores:
            scores[verdict.state] = observation.log_likelihood(verdict.state.to_json())
        return verdict, scores, threshold

    def _looked_at_first(self, observation):
        """The observation, looked at again (`_contested`) where the likeliest of the position and
        its one-move successors fits the picture's own reading less than FIT_ODDS, or another
        comes within ASK_ODDS of it: cheaply foreseen, a verdict then in question is judged once."""
        looked_again = getattr(observation, "looked_again", None)
        if looked_again is None or not self.history:
            return observation
        options = [state for _, state, _ in self._no_move_or_one()]
        scores = {state: observation.log_likelihood(state.to_json()) for state in options}
        nearest = max(options, key=scores.get)
        read = observation.log_likelihood(observation.to_json()["state"])
        positions = [nearest.to_json()] if scores[nearest] < read - FIT_MARGIN else []
        positions += self._rivalled(nearest, scores)
        return looked_again(positions) if positions else observation

    def _contested(self, verdict: Verdict, scores: dict) -> list[dict]:
        """The positions (JSON) whose differences from the picture's reading the recogniser should
        look at again before the verdict stands: the legal position the verdict takes (for a
        flagged one, the nearest), with the next likeliest position weighed where that one comes
        within ASK_ODDS of it; for a flagged or doubted verdict, its nearest legal position in any
        case."""
        if not self.history or not scores:
            return []
        chosen = verdict.state if verdict.legal and verdict.state in scores else max(scores, key=scores.get)
        positions = [verdict.expected or chosen.to_json()] if not verdict.legal or verdict.doubt else []
        return positions + self._rivalled(chosen, scores)

    @staticmethod
    def _rivalled(chosen, scores: dict) -> list[dict]:
        """`chosen` and the likeliest other position weighed (JSON), where that one comes within
        ASK_ODDS of it; none otherwise."""
        rival = max((state for state in scores if state != chosen), key=scores.get, default=None)
        if rival is None or scores[rival] < scores[chosen] - ASK_MARGIN:
            return []
        return [chosen.to_json(), rival.to_json()]

    def _judge(self, observation, scores: dict, threshold: float, sure: float) -> Verdict:
        """The verdict, `scores` filled with every position weighed, `threshold` the fitting bar,
        `sure` the bar above which a move is taken without a question."""
        reading = observation.to_json()["state"]

        def score(state) -> float:
            if state not in scores:
                scores[state] = observation.log_likelihood(state.to_json())
            return scores[state]

        def best_fit(candidates: list[tuple]) -> Verdict | None:
            """The best-scoring fitting (kind, state, moves); max() keeps the first of equals.

            Several moves are flagged (the players are asked) unless earlier flagged pictures
            allow them, and always where another position fits the picture nearly as well.
            """
            fitting = [c for c in candidates if score(c[1]) >= threshold]
            if not fitting:
                return None
            kind, state, moves = max(fitting, key=lambda c: score(c[1]))
            if len(moves) < 2:
                return self._verdict(kind, state, reading, moves)
            played = " then ".join(self.rules.notation(move) for move in moves)
            rivals = [c for c in fitting if c[1] != state and score(c[1]) > score(state) - FIT_MARGIN]
            if rivals:
                other = max(rivals, key=lambda c: score(c[1]))
                also = " then ".join(self.rules.notation(move) for move in other[2]) or "the position before"
                reason = (f"{COUNTS[len(moves)]} moves since the last picture, and the table fits more than one "
                          f"line of play ({played}; or {also}): please confirm the position")
            elif len(moves) > self.alerts + 1:
                reason = (f"{COUNTS[len(moves)]} moves since the last picture ({played}): a picture was missed "
                          "or a player moved twice")
                if self.history:
                    # A slip can leave a table that several moves also reach (a move out of
                    # turn): say what it would be, so that players can tell.
                    reason += f"; if not: {self._reason(observation, self.state)}"
            else:
                return self._verdict(kind, state, reading, moves,
                                     note=f"{COUNTS[len(moves)]} moves since the last picture: {played}")
            return self._verdict(kind, state, reading, moves, reason)

        if self.pending is not None:
            played_on = self._played_on_pending(observation, reading)
            if played_on is not None:
                return played_on
        if self.history:
            current = self.state
        else:
            opened = self._open(reading, best_fit)
            start = self.standard_start()
            # A game with a standard start opens there whether or not its picture was read right:
            # once a picture has been flagged while waiting for it (the start misread, or missed),
            # play from the start is judged as from any legal position, so that a misread start
            # does not flag every later move of the game.
            if opened.legal or start is None or not self.alerts:
                return opened
            current = start
        successors = self._successors(current, ())
        verdict = best_fit([(SAME, current, ())] + [(MOVE, state, moves) for state, moves in successors])
        if verdict is not None and score(verdict.state) < sure:
            # Taken because no slip explains the picture better, though the camera reads
            # otherwise: the players are asked to check.
            return self._in_doubt(observation, current, verdict, reading,
                                  doubtful(observation, verdict.state.to_json(), current.to_json()))
        if verdict is not None:
            return verdict
        # Each earlier move of a sequence leaves its trace in the picture, so the positions on the
        # way are among those nearest to it: expanding only those keeps the search small. The
        # fewest moves that explain the picture are taken, so deeper levels are searched only when
        # the shallower ones fit nothing.
        earlier = [(UNDO, state, ()) for state in reversed(self.history[-1 - UNDO_DEPTH:-1])]
        level = successors
        for length in range(2, MAX_MOVES_BETWEEN + 1):
            nearest = sorted(level, key=lambda candidate: -score(candidate[0]))
            level = []
            for count, (before, moves) in enumerate(nearest):
                if count >= MOVES_BEAM and (not self.alerts or len(level) >= SEARCH_BUDGET):
                    break
                if not self.rules.is_over(before):
                    level += self._successors(before, moves)
            sequences = [(TWO_MOVES if length == 2 else MOVES, state, moves) for state, moves in level]
            # Moves come first so that, should both fit equally, play going on wins over a take-back.
            verdict = best_fit(sequences + earlier)
            if verdict is not None:
                return verdict
        if self.setup_until_first_move and len(self.history) == 1:
            setup = self._open(reading, best_fit)
            if setup.legal:
                return setup
        if not self.history:
            return opened
        followed = current.to_json()
        nearly = [c for c in [(SAME, current, ())] + [(MOVE, state, moves) for state, moves in successors]
                  if score(c[1]) >= sure - (ASK_MARGIN - FIT_MARGIN)]
        doubted = [(c, doubt) for c in nearly if (doubt := doubtful(observation, c[1].to_json(), followed))]
        if doubted:
            (kind, state, moves), doubt = max(doubted, key=lambda pair: score(pair[0][1]))
            return self._in_doubt(observation, current, self._verdict(kind, state, reading, moves), reading, doubt)
        nearest = max([current] + [state for state, _ in successors], key=score)
        out_of_play = getattr(self.rules, "out_of_play", None)
        returned = out_of_play(current, reading) if out_of_play is not None and not self.waited else None
        if returned:
            # Pieces that left the game, back on the table: no move or slip leaves that, so the
            # picture is misread. It is taken as no change, once, and the next picture decides.
            note = f"{UNSURE}: the camera reads {returned}, which is not in play; waiting for the next picture"
            return Verdict(SAME, current, reading, note=note, doubt="misread", expected=nearest.to_json(), waited=True)
        return Verdict(ILLEGAL, current, reading, reason=self._reason(observation, current), expected=nearest.to_json())

    def _in_doubt(self, observation, current, verdict: Verdict, reading: dict, doubt: str) -> Verdict:
        """A legal verdict the picture does not quite bear out, taken with a question for the
        players (asked once while the same doubt lasts); none where only the stores differ."""
        reason = self._reason(observation, current)
        where = reason.split(" should ")[0]
        if verdict.kind == SAME:
            return replace(verdict, doubt=where)
        if doubt == "stores":
            # Every pit as the move leaves it: a miscounted store is no question for players.
            return verdict
        note = (f"{STILL_UNSURE}: {reason}" if where == self.doubt
                else f"{UNSURE}: {reason}; please check the table")
        return replace(verdict, note=note, doubt=where, expected=verdict.state.to_json())

    def _bar(self, observation, best: float) -> float:
        """The log-likelihood a legal explanation must reach: that of the likeliest other
        explanation, at its prior odds. Where the rules model the players' slips, those tables are
        the alternatives (at FIT_ODDS: a slip in a hundred moves), and any other table the picture
        shows is one only at ASK_ODDS: a miscount that no slip explains does not outweigh a legal
        move. Without such a model, any other table the picture shows is one at FIT_ODDS."""
        slips = getattr(self.rules, "slips", None)
        if slips is None or not self.history:
            return best - FIT_MARGIN
        tables = [slip.after.to_json() for slip in slips(self.state)]
        # A recogniser may find the likeliest of many tables without drawing each (Nanku: some
        # thousand slips, most of them nowhere the picture changed).
        best_of = getattr(observation, "best_log_likelihood_of", None)
        slipped = (best_of(tables) if best_of is not None
                   else max((observation.log_likelihood(table) for table in tables), default=-math.inf))
        return max(slipped - FIT_MARGIN, best - ASK_MARGIN)

    def _played_on_pending(self, observation, reading: dict) -> Verdict | None:
        """The flagged moves and the moves after them, if play went on from the flagged position."""
        pending = self.pending
        resumed = Judge(self.rules, [pending.state])
        verdict = resumed.judge(observation)
        if not verdict.legal or verdict.kind not in (MOVE, TWO_MOVES, MOVES):
            return None
        moves = pending.moves + verdict.moves
        played = " then ".join(self.rules.notation(move) for move in moves)
        return self._verdict(MOVES, verdict.state, reading, moves,
                             note=f"{COUNTS.get(len(moves), len(moves))} moves since the last legal picture, played on from the "
                                  f"flagged table: {played}")

    def _successors(self, state, moves: tuple) -> list[tuple]:
        """(position, moves so far) after each legal move from `state`, reached by `moves`."""
        return [(self.rules.apply(state, move), moves + (move,)) for move in self.rules.legal_moves(state)]

    def _verdict(self, kind: str, state, reading: dict, moves: tuple, reason: str | None = None,
                 note: str | None = None) -> Verdict:
        changed = kind in (MOVE, TWO_MOVES, MOVES)
        result = self.rules.outcome(state).to_json() if changed and self.rules.is_over(state) else None
        return Verdict(kind, state, reading, moves, reason, result, note)

    def _open(self, reading: dict, best_fit) -> Verdict:
        start = self.standard_start()
        if start is None:
            try:
                return Verdict(OPENING, self.rules.state_from_json(reading), reading)
            except ArbiterError as exc:
                return Verdict(ILLEGAL, None, reading, reason=f"the set-up is not a valid position: {exc}")
        if best_fit([(OPENING, start, ())]) is not None:
            return Verdict(OPENING, start, reading)
        return Verdict(ILLEGAL, None, reading, reason="the table does not show the standard start position")

    def _reason(self, observation, current) -> str:
        """What differs between the position and the picture. It is compared with the picture's
        best reading of a position the game can be in (Wari: holding its seeds), so that it names
        the pits that differ rather than a seed total a pile's hidden seeds put wrong."""
        return self._illegal_reason(current, observation.best_reading(current.to_json()))

    def _illegal_reason(self, current, reading: dict) -> str:
        try:
            after = self.rules.state_from_json(self.as_next_turn(reading))
        except ArbiterError as exc:
            try:
                # The turn one move passes on may not fit the reading (two pieces placed at once,
                # where the turn follows from the pieces): the reading's own turn then.
                after = self.rules.state_from_json(reading)
            except ArbiterError:
                return str(exc)
        try:
            explanation = self.rules.explain(current, after)
        except ArbiterError as exc:
            return str(exc)
        return explanation.reason or "no legal move explains the change on the table"

    def as_next_turn(self, reading: dict) -> dict:
        """The reading with the turn passed on as a move would pass it (recognisers cannot see turns).

        The mover after any legal move of the current position is the mover after this one; with no
        legal move (or no position yet) the reading keeps the engine's default.
        """
        current = self.state
        moves = self.rules.legal_moves(current) if current is not None else []
        if not moves:
            return reading
        mover = self.rules.apply(current, moves[0]).to_json().get("to_move")
        return reading if mover is None else {**reading, "to_move": mover}

    def apply(self, verdict: Verdict) -> None:
        """Take a verdict into account: a legal one's position becomes the current one (an undo
        drops the positions after it); a flagged one, or a picture taken as misread, leaves the
        position where it was, and the next picture may show one move more."""
        self.alerts = 0 if verdict.legal and not verdict.waited else self.alerts + 1
        self.waited = verdict.waited
        if not verdict.legal or verdict.waited:
            if verdict.kind in (TWO_MOVES, MOVES):
                self.pending = verdict
            if self.rivals is not None:
                self.rivals.weigh(self.state, verdict.observation)
            return
        self.doubt = verdict.doubt
        self.pending = None
        self.seen = verdict.observation
        if verdict.rebased is not None:
            self.rivals.switch(verdict.rebased, self.history)
            self.history = list(verdict.rebased.history)
        if verdict.kind == UNDO:
            while self.history and self.history[-1] != verdict.state:
                self.history.pop()
        elif verdict.kind == OPENING:
            self.history = [verdict.state]
        elif verdict.kind in (MOVE, TWO_MOVES, MOVES):
            if not self.history:  # the game's first moves, its start never read right (`judge`)
                self.history = [self.standard_start()]
            # Every position on the way, those of missed pictures too, so that players can take
            # moves back to any of them.
            for move in verdict.moves[:-1]:
                self.history.append(self.rules.apply(self.history[-1], move))
            self.history.append(verdict.state)
        if verdict.kind == OPENING:
            self.rivals = RivalLines.from_opening(self.rules, verdict.observation, verdict.state, FIT_MARGIN)
        elif self.rivals is not None:
            moves = verdict.moves if verdict.kind in (MOVE, TWO_MOVES, MOVES) else ()
            self.rivals.follow(self.history, moves, verdict.observation)

    def override(self, state) -> None:
        """Players set the position explicitly: it becomes the current one."""
        self.history.append(state)
        self.alerts = 0
        self.pending = None
        self.doubt = None
        self.rivals = None
        self.seen = None
        self.waited = False


def doubtful(observation, candidate: dict, following: dict) -> str:
    """Where the recogniser says the candidate differs from its reading only where it cannot see
    well enough to call a slip: "stores" where only counts no slip can hide in differ, another
    non-empty word otherwise, "" where it sees the difference clearly (an optional observation
    method; none: it sees clearly)."""
    method = getattr(observation, "doubtful", None)
    return (method(candidate, following) or "") if method is not None else ""
