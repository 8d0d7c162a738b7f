// The cases the tokenizer goldens share: hard strings, seeded random strings over the
// ranges where tokenizers tend to differ, long pieces with no whitespace, and the
// FNV-1a-64 hash of a list of ids (each id as 4 little-endian bytes), which the C++
// tests recompute.

export const hard = [
  "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace.",
  "I'm sure you'll see they've done what she'd said; it's theirs, we'd think.",
  "DON'T SHOUT, I'M HERE. 'S 'T 'RE 'VE 'M 'LL 'D",
  "''s '''t ' s 's's rock'n'roll o'clock",
  "12345678901234567890 3.14159 1,000,000 -42 0x1F 1e-5 2026-11-29",
  "١٢٣ ٤٥٦ Ⅻ ½ ² ³ ①②③",
  "👋🌍 👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🇫🇷🇩🇪",
  "你好，世界！ 日本語のテキストです。 한국어 문장입니다.",
  "a     b", "   leading", "trailing   ", "      ", " ", "  x  y   z    ",
  "\n\n\nx", "line1\r\nline2\r\n", "a\n \n b", "\n", "x\n\n", " \n ",
  "\tindent\t\tx\t", "\t \t", "col1\tcol2\tcol3\n",
  "non\u00a0breaking\u00a0space", "thin\u2009space", "ideographic\u3000space", "line\u2028separator",
  "next\u0085line", "mongolian\u180evowel", "zero\u200bwidth", "bom\ufeffinside", "narrow\u202fno-break",
  "e\u0301 n\u0303 a\u030a", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǵ̞̜o", "naïve café résumé Ångström façade",
  "مرحبا بالعالم", "नमस्ते दुनिया", "Привет, мир!", "Γειά σου Κόσμε", "שלום עולם",
  "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|endoftext",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "def f(x):\n    return x**2  # square\n\n\n    pass",
  "https://example.com/path?q=1&r=two#frag user@example.org",
  "!!!???... ---- ___ *** ((( ))) [[[]]] {{{}}}",
  "∑∫√∞≠≤≥ ∀x∈ℝ: x²≥0",
  "\u0000\u0001\u0007\u001b[31mred\u001b[0m",
  "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 𝟘𝟙𝟚",
  "x".repeat(300), " ".repeat(100) + "x", "ab".repeat(150), "1".repeat(100),
];

const ranges = [
  [0x20, 0x7e], [0x20, 0x7e], [0x20, 0x7e], [0x09, 0x0d], [0xa0, 0xff], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x600, 0x6ff], [0x900, 0x97f], [0x2000, 0x206f], [0x3000, 0x303f], [0x4e00, 0x4fff], [0xac00, 0xad00],
  [0x1f300, 0x1f64f], [0x300, 0x36f], [0x30, 0x39], [0x27, 0x27], [0x20, 0x20],
];

// A seeded generator: next(n) is a whole number in 0..n-1.
export function generator(seed = 123456789) {
  let state = seed;
  return (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
}

export function randomStrings(next, count = 100) {
  const random = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    const length = 1 + next(40);
    for (let k = 0; k < length; k++) {
      const [lo, hi] = ranges[next(ranges.length)];
      s += String.fromCodePoint(lo + next(hi - lo + 1));
    }
    random.push(s);
  }
  return random;
}

// Long pieces with no whitespace: one regex match each, thousands of merges inside it.
export function longPieces(next) {
  const letters = (alphabet, length) => Array.from({ length }, () => alphabet[next(alphabet.length)]).join("");
  return [
    letters([..."abcdefghijklmnopqrstuvwxyz"], 20000),
    letters([..."etaoinshrdlu"], 20000),
    letters([..."aeiouéèàçñöüßøåæ"], 8000),
    letters([..."0123456789"], 5000),
    letters([..."!?.,;:-_*#"], 5000),
  ];
}

export function fnv1a64(ids) {
  let h = 0xcbf29ce484222325n;
  for (const id of ids) {
    for (let k = 0; k < 4; k++) {
      h ^= BigInt((id >>> (8 * k)) & 0xff);
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
  }
  return h.toString(16).padStart(16, "0");
}
