"""The director's store, on SQLite and on PostgreSQL: ingestion is token-checked, idempotent and
ordered; boards, standings and records follow the events."""
from __future__ import annotations

import pytest

from arbiter.director_events import EventError, check_batch
from arbiter.director_store import DirectorStore, SequenceGap, TokenRefused
from engines import check_record, load_rules
from tests.director.events import game_result, wari_game_events


@pytest.fixture
def store(director_db):
    with DirectorStore(director_db) as opened:
        yield opened


def test_a_batch_is_stored_once_and_acknowledged_again(store):
    token = store.new_token("A")
    batch = wari_game_events(3)
    assert store.ingest("A", token, batch) == 4
    assert store.ingest("A", token, batch) == 4  # a resend after a lost acknowledgement
    assert store.ingest("A", token, batch[1:3]) == 4
    assert [event["seq"] for event in store.events("A")] == [1, 2, 3, 4]
    assert store.events("A") == batch


def test_a_gap_is_refused_and_what_came_before_it_is_kept(store):
    token = store.new_token("A")
    batch = wari_game_events(5)
    with pytest.raises(SequenceGap) as refused:
        store.ingest("A", token, batch[2:])
    assert refused.value.acked == 0 and "gap" in str(refused.value)
    assert store.events("A") == []
    # Events up to a gap are kept; the table resends from the acknowledged seq.
    assert store.ingest("A", token, batch[:2] + batch[3:]) == 2
    assert store.ingest("A", token, batch[2:]) == 6
    assert [event["seq"] for event in store.events("A")] == list(range(1, 7))


def test_a_token_posts_only_for_its_own_table(store):
    token_a, token_b = store.new_token("A"), store.new_token("B")
    with pytest.raises(TokenRefused, match="does not belong to table 'B'"):
        store.ingest("B", token_a, wari_game_events(1))
    with pytest.raises(TokenRefused, match="no table named 'C'"):
        store.ingest("C", token_a, wari_game_events(1))
    with pytest.raises(TokenRefused):
        store.ingest("A", None, wari_game_events(1))
    assert store.ingest("B", token_b, wari_game_events(1)) == 2
    assert store.events("A") == []


def test_a_new_token_replaces_the_old_one(store):
    old = store.new_token("A")
    new = store.new_token("A")
    assert old != new
    with pytest.raises(TokenRefused):
        store.ingest("A", old, wari_game_events(1))
    assert store.ingest("A", new, wari_game_events(1)) == 2


def test_tables_boards_standings_and_records(store, director_db):
    tokens = {name: store.new_token(name) for name in ("A", "B")}
    store.ingest("A", tokens["A"], wari_game_events(3) + [game_result(5, "south", {"south": 26, "north": 10})])
    illegal = wari_game_events(2, players=("Esi", "Yaw"))
    illegal.append({**illegal[-1], "seq": 4, "row": {**illegal[-1]["row"], "id": 9, "verdict": "illegal",
                                                      "reason": "pit c was empty"}})
    store.ingest("B", tokens["B"], illegal)
    a, b = store.tables()
    assert (a["table"], a["acked"], a["players"], a["result"]["winner"]) == ("A", 5, ["Ama", "Kofi"], "south")
    assert a["to_move"] is None  # the game is over
    assert b["alert"] == "pit c was empty" and b["to_move"] == "Esi" and b["position"]["game"] == "wari"
    standings = store.standings()
    assert [(s["entrant"], s["points"]) for s in standings] == [("Ama", 1.0), ("Kofi", 0.0)]
    record = store.record("B")
    verdict = check_record(load_rules(record["rules"]), load_rules(record["rules"]).state_from_json(record["start"]),
                           [load_rules(record["rules"]).move_from_json(m) for m in record["moves"]])
    assert verdict["legal"] and len(record["moves"]) == 2 and record["players"] == ["Esi", "Yaw"]
    # A second handle on the same database (the director restarted) sees the same.
    with DirectorStore(director_db) as again:
        assert again.tables() == store.tables() and again.standings() == standings


@pytest.mark.parametrize("body, fragment", [
    ([], "a batch is an object"),
    ({"table": "", "events": [{}]}, "a table name"),
    ({"table": "A", "events": []}, "1 to 200 events"),
    ({"table": "A", "events": [{"seq": 0}]}, "seq is a whole number"),
    ({"table": "A", "events": [{"seq": 1, "kind": "log"}]}, '"match" needs'),
    ({"table": "A", "events": [{**wari_game_events(0)[0], "row": {"verdict": "moved"}}]}, '"row" needs'),
    ({"table": "A", "events": [{**wari_game_events(0)[0], "row": {**wari_game_events(0)[0]["row"],
                                                                  "state": {"a": [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}}}]},
     "nested more than"),
])
def test_batches_that_are_not_what_a_table_sends(body, fragment):
    with pytest.raises(EventError, match=fragment):
        check_batch(body)


@pytest.mark.parametrize("rules, result, players, line", [
    ({"game": "wari"}, {"over": True, "winner": "north", "scores": {"south": 10, "north": 26}}, ["Ama", "Kofi"],
     "Kofi won, 26 to 10"),
    ({"game": "wari"}, {"over": True, "winner": None, "scores": {"south": 24, "north": 24}}, ["Ama", "Kofi"],
     "Drawn, 24 to 24"),
    ({"game": "wari"}, {"over": True, "winner": "south", "scores": {"south": 25, "north": 3}}, [], "South won, 25 to 3"),
    ({"game": "varanasi"}, {"over": True, "winner": 1, "scores": {"0": 2, "1": 5}}, ["Esi", "Yaw"], "Yaw won, 5 to 2"),
])
def test_a_result_in_words(rules, result, players, line):
    from arbiter.director_events import result_line

    assert result_line({"rules": rules, "result": result, "players": players}) == line


def test_a_table_started_over_on_a_new_store_is_refused_not_dropped(store):
    from arbiter.director_store import SequenceConflict

    token = store.new_token("A")
    store.ingest("A", token, wari_game_events(3))
    # A new record store numbers from 1 again: its events are not duplicates of the ones held.
    started_over = wari_game_events(5, players=("Esi", "Yaw"))
    with pytest.raises(SequenceConflict, match="another record store reports as this table"):
        store.ingest("A", token, started_over)
    assert [event["match"]["players"] for event in store.events("A")] == [["Ama", "Kofi"]] * 4


def test_a_pairing_is_decided_as_the_tournament_page_decides_it(store):
    token = store.new_token("A")
    # Wari: the pairing's first finished game decides it; a second game at the table does not count.
    store.ingest("A", token, wari_game_events(1) + [
        game_result(3, "south", {"south": 25, "north": 3}),
        {**game_result(4, "north", {"south": 2, "north": 30}), "game": {"id": 2, "number": 2}}])
    assert [(s["entrant"], s["points"], s["played"]) for s in store.standings()] == [("Ama", 1.0, 1), ("Kofi", 0.0, 1)]
    # Varanasi to two sets: nothing until the match is over, then one result with the match score.
    rules = {"game": "varanasi", "sets": 2}
    match = {"id": 7, "rules": rules, "players": ["Esi", "Yaw"], "round": None}
    token_b = store.new_token("B")
    set_one = {"seq": 1, "kind": "game_result", "match": match, "game": {"id": 8, "number": 1},
               "result": {"over": True, "winner": 0, "scores": {"0": 3, "1": 1}}}
    store.ingest("B", token_b, [set_one])
    assert {s["entrant"] for s in store.standings()} == {"Ama", "Kofi"}
    set_two = {**set_one, "seq": 2, "game": {"id": 9, "number": 2},
               "result": {"over": True, "winner": 1, "scores": {"0": 0, "1": 4}}}
    store.ingest("B", token_b, [set_two])
    by_name = {s["entrant"]: s for s in store.standings()}
    assert (by_name["Yaw"]["points"], by_name["Esi"]["points"], by_name["Yaw"]["score_difference"]) == (1.0, 0.0, 2.0)
