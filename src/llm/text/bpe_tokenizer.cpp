#include "llm/text/bpe_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"
#include "llm/util/regex.h"
#include "llm/util/utf8.h"

namespace llm {
namespace {

// Rust's (and so tiktoken's) \s: the Unicode White_Space property. PCRE2's own \s
// also takes U+180E, so the class is spelled out.
#define LLM_WS R"(\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})"
constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^)" LLM_WS R"(\p{L}\p{N}]+|[)" LLM_WS R"(]+(?![^)" LLM_WS
    R"(])|[)" LLM_WS R"(]+)";
#undef LLM_WS

const PieceSplit& gpt2_split() {
  static const PieceSplit split = PieceSplit::regex(kGpt2Pattern, SplitBehavior::kIsolated);
  return split;
}

// The printable form of a token's bytes, as encoder.json and vocab.bpe write it.
std::string to_printable(std::string_view bytes) {
  std::string out;
  for (unsigned char b : bytes) append_utf8(out, byte_to_unicode()[b]);
  return out;
}

// The bytes behind a printable token; nullopt when a character is outside the table.
std::optional<std::string> from_printable(std::string_view printable) {
  static const auto inverse = [] {
    std::array<int, 324> table;
    table.fill(-1);
    for (int b = 0; b < 256; ++b) table[byte_to_unicode()[b]] = b;
    return table;
  }();
  std::string bytes;
  for (size_t i = 0; i < printable.size();) {
    const auto c = static_cast<unsigned char>(printable[i]);
    char32_t cp;
    size_t n;
    if (c < 0x80) {
      cp = c, n = 1;
    } else if (c >= 0xC2 && c <= 0xDF && i + 1 < printable.size() && (printable[i + 1] & 0xC0) == 0x80) {
      cp = ((c & 0x1F) << 6) | (printable[i + 1] & 0x3F), n = 2;
    } else {
      return std::nullopt;  // every character of the table is below U+0800
    }
    if (cp >= inverse.size() || inverse[cp] < 0) return std::nullopt;
    bytes += static_cast<char>(inverse[cp]);
    i += n;
  }
  return bytes;
}

// A token as JSON writes it: quoted, with control characters escaped.
std::string json_quoted(std::string_view token) {
  return nlohmann::json(std::string(token)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

constexpr std::string_view kWordStart = "\u2581";  // SentencePiece's mark of a word's start

// Whether the "▁" at `at` follows another "▁" (in a run of them, which tokens span).
bool after_word_start(std::string_view text, size_t at) {
  return at >= kWordStart.size() && text.substr(at - kWordStart.size(), kWordStart.size()) == kWordStart;
}

constexpr uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

}  // namespace

std::optional<std::string> bytes_from_printable(std::string_view printable) { return from_printable(printable); }

const std::array<uint8_t, 256>& gpt2_byte_order() {
  static const auto order = [] {
    std::array<uint8_t, 256> bytes{};
    std::array<bool, 256> printable{};
    for (int b = '!'; b <= '~'; ++b) printable[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
    size_t n = 0;
    for (int b = 0; b < 256; ++b)
      if (printable[b]) bytes[n++] = static_cast<uint8_t>(b);
    for (int b = 0; b < 256; ++b)
      if (!printable[b]) bytes[n++] = static_cast<uint8_t>(b);
    return bytes;
  }();
  return order;
}

const std::array<char32_t, 256>& byte_to_unicode() {
  static const auto table = [] {
    // Printable bytes stand for themselves; the others are shifted to U+0100 onwards,
    // in byte order.
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (size_t i = 0; i < 256; ++i) {
      const uint8_t b = gpt2_byte_order()[i];
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

namespace {

Error vocabulary_error(std::string_view name, const std::string& what) {
  return Error(fmt::format("vocabulary '{}': {}", name, what));
}

// encoder.json: every token's bytes by its id, and the ids by bytes; the ids dense,
// every single byte a token.
void read_encoder(std::string_view encoder_json, std::string_view name, BpeVocabulary& vocabulary,
                  std::unordered_map<std::string, int64_t>& ids) {
  const auto json = parse_json(encoder_json, "vocabulary", name);
  if (!json.is_object() || json.empty()) throw vocabulary_error(name, "expected a non-empty JSON object of token -> id");
  vocabulary.tokens.resize(json.size());
  std::vector<bool> seen(json.size(), false);
  for (const auto& [key, value] : json.items()) {
    if (!value.is_number_integer()) {
      throw vocabulary_error(name, fmt::format("token {}: id must be an integer", json_quoted(key)));
    }
    const auto id = value.get<int64_t>();
    if (id < 0 || id >= static_cast<int64_t>(json.size())) {
      throw vocabulary_error(name, fmt::format("token {}: id {} is outside 0..{} (ids must be dense)",
                                               json_quoted(key), id, json.size() - 1));
    }
    if (seen[id]) throw vocabulary_error(name, fmt::format("token {}: id {} is used twice", json_quoted(key), id));
    auto bytes = from_printable(key);
    if (!bytes || bytes->empty()) {
      throw vocabulary_error(name,
                             fmt::format("token {}: has a character outside GPT-2's byte alphabet", json_quoted(key)));
    }
    seen[id] = true;
    vocabulary.tokens[id] = *bytes;
    ids.emplace(std::move(*bytes), id);
  }
  for (int b = 0; b < 256; ++b) {
    if (ids.count(std::string(1, static_cast<char>(b))) == 0) {
      throw vocabulary_error(name, fmt::format("the single-byte token for byte {} is missing", b));
    }
  }
}

// One line of vocab.bpe, "left right" in GPT-2's printable bytes: the merge of two
// tokens into a third, all three in the encoder (`ids`).
std::pair<int64_t, int64_t> read_merge(std::string_view line, size_t line_no,
                                       const std::unordered_map<std::string, int64_t>& ids,
                                       std::string_view merges_name, std::string_view encoder_name) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
      line.find(' ', space + 1) != std::string_view::npos) {
    throw vocabulary_error(merges_name, fmt::format("line {}: expected two tokens separated by one space, got {}",
                                                    line_no, json_quoted(line)));
  }
  const auto left = from_printable(line.substr(0, space));
  const auto right = from_printable(line.substr(space + 1));
  const auto id_of = [&](const std::optional<std::string>& bytes, std::string_view shown) {
    const auto it = bytes ? ids.find(*bytes) : ids.end();
    if (it == ids.end()) {
      throw vocabulary_error(merges_name, fmt::format("line {}: {} is not a token of '{}'", line_no,
                                                      json_quoted(shown), encoder_name));
    }
    return it->second;
  };
  const int64_t left_id = id_of(left, line.substr(0, space));
  const int64_t right_id = id_of(right, line.substr(space + 1));
  id_of(*left + *right, fmt::format("{}{}", line.substr(0, space), line.substr(space + 1)));
  return {left_id, right_id};
}

}  // namespace

BpeVocabulary parse_bpe_vocabulary(std::string_view encoder_json, std::string_view merges,
                                   std::string_view encoder_name, std::string_view merges_name) {
  BpeVocabulary vocabulary;
  std::unordered_map<std::string, int64_t> ids;
  read_encoder(encoder_json, encoder_name, vocabulary, ids);
  size_t line_no = 0;
  size_t start = 0;
  while (start < merges.size()) {
    size_t end = merges.find('\n', start);
    if (end == std::string_view::npos) end = merges.size();
    std::string_view line = merges.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    vocabulary.merges.push_back(read_merge(line, line_no, ids, merges_name, encoder_name));
  }
  return vocabulary;
}

BpeVocabulary load_bpe_vocabulary(const std::filesystem::path& encoder_json, const std::filesystem::path& merges) {
  return parse_bpe_vocabulary(read_file(encoder_json), read_file(merges), encoder_json.string(), merges.string());
}

void save_bpe_vocabulary(const BpeVocabulary& vocabulary, const std::filesystem::path& encoder_json,
                         const std::filesystem::path& merges) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id) json[to_printable(vocabulary.tokens[id])] = id;
  std::string lines = "#version: 0.2\n";
  for (const auto& [left, right] : vocabulary.merges) {
    lines += fmt::format("{} {}\n", to_printable(vocabulary.tokens.at(left)), to_printable(vocabulary.tokens.at(right)));
  }
  write_file_atomic(encoder_json, json.dump());
  write_file_atomic(merges, lines);
}

void split_on_specials(std::string_view text, const std::set<std::string>& specials,
                       const std::function<void(std::string_view)>& on_text,
                       const std::function<void(const std::string&)>& on_special) {
  size_t start = 0;
  while (start < text.size()) {
    size_t found = std::string_view::npos;
    const std::string* special = nullptr;
    for (const auto& name : specials) {
      const size_t at = text.find(name, start);
      if (at < found || (at == found && at != std::string_view::npos && name.size() > special->size())) {
        found = at;
        special = &name;
      }
    }
    on_text(text.substr(start, found == std::string_view::npos ? std::string_view::npos : found - start));
    if (special == nullptr) return;
    on_special(*special);
    start = found + special->size();
  }
}

BpeTokenizer::BpeTokenizer(BpeVocabulary vocabulary, BpeRules rules)
    : vocabulary_(std::move(vocabulary)), rules_(std::move(rules)) {
  const auto& tokens = vocabulary_.tokens;
  const size_t n = tokens.size();
  if (n >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) throw Error("BPE vocabulary: too many tokens");
  const bool characters = rules_.alphabet == BpeRules::Alphabet::kCharacters;
  if (characters && rules_.spellings.size() != n) {
    throw Error(fmt::format("BPE vocabulary: {} spellings for {} tokens", rules_.spellings.size(), n));
  }
  always_special_.assign(n, false);
  for (const auto& [id, content] : rules_.added) {
    if (id < 0 || id >= static_cast<int64_t>(n)) throw Error(fmt::format("BPE vocabulary: added token {} is no token", id));
    if (content.empty()) throw Error(fmt::format("BPE vocabulary: added token {} is empty", id));
    always_special_[id] = true;
  }
  // The tokens by what merges join: their bytes, or their spellings. Added tokens are
  // among them: Gemma's "\n\n" is added, and made by a merge too.
  std::unordered_map<std::string, int32_t> ids;
  ids.reserve(n);
  ordinary_ids_.reserve(n);
  pair_merges_.reserve(vocabulary_.merges.size());
  for (size_t id = 0; id < n; ++id) ids.emplace(characters ? rules_.spellings[id] : tokens[id], static_cast<int32_t>(id));
  byte_ids_.fill(-1);
  for (int b = 0; b < 256 && (!characters || rules_.byte_fallback); ++b) {
    const auto it = ids.find(characters ? fmt::format("<0x{:02X}>", b) : std::string(1, static_cast<char>(b)));
    if (it != ids.end()) {
      byte_ids_[b] = it->second;
    } else if (!characters) {
      throw Error(fmt::format("BPE vocabulary: no token for byte {}", b));
    }
  }
  if (rules_.unknown && (*rules_.unknown < 0 || *rules_.unknown >= static_cast<int64_t>(n))) {
    throw Error(fmt::format("BPE vocabulary: the unknown token {} is no token", *rules_.unknown));
  }
  index_merges(ids);
}

// Fills pair_merges_ by the rules' merging, then sorts the tokens into ordinary and
// special ones.
void BpeTokenizer::index_merges(const std::unordered_map<std::string, int32_t>& ids) {
  const auto& tokens = vocabulary_.tokens;
  const bool characters = rules_.alphabet == BpeRules::Alphabet::kCharacters;
  const auto key = [&](int64_t id) -> const std::string& { return characters ? rules_.spellings.at(id) : tokens.at(id); };
  std::vector<int32_t> rank(tokens.size(), std::numeric_limits<int32_t>::max());
  for (size_t r = 0; r < vocabulary_.merges.size(); ++r) {
    const auto [left, right] = vocabulary_.merges[r];
    const auto it = ids.find(key(left) + key(right));
    if (it == ids.end()) throw Error(fmt::format("BPE vocabulary: merge {} makes a string that is no token", r));
    rank[it->second] = std::min(rank[it->second], static_cast<int32_t>(r));
    if (rules_.merging == BpeRules::Merging::kListedPairs) {
      pair_merges_.insert(static_cast<int32_t>(left), static_cast<int32_t>(right), Merge{static_cast<int32_t>(r), it->second});
    }
  }
  std::vector<bool> reachable(tokens.size(), rules_.merging == BpeRules::Merging::kListedPairs);
  for (size_t id = 0; id < tokens.size(); ++id) {
    const std::string& bytes = tokens[id];
    const bool is_byte = bytes.size() == 1 && byte_ids_[static_cast<uint8_t>(bytes[0])] == static_cast<int32_t>(id);
    const bool is_merged = rank[id] != std::numeric_limits<int32_t>::max();
    if (is_byte || is_merged) reachable[id] = true;
    // A token's rank is the position of the merge that first makes it. Any two tokens
    // whose bytes join into a ranked token may merge (as in tiktoken), not only the
    // pair that vocab.bpe lists.
    if (rules_.merging != BpeRules::Merging::kTokenRank || !is_merged) continue;
    for (size_t k = 1; k < bytes.size(); ++k) {
      const auto left = ids.find(bytes.substr(0, k));
      const auto right = ids.find(bytes.substr(k));
      if (left != ids.end() && right != ids.end()) {
        pair_merges_.insert(left->second, right->second, Merge{rank[id], static_cast<int32_t>(id)});
      }
    }
  }
  index_specials(reachable);
  index_word_cuts();
}

// Merging joins only symbols whose joined spelling is a token, so a cut that no token
// spans is never merged across: the pieces on either side merge alone into the ids
// the whole would give. The cuts here fall before a "▁" that follows another character.
void BpeTokenizer::index_word_cuts() {
  constexpr size_t kMostSpanning = 64;  // beyond this, looking for them costs more than it saves
  if (rules_.alphabet != BpeRules::Alphabet::kCharacters) return;
  for (const auto& spelling : rules_.spellings) {
    for (size_t at = spelling.find(kWordStart, 1); at != std::string::npos; at = spelling.find(kWordStart, at + 1)) {
      if (!after_word_start(spelling, at)) {
        cut_spanning_tokens_.push_back(spelling);
        break;
      }
    }
    if (cut_spanning_tokens_.size() > kMostSpanning) return;
  }
  word_cuts_ = true;
}

// Added tokens and, by tiktoken's rule, tokens no merge makes are special; the rest are
// ordinary. The special ones go into a trie over their bytes.
void BpeTokenizer::index_specials(const std::vector<bool>& reachable) {
  const auto& tokens = vocabulary_.tokens;
  const bool characters = rules_.alphabet == BpeRules::Alphabet::kCharacters;
  for (const auto& [id, content] : rules_.added) special_ids_.emplace(content, static_cast<int32_t>(id));
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (always_special_[id]) continue;
    if (!reachable[id]) {
      if (!tokens[id].empty()) special_ids_.emplace(tokens[id], static_cast<int32_t>(id));
    } else {
      ordinary_ids_.emplace(characters ? rules_.spellings[id] : tokens[id], static_cast<int32_t>(id));
    }
  }
  for (const auto& [bytes, id] : special_ids_) {
    int32_t node = 0;
    for (const unsigned char b : bytes) {
      const auto [it, inserted] =
          trie_edges_.try_emplace((static_cast<uint64_t>(node) << 8) | b, static_cast<int32_t>(trie_tokens_.size()));
      if (inserted) trie_tokens_.push_back(-1);
      node = it->second;
    }
    trie_tokens_[node] = id;
    special_starts_[static_cast<unsigned char>(bytes[0])] = true;
  }
}

BpeTokenizer BpeTokenizer::from_files(const std::filesystem::path& encoder_json, const std::filesystem::path& merges) {
  return BpeTokenizer(load_bpe_vocabulary(encoder_json, merges));
}

BpeTokenizer BpeTokenizer::gpt2() {
  return from_files(existing_data_file("gpt2/encoder.json"), existing_data_file("gpt2/vocab.bpe"));
}

PieceSplit gpt2_pre_tokenizer() { return gpt2_split(); }

std::vector<std::string_view> BpeTokenizer::pretokenize(std::string_view text) {
  check_utf8(text, "BPE pre-tokenizer input");
  std::vector<std::string_view> pieces;
  gpt2_split().for_each_piece(text, [&](std::string_view piece) { pieces.push_back(piece); });
  return pieces;
}

std::optional<BpeTokenizer::Merge> BpeTokenizer::find_merge(int32_t left, int32_t right) const {
  return pair_merges_.find(left, right);
}

// Fibonacci hashing: the key times 2^64 / golden ratio, its top bits.
size_t BpeTokenizer::MergeTable::slot_of(uint64_t key) const {
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
}

void BpeTokenizer::MergeTable::reserve(size_t count) {
  int bits = 4;
  while ((size_t{1} << bits) < 2 * count) ++bits;  // at most half full
  const size_t capacity = size_t{1} << bits;
  if (capacity <= slots_.size()) return;
  std::vector<Slot> old(capacity);
  old.swap(slots_);
  shift_ = 64 - bits;
  size_ = 0;
  for (const Slot& slot : old) {
    if (slot.key != kEmpty) insert(static_cast<int32_t>(slot.key >> 32), static_cast<int32_t>(slot.key), slot.merge);
  }
}

void BpeTokenizer::MergeTable::insert(int32_t left, int32_t right, Merge merge) {
  if (2 * (size_ + 1) > slots_.size()) reserve(size_ + 1);
  const uint64_t key = pair_key(left, right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(key);; i = (i + 1) & mask) {
    if (slots_[i].key == key) return;
    if (slots_[i].key == kEmpty) {
      slots_[i] = {key, merge};
      ++size_;
      return;
    }
  }
}

std::optional<BpeTokenizer::Merge> BpeTokenizer::MergeTable::find(int32_t left, int32_t right) const {
  if (slots_.empty()) return std::nullopt;
  const uint64_t key = pair_key(left, right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(key);; i = (i + 1) & mask) {
    if (slots_[i].key == key) return slots_[i].merge;
    if (slots_[i].key == kEmpty) return std::nullopt;
  }
}

// The lowest-ranked adjacent pair merges first, the leftmost among equal ranks (as in
// tiktoken). Almost every piece is a word of a few bytes, for which a scan over the
// candidates is faster than a heap.
void BpeTokenizer::merge_parts(std::vector<int32_t>& parts) const {
  constexpr size_t kLongPiece = 64;
  if (parts.size() > kLongPiece) {
    merge_long(parts);
    return;
  }
  constexpr Merge kNone{std::numeric_limits<int32_t>::max(), -1};
  const auto merge_at = [&](size_t i) { return find_merge(parts[i], parts[i + 1]).value_or(kNone); };
  // merges[i] is what joining parts[i] and parts[i + 1] would make.
  std::vector<Merge> merges;
  for (size_t i = 0; i + 1 < parts.size(); ++i) merges.push_back(merge_at(i));
  while (!merges.empty()) {
    const auto best = std::min_element(merges.begin(), merges.end(),
                                       [](const Merge& a, const Merge& b) { return a.rank < b.rank; });
    if (best->rank == kNone.rank) break;
    const auto i = static_cast<size_t>(best - merges.begin());
    parts[i] = best->id;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    merges.erase(best);
    if (i > 0) merges[i - 1] = merge_at(i - 1);
    if (i < merges.size()) merges[i] = merge_at(i);
  }
}

void BpeTokenizer::merge_long(std::vector<int32_t>& parts) const {
  // The parts form a linked list and the candidate pairs a heap, so that a megabyte of
  // letters with no space (or a whole text, for Gemma 3) costs O(n log n), not O(n^2).
  struct Part {
    int32_t id;
    uint32_t version;  // bumped when this part or the next one changes: its candidates go stale
    size_t prev, next;  // n: no neighbour
  };
  struct Candidate {
    Merge merge;
    size_t left;
    uint32_t version;
  };
  const size_t n = parts.size();
  std::vector<Part> list(n);
  for (size_t i = 0; i < n; ++i) list[i] = {parts[i], 0, i == 0 ? n : i - 1, i + 1};
  const auto later = [](const Candidate& a, const Candidate& b) {
    return a.merge.rank != b.merge.rank ? a.merge.rank > b.merge.rank : a.left > b.left;
  };
  std::vector<Candidate> storage;
  storage.reserve(n);
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> heap(later, std::move(storage));
  const auto offer = [&](size_t left) {
    const Part& part = list[left];
    if (part.next == n) return;
    if (const auto merge = find_merge(part.id, list[part.next].id)) heap.push({*merge, left, part.version});
  };
  for (size_t i = 0; i + 1 < n; ++i) offer(i);

  while (!heap.empty()) {
    const Candidate best = heap.top();
    heap.pop();
    Part& left = list[best.left];
    if (best.version != left.version) continue;
    Part& right = list[left.next];
    left.id = best.merge.id;
    left.next = right.next;
    if (right.next != n) list[right.next].prev = best.left;
    ++left.version;
    ++right.version;
    offer(best.left);
    if (left.prev != n) {
      ++list[left.prev].version;
      offer(left.prev);
    }
  }
  parts.clear();
  for (size_t i = 0; i < n; i = list[i].next) parts.push_back(list[i].id);
}

template <typename OnPiece>
void BpeTokenizer::for_each_piece(std::string_view text, OnPiece&& on_piece) const {
  const auto emit = [&](std::string_view piece) {
    if (word_cuts_) {
      cut_at_words(piece, on_piece);
    } else if (!piece.empty()) {
      on_piece(piece);
    }
  };
  const auto& splits = rules_.pre_tokenizer;
  if (splits.empty()) {
    emit(text);
    return;
  }
  std::vector<std::string_view> pieces{text}, next;
  for (size_t s = 0; s + 1 < splits.size(); ++s) {
    next.clear();
    for (const auto piece : pieces) splits[s].for_each_piece(piece, [&](std::string_view p) { next.push_back(p); });
    pieces.swap(next);
  }
  for (const auto piece : pieces) splits.back().for_each_piece(piece, emit);
}

template <typename OnPiece>
void BpeTokenizer::cut_at_words(std::string_view piece, OnPiece&& on_piece) const {
  if (piece.empty()) return;
  if (std::any_of(cut_spanning_tokens_.begin(), cut_spanning_tokens_.end(),
                  [&](const std::string& token) { return piece.find(token) != piece.npos; })) {
    on_piece(piece);
    return;
  }
  size_t start = 0;
  for (size_t at = piece.find(kWordStart, 1); at != piece.npos; at = piece.find(kWordStart, at + kWordStart.size())) {
    if (after_word_start(piece, at)) continue;
    on_piece(piece.substr(start, at - start));
    start = at;
  }
  on_piece(piece.substr(start));
}

// The symbols BPE starts from: the piece's bytes, or its characters by their
// spellings, with byte fallback, else the unknown token.
void BpeTokenizer::start_symbols(std::string_view piece, std::vector<int32_t>& parts) const {
  parts.clear();
  if (rules_.alphabet == BpeRules::Alphabet::kBytes) {
    for (const unsigned char b : piece) parts.push_back(byte_ids_[b]);
    return;
  }
  for (size_t i = 0; i < piece.size();) {
    const size_t n = std::max<size_t>(utf8_sequence_at(piece, i).needed, 1);
    const std::string_view character = piece.substr(i, n);
    i += n;
    if (const auto it = ordinary_ids_.find(std::string(character)); it != ordinary_ids_.end()) {
      parts.push_back(it->second);
    } else if (std::all_of(character.begin(), character.end(),
                           [&](char b) { return byte_ids_[static_cast<unsigned char>(b)] >= 0; })) {
      for (const unsigned char b : character) parts.push_back(byte_ids_[b]);
    } else if (rules_.unknown) {
      if (parts.empty() || parts.back() != *rules_.unknown) parts.push_back(static_cast<int32_t>(*rules_.unknown));
    } else {
      throw Error(fmt::format("BPE tokenizer: the character {} has no token, no byte fallback and no unknown token",
                              json_quoted(character)));
    }
  }
}

void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int64_t>& out, PieceCache& cache) const {
  // A piece that is a token itself is that token, whatever the merges would make.
  if (rules_.whole_piece_tokens) {
    if (const auto it = ordinary_ids_.find(std::string(piece)); it != ordinary_ids_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  auto [it, inserted] = cache.try_emplace(piece);
  if (inserted) {
    start_symbols(piece, it->second);
    merge_parts(it->second);
  }
  out.insert(out.end(), it->second.begin(), it->second.end());
}

void BpeTokenizer::encode_ordinary(std::string_view text, std::vector<int64_t>& out, PieceCache& cache) const {
  for_each_piece(text, [&](std::string_view piece) { encode_piece(piece, out, cache); });
}

std::pair<size_t, int32_t> BpeTokenizer::special_at(std::string_view text, size_t at,
                                                    const std::set<int32_t>& allowed) const {
  std::pair<size_t, int32_t> best{0, -1};
  int32_t node = 0;
  for (size_t i = at; i < text.size(); ++i) {
    const auto edge = trie_edges_.find((static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(text[i]));
    if (edge == trie_edges_.end()) break;
    node = edge->second;
    const int32_t id = trie_tokens_[node];
    if (id >= 0 && (always_special_[id] || allowed.count(id) != 0)) best = {i - at + 1, id};
  }
  return best;
}

std::vector<int64_t> BpeTokenizer::encode(std::string_view text, const std::set<std::string>& allowed_special) const {
  std::set<int32_t> allowed;
  for (const auto& name : allowed_special) {
    const auto it = special_ids_.find(name);
    if (it == special_ids_.end()) {
      throw Error(fmt::format("BPE tokenizer: '{}' is not a special token of this vocabulary", name));
    }
    allowed.insert(it->second);
  }
  check_utf8(text, "BPE tokenizer input");
  std::vector<int64_t> ids;
  ids.reserve(text.size() / 4);
  PieceCache cache;
  std::deque<std::string> normalized;  // the normalized stretches, which the cache's keys point into
  const auto encode_stretch = [&](std::string_view stretch) {
    if (rules_.normalizer.empty()) {
      encode_ordinary(stretch, ids, cache);
    } else if (!stretch.empty()) {
      encode_ordinary(normalized.emplace_back(normalize(stretch, rules_.normalizer)), ids, cache);
    }
  };
  size_t start = 0;
  for (size_t at = 0; at < text.size();) {
    if (!special_starts_[static_cast<unsigned char>(text[at])]) {
      ++at;
      continue;
    }
    const auto [length, id] = special_at(text, at, allowed);
    if (length == 0) {
      ++at;
      continue;
    }
    encode_stretch(text.substr(start, at - start));
    ids.push_back(id);
    at += length;
    start = at;
  }
  encode_stretch(text.substr(start));
  return ids;
}

const std::string& BpeTokenizer::token_bytes(int64_t id) const {
  if (id < 0 || id >= vocab_size()) {
    throw Error(fmt::format("BPE tokenizer: token id {} is outside the vocabulary (0..{})", id, vocab_size() - 1));
  }
  return vocabulary_.tokens[static_cast<size_t>(id)];
}

std::string BpeTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string text;
  for (const int64_t id : ids) text += token_bytes(id);
  return text;
}

std::optional<int64_t> BpeTokenizer::special_token(std::string_view name) const {
  const auto it = special_ids_.find(std::string(name));
  if (it == special_ids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace llm
