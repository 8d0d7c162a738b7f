// BPE encode throughput, one JSON line each, for scripts/bench/bpe_encode.sh: GPT-2 by
// tiktoken's WebAssembly build and by js-tiktoken (pure JavaScript), or, given a
// tokenizer folder, its tokenizer.json by @lenml/tokenizers.
import { get_encoding } from "@dqbd/tiktoken";
import { Tiktoken } from "js-tiktoken/lite";
import gpt2 from "js-tiktoken/ranks/gpt2";
import { TokenizerLoader } from "@lenml/tokenizers";
import fs from "node:fs";
import path from "node:path";

const [file, repeat = "5", tokenizerDir] = process.argv.slice(2);
const text = fs.readFileSync(file, "utf8");
const bytes = Buffer.byteLength(text, "utf8");

function measure(name, encode) {
  let tokens = encode(text).length;  // warm-up
  let best = Infinity;
  for (let i = 0; i < Number(repeat); i++) {
    const start = process.hrtime.bigint();
    tokens = encode(text).length;
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  console.log(JSON.stringify({ name, tokens, seconds: +best.toFixed(4), mb_per_s: +(bytes / 1e6 / best).toFixed(3) }));
}

if (tokenizerDir) {
  const readJson = (name) => JSON.parse(fs.readFileSync(path.join(tokenizerDir, name), "utf8"));
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: readJson("tokenizer.json"),
    tokenizerConfig: readJson("tokenizer_config.json"),
  });
  measure("@lenml/tokenizers 3.7.2", (t) => tokenizer.encode(t, { add_special_tokens: false }));
} else {
  const wasm = get_encoding("gpt2");
  measure("tiktoken WASM (@dqbd/tiktoken 1.0.22)", (t) => wasm.encode_ordinary(t));
  wasm.free();
  const js = new Tiktoken(gpt2);
  measure("js-tiktoken 1.0.21", (t) => js.encode(t, [], []));
}
