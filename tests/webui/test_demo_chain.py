"""The demos' whole chain off the clock: rendered pictures -> recogniser -> tracker -> store."""
import pytest

from arbiter.demo import demo_games, load_demo_game
from arbiter.serving import build_demo


@pytest.mark.parametrize("game", demo_games())
def test_demo_judges_every_move_and_catches_the_one_mistake(tmp_path, game):
    companion = build_demo(tmp_path / "demo.sqlite3", game, still_frames=10, realtime=False)
    events = []
    companion.tracker.subscribe(events.append)
    companion.tracker.run(companion.camera)
    judged = [e for e in events if e["type"] in ("transition", "illegal")]
    steps = load_demo_game(game)["steps"]
    assert [e["move"] for e in judged if e["type"] == "transition"] == [None] + [step["move"] for step in steps]
    illegal = [index for index, e in enumerate(judged) if e["type"] == "illegal"]
    mistaken_step = next(number for number, step in enumerate(steps, 1) if "instead" in step)
    # The mistaken picture is judged right after the move before it, then the move is put right.
    assert illegal == [mistaken_step]
    assert judged[mistaken_step + 1]["move"] == steps[mistaken_step - 1]["move"]
    verdicts = [m.verdict for m in companion.store.moves(companion.tracker.game_id)]
    assert verdicts.count("illegal") == 1 and verdicts.count("move") == len(steps)
    companion.store.close()
