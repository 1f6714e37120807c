"""Every parser of outside JSON answers anything with a value or a one-line ArbiterError: never
another exception (a traceback for the CLI, a 500 for the web)."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.records import read_record
from engines import game_names, load_rules
from engines.errors import ArbiterError
from engines.json_input import parse_json
from engines.series import Series
from engines.varanasi_match import VaranasiMatch
from vision.varanasi_pieces import PieceSet
from vision.varanasi_profile import parsed_profile
from vision.wari import WariProfile

KEYS = st.sampled_from(["game", "pits", "stores", "to_move", "stacks", "pieces", "variant", "players", "sets",
                        "target", "take", "move", "onto", "player", "pit", "cubes", "colours", "sizes", "board",
                        "seen", "rules", "last_take", "collapsed", "x"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 60), st.floats(allow_nan=True),
                    st.sampled_from(["wari", "varanasi", "nanku", "south", "north", "white", "black", "a", "4red",
                                     "2blue", "", "pbmserv"]))
DOCUMENTS = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=12),
                                                          st.dictionaries(KEYS, inner, max_size=6)), max_leaves=40)
# Documents shaped like a game's: its name, then anything under the keys its parsers read.
GAME_DOCUMENTS = st.builds(lambda game, rest: {**rest, "game": game}, st.sampled_from(game_names()),
                           st.dictionaries(KEYS, DOCUMENTS, max_size=6))


def answers_in_one_line(parse, document) -> None:
    try:
        parse(document)
    except ArbiterError as error:
        assert "\n" not in str(error) and str(error)


@settings(max_examples=150)
@given(st.one_of(DOCUMENTS, GAME_DOCUMENTS))
def test_rules_states_and_moves_of_every_game(document):
    answers_in_one_line(load_rules, document)
    for game in game_names():
        rules = load_rules({"game": game})
        answers_in_one_line(rules.state_from_json, document)
        answers_in_one_line(rules.move_from_json, document)


@settings(max_examples=100)
@given(st.one_of(DOCUMENTS, GAME_DOCUMENTS))
def test_profiles_piece_sets_and_match_records(document):
    for parse in (WariProfile.from_json, parsed_profile, PieceSet.from_json, Series.from_json, VaranasiMatch.from_json):
        answers_in_one_line(parse, document)


# Records whose rules load, so that what follows them ("players", "start", "moves") is read too.
RECORD_DOCUMENTS = st.fixed_dictionaries(
    {"rules": st.sampled_from(game_names()).map(lambda game: {"game": game})},
    optional={"players": DOCUMENTS, "start": DOCUMENTS, "moves": DOCUMENTS})


@settings(max_examples=100)
@given(st.one_of(DOCUMENTS, RECORD_DOCUMENTS))
def test_game_records(document):
    answers_in_one_line(lambda record: read_record(record, "record.json"), document)


@settings(max_examples=100)
@given(DOCUMENTS, st.integers(0, 3))
def test_json_text_nested_to_any_depth(document, extra_depth):
    text = "[" * (extra_depth * 40) + json.dumps(document) + "]" * (extra_depth * 40)
    answers_in_one_line(lambda t: parse_json(t, "the document"), text)
