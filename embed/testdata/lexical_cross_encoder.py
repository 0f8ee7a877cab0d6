"""Writes an ONNX "cross-encoder" whose scores tests can compute by hand:
the score of a pair is the sum, over the tokens of the second sequence
(token type 1, attention mask 1), of a weight per token id.

    python3 lexical_cross_encoder.py OUT.onnx --weights 0,0,0,0,1,2 [--labels 1|2]

Inputs: input_ids, attention_mask, token_type_ids, int64 [batch, sequence].
Output: logits, float [batch, 1] (the score), or with --labels 2
[batch, 2] (minus half the score, half the score). Needs Debian's
python3-onnx (onnx and numpy).
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--weights", required=True, help="comma-separated weight of each token id")
    p.add_argument("--labels", type=int, choices=(1, 2), default=1)
    a = p.parse_args()
    weights = np.array([float(w) for w in a.weights.split(",")], dtype=np.float32)
    inits = [
        numpy_helper.from_array(weights, "weights"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half"),
        numpy_helper.from_array(np.array(-0.5, dtype=np.float32), "minus_half"),
    ]
    nodes = [
        helper.make_node("Gather", ["weights", "input_ids"], ["w"]),
        helper.make_node("Cast", ["token_type_ids"], ["types"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w", "types"], ["wt"]),
        helper.make_node("Mul", ["wt", "mask"], ["wtm"]),
        helper.make_node("ReduceSum", ["wtm", "axis1"], ["score"], keepdims=1),
    ]
    if a.labels == 1:
        nodes.append(helper.make_node("Identity", ["score"], ["logits"]))
    else:
        nodes.append(helper.make_node("Mul", ["score", "minus_half"], ["irrelevant"]))
        nodes.append(helper.make_node("Mul", ["score", "half"], ["relevant"]))
        nodes.append(helper.make_node("Concat", ["irrelevant", "relevant"], ["logits"], axis=1))
    ids = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", a.labels])
    graph = helper.make_graph(nodes, "lexical_cross_encoder", [ids("input_ids"), ids("attention_mask"), ids("token_type_ids")], [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gochunk-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, a.out)


if __name__ == "__main__":
    main()
