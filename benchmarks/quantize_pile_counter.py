"""Write the pile counter network that recognition runs: the trained one with 8-bit weights and activations.

Usage (`onnx` is not a project dependency; ONNX Runtime's quantizer needs it):
    pip install onnx
    python3 benchmarks/quantize_pile_counter.py SESSION_DIR [SESSION_DIR ...]

`benchmarks/wari_cnn_probe.py --export` writes the trained network (vision/data/wari_pile_counter.onnx,
32-bit floats). This script writes vision/data/wari_pile_counter_int8.onnx from it, which
`vision.wari_pile_counter` runs: every convolution and the first dense layer take 8-bit
activations (the range each sees on the crops below, 0-255 steps) and 8-bit weights (a scale per
output channel), as ONNX Runtime's static quantizer writes them (QuantizeLinear / DequantizeLinear
pairs, which ONNX Runtime fuses into integer kernels). The first convolution, which reads the
standardised crop itself, and the last layer, whose logits become the counts' probabilities, stay
in floats: quantized too, they moved the probabilities up to 0.3 (session 54).

The activation ranges come from crops of every pit of every photo of the SESSION_DIRs (bench-format
sessions, `render_wari_session.py` writes them; our renders, never the bench's), each read at
its four quarter turns as recognition reads them. Session 57's network was made from these, rendered
by `render_wari_session.py OUT --style S --session N --positions 20`: nicker 1500 and 1501, glass 1500.
Finally it prints how far the two networks' probabilities lie apart on those crops.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision import wari_pile_counter
from vision.wari import WariProfile, colour_image_for
from vision.wari_pile_counter import (
    NETWORK_FILE, TRAINED_NETWORK_FILE, network_probabilities, network_session, pit_crops, standardised, turned,
)

from bench_wari_vision import PIT_COUNT, session_photos  # beside this script

BATCH = 16


def standardised_crops(folders: list[Path]) -> np.ndarray:
    """Every pit of every photo of the sessions, standardised, at each of four quarter turns."""
    crops = []
    for folder in folders:
        _, profile, photos = session_photos(folder, None)
        calibrated = WariProfile.from_json(profile)
        for image, _, _ in photos:
            image = colour_image_for(image, calibrated.geometry)
            crops += list(pit_crops(image, calibrated.geometry, calibrated.seed_diameter, list(range(PIT_COUNT))))
    inputs = standardised(np.array(crops))
    return np.concatenate([turned(inputs, turns) for turns in range(4)])


class _Batches(CalibrationDataReader):
    def __init__(self, name: str, inputs: np.ndarray):
        self._batches = iter([{name: inputs[first : first + BATCH]} for first in range(0, len(inputs), BATCH)])

    def get_next(self):
        return next(self._batches, None)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", type=Path, nargs="+")
    args = parser.parse_args(argv)
    # The sessions are calibrated (which reads the counter) with the network being quantized: the
    # file being written may not exist yet, and should not judge its own inputs.
    wari_pile_counter.NETWORK_FILE = TRAINED_NETWORK_FILE
    inputs = standardised_crops(args.sessions)
    graph = _graph(TRAINED_NETWORK_FILE)
    layers = [node.name for node in graph.node if node.op_type in ("Conv", "Gemm")]
    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / "prepared.onnx"  # shapes inferred, as the quantizer wants
        quant_pre_process(str(TRAINED_NETWORK_FILE), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared), str(NETWORK_FILE), _Batches(graph.input[0].name, inputs),
            quant_format=QuantFormat.QDQ, per_channel=True, activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=[layers[0], layers[-1]],
        )
    before, after = (network_probabilities(network_session(path), inputs) for path in (TRAINED_NETWORK_FILE, NETWORK_FILE))
    moved = np.abs(after - before).sum(axis=1)
    print(
        f"{NETWORK_FILE.name} from {len(inputs)} crop readings: likeliest count the same in "
        f"{100 * np.mean(before.argmax(1) == after.argmax(1)):.2f} %, probabilities moved {moved.mean():.4f} "
        f"on average (sum over counts), at most {moved.max():.3f}"
    )
    return 0


def _graph(path: Path):
    import onnx  # ONNX Runtime's quantizer needs it too

    return onnx.load(str(path)).graph


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
