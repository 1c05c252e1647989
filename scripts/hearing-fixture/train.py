"""Trains the hearing Whisper fixture (see docs/testing.md "The hearing Whisper fixture").

Usage: python train.py --out /tmp/hearing [--minutes 27 --seed 1]
Writes <out>/weights.npz (OpenAI-named weights, full vocabulary), <out>/heldout/*.wav + heldout.json
(the held-out clips) and prints the held-out word error rate. Phase 1 trains on 5 s crops of the
30 s window (cheap attention), phase 2 on the whole window as Whisper runs it.
"""
import argparse, json, math, os, random, time, wave
import numpy as np
import torch
from tokenizers import Tokenizer
from transformers import WhisperFeatureExtractor
import data
from model import TinyWhisper

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--fixture", default=os.path.join(os.path.dirname(__file__), "../../../shared/models/fixture/whisper-tiny-random"))
ap.add_argument("--clips", type=int, default=3000)
ap.add_argument("--minutes", type=float, default=27, help="training time budget (the clip synthesis and evaluation come on top)")
ap.add_argument("--phase2", type=float, default=0.15, help="share of the budget for whole 30 s windows")
ap.add_argument("--batch1", type=int, default=16)
ap.add_argument("--batch2", type=int, default=6)
ap.add_argument("--d", type=int, default=64)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--resume", help="a checkpoint.pt of an earlier run to continue from (same --d)")
args = ap.parse_args()
torch.set_num_threads(2)
torch.manual_seed(args.seed)
np.random.seed(args.seed)
rng = random.Random(args.seed)
os.makedirs(args.out, exist_ok=True)
t0 = time.time()
log = lambda *a: print(f"[{time.time() - t0:6.0f}s]", *a, flush=True)

tok = Tokenizer.from_file(os.path.join(args.fixture, "tokenizer.json"))
EOT, SOT = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|startoftranscript|>")
TS0 = tok.token_to_id("<|notimestamps|>") + 1
enc = lambda text: tok.encode(" " + text, add_special_tokens=False).ids
used = sorted({EOT, SOT} | {i for w in data.WORDS for i in enc(w)} | {i for t in data.TEMPLATES for i in enc(t)})
fe = WhisperFeatureExtractor.from_pretrained(args.fixture)

heldout_set = set(data.heldout_sentences())
train = data.make_set(args.clips, data.TRAIN_VOICES, lambda r: data.random_sentence(r, heldout_set), args.seed)
r_h = random.Random(1000 + args.seed)
heldout = data.make_set(40, data.HELDOUT_VOICES, lambda r: r.choice(sorted(heldout_set)), 1000 + args.seed)
log(f"{len(train)} training clips, {len(heldout)} held-out clips, {len(used)} word/special tokens")

model = TinyWhisper(args.d, 4, 2, 2, args.d * 4, used, TS0)
ts = lambda s: TS0 + int(round(min(max(s, 0.0), 30.0) / 0.02))


def example(crop_s):
    """One training input: (pcm, target token ids, offset in encoder positions). The pcm is the crop_s
    seconds of the 30 s input that start at the offset (the whole input when crop_s is 30). 1-3 utterances
    anywhere in it, or (10 %) no speech: a tone or noise, whose transcript is empty. Whisper's first
    timestamp is always <|0.00|> (generation_config max_initial_timestamp_index); the others are times
    in the 30 s window."""
    start = 0.0 if crop_s >= 30 else round(rng.uniform(0, 30 - crop_s) / 0.02) * 0.02
    pcm = np.zeros(int(crop_s * data.SR), np.float32)
    if rng.random() < 0.1:
        n = int(rng.uniform(0.5, crop_s) * data.SR)
        t = np.arange(n) / data.SR
        pcm[:n] = 0.3 * np.sin(2 * np.pi * rng.uniform(100, 1000) * t) if rng.random() < 0.5 else rng.uniform(0.001, 0.05) * np.random.randn(n)
        return pcm, [SOT, TS0, EOT], int(start / 0.02)
    at, ids, end = rng.uniform(0, 1.5 if crop_s < 30 else 22), [SOT], 0.0
    for k in range(rng.randint(1, 3)):
        text, clip, _ = rng.choice(train)
        if at + len(clip) / data.SR > min(crop_s, 29.5) - 0.1:
            break
        i = int(at * data.SR)
        pcm[i: i + len(clip)] += clip * rng.uniform(0.2, 1.0)
        a, b = data.speech_span(clip)
        ids += [TS0 if k == 0 else ts(start + at + a)] + enc(text) + [ts(start + at + b)]
        end = at + len(clip) / data.SR
        at = end + rng.uniform(0.3, 3.0 if crop_s < 30 else 10.0)
    if rng.random() < 0.5:  # a recording's noise floor, over the recorded span only
        n = int(min(crop_s, end + rng.uniform(0, 2)) * data.SR)
        pcm[:n] += np.random.randn(n).astype(np.float32) * 10 ** rng.uniform(-3.5, -1.5)
    if len(ids) == 1:
        return example(crop_s)
    return pcm, ids + [EOT], int(start / 0.02)


def batch(crop_s, n):
    """n examples: features (as WhisperFeatureExtractor computes them for the crop), target rows, mask,
    encoder offsets."""
    exs = [example(crop_s) for _ in range(n)]
    size = int(crop_s * data.SR)
    mel = torch.from_numpy(fe([p for p, _, _ in exs], sampling_rate=data.SR, return_tensors="np", max_length=size)["input_features"])
    S = max(len(ids) for _, ids, _ in exs)
    rows = torch.full((len(exs), S), model.row[EOT], dtype=torch.long)
    mask = torch.zeros(len(exs), S - 1)
    for j, (_, ids, _) in enumerate(exs):
        rows[j, : len(ids)] = torch.tensor([model.row[t] for t in ids])
        mask[j, : len(ids) - 1] = 1
    return mel, rows, mask, torch.tensor([o for _, _, o in exs])


# An auxiliary CTC head on the encoder (word tokens only; dropped at export) makes the encoder learn the
# words long before the decoder's cross-attention finds them: hybrid CTC/attention training.
words_rows = sorted({model.row[t] for t in used if t not in (EOT, SOT)})
ctc_index = {r: i + 1 for i, r in enumerate(words_rows)}  # 0 = blank
ctc_head = torch.nn.Linear(args.d, len(words_rows) + 1)
params = list(model.parameters()) + list(ctc_head.parameters())
opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
start_step = 0
if args.resume:
    ck = torch.load(args.resume)
    model.load_state_dict(ck["model"]); ctc_head.load_state_dict(ck["ctc"]); opt.load_state_dict(ck["opt"]); start_step = ck["step"]
    log(f"resumed from {args.resume} at step {start_step}")
budget_s, t_train, step, phase = args.minutes * 60, time.time(), start_step, 1
while True:
    done = (time.time() - t_train) / budget_s
    if done >= 1:
        break
    if phase == 1 and done >= 1 - args.phase2:
        phase = 2
        log(f"phase 2 (whole 30 s windows) from step {step}")
    # warm-up, constant, then cosine decay over the last 40 % of the time budget (down to 5 %)
    lr = args.lr * min(1.0, (step - start_step + 1) / 30) * (1 if done < 0.6 else 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (done - 0.6) / 0.4)))
    for g in opt.param_groups:
        g["lr"] = lr
    window_s, n = (5, args.batch1) if phase == 1 else (30, args.batch2)
    mel, rows, mask, offsets = batch(window_s, n)
    xa = model.encode(mel, offsets)
    lp = model.loss_logits(model.decode(rows[:, :-1], xa))
    nll = -lp.gather(-1, rows[:, 1:, None])[..., 0]
    ce = (nll * mask).sum() / mask.sum()
    targets = [[ctc_index[r] for r in rr.tolist() if r in ctc_index] for rr in rows]
    ctc = torch.nn.functional.ctc_loss(ctc_head(xa).log_softmax(-1).transpose(0, 1), torch.tensor([t for tt in targets for t in tt], dtype=torch.long),
                                       torch.full((len(targets),), xa.shape[1], dtype=torch.long), torch.tensor([len(t) for t in targets]), zero_infinity=True)
    loss = ce + 0.5 * ctc
    opt.zero_grad(); loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    if step % 25 == 0:
        log(f"step {step} window {window_s}s lr {lr:.5f} loss {ce.item():.3f} ctc {ctc.item():.3f}")
    step += 1
log(f"trained {step} steps")
torch.save({"model": model.state_dict(), "ctc": ctc_head.state_dict(), "opt": opt.state_dict(), "step": step}, os.path.join(args.out, "checkpoint.pt"))

inv = {r: t for t, r in model.row.items()}


@torch.no_grad()
def greedy(pcm):
    mel = torch.from_numpy(fe([pcm], sampling_rate=data.SR, return_tensors="np")["input_features"])
    xa, rows = model.encode(mel), [model.row[SOT]]
    for _ in range(60):
        nxt = int(model.decode(torch.tensor([rows]), xa)[0, -1, :-1].argmax())
        if inv[nxt] == EOT:
            break
        rows.append(nxt)
    return tok.decode([inv[r] for r in rows if inv[r] < EOT]).strip()


def wer(ref, hyp):
    r, h = ref.split(), hyp.split()
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
    return d[len(h)]


model.eval()
errors = words = 0
os.makedirs(os.path.join(args.out, "heldout"), exist_ok=True)
for i, (text, clip, voice) in enumerate(heldout):
    hyp = greedy(clip)
    errors, words = errors + wer(text, hyp), words + len(text.split())
    if i < 8:
        log(f"held-out [{voice}] '{text}' -> '{hyp}'")
    with wave.open(os.path.join(args.out, "heldout", f"{i:02d}.wav"), "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(data.SR)
        w.writeframes((np.clip(clip, -1, 1) * 32767).astype("<i2").tobytes())
json.dump([{"file": f"{i:02d}.wav", "text": t, "voice": v} for i, (t, _, v) in enumerate(heldout)],
          open(os.path.join(args.out, "heldout.json"), "w"), indent=1)
log(f"held-out WER {errors / words:.3f} ({errors}/{words} words, {len(heldout)} clips)")
np.savez(os.path.join(args.out, "weights.npz"), **model.full_weights())
json.dump({"d": args.d, "heads": 4, "enc_layers": 2, "dec_layers": 2, "ffn": args.d * 4, "wer": errors / words, "steps": step},
          open(os.path.join(args.out, "train.json"), "w"))
log("done")
