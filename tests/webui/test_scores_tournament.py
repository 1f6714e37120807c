"""Scores, CSV export and the tournament pages, driven through the record store."""
import csv
import io
import re

from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import Tracker
from engines import load_rules
from tests.tracker.fakes import ScriptedRecogniser
from tests.webui.conftest import ScriptedTable, csrf_of
from webui.app import create_app
from webui.companion import Companion, LatestObservation


def finished_wari_game(store, names, scores):
    """A match between named players with one finished game of the given (south, north) scores."""
    known = {p["name"]: p["id"] for p in store.players()}
    ids = [known.get(name) or store.add_player(name) for name in names]
    match_id = store.new_match({"game": "wari", "variant": "pbmserv"}, ids)
    game_id = store.new_game(match_id)
    south, north = scores
    winner = "south" if south > north else "north" if north > south else None
    store.finish_game(game_id, {"over": True, "winner": winner, "scores": {"south": south, "north": north}})
    return match_id


def test_scores_page_shows_the_current_game_and_every_match(table, client):
    for index in range(3):
        table.show(index)
    store = table.tracker.store
    finished_wari_game(store, ["Ama", "Kofi"], (30, 18))
    page = client.get("/scores").get_data(as_text=True)
    assert "Seeds captured this game" in page and "<polyline" in page
    assert "■ Ama (South) 0" in page and "■ Kofi (North)" in page  # the chart names sides as the tables do
    assert "Ama" in page and "Kofi" in page and "30" in page


def test_scores_csv_has_one_row_per_player_per_finished_game(table, client):
    store = table.tracker.store
    match_id = finished_wari_game(store, ["Ama", "Kofi"], (30, 18))
    response = client.get("/scores.csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(r["player"], r["score"], r["winner"], r["entered"]) for r in rows if r["match"] == str(match_id)] == [
        ("Ama", "30", "Ama", "camera"), ("Kofi", "18", "Ama", "camera")]


def test_move_log_csv_of_a_match_and_of_a_missing_one(table, client):
    table.show(0)
    match_id = table.tracker.store.game(table.tracker.game_id)["match_id"]
    text = client.get(f"/matches/{match_id}/moves.csv").get_data(as_text=True)
    assert text.splitlines()[0].startswith("match,game,id") and ",start," in text
    assert client.get("/matches/999/moves.csv").status_code == 404


def post_form(client, url, **fields):
    return client.post(url, data={"csrf_token": csrf_of(client), **fields})


def paired_tournament(client, names, game="wari", system="swiss", title="T") -> int:
    """A tournament of the named players with its first round paired; its id."""
    for name in names:
        post_form(client, "/tournament/players", name=name)
    tournament_id = int(post_form(client, "/tournament/new", name=title).headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": game, "system": system, "entrant": list(names)})
    return tournament_id


def test_round_robin_tournament_from_roster_to_standings(table, client):
    for name in ("Ama", "Kofi", "Yaw"):
        assert post_form(client, "/tournament/players", name=name).status_code == 303
    created = post_form(client, "/tournament/new", name="Club night")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    paired = client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "round_robin", "entrant": ["Ama", "Kofi", "Yaw"]})
    assert paired.status_code == 303
    store = table.tracker.store
    matches = store.matches(tournament_id)
    assert len(matches) == 2  # one game and one bye among three entrants
    game = next(m for m in matches if len(m["players"]) == 2)
    # The next round waits for this round's results.
    too_soon = post_form(client, f"/tournament/{tournament_id}/pair", game="wari", system="round_robin")
    assert too_soon.status_code == 400 and "enter every result" in too_soon.get_data(as_text=True)
    assert post_form(client, f"/tournament/match/{game['id']}/result", home_score="25", away_score="23").status_code == 303
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert "Round 1" in page and "25 : 23" in page and "has a bye" in page
    scores = client.get("/scores").get_data(as_text=True)
    assert "result entered by hand" not in scores  # the table's own match is the current one
    assert scores.count("(tournament") == 1  # the game, not the bye
    rows = list(csv.DictReader(io.StringIO(client.get("/scores.csv").get_data(as_text=True))))
    home, away = (p["name"] for p in game["players"])
    assert [(r["player"], r["score"], r["winner"], r["entered"]) for r in rows] == [
        (home, "25", home, "by hand"), (away, "23", home, "by hand")]
    winner = game["players"][0]["name"]
    assert f'<td class="num">1</td><td>{winner}</td>' in page or "leader" in page
    assert post_form(client, f"/tournament/{tournament_id}/pair", game="wari", system="round_robin").status_code == 303
    assert "Round 2" in client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)


def test_swiss_pairs_from_the_roster(table, client):
    tournament_id = paired_tournament(client, ("A", "B", "C", "D"), game="varanasi", title="Swiss")
    matches = table.tracker.store.matches(tournament_id)
    assert len(matches) == 2 and {m["game"] for m in matches} == {"varanasi"}


def test_a_pairing_played_at_the_table_is_judged_into_its_match(table, client):
    tournament_id = paired_tournament(client, ("Esi", "Yaw"), title="Cup")
    (pairing,) = table.tracker.store.matches(tournament_id)
    assert 'Play here</button>' in client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    seated = post_form(client, f"/tournament/match/{pairing['id']}/play")
    assert seated.status_code == 303 and seated.headers["Location"].endswith("/table")
    home, away = (p["name"] for p in pairing["players"])
    table.show(0)
    table.show(1)
    assert f"{away} (North) to move" in client.get("/table").get_data(as_text=True)
    store = table.tracker.store
    assert store.game(table.tracker.game_id)["match_id"] == pairing["id"]
    assert [m.verdict for m in store.moves(table.tracker.game_id)] == ["start", "move"]
    assert "at this table</span>" in client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    other_rules = store.new_match({"game": "wari", "variant": "abapa"})
    refused = post_form(client, f"/tournament/match/{other_rules}/play")
    assert refused.status_code == 400 and "this table judges" in refused.get_data(as_text=True)


def test_tournament_bad_requests(table, client):
    post_form(client, "/tournament/players", name="Ama")
    duplicate = post_form(client, "/tournament/players", name="Ama")
    assert duplicate.status_code == 400 and "already exists" in duplicate.get_data(as_text=True)
    tournament_id = int(post_form(client, "/tournament/new", name="T").headers["Location"].split("id=")[1])
    unknown_game = post_form(client, f"/tournament/{tournament_id}/pair", game="chess", system="swiss")
    assert unknown_game.status_code == 400 and "unknown game &#39;chess&#39;" in unknown_game.get_data(as_text=True)
    unknown_system = post_form(client, f"/tournament/{tournament_id}/pair", game="wari", system="knockout")
    assert unknown_system.status_code == 400
    assert post_form(client, "/tournament/999/pair", game="wari", system="swiss").status_code == 404
    assert client.get("/tournament?id=999").status_code == 404
    too_few = post_form(client, f"/tournament/{tournament_id}/pair", game="wari", system="swiss", entrant="Ama")
    assert too_few.status_code == 400 and "at least two" in too_few.get_data(as_text=True)


def test_results_must_be_numbers(table, client):
    tournament_id = paired_tournament(client, ("Ama", "Kofi"))
    match_id = table.tracker.store.matches(tournament_id)[0]["id"]
    response = post_form(client, f"/tournament/match/{match_id}/result", home_score="lots", away_score="2")
    assert response.status_code == 400 and "home score must be a number" in response.get_data(as_text=True)


def test_varanasi_table_pages_use_the_piece_set_and_the_match_format(tmp_path):
    rules = load_rules({"game": "varanasi", "target": 12})
    setup = {"game": "varanasi", "stacks": [["4red", "2blue"], ["3blue"], ["4blue", "1red"]], "to_move": 0}
    pieceset = {"game": "varanasi", "colours": {"red": {"srgb": [200, 35, 40]}, "blue": {"srgb": [35, 85, 200]}},
                "sizes": {str(size): {"diameter_mm": 13 + 7 * size} for size in range(1, 5)}}
    with Store(tmp_path / "v.sqlite3") as store:
        observations = LatestObservation(ScriptedRecogniser([setup]))
        tracker = Tracker(rules, {"game": "varanasi"}, store, open_game(store, rules), recognize=observations)
        companion = Companion(tracker, None, pieceset=pieceset, observations=observations)
        ScriptedTable(tracker, companion, [setup]).show(0)
        client = create_app(companion).test_client()
        table = client.get("/table").get_data(as_text=True)
        assert 'data-code="2blue"' in table and "Seat 1 to move" in table
        editor = client.get("/correct").get_data(as_text=True)
        assert 'data-colour="red"' in editor and 'data-colour="blue"' in editor and 'data-size="4"' in editor
        assert "<option value='1'" in editor  # two seats to choose the mover from
        assert "first to 12 points" in client.get("/scores").get_data(as_text=True)
        # Two finished sets: one won by seat 0 with 5 discs, one set by hand that nobody won.
        match_id = store.game(tracker.game_id)["match_id"]
        store.finish_game(tracker.game_id, {"over": True, "winner": 0, "scores": {"0": 5, "1": 0}})
        store.finish_game(store.new_game(match_id), {"over": True, "winner": None, "scores": {}})
        scores = client.get("/scores").get_data(as_text=True)
        assert re.search(r'<td>Seat 1</td>\s*<td class="num">5</td>', scores)
        assert "2 sets finished" in scores


def test_a_plain_chess_club_result_is_entered_with_one_button(table, client):
    tournament_id = paired_tournament(client, ("Ama", "Kofi"))
    match_id = table.tracker.store.matches(tournament_id)[0]["id"]
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert 'value="0.5-0.5"' in page and "<label>Ama <input" in page
    assert post_form(client, f"/tournament/match/{match_id}/result", result="0.5-0.5").status_code == 303
    result = table.tracker.store.match(match_id)["result"]
    assert result["scores"] == {"0": 0.5, "1": 0.5} and result["winner"] is None


def test_a_result_entered_by_hand_can_be_edited_and_deleted_and_stays_on_record(table, client):
    tournament_id = paired_tournament(client, ("Ama", "Kofi"))
    match_id = table.tracker.store.matches(tournament_id)[0]["id"]
    store = table.tracker.store
    post_form(client, f"/tournament/match/{match_id}/result", result="1-0")
    assert "<summary>Edit</summary>" in client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    post_form(client, f"/tournament/match/{match_id}/result", result="0-1")
    edited = store.match(match_id)["result"]
    assert edited["winner"] == 1 and edited["replaces"]["winner"] == 0
    assert post_form(client, f"/tournament/match/{match_id}/result/delete").status_code == 303
    deleted = store.match(match_id)
    assert deleted["finished_at"] is None and deleted["result"]["withdrawn"]["winner"] == 1
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert 'value="0.5-0.5"' in page  # undecided again: the result can be entered anew
    refused = post_form(client, f"/tournament/match/{match_id}/result/delete")
    assert refused.status_code == 400 and "only a result entered by hand" in refused.get_data(as_text=True)


def test_standings_download_as_csv_in_their_order(table, client):
    for name in ("Ama", "Kofi", "=cmd|calc"):
        assert post_form(client, "/tournament/players", name=name).status_code == 303
    created = post_form(client, "/tournament/new", name="Club night (Dec)")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "round_robin", "entrant": ["Ama", "Kofi", "=cmd|calc"]})
    game = next(m for m in table.tracker.store.matches(tournament_id) if len(m["players"]) == 2)
    home, away = (p["name"] for p in game["players"])
    post_form(client, f"/tournament/match/{game['id']}/result", home_score="30.5", away_score="18")
    reply = client.get(f"/tournament/{tournament_id}/standings.csv")
    assert reply.status_code == 200 and reply.mimetype == "text/csv"
    assert "Club-night--Dec-standings.csv" in reply.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(reply.get_data(as_text=True))))
    assert [r["place"] for r in rows] == ["1", "2", "3"]
    as_text = {name: f"'{name}" if name.startswith("=") else name for name in ("Ama", "Kofi", "=cmd|calc")}
    assert {r["entrant"] for r in rows} == set(as_text.values())  # "=cmd|calc" a spreadsheet reads as text
    assert rows[-1]["entrant"] == as_text[away] and rows[-1]["points"] == "0"  # the loser, last
    assert rows[-1]["wins"] == "0" and rows[-1]["losses"] == "1" and rows[-1]["score_difference"] == "-12.5"
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert f"/tournament/{tournament_id}/standings.csv" in page and "Club night (Dec)" in page
    assert client.get("/tournament/999/standings.csv").status_code == 404
    pairings = list(csv.DictReader(io.StringIO(client.get(f"/tournament/{tournament_id}/pairings.csv").get_data(as_text=True))))
    assert [(r["round"], r["table"], r["home"], r["away"], r["home_score"], r["away_score"], r["entered"])
            for r in pairings if r["away"]] == [("1", "1", as_text[home], as_text[away], "30.5", "18", "by hand")]
    assert [r["away"] for r in pairings if not r["away"]] == [""]  # the bye
    assert client.get("/tournament/999/pairings.csv").status_code == 404


def test_the_pairing_system_is_kept_from_the_first_round(table, client):
    names = ("Ama", "Kofi", "Yaw", "Esi")
    for name in names:
        post_form(client, "/tournament/players", name=name)
    created = post_form(client, "/tournament/new", name="Swiss night")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "swiss", "entrant": list(names)})
    store = table.tracker.store
    for match in store.matches(tournament_id):
        post_form(client, f"/tournament/match/{match['id']}/result", result="1-0")
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert "System: <strong>Swiss</strong>" in page and '<select name="system">' not in page
    # A form that still says round robin pairs Swiss all the same: the two winners meet.
    assert post_form(client, f"/tournament/{tournament_id}/pair", game="wari", system="round_robin").status_code == 303
    winners = {m["players"][0]["name"] for m in store.matches(tournament_id)[:2]}
    second = [{p["name"] for p in m["players"]} for m in store.matches(tournament_id)[2:]]
    assert winners in second


def test_a_complete_round_robin_offers_no_further_round(table, client):
    for name in ("Ama", "Kofi"):
        post_form(client, "/tournament/players", name=name)
    created = post_form(client, "/tournament/new", name="Final")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "round_robin", "entrant": ["Ama", "Kofi"]})
    match = table.tracker.store.matches(tournament_id)[0]
    post_form(client, f"/tournament/match/{match['id']}/result", result="0.5-0.5")
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert "The round robin is complete" in page and "Pair round 2" not in page


def test_swiss_seeds_by_rating_takes_late_entries_and_withdrawals(table, client):
    for name, rating in (("Ama", "2100"), ("Kofi", "1900"), ("Yaw", "1800"), ("Esi", "1700")):
        assert post_form(client, "/tournament/players", name=name, rating=rating).status_code == 303
    assert post_form(client, "/tournament/players", name="Kwame").status_code == 303  # unrated
    assert post_form(client, "/tournament/players", name="Abena", rating="strong").status_code == 400
    created = post_form(client, "/tournament/new", name="Open")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "swiss", "entrant": ["Ama", "Kofi", "Yaw", "Esi"]})
    store = table.tracker.store
    first = store.matches(tournament_id)
    # Seeded by rating, top half against bottom half: 1 v 3 and 2 v 4.
    assert [{p["name"] for p in m["players"]} for m in first] == [{"Ama", "Yaw"}, {"Kofi", "Esi"}]
    assert all(m["round"] == 1 for m in first)
    for match in first:
        post_form(client, f"/tournament/match/{match['id']}/result", result="1-0")
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert 'name="late" value="Kwame"' in page and "Withdraw" in page
    loser = first[0]["players"][1]["name"]
    assert post_form(client, f"/tournament/{tournament_id}/withdraw", entrant=loser).status_code == 303
    assert post_form(client, f"/tournament/{tournament_id}/withdraw", entrant="Nobody").status_code == 400
    paired = client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "late": ["Kwame"]})
    assert paired.status_code == 303
    second = store.matches(tournament_id)[2:]
    seated = [p["name"] for m in second for p in m["players"]]
    assert loser not in seated and "Kwame" in seated and sorted(seated) == sorted(
        {"Ama", "Kofi", "Yaw", "Esi", "Kwame"} - {loser})
    assert all(m["round"] == 2 for m in second)
    page = client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    assert "withdrew after round 1" in page and loser in page  # still ranked
    assert "Round 2" in page and "Kwame" in page


def test_a_round_robin_takes_no_late_entries_and_gives_a_withdrawn_entrants_opponents_byes(table, client):
    for name in ("Ama", "Kofi", "Yaw", "Esi", "Kwame"):
        post_form(client, "/tournament/players", name=name)
    created = post_form(client, "/tournament/new", name="League")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "round_robin", "entrant": ["Ama", "Kofi", "Yaw", "Esi"]})
    store = table.tracker.store
    for match in store.matches(tournament_id):
        post_form(client, f"/tournament/match/{match['id']}/result", result="0-1")
    late = client.post(f"/tournament/{tournament_id}/pair", data={"csrf_token": csrf_of(client), "game": "wari", "late": ["Kwame"]})
    assert late.status_code == 400 and "late entries join a Swiss" in late.get_data(as_text=True)
    post_form(client, f"/tournament/{tournament_id}/withdraw", entrant="Esi")
    assert client.post(f"/tournament/{tournament_id}/pair", data={"csrf_token": csrf_of(client), "game": "wari"}).status_code == 303
    second = store.matches(tournament_id)[2:]
    assert len(second) == 2 and sum(len(m["players"]) == 1 for m in second) == 1  # Esi's opponent sits out
    assert "Esi" not in [p["name"] for m in second for p in m["players"]]


def test_a_refused_form_shows_the_page_again_with_what_was_typed(table, client):
    post_form(client, "/tournament/players", name="Ama")
    again = post_form(client, "/tournament/players", name="Ama", rating="1850")
    page = again.get_data(as_text=True)
    assert again.status_code == 400 and "already exists" in page and "<h1>Tournament" in page
    assert 'value="Ama"' in page and 'value="1850"' in page
    post_form(client, "/tournament/players", name="Kofi")
    created = post_form(client, "/tournament/new", name="Cup")
    tournament_id = int(created.headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "swiss", "entrant": ["Ama", "Kofi"]})
    match = table.tracker.store.matches(tournament_id)[0]
    wrong = post_form(client, f"/tournament/match/{match['id']}/result", home_score="25", away_score="lots")
    page = wrong.get_data(as_text=True)
    assert wrong.status_code == 400 and "away score must be a number" in page
    assert 'name="home_score" min="0" step="any" value="25"' in page


def test_the_director_sets_and_changes_ratings_that_seed_the_next_swiss_round(table, client):
    for name in ("Ama", "Kofi", "Yaw", "Esi"):
        post_form(client, "/tournament/players", name=name)  # entered without ratings
    for name, rating in (("Esi", "2100"), ("Yaw", "1900"), ("Kofi", "1800"), ("Ama", "1750")):
        changed = post_form(client, "/tournament/players/rating", player=name, rating=rating)
        assert changed.status_code == 303
    assert post_form(client, "/tournament/players/rating", player="Ama", rating="1700.5").status_code == 303
    store = table.tracker.store
    assert {p["name"]: p["rating"] for p in store.players()} == {"Esi": 2100, "Yaw": 1900, "Kofi": 1800, "Ama": 1700.5}
    page = client.get("/tournament").get_data(as_text=True)
    assert "Ama · 1700.5" in page and "Esi · 2100" in page
    assert '<option value="Ama">Ama (1700.5)</option>' in page  # the current rating, beside the name
    tournament_id = int(post_form(client, "/tournament/new", name="Open").headers["Location"].split("id=")[1])
    client.post(f"/tournament/{tournament_id}/pair", data={
        "csrf_token": csrf_of(client), "game": "wari", "system": "swiss", "entrant": ["Ama", "Kofi", "Yaw", "Esi"]})
    # Seeded by the ratings set after entry, top half against bottom half: 1 v 3 and 2 v 4.
    assert [{p["name"] for p in m["players"]} for m in store.matches(tournament_id)] == [{"Esi", "Kofi"}, {"Yaw", "Ama"}]
    cleared = post_form(client, "/tournament/players/rating", player="Yaw", rating="", tournament=str(tournament_id))
    assert cleared.status_code == 303 and cleared.headers["Location"] == f"/tournament?id={tournament_id}"
    assert next(p["rating"] for p in store.players() if p["name"] == "Yaw") is None
    assert "Yaw is now unrated." in client.get(cleared.headers["Location"]).get_data(as_text=True)


def test_a_refused_rating_shows_the_page_again_with_the_reason_and_what_was_typed(table, client):
    post_form(client, "/tournament/players", name="Ama", rating="1800")
    post_form(client, "/tournament/players", name="Kofi")
    for typed, reason in (("strong", "rating must be a number, not &#39;strong&#39;"), ("-5", "rating must be 0 or more"),
                          ("12000", "a rating is a number from 0 to 9999"), ("nan", "rating must be 0 or more")):
        refused = post_form(client, "/tournament/players/rating", player="Kofi", rating=typed)
        page = refused.get_data(as_text=True)
        assert refused.status_code == 400 and "<h1>Tournament" in page and reason in page, typed
        # The rating form is open again, on the player chosen and holding what was typed.
        assert '<details class="no-print set-rating" open>' in page
        assert '<option value="Kofi" selected>Kofi</option>' in page and f'class="rating" value="{typed}"' in page
    unknown = post_form(client, "/tournament/players/rating", player="Nobody", rating="1500")
    assert unknown.status_code == 400 and "no player named &#39;Nobody&#39;" in unknown.get_data(as_text=True)
    assert {p["name"]: p["rating"] for p in table.tracker.store.players()} == {"Ama": 1800, "Kofi": None}


def test_a_rating_needs_the_directors_pin(table, pin_client):
    table.tracker.store.add_player("Ama", 1800)
    refused = pin_client.post("/tournament/players/rating", data={
        "csrf_token": csrf_of(pin_client), "player": "Ama", "rating": "2500", "back": "/tournament"})
    assert refused.status_code == 303 and "/unlock?next=/tournament" in refused.headers["Location"]
    assert table.tracker.store.players()[0]["rating"] == 1800
    with_pin = pin_client.post("/tournament/players/rating", data={"csrf_token": csrf_of(pin_client), "player": "Ama",
                                                                   "rating": "2500"}, headers={"X-Arbiter-Pin": "4321"})
    assert with_pin.status_code == 303 and table.tracker.store.players()[0]["rating"] == 2500


def test_the_guessable_tournament_csv_leads_to_the_latest_standings(table, client):
    missing = client.get("/tournament.csv")
    assert missing.status_code == 404 and "no tournament yet" in missing.get_data(as_text=True)
    post_form(client, "/tournament/new", name="Autumn")
    latest = int(post_form(client, "/tournament/new", name="Winter").headers["Location"].split("id=")[1])
    reply = client.get("/tournament.csv")
    assert reply.status_code == 302 and reply.headers["Location"].endswith(f"/tournament/{latest}/standings.csv")
    assert client.get("/tournament.csv", follow_redirects=True).mimetype == "text/csv"
