// Golden for the tokenizer.json reader: token ids of Llama 3's, Qwen3's and Gemma 3's
// tokenizers from @lenml/tokenizers (a fork of transformers.js's tokenizers), a
// JavaScript implementation independent of ours.
//
//   (cd scripts && npm install) && node scripts/reference/tokenizer_json_golden.mjs
//
// Reads data/tokenizers/NAME/ (scripts/fetch-data.sh) and writes
// tests/golden/tokenizer-json.json (and verdict-split-ids.json, below): per tokenizer the ids of hard strings, of seeded
// random strings and of strings with its special tokens, and for long pieces and
// whole books (the long pieces' texts once, for all three) the count, first ids and
// FNV-1a-64 hash of the ids, which the C++ test recomputes.
// Encoding adds no BOS (add_special_tokens: false), as the course's classes do.
// The chat formats are the course's tokenizer classes, ported line by line:
// Qwen3Tokenizer (pkg/llms_from_scratch/qwen3.py) and the multi-turn chat interface's
// build_prompt_from_history (ch05/11_qwen3/qwen3-chat-interface), Llama 3's ChatFormat
// (pkg/llms_from_scratch/llama3.py) and the Gemma 3 notebook's GemmaTokenizer
// (ch05/12_gemma3/standalone-gemma3.ipynb).
//
// Left out: the two hard strings with U+0085 and U+FEFF. The pre-tokenizer patterns
// say \s, which Hugging Face's tokenizers (Rust) read as Unicode's White_Space, as
// our reader does: U+0085 is in it and U+FEFF is not. JavaScript's \s is the other
// way round on exactly these two.
import { TokenizerLoader } from "@lenml/tokenizers";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fnv1a64, generator, hard, longPieces, randomStrings } from "./tokenizer_cases.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = process.env.LLM_DATA_DIR || path.join(root, "data");
const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));

const specials = {
  llama3: [
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "a<|end_of_text|>b<|reserved_special_token_3|>c <|eot_id|> d<|eot_id",
  ],
  qwen3: [
    "<|im_start|>user\nGive me a short introduction to large language models.<|im_end|>\n<|im_start|>assistant\n",
    "<think>\n\n</think>\n\nHello<|im_end|><|endoftext|>",
    "x <|im_start|> y<|im_start|<|im_end|>",
  ],
  gemma3: [
    "<bos><start_of_turn>user\nGive me a short introduction to large language models.<end_of_turn>\n<start_of_turn>model\n",
    "a<eos>b <pad> c<unused12>d [multimodal] <mask>",
    "lines\n\n\n\nand    spaces\t\t\tand tabs",
    // ">▁</" is a token that spans a word's start: a piece that holds it is merged whole.
    "<p>a</p> <b> </b> x> </y",
  ],
};

const common = [
  "\u2581 and \u2581\u2581x\u2581", "x\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\ny",
  " ".repeat(40) + "x", "\t".repeat(33), "Ǆ ǅ ǆ ﬁ ﬂ Å Å", "e\u0301\u0327 A\u030a", "1234567 12 1 0.5 ١٢٣٤",
];
const next = generator();
const random = randomStrings(next);
const long = longPieces(next);
const skipped = (text) => text.includes("\u0085") || text.includes("\ufeff");

// Qwen3Tokenizer.encode: _wrap_chat, then the text split at special tokens.
const QWEN3_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
  "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
  "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<think>", "</think>"];
function qwen3Encode(tokenizer, text) {
  const ids = [];
  for (const part of text.split(/(<\|[^>]+?\|>|<think>|<\/think>)/).filter(Boolean)) {
    const id = QWEN3_SPECIALS.includes(part) ? tokenizer.model.tokens_to_ids.get(part) : undefined;
    if (id !== undefined) ids.push(id);
    else ids.push(...tokenizer.encode(part, { add_special_tokens: false }));
  }
  return ids;
}
const chatTemplates = {
  qwen3(tokenizer, messages, { generation_prompt, thinking }) {
    // One user message: Qwen3Tokenizer._wrap_chat; a history: build_prompt_from_history
    // (whose generation prompt is the thinking model's).
    let text = messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join("");
    if (generation_prompt) text += thinking ? "<|im_start|>assistant\n" : "<|im_start|>assistant\n<think>\n\n</think>\n\n";
    return qwen3Encode(tokenizer, text);
  },
  llama3(tokenizer, messages, { generation_prompt }) {
    const encode = (text) => tokenizer.encode(text, { add_special_tokens: false });
    const special = (name) => tokenizer.model.tokens_to_ids.get(name);
    const header = (role) => [special("<|start_header_id|>"), ...encode(role), special("<|end_header_id|>"), ...encode("\n\n")];
    const turn = (m) => [...header(m.role), ...encode(m.content), special("<|eot_id|>")];
    const all = messages[0]?.role === "system" ? messages : [{ role: "system", content: "You are a helpful assistant." }, ...messages];
    const ids = [special("<|begin_of_text|>"), ...all.flatMap(turn)];
    return generation_prompt ? [...ids, ...header("assistant")] : ids;
  },
  gemma3(tokenizer, messages, { generation_prompt }) {
    let text = messages.map((m) => `<start_of_turn>${m.role === "assistant" ? "model" : m.role}\n${m.content}<end_of_turn>\n`).join("");
    if (generation_prompt) text += "<start_of_turn>model\n";
    return tokenizer.encode(text, { add_special_tokens: true });  // GemmaTokenizer.encode: <bos> first
  },
};
const question = [{ role: "user", content: "Give me a short introduction to large language models." }];
const history = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is 2 + 2?" },
  { role: "assistant", content: "4." },
  { role: "user", content: "\nAnd  times 3? <|im_end|> café 🙂" },
];
const chatCases = [
  { messages: question, generation_prompt: true, thinking: false },
  { messages: question, generation_prompt: true, thinking: true },
  { messages: question, generation_prompt: false, thinking: false },
  { messages: history, generation_prompt: true, thinking: true },
];

const golden = { source: "@lenml/tokenizers 3.7.2", long, tokenizers: {} };
for (const name of ["llama3", "qwen3", "gemma3"]) {
  const dir = path.join(dataDir, "tokenizers", name);
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: readJson(path.join(dir, "tokenizer.json")),
    tokenizerConfig: readJson(path.join(dir, "tokenizer_config.json")),
  });
  const encode = (text) => tokenizer.encode(text, { add_special_tokens: false });
  const strings = [...hard.filter((text) => !skipped(text)), ...common, ...random, ...specials[name]].map((text) => ({
    text,
    ids: encode(text),
  }));
  const hashed = (text) => {
    const ids = encode(text);
    return { count: ids.length, fnv1a64: fnv1a64(ids), first: ids.slice(0, 20) };
  };
  const files = {};
  for (const file of ["the-verdict.txt", "moby-dick.txt"]) files[file] = hashed(fs.readFileSync(path.join(dataDir, file), "utf8"));
  const chats = chatCases.map((c) => ({ ...c, ids: chatTemplates[name](tokenizer, c.messages, c) }));
  golden.tokenizers[name] = { strings, long: long.map(hashed), files, chats };
  console.log(`${name}: ${strings.length} strings,`, Object.entries(files).map(([k, v]) => `${k} ${v.count} tokens`).join(", "));
}
const out = path.join(root, "tests/golden/tokenizer-json.json");
fs.writeFileSync(out, JSON.stringify(golden, null, 1) + "\n");
console.log(`wrote ${path.relative(root, out)}`);

// The ch05/14 notebooks' split of the-verdict: text_data[:int(0.9 * len(text_data))]
// (Python slices code points) and the rest, and their start context "Every effort
// moves you", encoded by Qwen3's and Llama 3's tokenizers. scripts/reference/ch05_other_llms.py runs the notebooks' loaders on them.
const verdict = Array.from(fs.readFileSync(path.join(dataDir, "the-verdict.txt"), "utf8"));
const splitAt = Math.floor(0.9 * verdict.length);
const parts = { train: verdict.slice(0, splitAt).join(""), val: verdict.slice(splitAt).join("") };
const splits = { source: golden.source, file: "the-verdict.txt", train_ratio: 0.9, tokenizers: {} };
for (const name of ["qwen3", "llama3"]) {
  const dir = path.join(dataDir, "tokenizers", name);
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: readJson(path.join(dir, "tokenizer.json")),
    tokenizerConfig: readJson(path.join(dir, "tokenizer_config.json")),
  });
  const encode = (text) => tokenizer.encode(text, { add_special_tokens: false });
  splits.tokenizers[name] = { train: encode(parts.train), val: encode(parts.val), start: encode("Every effort moves you") };
}
const splitsOut = path.join(root, "tests/golden/verdict-split-ids.json");
fs.writeFileSync(splitsOut, JSON.stringify(splits) + "\n");
console.log(`wrote ${path.relative(root, splitsOut)}`);
