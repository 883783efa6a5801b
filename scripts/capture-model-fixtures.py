#!/usr/bin/env python3
"""Captures llama.cpp's own answers for the two test models, so skiff-core's GGUF tokenizer and
chat templates (src/core/local_model/) can be checked against them natively, and the worker's
candle inference can be checked against llama.cpp's greedy output.

Run once, by hand, with a Python that has llama-cpp-python installed:

    /root/.cache/skiff/llamacpp-venv/bin/python scripts/capture-model-fixtures.py

It reads the models from ${SKIFF_MODELS:-$HOME/.cache/skiff/models} (scripts/setup-models.sh puts
them there) and writes tests/fixtures/local_model/{smollm2,gemma3}.json. CI never runs this: the
fixtures are committed, and llama-cpp-python is not a test dependency.

What each fixture holds:
  - `texts`: fixed strings and llama.cpp's token ids for them, tokenized with add_bos=False and
    both special=False and special=True (`Llama.tokenize`, vocab only).
  - `chat`: a fixed conversation (system + user + assistant + user), rendered by the GGUF's own
    jinja chat template through llama-cpp-python's Jinja2ChatFormatter with
    add_generation_prompt=True, and that prompt's token ids as llama-cpp-python's chat completion
    tokenizes it (special=True, add_bos=False because the formatter reports added_special).
    Gemma 3 270M's GGUF carries no `tokenizer.chat_template`, so for it the official Gemma 3
    template (GEMMA3_TEMPLATE below, as published with the model on Hugging Face) is used, and
    llama.cpp's built-in "gemma" template is rendered too as a cross-check (`builtin_render`).
  - `generation`: the first 16 token ids llama.cpp picks greedily (temperature 0, top_k 1) for
    that prompt, with the full model loaded (n_ctx 512, seed 0); it stops early at an
    end-of-generation token, which is then the last id.
  - `special`: bos/eos ids, add_bos, and every id llama.cpp treats as end of generation.
"""

import ctypes
import json
import os
import sys
from pathlib import Path

import llama_cpp
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

ROOT = Path(__file__).resolve().parent.parent
MODELS = Path(os.environ.get("SKIFF_MODELS", Path.home() / ".cache" / "skiff" / "models"))
OUT = ROOT / "tests" / "fixtures" / "local_model"

# The official Gemma 3 chat template (tokenizer_config.json of google/gemma-3-270m-it), used
# because this GGUF has none. It folds the system message into the first user turn, trims
# every content, and starts with the BOS token.
GEMMA3_TEMPLATE = (
    "{{ bos_token }}\n"
    "{%- if messages[0]['role'] == 'system' -%}\n"
    "    {%- if messages[0]['content'] is string -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}\n"
    "    {%- else -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\\n\\n' -%}\n"
    "    {%- endif -%}\n"
    "    {%- set loop_messages = messages[1:] -%}\n"
    "{%- else -%}\n"
    "    {%- set first_user_prefix = \"\" -%}\n"
    "    {%- set loop_messages = messages -%}\n"
    "{%- endif -%}\n"
    "{%- for message in loop_messages -%}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}\n"
    "        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") }}\n"
    "    {%- endif -%}\n"
    "    {%- if (message['role'] == 'assistant') -%}\n"
    "        {%- set role = \"model\" -%}\n"
    "    {%- else -%}\n"
    "        {%- set role = message['role'] -%}\n"
    "    {%- endif -%}\n"
    "    {{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else \"\") }}\n"
    "    {%- if message['content'] is string -%}\n"
    "        {{ message['content'] | trim }}\n"
    "    {%- elif message['content'] is iterable -%}\n"
    "        {%- for item in message['content'] -%}\n"
    "            {%- if item['type'] == 'image' -%}\n"
    "                {{ '<start_of_image>' }}\n"
    "            {%- elif item['type'] == 'text' -%}\n"
    "                {{ item['text'] | trim }}\n"
    "            {%- endif -%}\n"
    "        {%- endfor -%}\n"
    "    {%- else -%}\n"
    "        {{ raise_exception(\"Invalid content type\") }}\n"
    "    {%- endif -%}\n"
    "    {{ '<end_of_turn>\\n' }}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "    {{'<start_of_turn>model\\n'}}\n"
    "{%- endif -%}\n"
)

# Texts chosen to cover each branch of both pre-tokenizers: words, contractions, digits (split
# one by one for SmolLM2), punctuation runs, whitespace runs before words/digits/ends, tabs and
# newlines, multi-byte UTF-8 (accents, CJK, emoji with a skin-tone modifier, Cyrillic), text
# that looks like control tokens, and Gemma's user-defined tokens (HTML tags, newline runs).
LONG = (
    "Skiff is a browser-only chat client. It keeps every conversation in local storage, "
    "streams answers token by token, and renders markdown with code blocks:\n\n"
    "```rust\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```\n\n"
    "Numbers such as 2024, 3.14159 and 1e-9 appear often; so do lists:\n"
    "- first item\n- second item\n\t- nested with a tab\n\n"
    "Unicode matters too: naïve café, Zürich, 東京, 서울, Москва, 🚀✨. "
)
TEXTS = [
    "Hello world! This is a plain English sentence.",
    "fn main() {\n    let x = 42;\n\tprintln!(\"{}\", x);\n}\n",
    "12345 and 3.14, also 1,000,000 and -7 or x2 and 2x.",
    "Wait... what?! (yes) [no] {maybe} -- \"quoted\" 'single' @#$%^&*_+=~`|\\/<>",
    "I'm sure it's fine; we'll see, they've gone, you'd know, I've, don't, can't, O'Neil's",
    "Café naïve résumé — ümlaut ß. 日本語のテキスト 中文 한국어 🙂🚀👍🏽 Привет мир",
    "  two leading spaces",
    "trailing spaces   ",
    "multiple    spaces   between  words",
    " ",
    "   ",
    "x  12 y   3",
    "line one\nline two\n\nline four\r\n\n\n\nend\n",
    "\ttab\t\ttabs\n\t",
    "<|im_start|>user\nhi<|im_end|>\n",
    "<start_of_turn>user\nhi<end_of_turn>\n<bos></s><eos>",
    "<table><tr><td>cell</td></tr></table> <h1>Title</h1> [multimodal]",
    "a",
    "",
    LONG * 6,
]

CONVERSATION = [
    {"role": "system", "content": "You are a concise assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "The capital of France is Paris."},
    {"role": "user", "content": "And of Italy? Answer in one word."},
]

MODEL_FILES = {
    "smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma3": "gemma-3-270m-q4_k_m.gguf",
}


def token_text(vocab, token_id: int) -> str:
    return llama_cpp.llama_vocab_get_text(vocab, token_id).decode("utf-8", "replace")


def piece(vocab, token_id: int) -> bytes:
    """llama_token_to_piece with special=False: what a generated token adds to the answer.
    (llama-cpp-python's detokenize uses a 32-byte buffer, too small for some tokens.)"""
    size = 1024
    buf = ctypes.create_string_buffer(size)
    n = llama_cpp.llama_token_to_piece(vocab, token_id, buf, size, 0, False)
    if n < 0:
        raise RuntimeError(f"token {token_id} has a piece longer than {size} bytes")
    return buf.raw[:n]


def builtin_render(name: str, messages) -> str:
    """llama.cpp's built-in (C++) chat template called by name, as a cross-check."""
    arr = (llama_cpp.llama_chat_message * len(messages))()
    keep = []
    for i, m in enumerate(messages):
        role = m["role"].encode()
        content = m["content"].encode()
        keep += [role, content]
        arr[i].role = role
        arr[i].content = content
    size = 8192
    buf = ctypes.create_string_buffer(size)
    n = llama_cpp.llama_chat_apply_template(name.encode(), arr, len(messages), True, buf, size)
    if n < 0 or n > size:
        raise RuntimeError(f"llama_chat_apply_template({name}) returned {n}")
    return buf.raw[:n].decode("utf-8")


def capture(key: str, filename: str) -> dict:
    path = MODELS / filename
    if not path.exists():
        sys.exit(f"{path} is missing; run scripts/setup-models.sh first.")
    llm = Llama(str(path), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
    bos = llama_cpp.llama_vocab_bos(vocab)
    eos = llama_cpp.llama_vocab_eos(vocab)
    meta = llm.metadata

    texts = []
    for text in TEXTS:
        plain = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        special = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        texts.append({"text": text, "ids": plain, "ids_special": special})

    template = meta.get("tokenizer.chat_template")
    template_source = "gguf"
    if template is None:
        template = GEMMA3_TEMPLATE
        template_source = "official Gemma 3 template (the GGUF carries none)"
    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=token_text(vocab, eos),
        bos_token=token_text(vocab, bos),
        add_generation_prompt=True,
    )
    rendered = formatter(messages=CONVERSATION).prompt
    prompt_ids = llm.tokenize(rendered.encode("utf-8"), add_bos=False, special=True)
    chat = {
        "template_source": template_source,
        "messages": CONVERSATION,
        "add_generation_prompt": True,
        "rendered": rendered,
        "prompt_ids": prompt_ids,
    }
    # The same conversation without its system message: SmolLM2's template then inserts its
    # own default system prompt, Gemma's starts straight with the user turn.
    no_system = formatter(messages=CONVERSATION[1:]).prompt
    chat["no_system"] = {
        "messages": CONVERSATION[1:],
        "rendered": no_system,
        "prompt_ids": llm.tokenize(no_system.encode("utf-8"), add_bos=False, special=True),
    }
    if key == "gemma3":
        chat["builtin_render"] = builtin_render("gemma", CONVERSATION)
    else:
        chat["builtin_render"] = builtin_render("chatml", CONVERSATION)

    # Ids to decode one by one: the first 300, every 997th, and every id the texts produced.
    sample = set(range(min(300, n_vocab))) | set(range(0, n_vocab, 997))
    for t in texts:
        sample |= set(t["ids"]) | set(t["ids_special"])
    detokenized = {str(i): piece(vocab, i).hex() for i in sorted(sample)}

    special = {
        "n_vocab": n_vocab,
        "bos": bos,
        "eos": eos,
        "add_bos": bool(llama_cpp.llama_vocab_get_add_bos(vocab)),
        "eog": [i for i in range(n_vocab) if llama_cpp.llama_vocab_is_eog(vocab, i)],
    }
    del llm

    # Greedy generation with the full model. temp=0 makes llama-cpp-python use the greedy
    # sampler; top_k=1 and repeat_penalty=1.0 say the same thing twice for clarity.
    full = Llama(str(path), n_ctx=512, seed=0, verbose=False)
    generated = []
    for tok in full.generate(
        prompt_ids, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0, reset=True
    ):
        generated.append(int(tok))
        if llama_cpp.llama_vocab_is_eog(vocab_of(full), tok) or len(generated) == 16:
            break
    text = full.detokenize(generated).decode("utf-8", "replace")
    del full

    return {
        "model_file": filename,
        "llama_cpp_python": llama_cpp.__version__,
        "special": special,
        "texts": texts,
        "detokenized": detokenized,
        "chat": chat,
        "generation": {
            "n_ctx": 512,
            "seed": 0,
            "temperature": 0.0,
            "top_k": 1,
            "max_tokens": 16,
            "ids": generated,
            "text": text,
        },
    }


def no_extra_buffer_types() -> None:
    """Loads weights without llama.cpp's "extra buffer types" (weight repacking for AMX/AVX512).

    On this machine's CPU the AMX matmul path segfaults inside ggml_backend_amx_mul_mat; plain
    CPU buffers compute the same greedy tokens, only slower, and the fixture is about which
    tokens come out, not speed.
    """
    original = llama_cpp.llama_model_default_params

    def params():
        p = original()
        p.use_extra_bufts = False
        return p

    llama_cpp.llama_model_default_params = params
    llama_cpp.llama.llama_cpp.llama_model_default_params = params


def vocab_of(llm: Llama):
    return llama_cpp.llama_model_get_vocab(llm.model)


def main() -> None:
    no_extra_buffer_types()
    OUT.mkdir(parents=True, exist_ok=True)
    for key, filename in MODEL_FILES.items():
        data = capture(key, filename)
        out = OUT / f"{key}.json"
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)}: {len(data['texts'])} texts, "
              f"{len(data['chat']['prompt_ids'])} prompt ids, generation {data['generation']['ids']}")


if __name__ == "__main__":
    main()
