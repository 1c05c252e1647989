"""Speech data for the hearing Whisper fixture: espeak-ng sentences from a small vocabulary.

Every clip is 16 kHz mono float32 (espeak-ng's 22.05 kHz output resampled by sox). Training voices and
sentences are disjoint from the held-out ones (HELDOUT_VOICES, heldout_sentences()), which are used only
to report the word error rate, never to train or tune.
"""
import os, random, subprocess
import numpy as np

SR = 16000
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
WORDS = DIGITS + """the price is too high checkout delivery great slow support refund yes no hello there
thank you very good bad app order late fast service was it and my not happy love this product help please
call me email staff friendly website broken payment failed cheap expensive easy hard""".split()
TEMPLATES = [
    "the price is too high", "hello there", "thank you", "checkout was slow", "delivery was late",
    "support was great", "i love this product", "refund my order please", "the app is broken",
    "payment failed", "the website is slow", "staff was very friendly", "yes", "no", "great service",
    "call me please", "my order was late", "the checkout is easy", "delivery was fast", "not happy",
]
WORDS = sorted(set(WORDS) | {w for t in TEMPLATES for w in t.split()})
TRAIN_VOICES = ["en", "en-us", "en-gb-scotland", "en-029", "en-gb-x-gbclan", "en-gb-x-gbcwmd"]
VARIANTS = ["", "+f2", "+f3", "+m1", "+m3", "+m5"]
HELDOUT_VOICES = ["en-gb-x-rp", "en-us-nyc+f4", "en-gb-x-rp+m7"]


def heldout_sentences():
    """40 fixed sentences (seeded), never produced for training."""
    r = random.Random(27)
    return sorted({" ".join(r.choice(WORDS) for _ in range(r.randint(2, 6))) for _ in range(40)})


def random_sentence(r, banned):
    """A template (30 %) or 1-6 random vocabulary words, never one of `banned`."""
    while True:
        s = r.choice(TEMPLATES) if r.random() < 0.3 else " ".join(r.choice(WORDS) for _ in range(r.randint(1, 6)))
        if s not in banned:
            return s


def synth(text, voice, speed=175, pitch=50):
    """espeak-ng speaking `text` -> float32 PCM at 16 kHz (sox resampling)."""
    es = subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
                        check=True, capture_output=True).stdout
    raw = subprocess.run(["sox", "-t", "wav", "-", "-t", "f32", "-r", str(SR), "-c", "1", "-"],
                         input=es, check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.float32).copy()


def speech_span(pcm, frame=160):
    """(start_s, end_s) of the part louder than 2 % of the peak (espeak pads with silence)."""
    n = len(pcm) // frame
    e = np.sqrt((pcm[: n * frame].reshape(n, frame) ** 2).mean(1))
    idx = np.nonzero(e > 0.02 * max(e.max(), 1e-9))[0]
    if len(idx) == 0:
        return 0.0, 0.0
    return idx[0] * frame / SR, (idx[-1] + 1) * frame / SR


def make_set(n, voices, sentences_fn, seed):
    """n clips: list of (text, pcm trimmed to speech, voice). Random voice, variant, speed, pitch."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        text = sentences_fn(r)
        voice = r.choice(voices)
        if "+" not in voice:
            voice += r.choice(VARIANTS)
        pcm = synth(text, voice, r.randint(130, 230), r.randint(25, 75))
        a, b = speech_span(pcm)
        pcm = pcm[max(0, int(a * SR) - 800): int(b * SR) + 800]
        out.append((text, pcm, voice))
    return out
