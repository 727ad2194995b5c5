#!/usr/bin/env python3
"""Write the model that sits on the stand-in Windows drive: usage make_windows_model.py DIR.

The weights and config come from tests/tiny_model.py (pure Python, no torch: it runs with the
container's python3 before anything is installed); the tokenizer is a byte-level BPE over the
256 byte symbols (no merges), so every text encodes and decodes and vLLM can serve the model.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_model  # noqa: E402

SPECIALS = ["<unk>", "<s>", "</s>", "<pad>"]


def bytes_to_unicode():
    """GPT-2's map from bytes to printable characters (what ByteLevel pre-tokenizes into)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(printable, (chr(c) for c in chars)))


def tokenizer():
    vocab = dict((token, index) for index, token in enumerate(SPECIALS))
    for byte, char in sorted(bytes_to_unicode().items()):
        vocab[char] = len(SPECIALS) + byte
    # fill the model's vocabulary, so every id the model can sample decodes to something
    while len(vocab) < tiny_model.VOCAB:
        vocab["<extra_%d>" % len(vocab)] = len(vocab)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(SPECIALS)],
        "normalizer": None, "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }


def main(path):
    tiny_model.make_tiny_model(path)
    with open(os.path.join(path, "tokenizer.json"), "w", encoding="utf-8") as handle:
        json.dump(tokenizer(), handle, indent=1, sort_keys=True)
    with open(os.path.join(path, "tokenizer_config.json"), "w", encoding="utf-8") as handle:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                   "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 2048,
                   "chat_template": "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                                    "{% if add_generation_prompt %}assistant: {% endif %}"},
                  handle, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
