"""Writes the trained hearing fixture (train.py's weights.npz) in every engine's layout:
<out>/config.json, generation_config.json, preprocessor_config.json, tokenizer files (the shared fixture's
real Whisper English tokenizer), onnx/{encoder_model,decoder_model_merged}{,_quantized}.onnx
(transformers.js: fp32 and q8) and ggml-model.bin (whisper.cpp, f16).

Usage: python export.py --weights /tmp/hearing --out test/fixtures/models/whisper-hears
"""
import argparse, hashlib, json, os, shutil
import numpy as np
from onnx_graphs import decoder_graph, encoder_graph, quantize, save
from ggml import write_ggml

ap = argparse.ArgumentParser()
ap.add_argument("--weights", required=True, help="train.py's --out folder")
ap.add_argument("--out", required=True)
ap.add_argument("--fixture", default=os.path.join(os.path.dirname(__file__), "../../../shared/models/fixture/whisper-tiny-random"))
args = ap.parse_args()

W = dict(np.load(os.path.join(args.weights, "weights.npz")))
meta = json.load(open(os.path.join(args.weights, "train.json")))
dims = dict(D=meta["d"], H=meta["heads"], L_enc=meta["enc_layers"], L_dec=meta["dec_layers"], FFN=meta["ffn"], V=W["decoder.token_embedding.weight"].shape[0])
os.makedirs(os.path.join(args.out, "onnx"), exist_ok=True)

for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "preprocessor_config.json"):
    shutil.copyfile(os.path.join(args.fixture, f), os.path.join(args.out, f))
fx = lambda f: json.load(open(os.path.join(args.fixture, f)))
config, gen = fx("config.json"), fx("generation_config.json")
config.update({"_name_or_path": "whisper-hears (Earshot test fixture: trained on espeak-ng speech of a small vocabulary)",
               "d_model": dims["D"], "encoder_attention_heads": dims["H"], "decoder_attention_heads": dims["H"],
               "encoder_layers": dims["L_enc"], "decoder_layers": dims["L_dec"], "num_hidden_layers": dims["L_enc"],
               "encoder_ffn_dim": dims["FFN"], "decoder_ffn_dim": dims["FFN"], "vocab_size": dims["V"]})
gen["alignment_heads"] = [[dims["L_dec"] - 1, h] for h in range(dims["H"])]
for name, obj in (("config.json", config), ("generation_config.json", gen)):
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(dict(sorted(obj.items())), f, indent=2); f.write("\n")

enc, dec = os.path.join(args.out, "onnx/encoder_model.onnx"), os.path.join(args.out, "onnx/decoder_model_merged.onnx")
save(encoder_graph(W, dims), enc)
save(decoder_graph(W, dims), dec)
from onnxruntime.quantization import QuantType
quantize(enc, enc.replace(".onnx", "_quantized.onnx"), QuantType.QUInt8)   # has Conv -> QUInt8, as transformers.js does
quantize(dec, dec.replace(".onnx", "_quantized.onnx"), QuantType.QInt8)
vocab = json.load(open(os.path.join(args.fixture, "tokenizer.json"), encoding="utf-8"))["model"]["vocab"]
write_ggml(os.path.join(args.out, "ggml-model.bin"), W, dims, vocab)

rows = []
for root, _, files in sorted(os.walk(args.out)):
    for f in sorted(files):
        p = os.path.join(root, f)
        if f != "README.md":
            rows.append(f"| {os.path.relpath(p, args.out)} | {os.path.getsize(p)} | {hashlib.sha256(open(p, 'rb').read()).hexdigest()} |")
with open(os.path.join(args.out, "README.md"), "w") as f:
    f.write(f"""# whisper-hears — Earshot's hearing Whisper test fixture

A tiny Whisper (d_model {dims['D']}, {dims['H']} heads, {dims['L_enc']}+{dims['L_dec']} layers, ffn {dims['FFN']}, 80 mel bins,
30 s input, vocabulary {dims['V']}: the real Whisper English tokenizer) trained by
scripts/hearing-fixture/train.py ({meta.get('steps', '?')} steps, seed 1) on espeak-ng speech of a small vocabulary, exported by
scripts/hearing-fixture/export.py. Held-out word error rate (voices and sentences never trained on,
greedy decoding in PyTorch): {meta['wer']:.3f}. A TEST FIXTURE: it knows only its vocabulary (docs/testing.md,
"The hearing Whisper fixture"). No third-party weights; the tokenizer files are the staged copies
of Xenova/whisper-tiny.en's (Apache-2.0, see ../../../../../shared/models/MANIFEST.md).

| file | bytes | sha256 |
| --- | --- | --- |
""" + "\n".join(rows) + "\n")
print("\n".join(rows))
