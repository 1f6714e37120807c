"""Rebuild every shipped network from scratch: render the training sessions, cut their crops, train, export, quantise, record.

Usage (from the repository root; PyTorch and onnx are needed: the `train` extra):
    python -m training.rebuild [--out DIR] [--workers N] [--ship]

Renders each of `training.recipe.TRAINING_RENDERS` into DIR/sessions/ (a session already rendered
there is kept: renders depend only on their arguments), cuts every pit of every position photo as
recognition cuts it (`training.crops`), trains the pile counter from scratch for EPOCHS with SEED
(`training.counter`), exports it as ONNX, quantises it to 8 bits with its activation ranges
measured on the same crops at four quarter turns (`training.quantise`), and writes
DIR/wari_pile_counter.onnx, DIR/wari_pile_counter_int8.onnx and DIR/rebuilt.json (the recipe's
arguments, the sessions used and refused, each file's sha256, the time of each step). With
`--ship` it copies both networks into vision/data/ and the record to training/rebuilt.json and
training/shipped.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np

from engines.errors import ArbiterError
from training import recipe
from training.crops import quarter_turned_inputs, session_crops

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPOSITORY / "build" / "training"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render(session: recipe.TrainingRender, into: Path) -> Path:
    """The session's folder, rendered unless a finished render is there already (written aside and
    renamed when done, so a folder with truth.json is whole)."""
    folder = into / session.name
    if (folder / "truth.json").is_file():
        return folder
    partial = into / f"{session.name}.part"
    shutil.rmtree(partial, ignore_errors=True)
    command = [sys.executable, "-m", "training.wari_render", str(partial), *session.arguments()]
    subprocess.run(command, check=True, cwd=REPOSITORY, stdout=subprocess.DEVNULL)
    partial.rename(folder)
    return folder


def render_all(into: Path, workers: int) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda session: render(session, into), recipe.TRAINING_RENDERS))


def cut_all(folders: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """Every session's crops and counts, the sessions used, and those calibration refused (left out)."""
    crops, counts, used, refused = [], [], [], []
    for folder in folders:
        try:
            session, truth = session_crops(folder)
        except ArbiterError as error:
            print(f"{folder.name}: left out, calibration refused it: {error}")
            refused.append(folder.name)
            continue
        crops.append(session)
        counts.append(truth)
        used.append(folder.name)
    return np.concatenate(crops), np.concatenate(counts), used, refused


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"working folder (default {DEFAULT_OUT})")
    parser.add_argument("--workers", type=int, default=1, help="sessions rendered at once")
    parser.add_argument("--epochs", type=int, default=recipe.EPOCHS, help="(timing runs only) the shipped networks take the recipe's")
    parser.add_argument("--ship", action="store_true", help="copy the networks into vision/data/ and the record to training/")
    args = parser.parse_args(argv)
    if args.ship and args.epochs != recipe.EPOCHS:
        parser.error("--ship ships the recipe's networks: leave --epochs at its default")
    try:
        import torch
    except ImportError:
        print("the rebuild needs PyTorch and onnx: pip install torch==2.13.0 onnx", file=sys.stderr)
        return 2
    from training.counter import export, train
    from training.quantise import quantise

    torch.set_num_threads(recipe.THREADS)
    seconds = {}
    started = time.perf_counter()
    folders = render_all(args.out / "sessions", args.workers)
    seconds["render"] = time.perf_counter() - started
    started = time.perf_counter()
    crops, counts, used, refused = cut_all(folders)
    seconds["crops"] = time.perf_counter() - started
    print(f"training on {len(counts)} pits of {len(used)} sessions ({len(refused)} refused), {args.epochs} epochs", flush=True)
    started = time.perf_counter()
    network = train(torch, crops, counts, args.epochs, recipe.SEED, log=lambda line: print(line, flush=True))
    seconds["train"] = time.perf_counter() - started
    float_file, int8_file = args.out / Path(recipe.FLOAT_NETWORK).name, args.out / Path(recipe.INT8_NETWORK).name
    export(torch, network, float_file)
    started = time.perf_counter()
    print(quantise(float_file, int8_file, quarter_turned_inputs(crops)), flush=True)
    seconds["quantise"] = time.perf_counter() - started
    record = {
        "command": "python -m training.rebuild --ship",
        "recipe": {
            "renders": [asdict(session) | {"arguments": session.arguments()} for session in recipe.TRAINING_RENDERS],
            "epochs": args.epochs, "seed": recipe.SEED, "threads": recipe.THREADS,
        },
        "versions": {"torch": torch.__version__, "onnx": __import__("onnx").__version__,
                     "onnxruntime": __import__("onnxruntime").__version__, "numpy": np.__version__},
        "sessions_used": used, "sessions_refused": refused, "pits": int(len(counts)),
        "seconds": {step: round(value) for step, value in seconds.items()},
        "files": {recipe.FLOAT_NETWORK: sha256(float_file), recipe.INT8_NETWORK: sha256(int8_file)},
    }
    (args.out / "rebuilt.json").write_text(json.dumps(record, indent=1) + "\n")
    if args.ship:
        shutil.copyfile(float_file, REPOSITORY / recipe.FLOAT_NETWORK)
        shutil.copyfile(int8_file, REPOSITORY / recipe.INT8_NETWORK)
        shutil.copyfile(args.out / "rebuilt.json", REPOSITORY / recipe.REBUILT_RECORD)
        shutil.copyfile(args.out / "rebuilt.json", REPOSITORY / recipe.SHIPPED_RECORD)
    print(json.dumps(record["files"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
