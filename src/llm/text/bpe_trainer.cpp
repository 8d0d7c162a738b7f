#include "llm/text/bpe_trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

using Pair = std::pair<int64_t, int64_t>;

struct Word {
  std::vector<int64_t> ids;
  int64_t count = 0;
};

// Pair counts, with the best pair always at hand: most frequent, then smallest ids.
class PairCounts {
 public:
  void add(const Pair& pair, int64_t delta) {
    int64_t& count = counts_[pair];
    if (count > 0) ranked_.erase({-count, pair.first, pair.second});
    count += delta;
    if (count > 0) {
      ranked_.insert({-count, pair.first, pair.second});
    } else {
      counts_.erase(pair);
    }
  }
  bool empty() const { return ranked_.empty(); }
  Pair best() const {
    const auto& [neg_count, left, right] = *ranked_.begin();
    return {left, right};
  }

 private:
  std::map<Pair, int64_t> counts_;
  std::set<std::tuple<int64_t, int64_t, int64_t>> ranked_;
};

void count_pairs(const Word& word, PairCounts& counts, int64_t sign) {
  for (size_t i = 0; i + 1 < word.ids.size(); ++i) counts.add({word.ids[i], word.ids[i + 1]}, sign * word.count);
}

// Every occurrence of `pair` in `ids` replaced by `merged`, left to right.
std::vector<int64_t> merge_pair(const std::vector<int64_t>& ids, const Pair& pair, int64_t merged) {
  std::vector<int64_t> joined;
  joined.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && ids[i] == pair.first && ids[i + 1] == pair.second) {
      joined.push_back(merged);
      ++i;
    } else {
      joined.push_back(ids[i]);
    }
  }
  return joined;
}

void check_trainer_options(std::string_view text, const BpeTrainerOptions& options, const std::set<std::string>& specials) {
  const auto n_special = static_cast<int64_t>(options.special_tokens.size());
  if (options.vocab_size < 256 + n_special) {
    throw Error(fmt::format("BPE trainer: vocab_size {} is too small; expected at least 256 bytes + {} special tokens",
                            options.vocab_size, n_special));
  }
  check_utf8(text, "BPE trainer input");
  if (specials.size() != options.special_tokens.size()) throw Error("BPE trainer: a special token is listed twice");
  for (const auto& name : specials) {
    if (name.empty()) throw Error("BPE trainer: a special token is empty");
  }
}

// The training state: the distinct pre-tokens as ids with their counts, the counts of
// their adjacent pairs, and which words each pair may occur in.
struct MergeState {
  std::vector<Word> words;
  PairCounts counts;
  std::map<Pair, std::unordered_set<size_t>> where;

  void add(Word word) {
    count_pairs(word, counts, +1);
    for (size_t i = 0; i + 1 < word.ids.size(); ++i) where[{word.ids[i], word.ids[i + 1]}].insert(words.size());
    words.push_back(std::move(word));
  }

  // Joins `pair` into `merged` in every word that holds it, updating the counts.
  void merge(const Pair& pair, int64_t merged) {
    auto affected = where.extract(pair);  // the best pair occurs, so it has words
    std::vector<size_t> word_indices(affected.mapped().begin(), affected.mapped().end());
    std::sort(word_indices.begin(), word_indices.end());
    for (const size_t w : word_indices) {
      Word& word = words[w];
      count_pairs(word, counts, -1);
      word.ids = merge_pair(word.ids, pair, merged);
      count_pairs(word, counts, +1);
      for (size_t i = 0; i + 1 < word.ids.size(); ++i) where[{word.ids[i], word.ids[i + 1]}].insert(w);
    }
  }
};

}  // namespace

BpeVocabulary train_bpe(std::string_view text, const BpeTrainerOptions& options) {
  const std::set<std::string> specials(options.special_tokens.begin(), options.special_tokens.end());
  check_trainer_options(text, options, specials);

  BpeVocabulary vocabulary;
  std::unordered_map<std::string, int64_t> ids;
  for (const uint8_t b : gpt2_byte_order()) {
    ids.emplace(std::string(1, static_cast<char>(b)), static_cast<int64_t>(vocabulary.tokens.size()));
    vocabulary.tokens.emplace_back(1, static_cast<char>(b));
  }

  // Count each distinct pre-token once, in sorted order, so the result does not
  // depend on hash order. Special tokens are split off first, as encode() does.
  std::map<std::string_view, int64_t> word_counts;
  split_on_specials(
      text, specials,
      [&](std::string_view part) {
        for (const auto piece : BpeTokenizer::pretokenize(part)) ++word_counts[piece];
      },
      [](const std::string&) {});
  MergeState state;
  state.words.reserve(word_counts.size());
  for (const auto& [piece, count] : word_counts) {
    Word word{{}, count};
    for (const char c : piece) word.ids.push_back(ids.at(std::string(1, c)));
    state.add(std::move(word));
  }

  const auto target = static_cast<size_t>(options.vocab_size - static_cast<int64_t>(options.special_tokens.size()));
  while (vocabulary.tokens.size() < target && !state.counts.empty()) {
    const Pair pair = state.counts.best();
    std::string bytes = vocabulary.tokens[pair.first] + vocabulary.tokens[pair.second];
    // Different splits can join into the same bytes; the token then exists already.
    auto [it, is_new] = ids.emplace(bytes, static_cast<int64_t>(vocabulary.tokens.size()));
    if (is_new) vocabulary.tokens.push_back(std::move(bytes));
    vocabulary.merges.push_back(pair);
    state.merge(pair, it->second);
  }

  for (const auto& name : options.special_tokens) {
    if (ids.count(name) != 0) {
      throw Error(fmt::format("BPE trainer: special token '{}' was also learned as an ordinary token", name));
    }
    ids.emplace(name, static_cast<int64_t>(vocabulary.tokens.size()));
    vocabulary.tokens.push_back(name);
  }
  return vocabulary;
}

}  // namespace llm
