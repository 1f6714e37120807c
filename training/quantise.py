"""The 8-bit pile counter that recognition runs, made from the float network with ONNX Runtime's static quantizer."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision.wari_pile_counter import network_probabilities, network_session

BATCH = 16  # inputs per calibration batch


class _Batches(CalibrationDataReader):
    def __init__(self, name: str, inputs: np.ndarray):
        self._batches = iter([{name: inputs[first : first + BATCH]} for first in range(0, len(inputs), BATCH)])

    def get_next(self):
        return next(self._batches, None)


def quantise(float_file: Path, int8_file: Path, inputs: np.ndarray) -> str:
    """Write `int8_file` from `float_file`: every convolution and the first dense layer with 8-bit
    activations (the range each sees on `inputs`, standardised crops) and 8-bit weights (a scale
    per output channel), as QuantizeLinear / DequantizeLinear pairs that ONNX Runtime fuses into
    integer kernels. The first convolution, which reads the standardised crop itself, and the last
    layer, whose logits become the counts' probabilities, stay in floats: quantised, they move the
    probabilities most. Returns a line saying how far the two networks' readings of `inputs` lie apart."""
    import onnx  # ONNX Runtime's quantizer needs it

    graph = onnx.load(str(float_file)).graph
    layers = [node.name for node in graph.node if node.op_type in ("Conv", "Gemm")]
    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / "prepared.onnx"  # shapes inferred, as the quantizer wants
        quant_pre_process(str(float_file), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared), str(int8_file), _Batches(graph.input[0].name, inputs),
            quant_format=QuantFormat.QDQ, per_channel=True, activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=[layers[0], layers[-1]],
            # Ranges merged every so many batches: every layer's outputs for all the crops at once
            # take more memory than the development machine has.
            extra_options={"CalibMaxIntermediateOutputs": 64},
        )
    before, after = (
        np.concatenate([network_probabilities(network, inputs[first : first + 1024]) for first in range(0, len(inputs), 1024)])
        for network in (network_session(float_file), network_session(int8_file))
    )  # in batches: the activations of all the crops at once take several GB
    moved = np.abs(after - before).sum(axis=1)
    return (
        f"{int8_file.name} from {len(inputs)} crop readings: likeliest count the same in "
        f"{100 * np.mean(before.argmax(1) == after.argmax(1)):.2f} %, probabilities moved {moved.mean():.4f} "
        f"on average (sum over counts), at most {moved.max():.3f}"
    )
