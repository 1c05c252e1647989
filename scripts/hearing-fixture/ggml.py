"""Whisper weights (OpenAI names, numpy) -> the ggml .bin whisper.cpp loads (the format of whisper.cpp's
models/convert-pt-to-ggml.py: magic, hparams, Slaney mel filters 80x201, vocabulary bytes, tensors), f16:
2-D weights f16, conv weights f16, biases, norms and positional embeddings f32. Adapted from the team's
../shared/bench/asr/make_models.py."""
import struct
import numpy as np


def mel_filters(sr=16000, n_fft=400, n_mels=80):
    """librosa.filters.mel(sr, n_fft, n_mels) with Slaney scale and norm (what whisper's mel_filters.npz holds)."""
    def hz_to_mel(f):
        f = np.asarray(f, np.float64)
        return np.where(f >= 1000.0, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), f / (200.0 / 3))
    def mel_to_hz(m):
        m = np.asarray(m, np.float64)
        return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), m * (200.0 / 3))
    fft_f = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2))
    fdiff, ramps = np.diff(mel_f), mel_f[:, None] - fft_f[None, :]
    w = np.maximum(0, np.minimum(-ramps[:-2] / fdiff[:-1, None], ramps[2:] / fdiff[1:, None]))
    w *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, None]
    return w.astype(np.float32)


def byte_decoder():
    """GPT-2's byte <-> printable-character table, reversed."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]; n = 0
    for b in range(256):
        if b not in bs: bs.append(b); cs.append(256 + n); n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def write_ggml(path, W, dims, vocab):
    """vocab: the tokenizer's {token string: id} (the 50257 GPT-2 tokens; whisper.cpp adds the specials)."""
    D, H, V = dims["D"], dims["H"], dims["V"]
    bd = byte_decoder()
    keep32 = ("encoder.conv1.bias", "encoder.conv2.bias", "encoder.positional_embedding", "decoder.positional_embedding")
    with open(path, "wb") as fo:
        fo.write(struct.pack("i", 0x67676D6C))
        fo.write(struct.pack("11i", V, 1500, D, H, dims["L_enc"], 448, D, H, dims["L_dec"], 80, 1))  # ftype 1 = f16
        filt = mel_filters()
        fo.write(struct.pack("ii", *filt.shape)); fo.write(filt.tobytes())
        toks = sorted(vocab.items(), key=lambda kv: kv[1])
        fo.write(struct.pack("i", len(toks)))
        for t, _ in toks:
            bts = bytes(bd[c] for c in t) if t != "<|endoftext|>" else t.encode()
            fo.write(struct.pack("I", len(bts))); fo.write(bts)
        for k, arr in W.items():
            data = arr.reshape(-1, 1) if k in ("encoder.conv1.bias", "encoder.conv2.bias") else arr
            n_dims = data.ndim
            if n_dims < 2 or k in keep32:
                tt, blob = 0, data.astype(np.float32).tobytes()
            else:
                tt, blob = 1, data.astype(np.float16).tobytes()
            kb = k.encode()
            fo.write(struct.pack("iii", n_dims, len(kb), tt))
            for i in range(n_dims): fo.write(struct.pack("i", data.shape[n_dims - 1 - i]))
            fo.write(kb); fo.write(blob)
