"""Writes a BERT-shaped ONNX encoder with random weights, for tests and
benchmarks of gochunk's ONNX backends (no trained weights are needed to
compare backends or measure speed).

    python3 bert_model.py OUT.onnx --vocab 30522 --hidden 384 --layers 6 \
        --heads 12 --intermediate 1536 [--no-token-types] [--seed 1] \
        [--classifier LABELS]

Inputs: input_ids, attention_mask and (unless --no-token-types)
token_type_ids, int64 [batch, sequence]. Output: last_hidden_state, float
[batch, sequence, hidden]; with --classifier, logits, float [batch, LABELS]
(a cross-encoder: BERT's pooler, a tanh layer over the [CLS] token's
vector, then a linear layer to the labels). Layers: word, position and token-type
embeddings, layer normalisation, then per layer multi-head self-attention
masked by attention_mask and a GELU feed-forward block, each with a
residual connection and layer normalisation, as in BERT. Needs Debian's
python3-onnx (onnx and numpy).
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--vocab", type=int, default=30522)
    p.add_argument("--hidden", type=int, default=384)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--intermediate", type=int, default=1536)
    p.add_argument("--positions", type=int, default=512)
    p.add_argument("--no-token-types", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--classifier", type=int, default=0, help="labels of a sequence-classification head (0: none)")
    p.add_argument("--opset", type=int, default=17, help="17 (LayerNormalization, as current exports) or 13 (layer normalisation spelt out)")
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    h, nh = a.hidden, a.heads
    hd = h // nh
    inits, nodes = [], []

    def weight(name, *shape, scale=0.05):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name, value, dtype=np.float32):
        inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    n = [0]

    def op(kind, inputs, **attrs):
        n[0] += 1
        out = f"{kind.lower()}_{n[0]}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def layer_norm(x, prefix):
        gamma = const(prefix + ".gamma", 1 + 0.1 * rng.standard_normal(h))
        beta = const(prefix + ".beta", 0.1 * rng.standard_normal(h))
        if a.opset >= 17:
            return op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-12)
        mean = op("ReduceMean", [x], axes=[-1], keepdims=1)
        d = op("Sub", [x, mean])
        var = op("ReduceMean", [op("Pow", [d, const(prefix + ".two", 2.0)])], axes=[-1], keepdims=1)
        norm = op("Div", [d, op("Sqrt", [op("Add", [var, const(prefix + ".eps", 1e-12)])])])
        return op("Add", [op("Mul", [norm, gamma]), beta])

    def dense(x, prefix, n_in, n_out):
        return op("Add", [op("MatMul", [x, weight(prefix + ".w", n_in, n_out)]), weight(prefix + ".b", n_out, scale=0.02)])

    # Embeddings: words, positions 0..seq-1, token types.
    x = op("Gather", [weight("word_embeddings", a.vocab, h), "input_ids"])
    seq = op("Gather", [op("Shape", ["input_ids"]), const("one_i", 1, np.int64)], axis=0)
    positions = op("Range", [const("zero_i", 0, np.int64), seq, const("step_i", 1, np.int64)])
    x = op("Add", [x, op("Gather", [weight("position_embeddings", a.positions, h), positions])])
    if not a.no_token_types:
        x = op("Add", [x, op("Gather", [weight("token_type_embeddings", 2, h), "token_type_ids"])])
    x = layer_norm(x, "embeddings.norm")

    # Attention mask: 0 where attended, -10000 where padded, [batch, 1, 1, seq].
    mask = op("Cast", [op("Unsqueeze", ["attention_mask", const("axes12", [1, 2], np.int64)])], to=TensorProto.FLOAT)
    bias = op("Mul", [op("Sub", [const("one_f", 1.0), mask]), const("neg", -10000.0)])
    heads_shape = const("heads_shape", [0, 0, nh, hd], np.int64)
    merge_shape = const("merge_shape", [0, 0, h], np.int64)
    scale = const("scale", 1.0 / np.sqrt(hd))

    for i in range(a.layers):
        pre = f"layer{i}"

        def split(t):
            return op("Reshape", [t, heads_shape])

        q = op("Transpose", [split(dense(x, pre + ".q", h, h))], perm=[0, 2, 1, 3])
        k = op("Transpose", [split(dense(x, pre + ".k", h, h))], perm=[0, 2, 3, 1])
        v = op("Transpose", [split(dense(x, pre + ".v", h, h))], perm=[0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), bias])
        ctx = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        ctx = op("Reshape", [op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_shape])
        x = layer_norm(op("Add", [x, dense(ctx, pre + ".o", h, h)]), pre + ".attention.norm")
        f = dense(x, pre + ".ffn.in", h, a.intermediate)
        gelu = op("Mul", [op("Mul", [f, const(pre + ".half", 0.5)]),
                          op("Add", [const(pre + ".one", 1.0), op("Erf", [op("Div", [f, const(pre + ".sqrt2", np.sqrt(2.0))])])])])
        x = layer_norm(op("Add", [x, dense(gelu, pre + ".ffn.out", a.intermediate, h)]), pre + ".ffn.norm")

    if a.classifier:
        cls = op("Gather", [x, const("zero_pos", 0, np.int64)], axis=1)
        pooled = op("Tanh", [dense(cls, "pooler", h, h)])
        nodes.append(helper.make_node("Identity", [dense(pooled, "classifier", h, a.classifier)], ["logits"]))
        out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", a.classifier])
    else:
        nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
        out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", h])
    ids = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
    inputs = [ids("input_ids"), ids("attention_mask")]
    if not a.no_token_types:
        inputs.append(ids("token_type_ids"))
    graph = helper.make_graph(nodes, "bert", inputs, [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", a.opset)], producer_name="gochunk-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, a.out)


if __name__ == "__main__":
    main()
