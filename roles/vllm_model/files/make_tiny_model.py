#!/usr/bin/env python3
"""Build a tiny, random-weight Llama model that vLLM can serve, fully offline.

Run it with the python of the vLLM virtualenv (it needs torch, transformers,
tokenizers and safetensors, which are all dependencies of vLLM):

    make_tiny_model.py OUTPUT_DIR [--seed N] [--vocab-size N] [--force]

The result is deterministic: the same arguments and the same library versions
give byte-identical files, so a configuration tool can compare checksums and
report "unchanged" on a second run.

The model is written into a temporary directory beside OUTPUT_DIR and renamed
into place at the end. An existing non-empty OUTPUT_DIR is refused (exit 3)
unless --force is given. On success one line of JSON is printed to stdout:

    {"path": ..., "files": [...], "total_bytes": N, "manifest_sha256": ...}

manifest_sha256 is the sha256 of the text "<sha256>  <name>\\n" for every file,
sorted by name (the format of `sha256sum`).

--hidden-size / --num-heads / --num-layers / --intermediate-size exist for tests
(e.g. a head size that the CPU attention backend rejects); the defaults give
hidden 64, 2 heads (head size 32), 2 layers, intermediate 128.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile

# Offline and single-threaded before any Hugging Face / torch import.
for _key, _value in {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TOKENIZERS_PARALLELISM": "false",
    "RAYON_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}.items():
    os.environ[_key] = _value

BOS, EOS, UNK, PAD = "<s>", "</s>", "<unk>", "<pad>"
SPECIAL_TOKENS = [UNK, BOS, EOS, PAD]  # ids 0, 1, 2, 3
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>\n{{ message['content'] }}{{ eos_token }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
EXIT_EXISTS = 3


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("output_dir")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab-size", type=int, default=1000)
    p.add_argument("--force", action="store_true",
                   help="replace an existing non-empty OUTPUT_DIR")
    p.add_argument("--hidden-size", type=int, default=64)
    p.add_argument("--num-heads", type=int, default=2)
    p.add_argument("--num-layers", type=int, default=2)
    p.add_argument("--intermediate-size", type=int, default=128)
    p.add_argument("--max-position-embeddings", type=int, default=2048)
    args = p.parse_args(argv)
    if args.vocab_size < 300:
        p.error("--vocab-size must be at least 300 (256 byte tokens + specials)")
    if args.hidden_size % args.num_heads:
        p.error("--hidden-size must be a multiple of --num-heads")
    return args


def make_corpus(seed):
    """Deterministic pseudo-English text: enough distinct words for ~1-4k merges."""
    rng = random.Random(seed)
    onsets = ["", "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r",
              "s", "t", "v", "w", "st", "tr", "pl", "ch", "sh", "th", "gr"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"]
    codas = ["", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "m"]
    words = sorted({
        "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                for _ in range(rng.randint(1, 3)))
        for _ in range(3000)
    })
    common = ["the", "a", "of", "and", "to", "in", "is", "it", "you", "that",
              "hello", "world", "model", "test", "server", "answer", "question"]
    lines = []
    for _ in range(4000):
        n = rng.randint(4, 14)
        sent = [rng.choice(common) if rng.random() < 0.3 else rng.choice(words)
                for _ in range(n)]
        sent[0] = sent[0].capitalize()
        tail = rng.choice([".", ".", ".", "?", "!", ","])
        num = f" {rng.randint(0, 9999)}" if rng.random() < 0.1 else ""
        lines.append(" ".join(sent) + num + tail)
    return lines


def build_tokenizer(seed, vocab_size):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=sorted(pre_tokenizers.ByteLevel.alphabet()),
        show_progress=False,
    )
    tok.train_from_iterator(make_corpus(seed), trainer=trainer)
    bos_id = tok.token_to_id(BOS)
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A",
        pair=f"{BOS} $A {BOS} $B",
        special_tokens=[(BOS, bos_id)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS, eos_token=EOS, unk_token=UNK, pad_token=PAD,
        model_max_length=2048,
        padding_side="left",
        clean_up_tokenization_spaces=False,
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(args, tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=args.hidden_size,
        intermediate_size=args.intermediate_size,
        num_hidden_layers=args.num_layers,
        num_attention_heads=args.num_heads,
        num_key_value_heads=args.num_heads,
        max_position_embeddings=args.max_position_embeddings,
        rms_norm_eps=1e-5,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
        dtype="float32",
    )
    model = LlamaForCausalLM(config).to(torch.float32).eval()
    gen = model.generation_config
    gen.bos_token_id = tokenizer.bos_token_id
    gen.eos_token_id = tokenizer.eos_token_id
    gen.pad_token_id = tokenizer.pad_token_id
    return model


def canonical_json(path):
    """Rewrite a small JSON file with sorted keys (stable bytes across runs)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fsync_tree(root):
    for name in sorted(os.listdir(root)):
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def is_nonempty_dir(path):
    return os.path.isdir(path) and bool(os.listdir(path))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = os.path.abspath(args.output_dir)
    parent = os.path.dirname(out)
    if os.path.exists(out) and not os.path.isdir(out):
        print(f"error: {out} exists and is not a directory", file=sys.stderr)
        return EXIT_EXISTS
    if is_nonempty_dir(out) and not args.force:
        print(f"error: {out} exists and is not empty (use --force to replace it)",
              file=sys.stderr)
        return EXIT_EXISTS
    os.makedirs(parent, exist_ok=True)

    umask = os.umask(0)
    os.umask(umask)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.tmp-", dir=parent)
    try:
        tokenizer = build_tokenizer(args.seed, args.vocab_size)
        model = build_model(args, tokenizer)
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        for name in sorted(os.listdir(tmp)):
            if name.endswith(".json") and name != "tokenizer.json":
                canonical_json(os.path.join(tmp, name))
        for name in os.listdir(tmp):
            os.chmod(os.path.join(tmp, name), 0o666 & ~umask)
        os.chmod(tmp, 0o777 & ~umask)
        fsync_tree(tmp)

        files = sorted(os.listdir(tmp))
        manifest = "".join(f"{sha256_file(os.path.join(tmp, f))}  {f}\n" for f in files)
        total = sum(os.path.getsize(os.path.join(tmp, f)) for f in files)

        old = None
        if os.path.isdir(out):
            if is_nonempty_dir(out) and not args.force:  # appeared meanwhile
                print(f"error: {out} exists and is not empty", file=sys.stderr)
                return EXIT_EXISTS
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.old-", dir=parent)
            os.rename(out, os.path.join(old, "d"))
        os.rename(tmp, out)
        tmp = None
        if old:
            shutil.rmtree(old, ignore_errors=True)
        fd = os.open(parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    print(json.dumps({
        "path": out,
        "files": files,
        "total_bytes": total,
        "manifest_sha256": hashlib.sha256(manifest.encode()).hexdigest(),
    }, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
