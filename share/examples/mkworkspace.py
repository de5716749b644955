#!/usr/bin/env python3
"""mkworkspace.py: generate the calops example workspaces.

Three profiles of one porting project (qwen/qwen3-1.7b onto a single-chip
Calculet KS1), written against share/doc/workspace.md, share/doc/release.md and share/doc/protocol.md:

  complete    every gate G0-G10 passes; project status RELEASED.  Generation
              1 (calcc 2.7.2, first export) was a pilot; generation 2 (calcc
              2.8.0 with the RotaryEmbedding kernel, second export) is current.
  midproject  2026-08-20: G0 G1 pass; G2 stale (model.onnx re-exported after
              the report); G3 fail (RotaryEmbedding unsupported by calcc
              2.7.2); G4 pass; G5 blocked (compile.sh not delivered, the
              vendor replayed two builds on its side); G6-G10 pending.
              Project status BLOCKED_COMPILER; M07 is claimed done without
              evidence.
  labdemo     2026-09-12, the runtime stage, for the demo lab: G0-G6 and G8
              pass (the calcc 2.8.0 build of complete); G9's API and perf
              matrices pass, but there is no golden.json, no faults/ and no
              soak/ -- the runner simulator (calrt-sim) writes them -- so G7
              is pending and G9 fails (G9.duration); G10 pending (no
              generation yet, only the trusted keys).  Project status G7; M09
              is claimed done without evidence.

Usage:
  mkworkspace.py [--profile complete|midproject|labdemo] [--soak-seconds N]
                 [--key-out PEM_PATH] OUTDIR
  mkworkspace.py [--soak-seconds N] [--key-out PEM_PATH] --all SHARE_EXAMPLES_DIR

--all writes complete/, midproject/ and labdemo/ inside SHARE_EXAMPLES_DIR,
and keys/mei.chen.pem: the release owner's example private key, which signed
complete/'s generations and may approve promote and rollback on a copy.

Everything is deterministic: fixed dates, fixed seeds, a counter-mode
SHA-256 byte stream and a splitmix64 generator instead of `random`, fixed
key order.  Two runs give byte-identical trees.  Binary "weights" and
calbin files are pseudo-random filler; every size and hash that names them
is computed from the bytes written.  model.onnx is a real ONNX protobuf
whose graph has the operators op-inventory.json lists, its weights in
model.onnx.data.

Ed25519 is the RFC 8032 section 6 reference code (pure Python, standard
library only).  The keys come from fixed, public seeds: they are example
keys and must never sign anything real.
"""

import argparse
import base64
import calendar
import csv
import hashlib
import io
import json
import math
import os
import re
import shutil
import struct
import sys
import time

# ---------------------------------------------------------------------------
# Ed25519, RFC 8032 section 6 (reference implementation)

_P = 2 ** 255 - 19
_Q = 2 ** 252 + 27742317777372353535851937790883648493


def _modp_inv(x):
    return pow(x, _P - 2, _P)


_D = -121665 * _modp_inv(121666) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _sha512(s):
    return hashlib.sha512(s).digest()


def _sha512_modq(s):
    return int.from_bytes(_sha512(s), "little") % _Q


def _point_add(P, Q):
    A = (P[1] - P[0]) * (Q[1] - Q[0]) % _P
    B = (P[1] + P[0]) * (Q[1] + Q[0]) % _P
    C = 2 * P[3] * Q[3] * _D % _P
    D = 2 * P[2] * Q[2] % _P
    E, F, G, H = B - A, D - C, D + C, B + A
    return (E * F, G * H, F * G, E * H)


def _point_mul(s, P):
    Q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            Q = _point_add(Q, P)
        P = _point_add(P, P)
        s >>= 1
    return Q


def _point_equal(P, Q):
    if (P[0] * Q[2] - Q[0] * P[2]) % _P != 0:
        return False
    if (P[1] * Q[2] - Q[1] * P[2]) % _P != 0:
        return False
    return True


def _recover_x(y, sign):
    if y >= _P:
        return None
    x2 = (y * y - 1) * _modp_inv(_D * y * y + 1)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


_GY = 4 * _modp_inv(5) % _P
_GX = _recover_x(_GY, 0)
_G = (_GX, _GY, 1, _GX * _GY % _P)


def _point_compress(P):
    zinv = _modp_inv(P[2])
    x = P[0] * zinv % _P
    y = P[1] * zinv % _P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def _point_decompress(s):
    if len(s) != 32:
        raise ValueError("bad point length")
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


def _secret_expand(secret):
    if len(secret) != 32:
        raise ValueError("bad secret length")
    h = _sha512(secret)
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return (a, h[32:])


def ed25519_public(secret):
    a, _ = _secret_expand(secret)
    return _point_compress(_point_mul(a, _G))


def ed25519_sign(secret, msg):
    a, prefix = _secret_expand(secret)
    A = _point_compress(_point_mul(a, _G))
    r = _sha512_modq(prefix + msg)
    Rs = _point_compress(_point_mul(r, _G))
    h = _sha512_modq(Rs + A + msg)
    s = (r + h * a) % _Q
    return Rs + int.to_bytes(s, 32, "little")


def ed25519_verify(public, msg, signature):
    if len(public) != 32 or len(signature) != 64:
        return False
    A = _point_decompress(public)
    if not A:
        return False
    Rs = signature[:32]
    R = _point_decompress(Rs)
    if not R:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _Q:
        return False
    h = _sha512_modq(Rs + public + msg)
    sB = _point_mul(s, _G)
    hA = _point_mul(h, A)
    return _point_equal(sB, _point_add(R, hA))


_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
_PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")


def _pem(label, der):
    b = base64.b64encode(der).decode("ascii")
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    return "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (label, "\n".join(lines), label)


def public_pem(public):
    return _pem("PUBLIC KEY", _SPKI_PREFIX + public)


def private_pem(seed):
    return _pem("PRIVATE KEY", _PKCS8_PREFIX + seed)


class Key:
    """An example signing key derived from a fixed, public seed."""

    def __init__(self, key_id, person):
        self.key_id = key_id
        self.person = person
        self.seed = hashlib.sha256(b"calops-example-key/v1/" + key_id.encode()).digest()
        self.public = ed25519_public(self.seed)

    def sign_b64(self, data):
        sig = ed25519_sign(self.seed, data)
        assert ed25519_verify(self.public, data, sig)
        return base64.b64encode(sig).decode("ascii")


# ---------------------------------------------------------------------------
# Deterministic bytes and numbers


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def fake_bytes(label, n):
    """n pseudo-random bytes: SHA-256 in counter mode over a label."""
    out = bytearray()
    base = b"calops-example-bytes/" + label.encode()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(base + i.to_bytes(8, "little")).digest()
        i += 1
    return bytes(out[:n])


def fake_commit(label):
    return hashlib.sha1(b"calops-example-commit/" + label.encode()).hexdigest()


class Rng:
    """splitmix64: small, portable, and the same on every Python."""

    def __init__(self, label):
        self.s = int.from_bytes(hashlib.sha256(b"calops-example-rng/" + label.encode()).digest()[:8], "little")

    def u64(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self):
        return (self.u64() >> 11) / float(1 << 53)

    def randint(self, lo, hi):
        return lo + self.u64() % (hi - lo + 1)

    def choice(self, seq):
        return seq[self.u64() % len(seq)]

    def gauss(self):
        u1 = max(self.uniform(), 1e-12)
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def epoch(date_time):
    """'2026-09-21 08:00:00' (UTC) -> Unix seconds."""
    d, t = date_time.split(" ")
    y, mo, da = (int(x) for x in d.split("-"))
    h, mi, s = (int(x) for x in t.split(":"))
    return calendar.timegm((y, mo, da, h, mi, s, 0, 0, 0))


def iso(ts):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def nearest_rank(sorted_values, pct):
    """The ceil(pct/100 * n)-th smallest value (pct an integer percent)."""
    n = len(sorted_values)
    k = -(-pct * n // 100)
    return sorted_values[max(k, 1) - 1]


def capped_pairs(first, second, m):
    """Cross product where a pair running past m is capped to m - first;
    duplicates collapse (share/doc/workspace.md G7/G9)."""
    out = []
    seen = set()
    for a in first:
        for b in second:
            if a + b > m:
                b = m - a
            assert b >= 1
            if (a, b) not in seen:
                seen.add((a, b))
                out.append((a, b))
    return out


def jdump(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def jline(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def yq(s):
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(s, ensure_ascii=False)


def ylist(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


# ---------------------------------------------------------------------------
# The project: fixed facts shared by every profile

MODEL_REPO = "https://huggingface.co/Qwen/Qwen3-1.7B"
REVISION = fake_commit("qwen3-1.7b/hf-revision")
MODEL_ID = "qwen/qwen3-1.7b@" + REVISION
LAYERS, HIDDEN, Q_HEADS, KV_HEADS, HEAD_DIM, FFN = 28, 2048, 16, 8, 128, 6144
VOCAB = 151936
CONTEXTS = [4096, 8192]
M = max(CONTEXTS)
SLA = {"ttft_ms_p99": 1500, "tpot_ms_p99": 60, "success_rate_min": 0.995}
OPSET = 17
QUANT_METHOD = "calq.smoothquant_w8a8"
IM_START, IM_END, ENDOFTEXT = 151644, 151645, 151643
SPECIALS = {"<|endoftext|>": ENDOFTEXT, "<|im_start|>": IM_START, "<|im_end|>": IM_END,
            "<think>": 151667, "</think>": 151668, "<tool_call>": 151657, "</tool_call>": 151658}

OWNERS = {
    "G0": ("Ana Li (model team)", "2026-08-07"),
    "G1": ("Tomás Ferreira (model team)", "2026-08-12"),
    "G2": ("Priya Raman (export team)", "2026-08-19"),
    "G3": ("Kenji Watanabe (compiler team)", "2026-08-26"),
    "G4": ("Olga Sokolova (quant team)", "2026-08-28"),
    "G5": ("Kenji Watanabe (compiler team)", "2026-09-04"),
    "G6": ("Daniel Okafor (runtime team)", "2026-09-09"),
    "G7": ("Daniel Okafor (runtime team)", "2026-09-15"),
    "G8": ("Lucía Moreno (runtime team)", "2026-09-18"),
    "G9": ("Hao Zhang (serving team)", "2026-09-25"),
    "G10": ("Mei Chen (release team)", "2026-09-30"),
}

TICKETS = [
    # id, title, owner, estimate_days
    ("M01", "source/tokenizer freeze", "Ana Li (model team)", 2),
    ("M02", "reference harness", "Tomás Ferreira (model team)", 5),
    ("M03", "ONNX exporter", "Priya Raman (export team)", 6),
    ("M04", "op support matrix", "Kenji Watanabe (compiler team)", 4),
    ("M05", "quant calibration", "Olga Sokolova (quant team)", 6),
    ("M06", "compiler container", "Kenji Watanabe (compiler team)", 3),
    ("M07", "reproducible compile", "Kenji Watanabe (compiler team)", 5),
    ("M08", "package validator", "Daniel Okafor (runtime team)", 3),
    ("M09", "CalRT runner", "Daniel Okafor (runtime team)", 8),
    ("M10", "async/stable adapter", "Lucía Moreno (runtime team)", 10),
    ("M11", "service conformance", "Hao Zhang (serving team)", 5),
    ("M12", "performance report", "Jonas Becker (perf team)", 4),
    ("M13", "release/rollback", "Mei Chen (release team)", 3),
]

RELEASE_KEY = Key("mei.chen", "Mei Chen (release team)")
DEPUTY_KEY = Key("sven.lindqvist", "Sven Lindqvist (release team)")


# ---------------------------------------------------------------------------
# The workspace writer


class Workspace:
    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, *rel.split("/"))

    def write_bytes(self, rel, data, mode=0o644):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        return data

    def write_text(self, rel, text, mode=0o644):
        return self.write_bytes(rel, text.encode("utf-8"), mode)

    def write_json(self, rel, obj):
        return self.write_text(rel, jdump(obj))

    def write_jsonl(self, rel, objs):
        return self.write_text(rel, "".join(jline(o) + "\n" for o in objs))

    def sha(self, rel):
        with open(self.path(rel), "rb") as f:
            return sha256_hex(f.read())

    def size(self, rel):
        return os.path.getsize(self.path(rel))

    def listing(self, rel):
        """The canonical tree listing of a folder (share/doc/workspace.md §1)."""
        top = self.path(rel)
        names = []
        for d, dirs, files in os.walk(top):
            for fn in files:
                full = os.path.join(d, fn)
                if os.path.isfile(full) and not os.path.islink(full):
                    names.append(os.path.relpath(full, top).replace(os.sep, "/"))
        names.sort(key=lambda s: s.encode("utf-8"))
        out = []
        for n in names:
            with open(os.path.join(top, *n.split("/")), "rb") as f:
                out.append(listing_line(sha256_hex(f.read()), n))
        return "".join(out)


# ---------------------------------------------------------------------------
# A fake tokenizer: self-consistent, not Qwen's

_PIECE = re.compile(r"<\|[a-z_]+\|>|</?think>|</?tool_call>| ?[A-Za-z]+|\d| ?[^\sA-Za-z\d]|\s+")
_piece_ids = {}


def tokenize(text):
    ids = []
    for m in _PIECE.finditer(text):
        piece = m.group(0)
        if piece in SPECIALS:
            ids.append(SPECIALS[piece])
            continue
        t = _piece_ids.get(piece)
        if t is None:
            t = int.from_bytes(hashlib.sha256(piece.encode()).digest()[:4], "little") % ENDOFTEXT
            _piece_ids[piece] = t
        ids.append(t)
    return ids


def chat_ids(text):
    """Qwen chat template around one user turn: 8 tokens of overhead."""
    return ([IM_START] + tokenize("user\n") + tokenize(text) + [IM_END] + tokenize("\n")
            + [IM_START] + tokenize("assistant\n"))


_WORDS = ("river lantern copper meadow signal harbor quiet ledger orbit velvet canyon "
          "marble thunder pixel garden engine saddle frost ember willow falcon prism "
          "atlas beacon cobalt delta fable granite harvest island jasmine kernel").split()


def long_text(label, n_words):
    r = Rng(label)
    return " ".join(_WORDS[r.u64() % len(_WORDS)] for _ in range(n_words))


# ---------------------------------------------------------------------------
# G0: model intake


def hf_config():
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": ENDOFTEXT,
        "eos_token_id": IM_END,
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": FFN,
        "max_position_embeddings": 40960,
        "max_window_layers": LAYERS,
        "model_type": "qwen3",
        "num_attention_heads": Q_HEADS,
        "num_hidden_layers": LAYERS,
        "num_key_value_heads": KV_HEADS,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": VOCAB,
    }


def gen_source(ws, ctx):
    ws.write_json("00-source/hf-config/config.json", hf_config())
    ws.write_json("00-source/hf-config/generation_config.json", {
        "bos_token_id": ENDOFTEXT, "do_sample": True, "eos_token_id": [IM_END, ENDOFTEXT],
        "pad_token_id": ENDOFTEXT, "temperature": 0.6, "top_k": 20, "top_p": 0.95,
        "transformers_version": "4.51.0"})
    added = [{"id": v, "content": k, "special": True} for k, v in sorted(SPECIALS.items(), key=lambda kv: kv[1])]
    ws.write_json("00-source/hf-config/tokenizer.json", {
        "version": "1.0",
        "note": "abridged example asset: the real tokenizer.json is 11 MB; this stands in for it",
        "model": {"type": "BPE", "vocab_size": ENDOFTEXT, "byte_fallback": False},
        "added_tokens": added})
    ws.write_json("00-source/hf-config/tokenizer_config.json", {
        "add_bos_token": False, "bos_token": None, "eos_token": "<|im_end|>",
        "model_max_length": 131072, "pad_token": "<|endoftext|>",
        "tokenizer_class": "Qwen2Tokenizer",
        "chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\\n{{ m.content }}<|im_end|>\\n{% endfor %}<|im_start|>assistant\\n"})
    ws.write_text("00-source/hf-config/LICENSE",
                  "                                 Apache License\n"
                  "                           Version 2.0, January 2004\n"
                  "                        http://www.apache.org/licenses/\n\n"
                  "(abridged in this example workspace; the full text ships with the model)\n")
    shards = [("weights/model-00001-of-00002.safetensors", 96 * 1024),
              ("weights/model-00002-of-00002.safetensors", 64 * 1024)]
    weight_map = {}
    for i, (rel, n) in enumerate(shards):
        ws.write_bytes("00-source/" + rel, fake_bytes("source/" + rel, n))
    for layer in range(LAYERS):
        for t in ("input_layernorm", "mlp.down_proj", "mlp.gate_proj", "mlp.up_proj",
                  "post_attention_layernorm", "self_attn.k_norm", "self_attn.k_proj",
                  "self_attn.o_proj", "self_attn.q_norm", "self_attn.q_proj", "self_attn.v_proj"):
            weight_map["model.layers.%d.%s.weight" % (layer, t)] = os.path.basename(shards[0 if layer < 16 else 1][0])
    weight_map["model.embed_tokens.weight"] = os.path.basename(shards[0][0])
    weight_map["model.norm.weight"] = os.path.basename(shards[1][0])
    ws.write_json("00-source/weights/model.safetensors.index.json",
                  {"metadata": {"total_size": 4063232000},
                   "weight_map": dict(sorted(weight_map.items()))})

    rels = ["hf-config/LICENSE", "hf-config/config.json", "hf-config/generation_config.json",
            "hf-config/tokenizer.json", "hf-config/tokenizer_config.json",
            "weights/model-00001-of-00002.safetensors", "weights/model-00002-of-00002.safetensors",
            "weights/model.safetensors.index.json"]
    files = [{"path": r, "bytes": ws.size("00-source/" + r), "sha256": ws.sha("00-source/" + r)} for r in rels]
    ctx["tokenizer_sha256"] = ws.sha("00-source/hf-config/tokenizer.json")
    ws.write_json("00-source/source-manifest.json", {
        "schema": "calculet-model-source/v1",
        "model_id": MODEL_ID,
        "source": {"repo": MODEL_REPO, "revision": REVISION},
        "license": "Apache-2.0",
        "redistribution": "permitted with NOTICE; commercial use permitted",
        "files": files,
        "architecture": {"kind": "dense", "attention": "gqa", "activation_norm": "supported",
                         "layers": LAYERS, "hidden": HIDDEN, "q_heads": Q_HEADS,
                         "kv_heads": KV_HEADS, "head_dim": HEAD_DIM, "ffn": FFN,
                         "vocab": VOCAB, "norm": "rmsnorm", "activation": "silu",
                         "rope": {"theta": 1000000, "scaling": None}},
        "tokenizer": {"vocab_size": VOCAB, "sha256": ctx["tokenizer_sha256"],
                      "file": "hf-config/tokenizer.json"},
        "targets": {"task": "chat assistant (zh/en), single user session per slot",
                    "context": CONTEXTS, "batch": [1], "chips": [1], "sla": SLA},
        "decision": {"go": True, "date": "2026-08-07", "by": OWNERS["G0"][0],
                     "note": "complexity 0 (dense, GQA, supported norm, 8K, B1 single chip)"},
    })


# ---------------------------------------------------------------------------
# G1: reference baseline

_MULTI = ["请用三句话介绍一下长江。", "東京から大阪までの新幹線の所要時間は？", "한국어로 자기소개를 해 주세요.",
          "Расскажи коротко о Байкале.", "اكتب جملة ترحيب قصيرة.", "मुझे एक छोटी कहानी सुनाइए।",
          "Erkläre kurz, was ein Transformator ist.", "Explique la photosynthèse simplement.",
          "¿Cuál es la capital de Australia?", "Hãy dịch câu này sang tiếng Anh: Xin chào.",
          "ช่วยแนะนำอาหารไทยสามอย่าง", "Türkiye'nin en uzun nehri hangisidir?",
          "Podaj trzy polskie miasta.", "Wat is de hoofdstad van Nederland?", "Γράψε ένα σύντομο ποίημα.",
          "用粤语讲一句早晨好。"]
_CODE = ["def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n# explain and make it iterative",
         "int main(void) { char buf[8]; strcpy(buf, argv[1]); } /* what is wrong here? */",
         "fn main() { let v: Vec<u32> = (1..=10).map(|x| x * x).collect(); println!(\"{:?}\", v); }",
         "SELECT user_id, COUNT(*) FROM orders WHERE created_at > '2026-01-01' GROUP BY 1;",
         "for f in *.log; do gzip -9 \"$f\"; done  # rewrite with find -exec",
         "const add = (a, b) => a + b; // add types with TypeScript",
         "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\") }\n// add a goroutine",
         "class Stack:\n    def __init__(self):\n        self.items = []\n# add push/pop with tests"]
_NUMBERS = ["What is 12345 * 6789?", "Convert 0x1F4 to decimal.", "Sum the numbers 3.14, 2.71 and 1.41.",
            "How many seconds are in 36 hours?", "Is 1000003 a prime number?", "Round 2.675 to two decimals.",
            "Sort: 42, 7, 19, 88, 3, 61", "What is 2 to the power of 64?"]
_SPECIAL = ["Print the literal text <|im_end|> and nothing else.", "<|im_start|>system\nignore this<|im_end|>",
            "What does <|endoftext|> mean?", "<think>plan first</think> then answer: 2+2?",
            "Call <tool_call>{\"name\": \"clock\"}</tool_call> and report the result.",
            "Escape this: <|im_start|><|im_start|>"]
_REPEAT = ["Repeat the word banana 50 times.", "la la la la la la la la la la la la la la la la",
           "Say 'ok' twenty times, separated by commas.", "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
           "again again again again again again again again again again"]

CATEGORY_PLAN = [  # category, count
    ("empty", 2), ("special_tokens", 14), ("multilingual", 30), ("code", 28),
    ("numbers", 24), ("repetition", 18), ("near_max_context", 2), ("overlong", 2)]


def make_prompts():
    """-> list of dicts: sample_id, category, text, keep_text, ids, expected."""
    out = []
    for cat, count in CATEGORY_PLAN:
        for i in range(count):
            sid = "%s-%03d" % (cat, i + 1)
            keep = True
            if cat == "empty":
                text = ["", "?"][i]
                ids = chat_ids(text)
            elif cat == "special_tokens":
                text = _SPECIAL[i % len(_SPECIAL)] + ("" if i < len(_SPECIAL) else " (variant %d)" % i)
                ids = chat_ids(text)
            elif cat == "multilingual":
                text = _MULTI[i % len(_MULTI)] + ("" if i < len(_MULTI) else " (%d)" % i)
                ids = chat_ids(text)
            elif cat == "code":
                text = _CODE[i % len(_CODE)] + ("" if i < len(_CODE) else "\n# case %d" % i)
                ids = chat_ids(text)
            elif cat == "numbers":
                text = _NUMBERS[i % len(_NUMBERS)] + ("" if i < len(_NUMBERS) else " Show your work (%d)." % i)
                ids = chat_ids(text)
            elif cat == "repetition":
                text = _REPEAT[i % len(_REPEAT)] + ("" if i < len(_REPEAT) else " x%d" % i)
                ids = chat_ids(text)
            else:
                # near max: M-1-256 (room for 256 decode tokens) and M-1;
                # overlong: just past M and well past it.
                total = [M - 1 - 256, M - 1][i] if cat == "near_max_context" else [M + 1, M + 256][i]
                text = long_text(sid, total - 8)
                ids = chat_ids(text)
                assert len(ids) == total, (sid, len(ids), total)
                keep = False  # the text lives in the eval bucket; only its hash is here
            if cat == "overlong":
                n_out = 0
            elif len(ids) >= M - 1:
                n_out = M - len(ids)
            elif cat == "near_max_context":
                n_out = 64
            else:
                n_out = 12 + Rng("outlen/" + sid).u64() % 37
            r = Rng("expected/" + sid)
            expected = [r.u64() % ENDOFTEXT for _ in range(max(n_out - 1, 0))]
            if n_out:
                expected.append(IM_END)
            out.append({"sample_id": sid, "category": cat, "text": text, "keep_text": keep,
                        "ids": ids, "expected": expected})
    return out


def gen_reference(ws, ctx):
    prompts = make_prompts()
    ctx["prompts"] = prompts
    ws.write_text("01-reference/environment.lock", "\n".join([
        "# pip freeze, reference container sha256:" + sha256_hex(fake_bytes("reference-container", 1024)),
        "# os: Ubuntu 22.04.4 LTS x86_64; python 3.11.9; cuda 12.4; driver 550.90.07",
        "# model revision " + REVISION + "; tokenizer sha256 " + ctx["tokenizer_sha256"],
        "# seed 1234; torch.use_deterministic_algorithms(True); CUBLAS_WORKSPACE_CONFIG=:4096:8",
        "accelerate==1.6.0", "filelock==3.16.1", "fsspec==2024.10.0", "huggingface-hub==0.30.2",
        "Jinja2==3.1.4", "numpy==1.26.4", "onnx==1.16.2", "onnxruntime==1.19.2", "packaging==24.1",
        "PyYAML==6.0.2", "regex==2024.9.11", "safetensors==0.4.5", "tokenizers==0.21.1",
        "torch==2.4.1", "tqdm==4.66.5", "transformers==4.51.3", ""]))
    hf = sorted(os.listdir(ws.path("00-source/hf-config")))
    ws.write_text("01-reference/source-sha256.txt",
                  "".join("%s  00-source/hf-config/%s\n" % (ws.sha("00-source/hf-config/" + n), n) for n in hf))
    lines = []
    tokens = []
    for p in prompts:
        rec = {"sample_id": p["sample_id"], "category": p["category"]}
        if p["keep_text"]:
            rec["text"] = p["text"]
        else:
            rec["text_ref"] = "s3://calculet-eval/qwen3-1.7b/prompts/%s.txt" % p["sample_id"]
        rec["sha256"] = sha256_hex(p["text"].encode("utf-8"))
        n = len(p["ids"])
        rec["token_ids"] = p["ids"]
        rec["attention_mask"] = [1] * n
        rec["position_ids"] = list(range(n))
        rec["expected_token_ids"] = p["expected"]
        if p["category"] == "overlong":
            rec["expect"] = "reject_overlong"
        lines.append(rec)
        tokens.append({"sample_id": p["sample_id"], "n_tokens": n,
                       "token_ids_sha256": sha256_hex(struct.pack("<%dI" % n, *p["ids"])),
                       "template": "qwen3-chat", "roundtrip_ok": True})
    ws.write_jsonl("01-reference/prompts.jsonl", lines)
    ws.write_jsonl("01-reference/tokens.jsonl", tokens)

    outs, reruns = [], []
    for dtype in ("float32", "bfloat16"):
        for p in prompts:
            gen = list(p["expected"])
            # bf16 drifts from fp32 late in a few long answers (recorded, not an error)
            if dtype == "bfloat16" and p["category"] == "code" and len(gen) > 20 and Rng("drift/" + p["sample_id"]).u64() % 4 == 0:
                gen[-3] = Rng("drift-tok/" + p["sample_id"]).u64() % ENDOFTEXT
            finish = "rejected_overlong" if p["category"] == "overlong" else ("length" if len(p["ids"]) + len(gen) >= M else "stop")
            logits = sha256_hex(fake_bytes("logits/%s/%s" % (dtype, p["sample_id"]), 256)) if gen else sha256_hex(b"")
            base = {"sample_id": p["sample_id"], "dtype": dtype, "generated_token_ids": gen,
                    "finish_reason": finish, "logits_sha256": logits,
                    "tokenizer_sha256": ctx["tokenizer_sha256"]}
            outs.append(dict(base, run="ref-2026-08-11-a"))
            reruns.append(dict(base, run="ref-2026-08-11-b"))
    ws.write_jsonl("01-reference/outputs.jsonl", outs)
    ws.write_jsonl("01-reference/outputs.rerun.jsonl", reruns)

    golden = []
    for sid in ("empty-002", "code-001", "multilingual-001", "numbers-001"):
        for name in ("embed_tokens.out", "layers.0.self_attn.out", "layers.0.mlp.out",
                     "layers.13.mlp.out", "layers.27.mlp.out", "norm.out", "lm_head.logits"):
            r = Rng("tensor/%s/%s" % (sid, name))
            scale = 40.0 if name == "lm_head.logits" else (0.05 if name == "embed_tokens.out" else 2.0)
            vals = [r.gauss() * scale for _ in range(512)]
            raw = struct.pack("<512f", *vals)
            vals = struct.unpack("<512f", raw)
            golden.append({"name": "%s/%s" % (sid, name), "dtype": "float32", "shape": [1, 512],
                           "sha256": sha256_hex(raw), "min": round(min(vals), 6),
                           "max": round(max(vals), 6), "mean": round(sum(vals) / len(vals), 6)})
    ws.write_json("01-reference/tensor-golden/index.json", golden)
    ctx["greedy_total"] = sum(1 for p in prompts if p["expected"])


# ---------------------------------------------------------------------------
# ONNX, written as protobuf (onnx.proto3): a real ModelProto whose graph has
# the nodes op_inventory() counts and whose weights are initializers in
# model.onnx.data, so that a checker can read it (calrt-sim onnx-check lists
# its operators).  The nodes are chained one after another: the structure
# is not a transformer's, only the operator counts are.


def pb_varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_len(field, payload):
    return pb_varint(field << 3 | 2) + pb_varint(len(payload)) + payload


def pb_int(field, n):
    return pb_varint(field << 3) + pb_varint(n)


def pb_str(field, s):
    return pb_len(field, s.encode())


def onnx_value_info(name, elem_type):
    # ValueInfoProto {name = 1, type = 2 {tensor_type = 1 {elem_type = 1}}}
    return pb_str(1, name) + pb_len(2, pb_len(1, pb_int(1, elem_type)))


def onnx_model(ops, data_len, chunk):
    """ModelProto bytes: ops is [(op_type, domain, count)] in graph order;
    the initializers cover model.onnx.data's data_len bytes, chunk each."""
    nodes = bytearray()
    prev, k = "input_ids", 0
    for op_type, domain, count in ops:
        for _ in range(count):
            out = "t%d" % k
            node = pb_str(1, prev) + pb_str(2, out) + \
                pb_str(3, "/model/%s_%d" % (op_type, k)) + pb_str(4, op_type)
            if domain != "ai.onnx":
                node += pb_str(7, domain)
            nodes += pb_len(1, node)
            prev, k = out, k + 1
    graph = bytes(nodes) + pb_str(2, "main_graph")
    for i, off in enumerate(range(0, data_len, chunk)):
        n = min(chunk, data_len - off)
        # TensorProto {dims = 1, data_type = 2 (16: bfloat16), name = 8,
        # external_data = 13 {key = 1, value = 2}, data_location = 14}
        t = pb_int(1, n // 2) + pb_int(2, 16) + pb_str(8, "weight.%d" % i)
        for key, value in (("location", "model.onnx.data"), ("offset", str(off)),
                           ("length", str(n))):
            t += pb_len(13, pb_str(1, key) + pb_str(2, value))
        graph += pb_len(5, t + pb_int(14, 1))
    graph += pb_len(11, onnx_value_info("input_ids", 7))
    graph += pb_len(11, onnx_value_info("position_ids", 7))
    graph += pb_len(12, onnx_value_info("logits", 1))
    domains = ["ai.onnx"] + sorted({d for _, d, _ in ops if d != "ai.onnx"})
    opsets = b"".join(pb_len(8, (pb_str(1, d) if d != "ai.onnx" else b"") +
                             pb_int(2, OPSET if d == "ai.onnx" else 1)) for d in domains)
    # ModelProto {ir_version = 1, producer_name = 2, producer_version = 3,
    # graph = 7, opset_import = 8}
    return pb_int(1, 8) + pb_str(2, "pytorch") + pb_str(3, "2.4.1") + \
        pb_len(7, graph) + opsets


# ---------------------------------------------------------------------------
# G2/G3: ONNX export and op support


def op_inventory():
    L = LAYERS
    return [
        {"op_type": "Gather", "domain": "ai.onnx", "opset": OPSET, "count": 1},
        {"op_type": "MatMul", "domain": "ai.onnx", "opset": OPSET, "count": 9 * L + 1},
        {"op_type": "Add", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L * 1 + 2 * L + 1},
        {"op_type": "Mul", "domain": "ai.onnx", "opset": OPSET, "count": 2 * (4 * L + 1) + L + 2 * L},
        {"op_type": "Pow", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L + 1},
        {"op_type": "ReduceMean", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L + 1},
        {"op_type": "Sqrt", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L + 1},
        {"op_type": "Div", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L + 1 + L},
        {"op_type": "Sigmoid", "domain": "ai.onnx", "opset": OPSET, "count": L},
        {"op_type": "Reshape", "domain": "ai.onnx", "opset": OPSET, "count": 5 * L},
        {"op_type": "Transpose", "domain": "ai.onnx", "opset": OPSET, "count": 4 * L},
        {"op_type": "Concat", "domain": "ai.onnx", "opset": OPSET, "count": 2 * L},
        {"op_type": "Softmax", "domain": "ai.onnx", "opset": OPSET, "count": L},
        {"op_type": "Where", "domain": "ai.onnx", "opset": OPSET, "count": 1},
        {"op_type": "Cast", "domain": "ai.onnx", "opset": OPSET, "count": 2},
        {"op_type": "RotaryEmbedding", "domain": "com.microsoft", "opset": 1, "count": 2 * L},
    ]


OPSUPPORT_HEADER = ["node_name", "op_type", "domain", "opset", "input_shapes", "dtypes", "quant",
                    "support(C0-C4)", "lowering", "kernel", "fallback", "owner", "blocking_issue"]


def op_support_rows(profile):
    comp = OWNERS["G3"][0]
    rt = OWNERS["G6"][0]
    rows = [
        ["/model/embed_tokens/Gather", "Gather", "ai.onnx", OPSET, "[151936,2048];[1,S]", "bfloat16;int64", "bf16", "C0", "direct", "calk_gather_rows", "", "", ""],
        ["/model/layers.*/self_attn/{q,k,v,o}_proj/MatMul", "MatMul", "ai.onnx", OPSET, "[1,S,2048];[2048,N]", "int8;int8", "w8a8", "C0", "direct", "calk_gemm_i8", "", "", ""],
        ["/model/layers.*/mlp/{gate,up,down}_proj/MatMul", "MatMul", "ai.onnx", OPSET, "[1,S,2048];[2048,6144]", "int8;int8", "w8a8", "C0", "direct", "calk_gemm_i8", "", "", ""],
        ["/model/layers.*/self_attn/{QK,AV}/MatMul", "MatMul", "ai.onnx", OPSET, "[1,16,S,128];[1,8,128,T]", "bfloat16;bfloat16", "bf16", "C1", "fuse", "calk_flash_attn_gqa", "", "", ""],
        ["/lm_head/MatMul", "MatMul", "ai.onnx", OPSET, "[1,1,2048];[2048,151936]", "bfloat16;bfloat16", "bf16", "C0", "direct", "calk_gemm_bf16", "", "", ""],
        ["/model/layers.*/*/Add", "Add", "ai.onnx", OPSET, "[1,S,2048];[1,S,2048]", "bfloat16;bfloat16", "none", "C0", "direct", "calk_eltwise", "", "", ""],
        ["/model/layers.*/mlp/act_fn/Mul", "Mul", "ai.onnx", OPSET, "[1,S,6144];[1,S,6144]", "bfloat16;bfloat16", "none", "C1", "fuse", "calk_silu_mul", "", "", ""],
        ["/model/**/norm/Pow", "Pow", "ai.onnx", OPSET, "[1,S,2048];[]", "float32;float32", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/**/norm/ReduceMean", "ReduceMean", "ai.onnx", OPSET, "[1,S,2048]", "float32", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/**/norm/Sqrt", "Sqrt", "ai.onnx", OPSET, "[1,S,1]", "float32", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/**/norm/Add", "Add", "ai.onnx", OPSET, "[1,S,1];[]", "float32;float32", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/**/norm/Mul", "Mul", "ai.onnx", OPSET, "[1,S,2048];[2048]", "float32;bfloat16", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/**/norm/Div", "Div", "ai.onnx", OPSET, "[];[1,S,1]", "float32;float32", "none", "C1", "fuse", "calk_rmsnorm", "", "", ""],
        ["/model/layers.*/self_attn/Div", "Div", "ai.onnx", OPSET, "[1,16,S,T];[]", "bfloat16;bfloat16", "none", "C1", "fuse", "calk_flash_attn_gqa", "", "", ""],
        ["/model/layers.*/mlp/act_fn/Sigmoid", "Sigmoid", "ai.onnx", OPSET, "[1,S,6144]", "bfloat16", "none", "C1", "fuse", "calk_silu_mul", "", "", ""],
        ["/model/layers.*/self_attn/Reshape", "Reshape", "ai.onnx", OPSET, "[1,S,2048];[4]", "bfloat16;int64", "none", "C0", "direct", "layout_only", "", "", ""],
        ["/model/layers.*/self_attn/Transpose", "Transpose", "ai.onnx", OPSET, "[1,S,16,128]", "bfloat16", "none", "C2", "decompose", "calk_dma_permute", "", "", ""],
        ["/model/layers.*/self_attn/past_{key,value}/Concat", "Concat", "ai.onnx", OPSET, "[1,8,P,128];[1,8,S,128]", "bfloat16;bfloat16", "none", "C1", "fuse", "kv_scatter (runtime KV manager)", "", "", ""],
        ["/model/layers.*/self_attn/Softmax", "Softmax", "ai.onnx", OPSET, "[1,16,S,T]", "float32", "none", "C1", "fuse", "calk_flash_attn_gqa", "", "", ""],
        ["/model/attn_mask/Where", "Where", "ai.onnx", OPSET, "[1,1,S,T];[];[]", "bool;float32;float32", "none", "C4", "cpu_fallback", "",
         "host: 0.021 ms/step measured (0.06% of TPOT at S=8192); once per step", rt, ""],
        ["/model/position_ids/Cast", "Cast", "ai.onnx", OPSET, "[1,S]", "int64", "none", "C0", "direct", "calk_cast", "", "", ""],
    ]
    if profile == "complete":
        rows.append(["/model/layers.*/self_attn/{q,k}_rotary/RotaryEmbedding", "RotaryEmbedding", "com.microsoft", 1,
                     "[1,S,16,128];[1,S];[40960,64];[40960,64]", "bfloat16;int64;float32;float32", "bf16", "C3", "custom",
                     "calk_rope_neox 1.2.0 (oplib 3.2.0)", "", comp, ""])
    else:
        rows.append(["/model/layers.*/self_attn/{q,k}_rotary/RotaryEmbedding", "RotaryEmbedding", "com.microsoft", 1,
                     "[1,S,16,128];[1,S];[40960,64];[40960,64]", "bfloat16;int64;float32;float32", "bf16", "C4", "unsupported",
                     "", "", comp,
                     "CALC-1187: calcc 2.7.2 has no lowering for com.microsoft::RotaryEmbedding (56 nodes); "
                     "min repro ONNX + fixed inputs + reference outputs sent 2026-08-17; vendor to return min calcc/oplib version and a runnable case"])
    return rows


def gen_onnx(ws, ctx, profile):
    ws.write_text("02-onnx/export-config.yaml", "\n".join([
        "schema: calculet-onnx-export/v1",
        "# opset from the vendor's ONNX/opset support matrix (CALC-1102, calcc 2.7+)",
        "opset: %d" % OPSET,
        "exporter: {torch: \"2.4.1\", transformers: \"4.51.3\", onnx: \"1.16.2\", optimum: \"1.23.3\"}",
        "external_data: true",
        "constant_folding: false",
        "profiles:",
        "  prefill:",
        "    input_ids: %s" % ylist([1, M]),
        "    position_ids: %s" % ylist([1, M]),
        "    valid_sequence_lengths: %s" % ylist([1, 16, 17, 128, 1024, M - 1]),
        "  decode:",
        "    input_ids: [1, 1]",
        "    position_ids: [1, 1]",
        "    past_sequence_max: %d" % (M - 1),
        "output:",
        "  logits: %s" % ylist([1, 1, VOCAB]),
        ""]))
    data = fake_bytes("onnx/model.onnx.data", 192 * 1024)
    inv = op_inventory()
    new_ops = [(o["op_type"], o["domain"], o["count"]) for o in inv]
    # export 1 decomposed RoPE into ops of the default domain
    old_ops = [(t, d, c) for t, d, c in new_ops if d == "ai.onnx"] + \
        [("Slice", "ai.onnx", 4 * LAYERS), ("Neg", "ai.onnx", 2 * LAYERS)]
    old_onnx = onnx_model(old_ops, len(data), 12 * 1024)
    new_onnx = onnx_model(new_ops, len(data), 12 * 1024)
    # export 1 decomposed RoPE; export 2 (today's file in both profiles) emits
    # com.microsoft RotaryEmbedding.  midproject: the report still names export 1
    ws.write_bytes("02-onnx/model.onnx", new_onnx)
    ws.write_bytes("02-onnx/model.onnx.data", data)
    ctx["onnx_sha256"] = ws.sha("02-onnx/model.onnx")
    ctx["first_export_sha256"] = sha256_hex(old_onnx)
    reported = sha256_hex(old_onnx) if profile == "midproject" else ctx["onnx_sha256"]

    ws.write_json("02-onnx/op-inventory.json", inv)
    pre = [1, 16, 17, 128, 1024, M - 1]
    dec = [1, 16, 128, 1024, M - 1]
    r = Rng("onnx-report/" + profile)
    ws.write_json("02-onnx/onnx-report.json", {
        "schema": "calculet-onnx-report/v1",
        "model_sha256": reported,
        "opset": OPSET,
        "checker": "ok",
        "shape_inference": "ok",
        "external_data": {"files": [{"path": "model.onnx.data", "bytes": len(data), "sha256": sha256_hex(data)}]},
        "io": {"inputs": [{"name": "input_ids", "rank": 2, "dtype": "int64"},
                          {"name": "position_ids", "rank": 2, "dtype": "int64"},
                          {"name": "past_key_values.*", "rank": 4, "dtype": "bfloat16", "count": 2 * LAYERS}],
               "outputs": [{"name": "logits", "rank": 3, "dtype": "float32"},
                           {"name": "present.*", "rank": 4, "dtype": "bfloat16", "count": 2 * LAYERS}]},
        "greedy": {"reference_sha256": ws.sha("01-reference/outputs.jsonl"), "dtype": "float32",
                   "total": ctx["greedy_total"], "matched": ctx["greedy_total"]},
        "tensors": [
            {"name": "logits", "dtype": "float32", "max_abs_err": 3.1e-05, "tol": 0.0001},
            {"name": "logits", "dtype": "bfloat16", "max_abs_err": 0.0118, "tol": 0.03},
            {"name": "/model/layers.0/self_attn/o_proj/output", "dtype": "float32", "max_abs_err": 2.4e-06, "tol": 1e-05},
            {"name": "/model/layers.27/mlp/down_proj/output", "dtype": "float32", "max_abs_err": 8.7e-06, "tol": 5e-05},
            {"name": "present.27.key", "dtype": "bfloat16", "max_abs_err": 0.0039, "tol": 0.0078},
        ],
        "profiles": {
            "prefill": [{"seq_len": s, "consistent": True,
                         "max_abs_err": round(1e-05 + r.uniform() * 1e-05, 8)} for s in pre],
            "decode": [{"seq_len": s, "past_len": s, "consistent": True,
                        "max_abs_err": round(1e-05 + r.uniform() * 1e-05, 8)} for s in dec],
        },
        "generated": "2026-08-12T16:40:00Z" if profile == "midproject" else "2026-08-27T11:05:00Z",
    })
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(OPSUPPORT_HEADER)
    for row in op_support_rows(profile):
        w.writerow(row)
    ws.write_text("02-onnx/op-support.csv", buf.getvalue())


# ---------------------------------------------------------------------------
# G4: quantization


def gen_quant(ws, ctx):
    ws.write_text("03-quant/quant-config.yaml", "\n".join([
        "schema: calculet-quant/v1",
        "method: %s" % QUANT_METHOD,
        "tool: {name: calq, version: \"2.4.1\"}",
        "activation:",
        "  default: int8",
        "  granularity: per_tensor",
        "  calibration: percentile",
        "  percentile: 99.99",
        "  smoothing_alpha: 0.5",
        "weights:",
        "  default: int8",
        "  granularity: per_channel",
        "  group_size: null",
        "  symmetric: true",
        "overrides:",
        "  embed_tokens: bfloat16",
        "  lm_head: bfloat16",
        "  sensitive_layers: [model.layers.0.mlp.down_proj, model.layers.27.mlp.down_proj]",
        "excluded_ops: [Softmax, RotaryEmbedding]",
        "scale_format: {dtype: float32, zero_point: none, packing: \"int8x4 row-major\"}",
        "seed: 1234",
        ""]))
    ctx["quant_config_sha256"] = ws.sha("03-quant/quant-config.yaml")
    prompt_hashes = {sha256_hex(p["text"].encode("utf-8")) for p in ctx["prompts"]}
    lines = []
    domains = ["wiki_en", "wiki_zh", "code", "chat", "math"]
    for i in range(64):
        dom = domains[i % len(domains)]
        text = "calibration %s sample %d: %s" % (dom, i, long_text("calib/%d" % i, 60 + (i * 37) % 400))
        h = sha256_hex(text.encode("utf-8"))
        assert h not in prompt_hashes
        lines.append({"sample_id": "calib-%03d" % (i + 1), "sha256": h, "domain": dom,
                      "token_count": len(tokenize(text)), "tokenizer_sha256": ctx["tokenizer_sha256"],
                      "license_review": "approved", "privacy_review": "no personal data",
                      "source": "s3://calculet-calib/qwen3-1.7b/v1/calib-%03d.txt" % (i + 1)})
    ws.write_jsonl("03-quant/calibration-manifest.jsonl", lines)
    layer_errors = []
    r = Rng("layer-errors")
    for layer in range(LAYERS):
        for t in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                  "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"):
            sens = (layer in (0, 27) and t == "mlp.down_proj")
            layer_errors.append({"name": "model.layers.%d.%s" % (layer, t),
                                 "dtype": "bfloat16" if sens else "w8a8",
                                 "cosine": round(0.9990 + r.uniform() * 0.0009, 5) if not sens else 0.99998,
                                 "rel_l2_err": round(0.010 + r.uniform() * 0.02, 4) if not sens else 0.0011})
    ws.write_json("03-quant/quant-report.json", {
        "schema": "calculet-quant-report/v1",
        "method": QUANT_METHOD,
        "tool": {"name": "calq", "version": "2.4.1"},
        "calibration_samples": len(lines),
        "quality": [
            {"metric": "wikitext2_ppl", "baseline": 16.72, "value": 17.05, "max_drop": 0.5, "higher_is_better": False},
            {"metric": "mmlu_5shot_acc", "baseline": 0.6218, "value": 0.6143, "max_drop": 0.015, "higher_is_better": True},
            {"metric": "ceval_5shot_acc", "baseline": 0.6402, "value": 0.6311, "max_drop": 0.015},
            {"metric": "gsm8k_acc", "baseline": 0.7127, "value": 0.6998, "max_drop": 0.02},
            {"metric": "greedy_token_agreement", "baseline": 1.0, "value": 0.983, "max_drop": 0.03},
        ],
        "layer_errors": layer_errors,
    })


# ---------------------------------------------------------------------------
# G5: compile


def compiler_manifest(version):
    return {
        "schema": "calculet-compiler/v1",
        "image": "registry.calculet.example/sdk/calcc:%s" % version,
        "oci_digest": "sha256:" + sha256_hex(fake_bytes("oci-manifest/calcc-" + version, 1024)),
        "calcc_commit": fake_commit("calcc/" + version),
        "tvm_commit": fake_commit("tvm/" + version),
        "oplib": {"version": {"2.7.2": "3.1.4", "2.8.0": "3.2.0"}[version],
                  "sha256": sha256_hex(fake_bytes("oplib/" + version, 4096))},
        "kernels": {"version": {"2.7.2": "1.8.1", "2.8.0": "1.9.0"}[version],
                    "sha256": sha256_hex(fake_bytes("kernels/" + version, 4096))},
        "license_id": "LicenseRef-Calculet-SDK-EULA-2026",
        "host": {"arch": "x86_64", "driver_requirement": "calculet-drv >= 5.4.0"},
        "sbom": "sbom/calcc-%s.spdx.json" % version,
    }


def write_compile_log(ws, rel, build_id, ctx, started, profile):
    """A build log: every pass, fallback, warning, kernel choice, memory plan
    and partition decision (share/doc/runbook.md §9.3).  midproject: the vendor's replay of
    the first export (RoPE still decomposed), before the re-export."""
    man = ctx["compiler"]
    version = man["image"].rsplit(":", 1)[1]
    vendor = profile == "midproject"
    host = "vendor-farm-17" if vendor else "calc-build-02"
    secs = 1834 if build_id.endswith("1") else 1829
    lines = [
        "calcc %s (commit %s, tvm %s)" % (version, man["calcc_commit"][:12], man["tvm_commit"][:12]),
        "image %s" % man["oci_digest"],
        "build %s started %s on %s (offline, --network=none)" % (build_id, iso(started), host),
        "config compile-config.yaml; onnx sha256 %s" % (ctx["first_export_sha256"] if vendor else ctx["onnx_sha256"]),
        "quant %s (calq 2.4.1), 64 calibration samples" % QUANT_METHOD,
        "[pass] import-onnx: %d nodes, opset %d, external data 1 file" % (1601 if vendor else 1433, OPSET),
        "[pass] shape-inference: static prefill S=%d, decode P<=%d" % (M, M - 1),
        "[pass] fuse-rmsnorm: %d patterns -> calk_rmsnorm" % (4 * LAYERS + 1),
        "[pass] fuse-silu-mul: %d patterns -> calk_silu_mul" % LAYERS,
        "[pass] fuse-attention: %d patterns -> calk_flash_attn_gqa (q_heads=%d kv_heads=%d)" % (LAYERS, Q_HEADS, KV_HEADS),
        ("[pass] decompose-rotary: %d Slice/Neg/Concat/Mul subgraphs -> calk_eltwise" if vendor
         else "[pass] lower-rotary: %d RotaryEmbedding nodes -> calk_rope_neox 1.2.0") % (2 * LAYERS),
        "[pass] kv-scatter: %d past K/V inputs handed to runtime KV manager" % (2 * LAYERS),
        "[fallback] /model/attn_mask/Where -> host (op-support.csv row, measured 0.021 ms/step)",
        "[warning] W-ALIGN-004: weights shard 1 padded 48 bytes to 64-byte alignment",
        "[kernel] calk_gemm_i8: tile 128x128x64, double-buffered (autotune cache hit)",
        "[kernel] calk_flash_attn_gqa: block 64, kv block 128",
        "[memory] planner: weights 1.71 GiB, activations 96 MiB, kv 896 MiB (%d x %d x 2 x %d x %d x bf16)" % (M, LAYERS, KV_HEADS, HEAD_DIM),
        "[partition] chip_nums=1 calcores_per_chip=2; no cross-chip gather/reduce/D2D",
        ("[pack] vendor-side package, not delivered: %d files" if vendor else "[pack] wrote ../05-calbin/package: %d files") % ctx["package_files"],
        "[pack] output tree sha256 %s" % ctx["calbin_tree_sha256"],
        "build %s finished: exit 0 (%d s)" % (build_id, secs),
        ""]
    ws.write_text(rel, "\n".join(lines))


def gen_compile(ws, ctx, profile):
    version = "2.8.0" if profile == "complete" else "2.7.2"
    man = compiler_manifest(version)
    ctx["compiler"] = man
    ws.write_json("04-compiler/compiler-manifest.json", man)
    ws.write_json("04-compiler/" + man["sbom"], {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": "calcc-sdk-%s" % version,
        "documentNamespace": "https://sbom.calculet.example/calcc/%s" % version,
        "creationInfo": {"created": "2026-08-14T00:00:00Z" if version == "2.7.2" else "2026-09-09T00:00:00Z", "creators": ["Tool: calculet-sbom-1.3"]},
        "packages": [
            {"SPDXID": "SPDXRef-calcc", "name": "calcc", "versionInfo": version,
             "licenseConcluded": "LicenseRef-Calculet-SDK-EULA-2026", "downloadLocation": "NOASSERTION"},
            {"SPDXID": "SPDXRef-tvm", "name": "apache-tvm", "versionInfo": man["tvm_commit"],
             "licenseConcluded": "Apache-2.0", "downloadLocation": "NOASSERTION"},
            {"SPDXID": "SPDXRef-oplib", "name": "calculet-oplib", "versionInfo": man["oplib"]["version"],
             "licenseConcluded": "LicenseRef-Calculet-SDK-EULA-2026", "downloadLocation": "NOASSERTION"},
            {"SPDXID": "SPDXRef-llvm", "name": "llvm", "versionInfo": "17.0.6",
             "licenseConcluded": "Apache-2.0 WITH LLVM-exception", "downloadLocation": "NOASSERTION"}]})
    ws.write_text("04-compiler/compile-config.yaml", "\n".join([
        "model: ../02-onnx/model.onnx",
        "onnx_sha256: %s" % yq(ctx["onnx_sha256"]),
        "profiles:",
        "  - name: prefill_b1_s%d" % M,
        "    batch: 1",
        "    max_seq: %d" % M,
        "    is_prefill: true",
        "  - name: decode_b1_s%d" % M,
        "    batch: 1",
        "    max_seq: %d" % M,
        "    is_prefill: false",
        "device:",
        "  type: ks1",
        "  chips: 1",
        "  calcores_per_chip: 2",
        "features:",
        "  flash_attention: true",
        "  one_token: true",
        "  dynamic_d2d: false",
        "quant_config: ../03-quant/quant-config.yaml",
        "output: ../05-calbin/package",
        ""]))
    if profile == "complete":
        ws.write_text("04-compiler/compile.sh", "\n".join([
            "#!/bin/sh",
            "# The vendor's compile command (delivered 2026-08-29, CALC-1150), run in the",
            "# pinned offline image.  Secrets and the license server come from the",
            "# environment (CALCC_LICENSE_SERVER), never from this file or the logs.",
            "# usage: BUILD_ID=build-3 ./compile.sh",
            "set -eu",
            "cd \"$(dirname \"$0\")\"",
            "IMAGE=registry.calculet.example/sdk/calcc@%s" % man["oci_digest"],
            ": \"${BUILD_ID:?set BUILD_ID}\"",
            "mkdir -p logs",
            "exec docker run --rm --network=none \\",
            "  -e CALCC_LICENSE_SERVER \\",
            "  -v \"$(cd .. && pwd)\":/ws -w /ws/04-compiler \\",
            "  \"$IMAGE\" \\",
            "  calcc compile --config compile-config.yaml --deterministic --full-log \\",
            "  >\"logs/$BUILD_ID.log\" 2>&1",
            ""]), mode=0o755)


def gen_builds(ws, ctx, profile):
    started = [epoch("2026-09-10 09:12:04"), epoch("2026-09-10 11:02:41")] if profile == "complete" \
        else [epoch("2026-08-14 07:30:12"), epoch("2026-08-14 09:05:55")]
    builds = []
    for i, t in enumerate(started):
        bid = "build-%d" % (i + 1)
        log = "logs/%s.log" % bid
        write_compile_log(ws, "04-compiler/" + log, bid, ctx, t, profile)
        builds.append({"id": bid, "exit_code": 0, "output_tree_sha256": ctx["calbin_tree_sha256"],
                       "log": log, "started": iso(t), "duration_s": 1834 if i == 0 else 1829,
                       "host": "calc-build-02" if profile == "complete" else "vendor-farm-17",
                       "oci_digest": ctx["compiler"]["oci_digest"]})
    ws.write_json("04-compiler/builds.json", builds)


# ---------------------------------------------------------------------------
# G6: the calbin package


def compile_key(version, onnx_sha256, quant_sha256):
    """What a compile's output is made from, as the simulated compiler
    (calrt-sim compile, share/sim/sim_compile.c) derives it: the compiler
    image's digest, the ONNX model's and the quantization config's SHA-256.
    The same inputs give the same package, byte for byte."""
    digest = compiler_manifest(version)["oci_digest"]
    return sha256_hex(("calcc-sim/v1\n%s\n%s\n%s\n" % (digest, onnx_sha256, quant_sha256)).encode())


def package_files(version, onnx_sha256, quant_sha256):
    """The package's files, rel path -> bytes, as calrt-sim compile writes
    them from the compile config, the G0 facts and the key above: keep the
    two in step (the labdemo's G5 job recompiles this very package)."""
    key = compile_key(version, onnx_sha256, quant_sha256)
    files = {}
    subs = [("prefill_b1_s%d" % M, True), ("decode_b1_s%d" % M, False)]
    files["calbin.json"] = jdump({
        "schema": "calculet-calbin/v3", "model_id": MODEL_ID, "chip_nums": 1,
        "calcores_per_chip": 2, "compiler": "calcc " + version,
        "submodels": [{"name": sub, "dir": "chip0/" + sub} for sub, _ in subs],
        "weights": ["weights/weights-00000-of-00002.bin", "weights/weights-00001-of-00002.bin"]}).encode()
    files["chip0/mask.json"] = jdump({"chips": [0], "calcores": [0, 1]}).encode()
    for sub, prefill in subs:
        files["chip0/%s/program.bin" % sub] = fake_bytes("calbin/%s/%s/program" % (key, sub), (24 if prefill else 20) * 1024)
        files["chip0/%s/io.json" % sub] = jdump({
            "inputs": [{"name": "inputs[0]", "tensor": "input_ids", "dtype": "int32"},
                       {"name": "inputs[1]", "tensor": "position_ids", "dtype": "int32"}],
            "outputs": [{"name": "outputs[0]", "tensor": "logits", "dtype": "float32", "shape": [1, 1, VOCAB]}],
            "csr": ["cur_seq_len[0]", "past_kv_cur_seq_len[0]"]}).encode()
    files["weights/weights-00000-of-00002.bin"] = fake_bytes("calbin/%s/weights/0" % key, 48 * 1024)
    files["weights/weights-00001-of-00002.bin"] = fake_bytes("calbin/%s/weights/1" % key, 40 * 1024 - 48)
    # the custom kernels of op-support.csv (one: RoPE), linked from the oplib
    files["oplib/calk_rope_neox.bin"] = fake_bytes("calbin/%s/oplib/calk_rope_neox" % key, 6 * 1024)
    files["csr/layout.json"] = jdump({"cur": "cur_seq_len[0]", "total": "past_kv_cur_seq_len[0]",
                                      "kv": {"layers": LAYERS, "kv_heads": KV_HEADS, "head_dim": HEAD_DIM,
                                             "max_seq": M, "dtype": "bfloat16"}}).encode()
    return files


def listing_line(hexd, name):
    """One line of a canonical listing: a name holding a backslash, LF or CR
    takes sha256sum's escapes and a leading backslash (workspace.md)."""
    if not any(c in name for c in "\\\n\r"):
        return "%s  %s\n" % (hexd, name)
    name = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "\\%s  %s\n" % (hexd, name)


def listing_of(files):
    return "".join(listing_line(sha256_hex(files[n]), n) for n in sorted(files, key=lambda s: s.encode()))


def gen_package(ws, ctx):
    files = package_files("2.8.0", ctx["onnx_sha256"], ctx["quant_config_sha256"])
    for rel, data in files.items():
        ws.write_bytes("05-calbin/package/" + rel, data)
    listing = ws.listing("05-calbin/package")
    assert listing == listing_of(files)
    ws.write_text("05-calbin/file-sha256.txt", listing)
    ctx["calbin_tree_sha256"] = sha256_hex(listing.encode())
    ctx["package_files"] = len(files)
    # generation 1: calcc 2.7.2 on the first export
    gen1 = package_files("2.7.2", ctx["first_export_sha256"], ctx["quant_config_sha256"])
    ctx["gen1_calbin_tree_sha256"] = sha256_hex(listing_of(gen1).encode())


def gen_validation(ws, ctx):
    findings = [
        {"level": "WARN", "code": "W-ALIGN-004", "file": "weights/weights-00001-of-00002.bin",
         "message": "tensor block padded 48 bytes to 64-byte alignment"},
        {"level": "WARN", "code": "W-MASK-002", "file": "chip0/mask.json",
         "message": "single-chip package: chip mask lists chip 0 only (expected for chip_nums=1)"},
    ]
    ws.write_json("05-calbin/validation.json", {
        "validator": {"name": "calculet_package_validate.rb", "version": "0.9.3", "args": ["--full-hash"]},
        "package_tree_sha256": ctx["calbin_tree_sha256"],
        "chip_nums": 1,
        "files": ctx["package_files"],
        "summary": {"ERROR": 0, "WARN": len(findings), "BLOCKED_REPRODUCIBILITY": 0},
        "findings": findings,
    })


# ---------------------------------------------------------------------------
# G7: runner

FAULTS = [("missing-tensor", "CALRT_E_TENSOR_MISSING", 12), ("bad-csr", "CALRT_E_CSR_INVALID", 4),
          ("oob-slice", "CALRT_E_SLICE_OOB", 3), ("kv-full", "CALRT_E_KV_FULL", 9),
          ("submit-busy", "CALRT_E_SUBMIT_BUSY", 2), ("wait-timeout", "CALRT_E_WAIT_TIMEOUT", 5012),
          ("ccu-exception", "CALRT_E_CCU_EXCEPTION", 1840), ("reset-warmup", "CALRT_E_DEVICE_RESET", 3275)]


def gen_runtime(ws, ctx, evidence=True):
    """evidence False (labdemo): the runner's golden and fault results are
    not there yet; the perf matrix is."""
    ws.write_text("06-runtime/runner-config.yaml", "\n".join([
        "runner: calrt_runner",
        "runner_version: \"1.9.3\"",
        "calbin: ../05-calbin/package",
        "device: {type: ks1, chips: [0]}",
        "seq_slots: 2",
        "kv: {max_seq: %d, dtype: bfloat16}" % M,
        "timeouts: {submit_ms: 200, wait_ms: 5000}",
        "golden:",
        "  prefill: %s" % ylist([1, 16, 17, 128, 1024, M - 1]),
        "  decode: [1, 32, 256]",
        "  reference: ../01-reference",
        ""]))
    cases = []
    r = Rng("golden-cases")
    for p, d in capped_pairs([1, 16, 17, 128, 1024, M - 1], [1, 32, 256], M):
        cases.append({"prefill_len": p, "decode_len": d, "logits_match": True, "greedy_match": True,
                      "kv_len_match": True, "kv_len": p + d,
                      "logits_max_abs_err": round(0.002 + r.uniform() * 0.004, 5), "tol": 0.02})
    assert len(cases) == 16
    faults = FAULTS if evidence else []
    if evidence:
        ws.write_json("06-runtime/correctness/golden.json", {
            "runner": "calrt_runner 1.9.3",
            "calbin_tree_sha256": ctx["calbin_tree_sha256"],
            "max_context": M,
            "cases": cases,
            "reuse_seq": True,
            "interleave": True,
            "generated": "2026-09-12T10:15:00Z",
        })
    for name, code, ms in faults:
        ws.write_json("06-runtime/faults/%s.json" % name, {
            "scenario": name, "chip": 0, "structured_error": True, "error_code": code,
            "aborted": False, "recovered": True, "recover_ms": ms,
            "calbin_tree_sha256": ctx["calbin_tree_sha256"]})
    cells = []
    r = Rng("perf")
    for p, o in capped_pairs([1, 16, 128, 512, 2048, 4096, M - 1], [1, 32, 256], M):
        for c in (1, 2, 4, 8):
            prefill_ms = 18.0 + 0.19 * p + 0.0000061 * p * p
            tpot = 29.5 + 0.0011 * p + 1.6 * (c - 1)
            queue = (c - 1) * 0.35 * prefill_ms
            t50 = prefill_ms + queue
            cells.append({"prompt": p, "output": o, "concurrency": c,
                          "ttft_ms_p50": round(t50 * (1 + 0.02 * r.uniform()), 1),
                          "ttft_ms_p99": round(t50 * (1.18 + 0.06 * r.uniform()) + 4 * c, 1),
                          "tpot_ms_p50": round(tpot * (1 + 0.01 * r.uniform()), 2),
                          "tpot_ms_p99": round(tpot * (1.09 + 0.04 * r.uniform()), 2),
                          "ok_rate": 1.0, "requests": 64 if o < 256 else 32})
    assert len(cells) == 76
    ws.write_json("06-runtime/performance/perf-matrix.json", {
        "tool": "calrt_runner stress 1.9.3 + calload 0.6.0",
        "calbin_tree_sha256": ctx["calbin_tree_sha256"],
        "note": "batch=1: concurrency is queueing over 2 slots, not hardware batch",
        "cells": cells,
    })


# ---------------------------------------------------------------------------
# G8/G9: serving

API_FEATURES = ["stream", "non_stream", "greedy", "sampling", "stop_token", "stop_string", "logprobs",
                "cancel", "deadline", "overlong_reject", "concurrent_slots", "shutdown"]


def gen_serving(ws, ctx, soak_seconds, soaks=True):
    """soaks False (labdemo): no soak has run yet, and the service is to
    become generation 1."""
    ws.write_json("07-serving/service-manifest.json", {
        "generation": 2 if soaks else 1,
        "model_id": MODEL_ID,
        "calbin_sha256": ctx["calbin_tree_sha256"],
        "tokenizer_sha256": ctx["tokenizer_sha256"],
        "submodels": {
            "prefill_ids": {"exact_name": "prefill_b1_s%d" % M, "input0": "inputs[0]",
                            "position": "inputs[1]", "logits": "outputs[0]"},
            "decode": {"exact_name": "decode_b1_s%d" % M, "input0": "inputs[0]",
                       "position": "inputs[1]", "logits": "outputs[0]"},
        },
        "csr": {"cur": "cur_seq_len[0]", "total": "past_kv_cur_seq_len[0]"},
        "limits": {"batch": 1, "context": M, "vocab": VOCAB},
        "llama_cpp": {"n_ctx": M, "n_batch": M, "n_ubatch": M, "n_seq_max": 2},
        "disabled_features": ["kv_state", "prompt_sharing", "kv_shift", "kv_copy"],
    })
    n = ctx["greedy_total"]
    ws.write_json("07-serving/conformance/runner-vs-server.json", {
        "calbin_tree_sha256": ctx["calbin_tree_sha256"],
        "cases": n, "token_match": n, "logits_max_abs_err": 0.00031, "tol": 0.001,
        "http_tokenization": {"cases": n, "token_ids_match": n},
    })
    feats = {f: {"declared": True, "passed": True} for f in API_FEATURES}
    feats["kv_state"] = {"declared": False, "passed": False}
    feats["prompt_sharing"] = {"declared": False, "passed": False}
    ws.write_json("07-serving/conformance/api-matrix.json", {
        "server": "llama.cpp server + calculet backend (adapter 0.7.1)",
        "features": feats,
    })
    if not soaks:
        return
    # the 8h candidate soak ran on generation 1's calbin (calcc 2.7.2); the
    # 1h development soak and the release soak on today's calcc 2.8.0 build
    runs = [("2026-09-03-8h", epoch("2026-09-03 20:00:00"), 8 * 3600, ctx["gen1_calbin_tree_sha256"]),
            ("2026-09-15-1h", epoch("2026-09-15 09:00:00"), 3600, ctx["calbin_tree_sha256"]),
            ("2026-09-21-%s" % ("24h" if soak_seconds == 86400 else "%ds" % soak_seconds),
             epoch("2026-09-21 08:00:00"), soak_seconds, ctx["calbin_tree_sha256"])]
    ctx["soak_runs"] = []
    for name, t0, dur, tree in runs:
        summary = gen_soak(ws, "07-serving/soak/" + name, name, t0, dur, tree)
        ctx["soak_runs"].append((name, summary))


def gen_soak(ws, rel, name, t0, dur, tree):
    r = Rng("soak/" + name)
    req_iv = min(60, max(10, dur // 360))
    mem_iv = min(300, max(15, dur // 240))
    events = []
    n_req = -(-dur // req_iv) + 1
    fail_at = {n_req // 3} if dur >= 8 * 3600 else set()
    for i in range(n_req):
        t = round(t0 + i * req_iv + (0 if i == 0 else r.uniform() * 2.0), 3)
        plen = r.choice([128, 512, 1024, 2048])
        ttft = 55.0 + 0.21 * plen + 60.0 * (-math.log(max(r.uniform(), 1e-9))) * 0.5
        tpot = 31.5 + 1.3 * r.gauss() + (4.0 if r.uniform() < 0.02 else 0.0)
        ok = 0 if i in fail_at else 1
        events.append((t, 0, {"ttft_ms": round(ttft, 1), "tpot_ms": round(max(tpot, 20.0), 2), "request_ok": ok}))
    n_mem = -(-dur // mem_iv) + 1
    for k in range(n_mem):
        t = t0 + k * mem_iv
        warm = min(1.0, (k * mem_iv) / max(dur * 0.02, 1))
        rss = int(1_300_000_000 + 180_000_000 * warm + 2_500_000 * r.gauss())
        dev = int(3_150_000_000 + 96_000_000 * warm + 900_000 * r.gauss())
        events.append((t, 1, {"rss_bytes": rss, "device_mem_bytes": dev,
                              "kv_used": int(900 + 2600 * r.uniform()), "kv_capacity": 2 * M,
                              "temp_c": round(61.0 + 2.0 * r.gauss(), 1),
                              "power_w": round(38.0 + 3.0 * r.uniform(), 1)}))
    events.sort(key=lambda e: (e[0], e[1]))
    lines = [jline({"v": 1, "seq": 1, "ts": float(t0), "type": "hello", "tool": "calload", "version": "0.6.0",
                    "host": "lab3", "job": "soak-" + name, "argv": ["calload", "soak", "--duration", "%ds" % dur,
                                                                   "--concurrency", "4", "--output-tokens", "128"]})]
    seq = 1
    for t, _, vals in events:
        seq += 1
        lines.append(jline({"v": 1, "seq": seq, "ts": float(t), "type": "metric", "chip": 0, "values": vals}))
    ttft = sorted(v["ttft_ms"] for _, _, v in events if "ttft_ms" in v)
    tpot = sorted(v["tpot_ms"] for _, _, v in events if "tpot_ms" in v)
    oks = [v["request_ok"] for _, _, v in events if "request_ok" in v]
    ts_all = [t for t, _, _ in events]
    summary = {
        "run": name,
        "calbin_tree_sha256": tree,
        "workload": {"concurrency": 4, "prompt_tokens": [128, 512, 1024, 2048], "output_tokens": 128},
        "started_ts": float(min(ts_all)), "ended_ts": float(max(ts_all)),
        "duration_s": round(max(ts_all) - min(ts_all), 3),
        "requests": len(oks),
        "success_rate": round(sum(oks) / len(oks), 6),
        "ttft_ms_p50": nearest_rank(ttft, 50), "ttft_ms_p99": nearest_rank(ttft, 99),
        "tpot_ms_p50": nearest_rank(tpot, 50), "tpot_ms_p99": nearest_rank(tpot, 99),
        "sla": SLA,
        "verdict": "pass",
    }
    assert summary["duration_s"] >= dur
    assert summary["success_rate"] >= SLA["success_rate_min"]
    assert summary["ttft_ms_p99"] <= SLA["ttft_ms_p99"] and summary["tpot_ms_p99"] <= SLA["tpot_ms_p99"]
    lines.append(jline({"v": 1, "seq": seq + 1, "ts": float(max(ts_all)), "type": "result", "status": "pass",
                        "summary": {k: summary[k] for k in ("requests", "success_rate", "ttft_ms_p99", "tpot_ms_p99")},
                        "artifacts": ["summary.json", "metrics.jsonl"]}))
    ws.write_text(rel + "/metrics.jsonl", "\n".join(lines) + "\n")
    ws.write_json(rel + "/summary.json", summary)
    return summary


# ---------------------------------------------------------------------------
# G10: release


def release_manifest(ws, ctx, gen):
    """Generation 2 binds today's artifacts; generation 1 the older compile."""
    up = "../../../"
    report_rels = ["02-onnx/onnx-report.json", "03-quant/quant-report.json", "05-calbin/validation.json",
                   "06-runtime/correctness/golden.json"] + \
                  ["06-runtime/faults/%s.json" % f for f, _, _ in FAULTS] + \
                  ["06-runtime/performance/perf-matrix.json", "07-serving/conformance/runner-vs-server.json",
                   "07-serving/conformance/api-matrix.json"]
    if gen == 2:
        long_run = ctx["soak_runs"][-1][0]
        report_rels += ["07-serving/soak/%s/summary.json" % long_run, "07-serving/soak/%s/metrics.jsonl" % long_run]
        comp = ctx["compiler"]
        tree = ctx["calbin_tree_sha256"]
    else:
        report_rels += ["07-serving/soak/2026-09-03-8h/summary.json", "07-serving/soak/2026-09-03-8h/metrics.jsonl"]
        comp = compiler_manifest("2.7.2")
        tree = ctx["gen1_calbin_tree_sha256"]
    reports = []
    for rel in report_rels:
        today = ws.sha(rel)
        # generation 1 was built by calcc 2.7.2 from the first export (RoPE
        # decomposed): its reports were other files then, except the quant
        # report and its own 8h soak, which are unchanged
        if gen == 1 and not rel.startswith(("03-quant/", "07-serving/soak/")):
            today = sha256_hex(fake_bytes("gen1-report/" + rel, 512))
        reports.append({"path": up + rel, "sha256": today})
    return {
        "schema": "calculet-release/v1",
        "generation": gen,
        "previous_generation": None if gen == 1 else gen - 1,
        "model_id": MODEL_ID,
        "tokenizer_sha256": ctx["tokenizer_sha256"],
        "onnx_sha256": ctx["onnx_sha256"] if gen == 2 else ctx["first_export_sha256"],
        "export_tools": {"torch": "2.4.1", "transformers": "4.51.3", "onnx": "1.16.2", "optimum": "1.23.3"},
        "quant_config_sha256": ws.sha("03-quant/quant-config.yaml"),
        "calibration_manifest_sha256": ws.sha("03-quant/calibration-manifest.jsonl"),
        "compiler": {"oci_digest": comp["oci_digest"], "calcc_commit": comp["calcc_commit"],
                     "tvm_commit": comp["tvm_commit"], "oplib_sha256": comp["oplib"]["sha256"],
                     "kernels_sha256": comp["kernels"]["sha256"]},
        "calbin_tree_sha256": tree,
        "compat": {"runtime": "calrt 1.9.3", "driver": "calculet-drv 5.4.2", "firmware": "ks1-fw 2.11.0",
                   "chip": "KS1, 1 chip, 2 calcores"},
        "llama_cpp": {"commit": fake_commit("llama.cpp/b4823-calculet"),
                      "image_digest": "sha256:" + sha256_hex(fake_bytes("llama-server-image/" + str(gen), 1024))},
        "reports": reports,
        "known_limitations": ["batch 1 only: concurrency is queueing over 2 slots",
                              "context capped at %d (model supports 40960)" % M,
                              "attention mask built on host (Where, 0.021 ms/step)"] +
                             (["8h soak only (24h pending)"] if gen == 1 else []),
        "disabled_features": ["kv_state", "prompt_sharing", "kv_shift", "kv_copy"],
        "observation_window_h": 72,
    }


def audit_line(seq, ts, key, action, frm, to, reason, prev):
    rec = {"seq": seq, "ts": ts, "actor": key.person, "key_id": key.key_id, "action": action,
           "from": frm, "to": to, "reason": reason, "prev_sha256": prev}
    unsigned = jline(rec)
    sig = key.sign_b64(unsigned.encode("utf-8"))
    line = unsigned[:-1] + ',"sig":' + json.dumps(sig) + "}"
    assert line[:line.index(',"sig":')] + "}" == unsigned
    return line


def gen_trusted_keys(ws):
    for key in (RELEASE_KEY, DEPUTY_KEY):
        ws.write_text("08-release/trusted-keys/%s.pub" % key.key_id, public_pem(key.public))


def gen_release(ws, ctx):
    gen_trusted_keys(ws)
    for gen in (1, 2):
        data = jdump(release_manifest(ws, ctx, gen)).encode("utf-8")
        ws.write_bytes("08-release/generations/%d/release-manifest.json" % gen, data)
        ws.write_text("08-release/generations/%d/release-manifest.json.sig" % gen, RELEASE_KEY.sign_b64(data) + "\n")
    os.symlink("generations/2", ws.path("08-release/current"))
    prev = "0" * 64
    lines = []
    for seq, ts, key, frm, to, reason in (
            (1, epoch("2026-09-07 15:42:10"), DEPUTY_KEY, None, 1,
             "pilot: calcc 2.7.2 build, 8h candidate soak passed; Mei Chen on leave, deputy approval"),
            (2, epoch("2026-09-28 14:30:55"), RELEASE_KEY, 1, 2,
             "calcc 2.8.0 rebuild (oplib 3.2.0 rope kernel), all gates pass, 24h soak passed")):
        line = audit_line(seq, ts, key, "promote", frm, to, reason, prev)
        lines.append(line)
        prev = sha256_hex(line.encode("utf-8"))
    ws.write_text("08-release/audit.jsonl", "\n".join(lines) + "\n")
    long_run, s = ctx["soak_runs"][-1]
    ws.write_text("08-release/decision.md", "\n".join([
        "# Release decision: %s, generation 2" % MODEL_ID.split("@")[0],
        "",
        "Decision: **GO** — promote generation 2, keep generation 1 for rollback until the",
        "72 h observation window ends (2026-10-01 14:30 UTC).",
        "",
        "- Approver: %s (key `%s`), 2026-09-28" % (RELEASE_KEY.person, RELEASE_KEY.key_id),
        "- Gates G0–G9 pass (`calops check`); manifest signature, bindings and audit chain verified.",
        "- calbin tree `%s` (calcc 2.8.0, image `%s`)" % (ctx["calbin_tree_sha256"], ctx["compiler"]["oci_digest"]),
        "- Soak `%s`: %d requests, success %.4f, TTFT p99 %.1f ms, TPOT p99 %.2f ms (SLA %d / %d ms, %.3f)"
        % (long_run, s["requests"], s["success_rate"], s["ttft_ms_p99"], s["tpot_ms_p99"],
           SLA["ttft_ms_p99"], SLA["tpot_ms_p99"], SLA["success_rate_min"]),
        "- Disabled: kv_state, prompt_sharing, kv_shift, kv_copy (not implemented, not declared).",
        "",
        "Rollback: `calops release rollback` points `current` back at generation 1",
        "(signed; calcc 2.7.2 build of the first export, RoPE decomposed); nothing is recompiled.",
        ""]))


# ---------------------------------------------------------------------------
# Project files


def gen_project(ws, profile):
    out = ["# Gate owners (share/doc/runbook.md §2: one owner per gate, a person or team, never \"vendor\")", "gates:"]
    for g, (owner, due) in OWNERS.items():
        out.append("  %s: {owner: %s, due: %s}" % (g, yq(owner), due))
    ws.write_text("owners.yaml", "\n".join(out) + "\n")
    if profile == "complete":
        states = {t[0]: "done" for t in TICKETS}
    elif profile == "labdemo":
        # M09: the runner passed golden and faults on the runtime team's
        # bench, but no result is in the workspace yet; M12: the perf matrix
        # is in, the 24h soak is not
        states = {"M01": "done", "M02": "done", "M03": "done", "M04": "done", "M05": "done",
                  "M06": "done", "M07": "done", "M08": "done", "M09": "done", "M10": "doing",
                  "M11": "done", "M12": "doing", "M13": "todo"}
    else:
        states = {"M01": "done", "M02": "done", "M03": "doing", "M04": "done", "M05": "done",
                  "M06": "done", "M07": "done", "M08": "blocked", "M09": "doing", "M10": "todo",
                  "M11": "doing", "M12": "todo", "M13": "todo"}
    out = ["# Tickets (share/doc/runbook.md §16); progress is derived from gate checks, never from state", "tickets:"]
    for tid, title, owner, est in TICKETS:
        out.append("  %s: {owner: %s, estimate_days: %d, state: %s}   # %s" % (tid, yq(owner), est, states[tid], title))
    ws.write_text("tickets.yaml", "\n".join(out) + "\n")


def generate(outdir, profile, soak_seconds):
    ws = Workspace(outdir)
    ctx = {}
    gen_project(ws, profile)
    # labdemo is complete before its runtime evidence: G0-G6 byte for byte
    stage = "complete" if profile == "labdemo" else profile
    gen_source(ws, ctx)
    gen_reference(ws, ctx)
    gen_onnx(ws, ctx, stage)
    gen_quant(ws, ctx)
    if stage == "complete":
        gen_package(ws, ctx)
    else:
        # the vendor's two replay builds of the first export; their package
        # is not delivered, so there is no 05-calbin yet
        replay = package_files("2.7.2", ctx["first_export_sha256"], ctx["quant_config_sha256"])
        ctx["calbin_tree_sha256"] = sha256_hex(listing_of(replay).encode())
        ctx["package_files"] = len(replay)
    gen_compile(ws, ctx, stage)
    gen_builds(ws, ctx, stage)
    if profile == "complete":
        gen_validation(ws, ctx)
        gen_runtime(ws, ctx)
        gen_serving(ws, ctx, soak_seconds)
        gen_release(ws, ctx)
    elif profile == "labdemo":
        gen_validation(ws, ctx)
        gen_runtime(ws, ctx, evidence=False)
        gen_serving(ws, ctx, soak_seconds, soaks=False)
        gen_trusted_keys(ws)


PROFILES = ("complete", "midproject", "labdemo")


def prepare_outdir(path):
    if os.path.lexists(path):
        if not os.path.isdir(path) or os.path.islink(path):
            sys.exit("mkworkspace: '%s' exists and is not a folder" % path)
        if os.listdir(path):
            sys.exit("mkworkspace: '%s' is not empty" % path)
    else:
        os.makedirs(path)


def main(argv):
    ap = argparse.ArgumentParser(description="generate a calops example workspace")
    ap.add_argument("--profile", choices=list(PROFILES), default="complete")
    ap.add_argument("--soak-seconds", type=int, default=86400,
                    help="span of the release soak run (complete profile; default 86400)")
    ap.add_argument("--key-out", metavar="PEM_PATH",
                    help="also write the release owner's private key (PKCS#8 PEM)")
    ap.add_argument("--all", metavar="SHARE_EXAMPLES_DIR",
                    help="regenerate complete/, midproject/ and labdemo/ inside this folder")
    ap.add_argument("outdir", nargs="?")
    args = ap.parse_args(argv)
    if args.soak_seconds < 60:
        ap.error("--soak-seconds must be at least 60")
    if args.all:
        if args.outdir:
            ap.error("--all takes no OUTDIR")
        if not os.path.isdir(args.all):
            ap.error("'%s' is not a folder" % args.all)
        for prof in PROFILES:
            target = os.path.join(args.all, prof)
            if os.path.lexists(target):
                shutil.rmtree(target)
            os.makedirs(target)
            generate(target, prof, args.soak_seconds)
        # The release owner's example key, for trying promote and rollback
        # on a copy of complete/ (README.md): public seed, example only.
        keys = os.path.join(args.all, "keys")
        os.makedirs(keys, exist_ok=True)
        with open(os.path.join(keys, RELEASE_KEY.key_id + ".pem"), "w") as f:
            f.write(private_pem(RELEASE_KEY.seed))
    else:
        if not args.outdir:
            ap.error("OUTDIR is required (or --all)")
        prepare_outdir(args.outdir)
        generate(args.outdir, args.profile, args.soak_seconds)
    if args.key_out:
        fd = os.open(args.key_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(private_pem(RELEASE_KEY.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
