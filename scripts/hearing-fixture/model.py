"""A Whisper-shaped model in PyTorch with OpenAI Whisper's parameter names (what export.py writes to
ONNX and ggml). Training uses a reduced output layer: the rows of the tokens the data uses, plus one
shared row standing for every other token of the 51864 (its logit gets + log(count), so the softmax is
the full-vocabulary one the exported model computes)."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

N_MELS, N_CTX, N_TEXT, V = 80, 1500, 448, 51864


def sinusoids(n, d):
    inv = torch.exp(-math.log(10000) / (d // 2 - 1) * torch.arange(d // 2))
    ang = torch.arange(n)[:, None] * inv[None, :]
    return torch.cat([torch.sin(ang), torch.cos(ang)], 1)


class Attn(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.query, self.key, self.value, self.out = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x, kv=None, causal=False):
        kv = x if kv is None else kv
        B, T, D = x.shape
        sp = lambda t: t.view(B, -1, self.h, D // self.h).transpose(1, 2)
        y = F.scaled_dot_product_attention(sp(self.query(x)), sp(self.key(kv)), sp(self.value(kv)), is_causal=causal)
        return self.out(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self, d, h, ffn, cross):
        super().__init__()
        self.attn, self.attn_ln = Attn(d, h), nn.LayerNorm(d)
        self.cross_attn = Attn(d, h) if cross else None
        self.cross_attn_ln = nn.LayerNorm(d) if cross else None
        self.mlp, self.mlp_ln = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d)), nn.LayerNorm(d)

    def forward(self, x, xa=None):
        x = x + self.attn(self.attn_ln(x), causal=xa is not None)
        if self.cross_attn is not None:
            x = x + self.cross_attn(self.cross_attn_ln(x), xa)
        return x + self.mlp(self.mlp_ln(x))


class TinyWhisper(nn.Module):
    """`used`: token ids with their own rows (sorted); timestamp rows (ts_begin .. +1500) are a smooth learned
    function of the time, so neighbouring times get neighbouring embeddings."""

    def __init__(self, d, h, enc_layers, dec_layers, ffn, used, ts_begin):
        super().__init__()
        self.d, self.ts_begin = d, ts_begin
        self.conv1, self.conv2 = nn.Conv1d(N_MELS, d, 3, padding=1), nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("enc_pos", sinusoids(N_CTX, d), persistent=False)
        self.enc_blocks = nn.ModuleList(Block(d, h, ffn, False) for _ in range(enc_layers))
        self.ln_post = nn.LayerNorm(d)
        self.used = list(used)
        self.word_emb = nn.Parameter(torch.randn(len(self.used), d) * 0.02)
        self.register_buffer("ts_feat", sinusoids(1501, 32) , persistent=False)
        self.ts_proj = nn.Linear(32, d)
        self.other = nn.Parameter(torch.randn(1, d) * 0.02)
        self.dec_pos = nn.Parameter(torch.randn(N_TEXT, d) * 0.01)
        self.dec_blocks = nn.ModuleList(Block(d, h, ffn, True) for _ in range(dec_layers))
        self.ln = nn.LayerNorm(d)
        self.log_other = math.log(V - len(self.used) - 1501)
        # id -> row of the reduced table (words, then 1501 timestamps, then "other")
        self.row = {t: i for i, t in enumerate(self.used)}
        for i in range(1501):
            self.row[ts_begin + i] = len(self.used) + i

    def table(self):
        return torch.cat([self.word_emb, self.ts_proj(self.ts_feat)], 0)

    def encode(self, mel, offsets=None):
        """mel [B, 80, frames] -> [B, frames / 2, d]. `offsets` [B] (encoder positions): the mel is a crop of
        the 30 s input starting there (training on crops keeps attention cheap)."""
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).transpose(1, 2)
        if offsets is None:
            offsets = torch.zeros(x.shape[0], dtype=torch.long)
        x = x + self.enc_pos[offsets[:, None] + torch.arange(x.shape[1])[None, :]]
        for b in self.enc_blocks:
            x = b(x)
        return self.ln_post(x)

    def decode(self, rows, xa):
        """rows: [B, S] reduced-table rows -> logits [B, S, rows + 1] (last column: each "other" token)."""
        E = self.table()
        x = E[rows] + self.dec_pos[: rows.shape[1]]
        for b in self.dec_blocks:
            x = b(x, xa)
        h = self.ln(x)
        return torch.cat([h @ E.T, h @ self.other.T], -1)

    def loss_logits(self, logits):
        """Log-probabilities over the full vocabulary, seen through the reduced table."""
        return torch.cat([logits[..., :-1], logits[..., -1:] + self.log_other], -1).log_softmax(-1)

    def full_weights(self):
        """OpenAI-named numpy weights with the full 51864-row token embedding."""
        sd = {k: v.detach().float().numpy() for k, v in self.state_dict().items()}
        W = {"encoder.conv1.weight": sd["conv1.weight"], "encoder.conv1.bias": sd["conv1.bias"],
             "encoder.conv2.weight": sd["conv2.weight"], "encoder.conv2.bias": sd["conv2.bias"],
             "encoder.positional_embedding": self.enc_pos.numpy().astype("float32"),
             "decoder.positional_embedding": sd["dec_pos"], "encoder.ln_post.weight": sd["ln_post.weight"],
             "encoder.ln_post.bias": sd["ln_post.bias"], "decoder.ln.weight": sd["ln.weight"], "decoder.ln.bias": sd["ln.bias"]}
        E = self.other.detach().numpy().repeat(V, 0).copy()
        table = self.table().detach().numpy()
        for t, r in self.row.items():
            E[t] = table[r]
        W["decoder.token_embedding.weight"] = E
        for side, blocks in (("encoder", self.enc_blocks), ("decoder", self.dec_blocks)):
            for i, b in enumerate(blocks):
                for k, v in b.state_dict().items():
                                        W[f"{side}.blocks.{i}.{k}"] = v.detach().float().numpy()
        return W
