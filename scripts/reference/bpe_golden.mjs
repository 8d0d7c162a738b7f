// Golden for the GPT-2 BPE tokenizer: token ids from tiktoken's own Rust core (the
// WebAssembly build @dqbd/tiktoken), an implementation independent of ours.
//
//   (cd scripts && npm install) && node scripts/reference/bpe_golden.mjs
//
// Writes tests/golden/bpe-tiktoken.json: the ids of hard strings and of seeded random
// strings, and for whole files the count and FNV-1a-64 hash of the ids (each id as 4
// little-endian bytes), which the C++ test recomputes.
import { get_encoding } from "@dqbd/tiktoken";
import { fnv1a64, generator, hard, longPieces, randomStrings } from "./tokenizer_cases.mjs";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = process.env.LLM_DATA_DIR || path.join(root, "data");
const enc = get_encoding("gpt2");

const next = generator();
const random = randomStrings(next);

const strings = [...hard, ...random].map((text) => ({ text, ids: Array.from(enc.encode_ordinary(text)) }));
const allowed = ["<|endoftext|>", "a<|endoftext|>b", "x <|endoftext|> y", "<|endoftext|><|endoftext|>"].map(
  (text) => ({ text, allowed_special: ["<|endoftext|>"], ids: Array.from(enc.encode(text, ["<|endoftext|>"])) }),
);
const long = longPieces(next).map((text) => {
  const ids = enc.encode_ordinary(text);
  return { text, count: ids.length, fnv1a64: fnv1a64(ids) };
});
const files = {};
for (const name of ["the-verdict.txt", "moby-dick.txt"]) {
  const ids = enc.encode_ordinary(fs.readFileSync(path.join(dataDir, name), "utf8"));
  files[name] = { count: ids.length, fnv1a64: fnv1a64(ids), first: Array.from(ids.slice(0, 20)) };
}
const golden = { encoding: "gpt2", source: "@dqbd/tiktoken 1.0.22", strings: [...strings, ...allowed], long, files };
const out = path.join(root, "tests/golden/bpe-tiktoken.json");
fs.writeFileSync(out, JSON.stringify(golden, null, 1) + "\n");
console.log(`wrote ${path.relative(root, out)}: ${golden.strings.length} strings,`,
  Object.entries(files).map(([k, v]) => `${k} ${v.count} tokens`).join(", "));
enc.free();
