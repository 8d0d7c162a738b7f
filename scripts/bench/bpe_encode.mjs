// BPE encode throughput of tiktoken's WebAssembly build and of js-tiktoken (pure
// JavaScript), one JSON line each, for scripts/bench/bpe_encode.sh.
import { get_encoding } from "@dqbd/tiktoken";
import { Tiktoken } from "js-tiktoken/lite";
import gpt2 from "js-tiktoken/ranks/gpt2";
import fs from "node:fs";

const [file, repeat = "5"] = process.argv.slice(2);
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

const wasm = get_encoding("gpt2");
measure("tiktoken WASM (@dqbd/tiktoken 1.0.22)", (t) => wasm.encode_ordinary(t));
wasm.free();
const js = new Tiktoken(gpt2);
measure("js-tiktoken 1.0.21", (t) => js.encode(t, [], []));
