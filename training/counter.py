"""The pile counter network, trained from scratch on labelled pit crops and exported as ONNX (needs PyTorch and onnx)."""
from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from vision.wari_pile_counter import CROP, CROP_SCALE_RANGE, standardised

MAX_COUNT = 24  # piles above this are labelled this: the last class reads "this many or more"
BATCH = 64
PEAK_RATE = 3e-3  # the one-cycle schedule's highest learning rate
WEIGHT_DECAY = 1e-4
# Training crops are scaled by up to this share either way, so that the pile's size against the
# crop does not decide its count; recognition scales crops to the seeds within the same range.
SCALE_JITTER = CROP_SCALE_RANGE
WIDTHS = (3, 24, 48, 64, 96)  # channels in, then after each block of two convolutions
HIDDEN = 128  # units of the dense layer before the classifier


def varied(crops: np.ndarray, rng: np.random.Generator, scale_jitter: float = SCALE_JITTER) -> np.ndarray:
    """The crops turned, scaled, mirrored, their colour channels swapped, brightness, noise and blur
    varied: so that the network learns seeds rather than one render's look."""
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
    """Four blocks of two 3x3 convolutions, each halving the crop, then a classifier of counts 0..MAX_COUNT."""
    nn = torch.nn
    layers = []
    for before, after in zip(WIDTHS, WIDTHS[1:]):
        layers += [nn.Conv2d(before, after, 3, padding=1), nn.BatchNorm2d(after), nn.ReLU()]
        layers += [nn.Conv2d(after, after, 3, padding=1), nn.BatchNorm2d(after), nn.ReLU(), nn.MaxPool2d(2)]
    side = CROP // 16
    return nn.Sequential(
        *layers, nn.Flatten(), nn.Linear(WIDTHS[-1] * side * side, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, MAX_COUNT + 1)
    )


def train(torch, crops: np.ndarray, counts: np.ndarray, epochs: int, seed: int, log=print):
    """A network trained from scratch on the crops (AdamW, one-cycle schedule), every draw (weights,
    order, variations) from `seed`: the same crops, epochs, seed and thread count give the same weights."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    network = counter_network(torch)
    optimiser = torch.optim.AdamW(network.parameters(), PEAK_RATE, weight_decay=WEIGHT_DECAY)
    steps = epochs * -(-len(crops) // BATCH)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, PEAK_RATE, total_steps=steps)
    labels = np.minimum(counts, MAX_COUNT)
    for epoch in range(epochs):
        started, losses = time.perf_counter(), []
        network.train()
        order = rng.permutation(len(crops))
        for first in range(0, len(crops), BATCH):
            batch = order[first : first + BATCH]
            inputs = torch.from_numpy(standardised(varied(crops[batch], rng)))
            loss = torch.nn.functional.cross_entropy(network(inputs), torch.from_numpy(labels[batch]).long())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            losses.append(loss.item())
        log(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}, {time.perf_counter() - started:.0f} s")
    return network.eval()


def export(torch, network, path: Path) -> None:
    """Write the network as ONNX (batch norms folded into the convolutions), any number of crops a batch."""
    example = torch.zeros(1, 3, CROP, CROP)
    torch.onnx.export(
        network, example, str(path), dynamo=False, input_names=["crops"], output_names=["logits"],
        dynamic_axes={"crops": {0: "pits"}, "logits": {0: "pits"}},
    )
