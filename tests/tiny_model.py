"""Tiny Hugging Face model folders written in pure Python (no torch), for the preflight and Hub tests.

The layout is the one ``roles/vllm_model/files/make_tiny_model.py`` produces with transformers
(config.json, generation_config.json, tokenizer.json, tokenizer_config.json, safetensors weights),
with random float32 weights. ``shards=2`` splits them over two files with a
``model.safetensors.index.json``, as large models on the Hub are laid out.
"""
import json
import os
import random
import struct

HIDDEN, LAYERS, HEADS, INTER, VOCAB = 64, 2, 2, 128, 300


def write_safetensors(path, tensors, metadata=None):
    """``tensors``: {name: (dtype, shape, raw bytes)}; writes a valid safetensors file."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for raw in blobs:
            handle.write(raw)


def _f32(count, rng):
    return struct.pack("<%df" % count, *(rng.uniform(-0.02, 0.02) for _ in range(count)))


def llama_tensors(seed=0, hidden=HIDDEN, layers=LAYERS, inter=INTER, vocab=VOCAB):
    rng = random.Random(seed)
    shapes = {"model.embed_tokens.weight": (vocab, hidden), "model.norm.weight": (hidden,),
              "lm_head.weight": (vocab, hidden)}
    for i in range(layers):
        p = "model.layers.%d." % i
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            shapes[p + "self_attn.%s.weight" % proj] = (hidden, hidden)
        shapes[p + "mlp.gate_proj.weight"] = (inter, hidden)
        shapes[p + "mlp.up_proj.weight"] = (inter, hidden)
        shapes[p + "mlp.down_proj.weight"] = (hidden, inter)
        shapes[p + "input_layernorm.weight"] = (hidden,)
        shapes[p + "post_attention_layernorm.weight"] = (hidden,)
    out = {}
    for name in sorted(shapes):
        count = 1
        for dim in shapes[name]:
            count *= dim
        out[name] = ("F32", shapes[name], _f32(count, rng))
    return out


def make_tiny_model(path, shards=1, seed=0, architecture="LlamaForCausalLM", padding_mib=0):
    """Write a tiny Llama folder at ``path``; returns the list of files written.

    ``padding_mib`` adds a zero U8 tensor of that size (download tests need files larger than
    huggingface_hub's 10 MiB read chunk; vLLM would not load that tensor)."""
    os.makedirs(path, exist_ok=True)
    config = {
        "architectures": [architecture], "model_type": "llama", "hidden_size": HIDDEN,
        "intermediate_size": INTER, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "num_key_value_heads": HEADS, "max_position_embeddings": 2048, "vocab_size": VOCAB,
        "rms_norm_eps": 1e-5, "torch_dtype": "float32", "bos_token_id": 1, "eos_token_id": 2,
        "tie_word_embeddings": False,
    }
    vocab = dict(("<0x%02X>" % i, i + 4) for i in range(VOCAB - 4))
    vocab.update({"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3})
    tokenizer = {"version": "1.0", "model": {"type": "BPE", "vocab": vocab, "merges": []},
                 "added_tokens": [], "pre_tokenizer": {"type": "ByteLevel"}}
    files = {
        "config.json": config,
        "generation_config.json": {"bos_token_id": 1, "eos_token_id": 2},
        "tokenizer.json": tokenizer,
        "tokenizer_config.json": {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>",
                                  "eos_token": "</s>", "model_max_length": 2048},
    }
    for name, data in files.items():
        with open(os.path.join(path, name), "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
    tensors = llama_tensors(seed)
    if padding_mib:
        tensors["padding"] = ("U8", [padding_mib * 1024 * 1024], b"\0" * (padding_mib * 1024 * 1024))
    written = sorted(files)
    if shards == 1:
        write_safetensors(os.path.join(path, "model.safetensors"), tensors, {"format": "pt"})
        written.append("model.safetensors")
    else:
        names = sorted(tensors)
        weight_map = {}
        for i in range(shards):
            shard = "model-%05d-of-%05d.safetensors" % (i + 1, shards)
            part = dict((n, tensors[n]) for n in names[i::shards])
            write_safetensors(os.path.join(path, shard), part, {"format": "pt"})
            weight_map.update((n, shard) for n in part)
            written.append(shard)
        total = sum(len(t[2]) for t in tensors.values())
        with open(os.path.join(path, "model.safetensors.index.json"), "w", encoding="utf-8") as handle:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, handle, indent=2,
                      sort_keys=True)
        written.append("model.safetensors.index.json")
    return sorted(written)


def weights_bytes(seed=0):
    return sum(len(t[2]) for t in llama_tensors(seed).values())
