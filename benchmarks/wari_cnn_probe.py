"""Probe: can a small convolutional network trained only on our own renders count the bench's pits?

Usage (PyTorch is not a project dependency; install it beside the project for this probe only):
    pip install torch==2.13.0
    python3 benchmarks/wari_cnn_probe.py --train DIR [DIR ...] --test DIR [DIR ...] [--epochs 12] [--scale-jitter 0.08]
        [--save WEIGHTS.pt | --load WEIGHTS [WEIGHTS ...]] [--start WEIGHTS [--blend SHARE]] [--export vision/data/wari_pile_counter.onnx]
        [--network-power P] [--quarter-turns T [T ...]] [--pile-from N] [--camera NAME]
(WEIGHTS: a --save file, or an ONNX export such as the shipped vision/data/wari_pile_counter.onnx,
the trained network in floats, which needs `pip install onnx` too.)

Each DIR is a bench-format session (`render_wari_session.py` writes them; `../shared/bench/wari/S*`
are the bench's). Every session is calibrated on its start photo like `recognize` would be, and
each position and game photo gives one crop per pit, centred on the calibrated pit and cut as
`recognize` cuts it (`CROP_RADII` pit radii from the middle to each side, scaled to the seeds by
`crop_scale`, at that pit's own scale, perspective included), scaled to 64x64 and labelled with
the pit's true count. A classifier of counts 0..MAX_COUNT is trained on the --train crops
(turned, scaled, flipped, colour channels swapped, brightness, noise and blur varied, so that it
learns seeds rather than one session's look) and prints, for each --test session, the
exact share of its pits by true count, with the share read too low, and the same for the count
posterior of `recognize`'s hand-made cues alone and with the network (`vision.wari_pile_counter`:
each crop read at the first of its QUARTER_TURNS, and at all of them where `recognize` looks again),
with how often the truth stays in the distribution and, for the distributions, their log-loss on
pits of 6 or more (a sure misread costs most there, and spends the tracker's margin); with
several --test sessions, the same for all of them pooled. `--network-power` combines them as
`recognize` would with another NETWORK_POWER; `--quarter-turns` and `--pile-from` read and
gate as it would with other QUARTER_TURNS and PILE_FROM. `--camera` re-shoots the --test
sessions through another of `reshoot.py`'s cameras, as `bench_wari_vision.py --camera` does.
`--training` sessions of `render_wari_session.py` are the training data it was written for.
`--scale-jitter` sets how far each training crop is scaled either way. `--blend` keeps part of
what `--start`'s weights knew: the network saved, exported and tested is the start moved that
share of the way to the weights trained on. `--export` writes the network as ONNX (needs
`pip install onnx` too); `benchmarks/quantize_pile_counter.py` then makes from it the 8-bit
network that `vision.wari_pile_counter` runs with ONNX Runtime, and which the readings "as
recognize would" here use.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.wari import WariProfile, colour_image_for, region_posteriors
from vision import wari_pile_counter
from vision.wari_count import plausible_counts
from vision.wari_pile_counter import CROP, CROP_SCALE_RANGE, looks_again, needs_network, pit_crops, standardised, turned, with_network
from vision.wari_seeds import working_frame

from bench_wari_vision import BUCKETS, PIT_COUNT, session_photos  # beside these scripts
from reshoot import CAMERAS

MAX_COUNT = 24  # piles above this are labelled this
BATCH = 64
RATE = 3e-3  # the learning rate's peak
FURTHER_RATE = 1e-3  # its peak when training on from saved weights (--start)
# Crops are scaled by up to this share either way in training, so that the pile's size against the
# crop does not decide its count; recognition scales crops to the seeds within the same range.
SCALE_JITTER = CROP_SCALE_RANGE
LOG_LOSS_FROM = 6  # the pits the log-loss is taken over: those of this many seeds or more


def session_crops(folder: Path, camera: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(crops N x 64 x 64 x 3, true counts N, `recognize`'s count posteriors N x 49, whether the
    cues miss seeds on the board, N) of every pit of every position and game photo of a session,
    re-shot through `camera` as `bench_wari_vision.py --camera` re-shoots them."""
    _, profile, photos = session_photos(folder, camera)
    calibrated = WariProfile.from_json(profile)
    crops, counts, posteriors = [], [], []
    for image, item, _ in photos:
        image = colour_image_for(image, calibrated.geometry)
        posteriors += region_posteriors(calibrated, working_frame(image))[1][:PIT_COUNT]
        crops += list(pit_crops(image, calibrated.geometry, calibrated.seed_diameter, list(range(PIT_COUNT))))
        counts += item["pits"]
    return np.array(crops), np.array(counts), np.array(posteriors), np.full(len(counts), calibrated.cues_miss_seeds)


def varied(crops: np.ndarray, rng: np.random.Generator, scale_jitter: float) -> np.ndarray:
    out = np.empty_like(crops)
    for index, crop in enumerate(crops):
        scale = rng.uniform(1 - scale_jitter, 1 + scale_jitter)
        turn = cv2.getRotationMatrix2D((CROP / 2, CROP / 2), rng.uniform(0, 360), scale)
        crop = cv2.warpAffine(crop, turn, (CROP, CROP), borderMode=cv2.BORDER_REFLECT)
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        if rng.random() < 0.5:
            crop = crop[..., rng.permutation(3)]
        crop = np.clip(crop * rng.uniform(0.7, 1.3) + rng.normal(0, 6, crop.shape), 0, 255).astype(np.uint8)
        if rng.random() < 0.3:
            crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.5, 1.2))
        out[index] = crop
    return out


def counter_network(torch):
    """Four blocks of two 3x3 convolutions, each halving the crop, then a classifier of counts."""
    nn = torch.nn
    widths = (3, 24, 48, 64, 96)
    layers = []
    for before, after in zip(widths, widths[1:]):
        layers += [nn.Conv2d(before, after, 3, padding=1), nn.BatchNorm2d(after), nn.ReLU()]
        layers += [nn.Conv2d(after, after, 3, padding=1), nn.BatchNorm2d(after), nn.ReLU(), nn.MaxPool2d(2)]
    side = CROP // 16
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(widths[-1] * side * side, 128), nn.ReLU(), nn.Linear(128, MAX_COUNT + 1))


def saved_network(torch, path: Path):
    """The network saved at `path`: weights written by --save, or an ONNX export (--export; the
    shipped vision/data/wari_pile_counter.onnx), whose batch norms were folded into the
    convolutions before them. Those come back as convolutions with the folded weights and norms
    that pass their input through, frozen (not trained, and kept to their stored statistics:
    see `train`)."""
    network = counter_network(torch)
    if path.suffix != ".onnx":
        network.load_state_dict(torch.load(path))
        return network
    import onnx  # pip install onnx, as for --export
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    layers = {"Conv": torch.nn.Conv2d, "Gemm": torch.nn.Linear}
    for op, kind in layers.items():
        nodes = [node for node in graph.node if node.op_type == op]
        modules = [module for module in network.modules() if isinstance(module, kind)]
        if len(nodes) != len(modules):
            raise ValueError(f"{path} has {len(nodes)} {op} layers, the counter network {len(modules)}")
        for node, module in zip(nodes, modules):
            module.weight.data = torch.from_numpy(weights[node.input[1]].copy())
            module.bias.data = torch.from_numpy(weights[node.input[2]].copy())
    for norm in network.modules():
        if isinstance(norm, torch.nn.BatchNorm2d):
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.data.fill_(1.0)
            norm.bias.data.zero_()
            norm.weight.requires_grad_(False)
            norm.bias.requires_grad_(False)
    return network


def train(torch, crops: np.ndarray, counts: np.ndarray, epochs: int, start: Path | None, scale_jitter: float):
    """A network trained on the crops, from scratch or (start) on from saved weights, at a
    lower rate so that it keeps what it learned."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    network = saved_network(torch, start) if start else counter_network(torch)
    frozen_norms = [
        norm for norm in network.modules() if isinstance(norm, torch.nn.BatchNorm2d) and not norm.weight.requires_grad
    ]
    optimiser = torch.optim.AdamW([w for w in network.parameters() if w.requires_grad], 2e-3, weight_decay=1e-4)
    steps = epochs * -(-len(crops) // BATCH)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, FURTHER_RATE if start else RATE, total_steps=steps)
    labels = np.minimum(counts, MAX_COUNT)
    for _ in range(epochs):
        network.train()
        for norm in frozen_norms:
            norm.eval()
        order = rng.permutation(len(crops))
        for first in range(0, len(crops), BATCH):
            batch = order[first : first + BATCH]
            inputs = torch.from_numpy(standardised(varied(crops[batch], rng, scale_jitter)))
            loss = torch.nn.functional.cross_entropy(network(inputs), torch.from_numpy(labels[batch]).long())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
    return network.eval()


def blended(start, trained, share: float):
    """`start`'s network with each weight moved this share of the way to `trained`'s (trained on
    from `start`, so the two lie in one basin): fine-tuning on a few new renders gains on boards
    like them and forgets some of the rest; part of the way keeps most of both (Wortsman et al.,
    "Robust fine-tuning of zero-shot models", CVPR 2022)."""
    weights = trained.state_dict()
    start.load_state_dict({
        name: (1 - share) * value + share * weights[name] if value.is_floating_point() else value
        for name, value in start.state_dict().items()
    })
    return start.eval()


def report(name: str, counts: np.ndarray, read: np.ndarray, distributions: list[dict[int, float]] | None = None) -> None:
    """Exact share by true count (and how often the truth is in the distribution); with the
    distributions, also their log-loss: the mean of -log(the truth's probability), over pits of 6
    or more, where a sure misread costs most and the tracker's margin is spent."""
    parts = []
    for low, high in BUCKETS:
        chosen = (counts >= low) & (counts <= high)
        if chosen.any():
            exact, under = np.mean(read[chosen] == counts[chosen]), np.mean(read[chosen] < counts[chosen])
            part = f"{low}-{high}: {chosen.sum()} pits, exact {100 * exact:.1f}% (under {100 * under:.1f}%)"
            if distributions is not None:
                inside = np.mean([n in d for n, d, keep in zip(counts, distributions, chosen) if keep])
                part += f", truth in distribution {100 * inside:.1f}%"
            parts.append(part)
    if distributions is not None:
        piles = counts >= LOG_LOSS_FROM
        losses = [-np.log(max(d.get(int(n), 0.0), 1e-12)) for n, d, keep in zip(counts, distributions, piles) if keep]
        parts.append(f"log-loss on pits of {LOG_LOSS_FROM}+ {np.mean(losses):.3f}")
    print(f"{name}: " + "; ".join(parts))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, nargs="+", default=[])
    parser.add_argument("--test", type=Path, nargs="+", required=True)
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot the --test sessions' photos through another camera")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument(
        "--scale-jitter", type=float, default=SCALE_JITTER,
        help=f"scale training crops by up to this share either way (default {SCALE_JITTER})",
    )
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument("--save", type=Path, help="write the trained network's weights here")
    weights.add_argument(
        "--load", type=Path, nargs="+",
        help="test these weights (--save's, or an ONNX export such as the shipped network) instead of training;"
        " several: their probabilities averaged",
    )
    parser.add_argument("--start", type=Path, help="train on from these weights (as --load) instead of from scratch")
    parser.add_argument(
        "--blend", type=float,
        help="with --start: keep this share of the weights trained on and the rest of --start's (weight-space averaging)",
    )
    parser.add_argument("--export", type=Path, help="write the network as ONNX here, for vision.wari_pile_counter")
    parser.add_argument(
        "--network-power", type=float,
        help=f"combine with the network's probabilities raised to this power (recognize's: {wari_pile_counter.NETWORK_POWER})",
    )
    parser.add_argument(
        "--quarter-turns", type=int, nargs="+", choices=range(4),
        help=f"read each crop at these quarter turns (recognize's: {' '.join(map(str, wari_pile_counter.QUARTER_TURNS))})",
    )
    parser.add_argument(
        "--pile-from", type=int,
        help=f"ask the network about pits the cues give this many seeds or more (recognize's: {wari_pile_counter.PILE_FROM})",
    )
    args = parser.parse_args(argv)
    if args.network_power is not None:
        wari_pile_counter.NETWORK_POWER = args.network_power
    if args.quarter_turns:
        wari_pile_counter.QUARTER_TURNS = tuple(args.quarter_turns)
    if args.pile_from is not None:
        wari_pile_counter.PILE_FROM = args.pile_from
    if not (args.train or args.load):
        parser.error("--train or --load is needed")
    if args.start and args.load:
        parser.error("--start goes with --train, not with --load")
    if args.blend is not None and not (args.start and 0 <= args.blend <= 1):
        parser.error("--blend needs --start and a share from 0 to 1")
    try:
        import torch
    except ImportError:
        print("this probe needs PyTorch: pip install torch==2.13.0", file=sys.stderr)
        return 2
    if args.export and args.load and len(args.load) > 1:
        parser.error("--export writes one network: give --load one")
    if args.load:
        networks = [saved_network(torch, path).eval() for path in args.load]
    else:
        networks = [trained_on(torch, args.train, args.epochs, args.start, args.scale_jitter)]
        if args.blend is not None:
            networks = [blended(saved_network(torch, args.start), networks[0], args.blend)]
        if args.save:
            torch.save(networks[0].state_dict(), args.save)
    if args.export:
        example = torch.zeros(1, 3, CROP, CROP)
        torch.onnx.export(
            networks[0], example, str(args.export), dynamo=False, input_names=["crops"], output_names=["logits"],
            dynamic_axes={"crops": {0: "pits"}, "logits": {0: "pits"}},
        )
    tested = []
    for folder in args.test:
        try:
            test_crops, test_counts, posteriors, cues_miss_seeds = session_crops(folder, args.camera)
        except ArbiterError as error:
            print(f"{folder}: not tested, calibration failed: {error}")
            continue
        with torch.no_grad():
            inputs = standardised(test_crops)
            by_turn = np.stack([  # pits x quarter turns x counts
                np.mean([torch.softmax(network(torch.from_numpy(turned(inputs, turns))), dim=1).numpy() for network in networks], axis=0)
                for turns in wari_pile_counter.QUARTER_TURNS
            ], axis=1)
        tested.append((test_counts, posteriors, by_turn, cues_miss_seeds))
        report_readings(str(folder), test_counts, posteriors, by_turn, cues_miss_seeds)
    if len(tested) > 1:
        report_readings(f"all {len(tested)} tested sessions", *(np.concatenate(parts) for parts in zip(*tested)))
    return 0


def report_readings(
    name: str, counts: np.ndarray, posteriors: np.ndarray, by_turn: np.ndarray, cues_miss_seeds: np.ndarray
) -> None:
    """The network's (every quarter turn), the hand-made cues' and (as `recognize` combines them,
    on boards where the cues miss seeds too) both readings of the pits."""
    report(f"{name} network", counts, by_turn.mean(axis=1).argmax(axis=1))
    hand_made = [plausible_counts(p) for p in posteriors]
    report(f"{name} hand-made cues", counts, posteriors.argmax(axis=1), hand_made)
    joint = [weighed_as_recognize_does(*pit) for pit in zip(hand_made, posteriors, by_turn, cues_miss_seeds)]
    report(f"{name} both", counts, np.array([next(iter(counts)) for counts in joint]), joint)


def weighed_as_recognize_does(
    plausible: dict[int, float], posterior: np.ndarray, by_turn: np.ndarray, cues_miss_seeds: bool
) -> dict[int, float]:
    """A pit's plausible counts weighed with the network's readings (one row a quarter turn) as
    `recognize` weighs them: if the pit `needs_network`, at the first turn, and at every turn if
    it `looks_again`; adding counts where the cues miss seeds."""
    if not needs_network(posterior, cues_miss_seeds):
        return plausible
    weighed = with_network(plausible, by_turn[0], adds=cues_miss_seeds)
    if not looks_again(weighed):
        return weighed
    return with_network(plausible, by_turn.mean(axis=0), adds=cues_miss_seeds)


def trained_on(torch, folders: list[Path], epochs: int, start: Path | None, scale_jitter: float):
    training = []
    for folder in folders:
        try:
            training.append(session_crops(folder)[:2])
        except ArbiterError as error:  # an unseen board the calibration cannot read: left out, and said
            print(f"{folder}: not used, calibration failed: {error}")
    crops, counts = (np.concatenate(parts) for parts in zip(*training))
    print(
        f"training on {len(counts)} pits of {len(training)} sessions, {epochs} epochs, scale jitter {scale_jitter}"
        + (f", from {start}" if start else "")
    )
    return train(torch, crops, counts, epochs, start, scale_jitter)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
