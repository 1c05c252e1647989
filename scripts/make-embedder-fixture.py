#!/usr/bin/python3
"""Builds test/fixtures/models/tiny-embedder: a tiny BERT-shaped feature-extraction ONNX model.

Hand-set (NOT trained) weights for tests of the sentence-embedding engine (issue 24,
src/ai/themes/sentence-embedder.ts). It is laid out like Xenova/all-MiniLM-L6-v2 (config.json,
tokenizer.json, tokenizer_config.json, onnx/model.onnx) and takes the same inputs (input_ids,
attention_mask, token_type_ids) and gives the same output (last_hidden_state [batch, seq, dim]),
so @huggingface/transformers' `feature-extraction` pipeline loads and runs it unchanged.

The graph: token embedding (Gather) + token-type embedding (Gather) -> MatMul to 32 dimensions
(orthonormal rows, so cosines are kept) -> times the attention mask. Words of one topic
(shipping/delivery/postage/...) share one direction of the 8-d embedding space, with a small
per-word offset, so mean-pooled answers about one topic are close and answers about different
topics are not: a test can see that themes built with it group by meaning. Every token but [PAD]
and [UNK] also carries one shared component (as real encoders do), which the theme build's
common-component removal takes out; other words carry only that. Deterministic: the same bytes on every run (seeded NumPy generator).

Needs Debian's python3-onnx and python3-numpy. Run from the repository root:
    /usr/bin/python3 scripts/make-embedder-fixture.py
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join("test", "fixtures", "models", "tiny-embedder")
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# One axis of the 8-d space per topic (axis 6: sentiment words, weaker; axis 7: shared component).
TOPICS = [
    ["shipping", "delivery", "postage", "courier", "parcel", "package", "arrived", "late", "dispatch", "tracking", "shipped", "delivered", "deliver", "post"],
    ["price", "expensive", "cost", "cheap", "money", "fee", "fees", "pricing", "overpriced", "charge", "charged", "refund", "costs", "paid"],
    ["app", "crash", "crashes", "crashed", "bug", "login", "password", "freeze", "error", "screen", "update", "loading", "freezes", "button"],
    ["staff", "friendly", "helpful", "rude", "support", "agent", "service", "team", "polite", "manager", "waiter", "reception", "receptionist", "people"],
    ["food", "taste", "menu", "meal", "breakfast", "coffee", "dinner", "delicious", "portion", "dish", "tasty", "lunch", "restaurant", "eat"],
    ["room", "bed", "clean", "dirty", "noisy", "shower", "towels", "pillow", "bathroom", "quiet", "view", "comfortable", "sheets", "window"],
]
SENTIMENT = ["good", "great", "love", "excellent", "happy", "fast", "easy", "awesome", "bad", "terrible", "hate", "slow", "awful", "broken", "annoying", "nice"]
COMMON = """the a an and or but i it its my me we our you your they them their he she was is are were be been
being to of in on at for with from by about as into over under than then too very so not no nor this that
these those had have has did do does done just really again after before took take takes get got getting would
could should will can may might must what when where which who why how there here out up down off all any
both each more most much many some such only own same other even still never always also ever yet once
one two three four five six seven eight nine ten first last next day days week weeks month hour hours time
times minute minutes thing things lot bit way back well quite rather pretty kind sort maybe thanks thank
please yes okay ok um uh like know think felt feel said say told make made went go going come came see saw
look looked want wanted need needed use used try tried give gave keep kept put find found long short little
big small new old whole half every nothing something everything anything someone everyone while because
if though although until since during without again around through across between whether enough almost
already instead otherwise usually sometimes often overall honestly actually basically literally""".split()
SUFFIXES = ["##s", "##ed", "##ing", "##ly", "##er", "##es"]

DIM_WORD = 8
DIM_OUT = 32
rng = np.random.default_rng(24)

topic_words = [w for t in TOPICS for w in t]
vocab = SPECIAL + topic_words + SENTIMENT + [w for w in dict.fromkeys(COMMON) if w not in topic_words and w not in SENTIMENT] + SUFFIXES
assert len(vocab) == len(set(vocab)), "duplicate vocabulary entry"
V = len(vocab)
E = np.zeros((V, DIM_WORD), np.float32)
for axis, words in enumerate(TOPICS):
    for w in words:
        row = np.zeros(DIM_WORD, np.float32)
        row[axis] = 1.0
        row[:6] += rng.normal(0.0, 0.12, 6).astype(np.float32)  # each word its own, nearby direction
        E[vocab.index(w)] = row
for w in SENTIMENT:
    E[vocab.index(w), 6] = 0.4
# A component every token shares, as real encoders have (unrelated sentences still have a cosine
# of ~0.3): the theme build's common-component removal then takes it out rather than the largest
# topic, and no text embeds to zero.
for w in vocab[2:]:
    E[vocab.index(w), 7] = 0.5 if w in topic_words else 0.25
T = np.zeros((2, DIM_WORD), np.float32)  # token types: BERT-shaped input, no effect
q, _ = np.linalg.qr(rng.normal(size=(DIM_OUT, DIM_WORD)))
W = q.T.astype(np.float32)  # [8, 32] with orthonormal rows: inner products are kept

ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"])
mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "sequence_length"])
types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch_size", "sequence_length"])
hidden = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", DIM_OUT])
nodes = [
    helper.make_node("Gather", ["word_embeddings", "input_ids"], ["words"], axis=0),
    helper.make_node("Gather", ["token_type_embeddings", "token_type_ids"], ["typed"], axis=0),
    helper.make_node("Add", ["words", "typed"], ["embedded"]),
    helper.make_node("MatMul", ["embedded", "projection"], ["projected"]),
    helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
    helper.make_node("Unsqueeze", ["mask_f", "axis_2"], ["mask_3"]),
    helper.make_node("Mul", ["projected", "mask_3"], ["last_hidden_state"]),
]
graph = helper.make_graph(
    nodes,
    "tiny-embedder",
    [ids, mask, types],
    [hidden],
    [
        numpy_helper.from_array(E, "word_embeddings"),
        numpy_helper.from_array(T, "token_type_embeddings"),
        numpy_helper.from_array(W, "projection"),
        numpy_helper.from_array(np.array([2], np.int64), "axis_2"),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="earshot make-embedder-fixture")
model.ir_version = 8
onnx.checker.check_model(model)
os.makedirs(os.path.join(OUT, "onnx"), exist_ok=True)
with open(os.path.join(OUT, "onnx", "model.onnx"), "wb") as f:
    f.write(model.SerializeToString())


def dump(name, value):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")


dump("config.json", {
    "_note": "Earshot test fixture, hand-set weights, NOT a trained model (scripts/make-embedder-fixture.py).",
    "architectures": ["BertModel"], "model_type": "bert", "vocab_size": V, "hidden_size": DIM_OUT,
    "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": DIM_OUT,
    "max_position_embeddings": 512, "type_vocab_size": 2, "pad_token_id": 0,
})
special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for i, t in enumerate(SPECIAL)]
dump("tokenizer.json", {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}},
    },
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
              "vocab": {t: i for i, t in enumerate(vocab)}},
})
dump("tokenizer_config.json", {
    "tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 128,
    "unk_token": "[UNK]", "pad_token": "[PAD]", "cls_token": "[CLS]", "sep_token": "[SEP]", "mask_token": "[MASK]",
})
print(f"{OUT}: {V} words, {DIM_WORD}-d embeddings projected to {DIM_OUT}-d")
