"""Whisper weights (OpenAI names, numpy) -> the ONNX graphs transformers.js loads: encoder_model.onnx and
decoder_model_merged.onnx with a top-level If(use_cache_branch) whose two branches (no past / with past)
share the outer initializers, as optimum exports them; the LM head is tied to the token embedding.
Adapted from the team's ../shared/bench/asr/make_models.py (same graph shapes), with trained weights."""
import math
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper


class G:
    """Collects nodes; initializers go to the outer graph (shared by both If branches, as in optimum)."""
    def __init__(self, W, dims, inits, prefix):
        self.W, self.H, self.HD, self.D = W, dims["H"], dims["D"] // dims["H"], dims["D"]
        self.nodes, self.inits, self.prefix, self.n = [], inits, prefix, 0
    def fresh(self, t): self.n += 1; return f"{self.prefix}{t}_{self.n}"
    def op(self, t, ins, name=None, **kw):
        out = name or self.fresh(t)
        self.nodes.append(helper.make_node(t, ins, [out], name=self.fresh(t + "_node"), **kw))
        return out
    def const(self, arr):
        name = self.fresh("const"); self.inits[name] = np.asarray(arr); return name
    def init(self, key, arr):
        if key not in self.inits: self.inits[key] = arr
        return key
    def linear(self, x, p, bias=True):   # ONNX stores Linear weights transposed ([in, out]), like torch.onnx
        y = self.op("MatMul", [x, self.init(p + ".weight_T", np.ascontiguousarray(self.W[p + ".weight"].T))])
        return self.op("Add", [y, self.init(p + ".bias", self.W[p + ".bias"])]) if bias else y
    def ln(self, x, p, name=None):
        return self.op("LayerNormalization", [x, self.init(p + ".weight", self.W[p + ".weight"]), self.init(p + ".bias", self.W[p + ".bias"])], name=name, axis=-1, epsilon=1e-5)
    def gelu(self, x):   # exact erf GELU, as exported from PyTorch
        e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(math.sqrt(2)))])])
        return self.op("Mul", [self.op("Mul", [x, self.op("Add", [e, self.const(np.float32(1.0))])]), self.const(np.float32(0.5))])
    def heads(self, x):  # [B,T,D] -> [B,H,T,HD]
        return self.op("Transpose", [self.op("Reshape", [x, self.const(np.array([0, -1, self.H, self.HD], np.int64))])], perm=[0, 2, 1, 3])
    def merge(self, x):
        return self.op("Reshape", [self.op("Transpose", [x], perm=[0, 2, 1, 3]), self.const(np.array([0, -1, self.D], np.int64))])
    def attend(self, q, k, v, mask=None):
        s = self.op("MatMul", [q, self.op("Transpose", [k], perm=[0, 1, 3, 2])])
        if mask is not None: s = self.op("Add", [s, mask])
        return self.merge(self.op("MatMul", [self.op("Softmax", [s], axis=-1), v]))
    def q(self, a, p):   # HF scales the query after its bias
        return self.heads(self.op("Mul", [self.linear(a, p + ".query"), self.const(np.float32(self.HD ** -0.5))]))
    def mlp(self, x, b):
        return self.op("Add", [x, self.linear(self.gelu(self.linear(self.ln(x, b + ".mlp_ln"), b + ".mlp.0")), b + ".mlp.2")])


def save(graph, path):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="earshot/scripts/hearing-fixture")
    m.ir_version = 8
    onnx.save(m, path)
    onnx.checker.check_model(path)


def encoder_graph(W, dims):
    inits = {}
    g = G(W, dims, inits, "enc/")
    x = helper.make_tensor_value_info("input_features", TensorProto.FLOAT, ["batch_size", "feature_size", "encoder_sequence_length"])
    y = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "encoder_sequence_length / 2", dims["D"]])
    h = g.gelu(g.op("Conv", ["input_features", g.init("encoder.conv1.weight", W["encoder.conv1.weight"]), g.init("encoder.conv1.bias", W["encoder.conv1.bias"])], kernel_shape=[3], pads=[1, 1]))
    h = g.gelu(g.op("Conv", [h, g.init("encoder.conv2.weight", W["encoder.conv2.weight"]), g.init("encoder.conv2.bias", W["encoder.conv2.bias"])], kernel_shape=[3], pads=[1, 1], strides=[2]))
    h = g.op("Add", [g.op("Transpose", [h], perm=[0, 2, 1]), g.init("encoder.positional_embedding", W["encoder.positional_embedding"])])
    for i in range(dims["L_enc"]):
        b = f"encoder.blocks.{i}"
        a = g.ln(h, b + ".attn_ln")
        h = g.op("Add", [h, g.linear(g.attend(g.q(a, b + ".attn"), g.heads(g.linear(a, b + ".attn.key", bias=False)), g.heads(g.linear(a, b + ".attn.value"))), b + ".attn.out")])
        h = g.mlp(h, b)
    g.ln(h, "encoder.ln_post", name="last_hidden_state")
    return helper.make_graph(g.nodes, "whisper_encoder", [x], [y], [numpy_helper.from_array(v, k) for k, v in inits.items()])


def decoder_graph(W, dims):
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    D, H, L, V = dims["D"], dims["H"], dims["L_dec"], dims["V"]
    HD = D // H
    inits = {"decoder.token_embedding.weight": W["decoder.token_embedding.weight"], "decoder.positional_embedding": W["decoder.positional_embedding"]}
    ins = [helper.make_tensor_value_info("input_ids", i64, ["batch_size", "decoder_sequence_length"]),
           helper.make_tensor_value_info("encoder_hidden_states", f32, ["batch_size", "encoder_sequence_length / 2", D])]
    outs = [helper.make_tensor_value_info("logits", f32, ["batch_size", "decoder_sequence_length", V])]
    for i in range(L):
        for kind, dim in (("decoder", "past_decoder_sequence_length"), ("encoder", "encoder_sequence_length_out")):
            for kv in ("key", "value"):
                ins.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}.{kv}", f32, ["batch_size", H, dim, HD]))
                outs.append(helper.make_tensor_value_info(f"present.{i}.{kind}.{kv}", f32, ["batch_size", H, dim if kind == "encoder" else "present_sequence_length", HD]))
    ins.append(helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1]))

    def branch(with_past):
        pre = "wp/" if with_past else "np/"
        g = G(W, dims, inits, pre)
        c1 = lambda *v: g.const(np.array(v, np.int64))
        seq = g.op("Squeeze", [g.op("Slice", [g.op("Shape", ["input_ids"]), c1(1), c1(2)]), c1(0)])
        past = g.op("Squeeze", [g.op("Slice", [g.op("Shape", ["past_key_values.0.decoder.key"]), c1(2), c1(3)]), c1(0)]) if with_past else g.const(np.int64(0))
        end = g.op("Add", [past, seq])
        pos = g.op("Range", [past, end, g.const(np.int64(1))])
        x = g.op("Add", [g.op("Gather", ["decoder.token_embedding.weight", "input_ids"], axis=0),
                         g.op("Gather", ["decoder.positional_embedding", pos], axis=0)])
        cols = g.op("Unsqueeze", [g.op("Range", [g.const(np.int64(0)), end, g.const(np.int64(1))]), c1(0)])
        rows = g.op("Unsqueeze", [pos, c1(1)])
        mask = g.op("Where", [g.op("Greater", [cols, rows]), g.const(np.float32(-3.4e38)), g.const(np.float32(0.0))])
        souts = []
        for i in range(L):
            b = f"decoder.blocks.{i}"
            a = g.ln(x, b + ".attn_ln")
            k = g.heads(g.linear(a, b + ".attn.key", bias=False))
            v = g.heads(g.linear(a, b + ".attn.value"))
            if with_past:
                k = g.op("Concat", [f"past_key_values.{i}.decoder.key", k], axis=2)
                v = g.op("Concat", [f"past_key_values.{i}.decoder.value", v], axis=2)
            x = g.op("Add", [x, g.linear(g.attend(g.q(a, b + ".attn"), k, v, mask), b + ".attn.out")])
            if with_past:
                ck, cv = f"past_key_values.{i}.encoder.key", f"past_key_values.{i}.encoder.value"
            else:
                ck = g.heads(g.linear("encoder_hidden_states", b + ".cross_attn.key", bias=False))
                cv = g.heads(g.linear("encoder_hidden_states", b + ".cross_attn.value"))
            c = g.ln(x, b + ".cross_attn_ln")
            x = g.op("Add", [x, g.linear(g.attend(g.q(c, b + ".cross_attn"), ck, cv), b + ".cross_attn.out")])
            x = g.mlp(x, b)
            for t, src in ((f"{pre}present.{i}.decoder.key", k), (f"{pre}present.{i}.decoder.value", v),
                           (f"{pre}present.{i}.encoder.key", ck), (f"{pre}present.{i}.encoder.value", cv)):
                g.op("Identity", [src], name=t); souts.append(t)
        h = g.ln(x, "decoder.ln")
        g.op("MatMul", [h, g.op("Transpose", ["decoder.token_embedding.weight"], perm=[1, 0])], name=pre + "logits")
        outs_vi = [helper.make_tensor_value_info(pre + "logits", f32, None)] + [helper.make_tensor_value_info(t, f32, None) for t in souts]
        return helper.make_graph(g.nodes, pre.strip("/") + "_branch", [], outs_vi, [])

    then_g, else_g = branch(True), branch(False)
    out_names = ["logits"] + [f"present.{i}.{k}.{kv}" for i in range(L) for k in ("decoder", "encoder") for kv in ("key", "value")]
    node = helper.make_node("If", ["use_cache_branch"], out_names, name="optimum::if", then_branch=then_g, else_branch=else_g)
    return helper.make_graph([node], "whisper_decoder_merged", ins, outs, [numpy_helper.from_array(v, k) for k, v in inits.items()])


def quantize(src, dst, weight_type):
    """8-bit weights the way transformers.js' scripts/quantize.py makes dtype "q8" (IntegerOps)."""
    from onnxruntime.quantization import QuantType, QuantizationMode
    from onnxruntime.quantization.onnx_quantizer import ONNXQuantizer
    from onnxruntime.quantization.registry import IntegerOpsRegistry
    model = onnx.load(src)
    q = ONNXQuantizer(model, False, False, mode=QuantizationMode.IntegerOps, static=False,
                      weight_qType=weight_type, activation_qType=QuantType.QUInt8, tensors_range=None,
                      nodes_to_quantize=[], nodes_to_exclude=[], op_types_to_quantize=set(IntegerOpsRegistry.keys()),
                      extra_options=dict(EnableSubgraph=True, MatMulConstBOnly=True))
    q.quantize_model()
    onnx.save(q.model.model, dst)
