"""The demo's whole chain off the clock: rendered pictures -> recogniser -> tracker -> store."""
from webui.server import build_demo, load_demo_game


def test_demo_judges_every_move_and_catches_the_slipped_seed(tmp_path):
    companion = build_demo(tmp_path / "demo.sqlite3", still_frames=10, realtime=False)
    events = []
    companion.tracker.subscribe(events.append)
    companion.tracker.run(companion.camera)
    judged = [e for e in events if e["type"] in ("transition", "illegal")]
    steps = load_demo_game()["steps"]
    expected_moves = [None] + [step["move"] for step in steps]
    assert [e["move"] for e in judged if e["type"] == "transition"] == expected_moves
    illegal = [index for index, e in enumerate(judged) if e["type"] == "illegal"]
    slipped_step = next(number for number, step in enumerate(steps, 1) if "slip" in step)
    # The slipped picture is judged right after the move before it, then the move is put right.
    assert illegal == [slipped_step]
    assert judged[slipped_step + 1]["move"] == steps[slipped_step - 1]["move"]
    verdicts = [m.verdict for m in companion.store.moves(companion.tracker.game_id)]
    assert verdicts.count("illegal") == 1 and verdicts.count("move") == len(steps)
    companion.store.close()
