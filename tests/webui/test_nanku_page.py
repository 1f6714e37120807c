"""Nanku's web part: the isometric drawing, the longest-line chart, calibration findings in players'
words, and the correction page for a Nanku table."""
import re

import pytest

from arbiter.matches import open_game
from arbiter.store import Store
from arbiter.tracker import Tracker
from engines import load_rules
from engines.errors import ArbiterError
from tests.tracker.fakes import frame_index
from tests.webui.conftest import ScriptedTable
from webui.app import create_app
from webui.companion import Companion, LatestObservation
from webui.games import board_svg, web_game
from webui.nanku_page import longest_lines, nanku_findings

W, B = "white", "black"


def nanku(*pieces, to_move=None):
    state = {"game": "nanku", "pieces": [list(piece) for piece in pieces]}
    return state | ({"to_move": to_move} if to_move else {})


def cubes(svg: str) -> list[tuple[str, str, str]]:
    """(classes, piece index, "x,y,z") of every cube drawn, in document (painting) order."""
    return re.findall(r'<g class="(cube [^"]*)" data-piece="(\d+)" data-cell="([-\d,]+)"', svg)


def cells(svg: str) -> list[str]:
    return [cell for _, _, cell in cubes(svg)]


def test_the_empty_table_is_drawn_with_its_grid_and_a_word():
    svg = board_svg(nanku())
    assert svg.startswith('<svg class="board nanku"') and cubes(svg) == []
    assert "No piece placed yet" in svg and 'class="table"' in svg


def test_a_lying_piece_is_two_cubes_joined_by_a_thin_seam():
    svg = board_svg(nanku([[0, 0, 0, W], [1, 0, 0, B]]))
    assert cubes(svg) == [("cube white", "0", "0,0,0"), ("cube black", "0", "1,0,0")]
    assert svg.count('class="seam"') == 2  # one thin seam per cube, on the face they share
    assert 'class="level"' not in svg  # nothing is raised: no level numbers
    assert "x0" in svg and "y0" in svg  # the table's edges give the coordinates


def test_a_standing_piece_draws_the_lower_cube_first_and_numbers_the_upper():
    svg = board_svg(nanku([[0, 0, 0, W], [0, 0, 1, B]]))
    assert cells(svg) == ["0,0,0", "0,0,1"]
    assert re.findall(r'<text class="level"[^>]*>(\d)</text>', svg) == ["2"]
    assert 'aria-label="1 pieces, 2 levels high"' in svg


def test_three_levels_are_painted_far_to_near_and_low_to_high():
    state = nanku([[0, 0, 0, W], [1, 0, 0, B]], [[0, 1, 0, B], [1, 1, 0, W]],
                  [[0, 0, 1, W], [0, 1, 1, B]], [[1, 0, 1, B], [1, 0, 2, W]])
    load_rules({"game": "nanku"}).state_from_json(state)  # a structure that can stand
    svg = board_svg(state)
    order = [tuple(map(int, cell.split(","))) for cell in cells(svg)]
    assert len(order) == 8
    # A cube covering another (nearer: higher x + y, or higher: z) always comes later.
    assert [sum(cell) for cell in order] == sorted(sum(cell) for cell in order)
    assert order.index((0, 0, 0)) < order.index((0, 0, 1)) < order.index((1, 0, 2))
    assert order.index((0, 0, 0)) < order.index((1, 1, 0))
    assert sorted(re.findall(r'<text class="level"[^>]*>(\d)</text>', svg)) == ["2", "2", "2", "3"]
    view_box = [float(v) for v in re.search(r'viewBox="([-\d. ]+)"', svg).group(1).split()]
    assert 200 < view_box[2] < 450  # a phone's width shows it near actual size


def test_a_winning_line_is_outlined_and_joined():
    # White's four in a line along x; the black cubes point every other way, so black has none.
    state = nanku([[0, 0, 0, W], [0, 1, 0, B]], [[1, 0, 0, W], [1, 0, 1, B]],
                  [[2, 0, 0, W], [2, -1, 0, B]], [[3, 0, 0, W], [3, 1, 0, B]])
    rules = load_rules({"game": "nanku"})
    assert rules.outcome(rules.state_from_json(state)).winner == W
    svg = board_svg(state)
    won = sorted(cell for classes, _, cell in cubes(svg) if classes.endswith(" win"))
    assert won == ["0,0,0", "1,0,0", "2,0,0", "3,0,0"]
    assert svg.count('class="win-line"') == 1
    assert all(f"x{x}" in svg for x in range(4))  # coordinates stay the state's own when turned


def test_the_view_turns_so_a_line_behind_the_structure_faces_the_viewer():
    hidden = nanku([[0, 0, 0, W], [0, 1, 0, B]], [[1, 0, 0, W], [1, 1, 0, B]],
                   [[2, 0, 0, W], [2, -1, 0, B]], [[3, 0, 0, W], [3, 1, 0, B]])
    svg = board_svg(hidden)
    # Unturned, black's cubes at y = 1 would stand between the viewer and white's line at y = 0;
    # turned, white's line is painted after the black cubes beside it.
    order = cells(svg)
    assert order.index("1,0,0") > order.index("1,1,0")


def test_a_cube_with_nothing_under_it_is_shown_so_a_correction_can_fix_it():
    svg = board_svg(nanku([[0, 0, 1, W], [1, 0, 1, B]]))
    assert [classes for classes, _, _ in cubes(svg)] == ["cube white floating", "cube black floating"]
    assert "nothing under it" in svg


@pytest.mark.parametrize("state, reason", [
    ({"game": "nanku"}, "a Nanku position is"),
    (nanku([[0, 0, 0, W]]), "piece 1 is not two cubes"),
    (nanku([[0, 0, 0, W], [1, 0, 0, W]]), "one white and one black"),
    (nanku([[0, 0, 0, W], [2, 0, 0, B]]), "do not share a face"),
    (nanku([[0, 0, 0, W], [0, 0, -1, B]]), "below the table"),
    (nanku([[0, 0, 0.5, W], [1, 0, 0, B]]), "whole-number"),
    (nanku([[0, 0, 0, "red"], [1, 0, 0, B]]), "neither white nor black"),
    (nanku([[0, 0, 0, W], [1, 0, 0, B]], [[1, 0, 0, W], [2, 0, 0, B]]), r"two cubes at \(1,0,0\)"),
    (nanku([[0, 0, 0, W], [1, 0, 0, B]], [[10**9, 0, 0, W], [10**9 + 1, 0, 0, B]]),
     "more than the 40 pieces can reach"),
    (nanku(*[[[2 * i, 0, 0, W], [2 * i + 1, 0, 0, B]] for i in range(41)]), "supply holds only 40"),
])
def test_bad_positions_are_refused_in_one_line(state, reason):
    with pytest.raises(ArbiterError, match=reason):
        board_svg(state)


def test_the_chart_follows_each_colours_longest_line():
    first, second = [[0, 0, 0, W], [0, 1, 0, B]], [[1, 0, 0, W], [1, 1, 0, B]]
    states = [nanku(), nanku(first), nanku(first, second)]
    assert longest_lines(states) == [{W: 0, B: 0}, {W: 1, B: 1}, {W: 2, B: 2}]


def test_calibration_findings_use_players_words_and_skip_missing_keys():
    assert nanku_findings({}) == ["The first piece was found on the table."]
    words = " ".join(nanku_findings({"cube_px": 41.6, "tilt_degrees": 18.2, "height_cubes": 24.4}))
    assert "about 42 pixels" in words and "18°" in words and "about 24 cubes above the table" in words
    assert "straight down" in " ".join(nanku_findings({"tilt_degrees": 0.4}))
    assert web_game("nanku").piece_word == "cube" and "first piece" in web_game("nanku").calibration_hint


class ReadExactly:
    """A camera reading of one position: a candidate fits when it holds the same pieces."""

    def __init__(self, state: dict, confidence: float = 0.95):
        self.state = {k: v for k, v in state.items() if k != "to_move"}
        self.confidence = confidence

    def to_json(self) -> dict:
        return {"state": self.state, "confidence": self.confidence, "evidence": {}}

    def best_log_likelihood(self, following=None) -> float:
        return 0.0

    def best_reading(self, following=None) -> dict:
        return self.state

    def log_likelihood(self, state: dict) -> float:
        def pieces(state):
            return sorted(sorted(map(tuple, piece)) for piece in state["pieces"])
        return 0.0 if pieces(state) == pieces(self.state) else -24.0


def test_the_correction_page_lists_pieces_for_a_nanku_table(tmp_path):
    rules = load_rules({"game": "nanku"})
    positions = [nanku(to_move=W), nanku([[0, 0, 0, W], [1, 0, 0, B]], to_move=B)]

    def recognise(frame, profile):
        index = frame_index(frame)
        return ReadExactly(positions[index]) if 0 <= index < len(positions) else ReadExactly(positions[0], 0.0)

    with Store(tmp_path / "n.sqlite3") as store:
        observations = LatestObservation(recognise)
        tracker = Tracker(rules, {"game": "nanku"}, store, open_game(store, rules), recognize=observations)
        companion = Companion(tracker, None, observations=observations)
        table = ScriptedTable(tracker, companion, positions)
        table.show(0)
        table.show(1)
        client = create_app(companion).test_client()
        editor = client.get("/correct").get_data(as_text=True)
        assert 'data-piece="0"' in editor and 'id="add-direction"' in editor and "correct-nanku.js" in editor
        assert "Tap a cube" in editor and "<option value='\"black\"'" in editor
        assert client.get("/static/correct-nanku.js").status_code == 200
        assert 'class="board nanku"' in client.get("/table").get_data(as_text=True)
        scores = client.get("/scores").get_data(as_text=True)
        assert "<title>Longest line of each player&#x27;s colour</title>" in scores
