#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace llm {

/// A PCRE2 pattern compiled once in UTF + UCP mode (Unicode properties for \p{..}),
/// JIT-compiled when the platform allows. Matching is const and thread-safe.
class Regex {
 public:
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  /// Calls on_match(begin, end) for each successive non-overlapping match in `text`,
  /// which must already be valid UTF-8 (it is not checked again).
  template <typename OnMatch>
  void for_each_match(std::string_view text, OnMatch&& on_match) const {
    Matcher m(*this, text);
    size_t begin = 0, end = 0;
    while (m.next(begin, end)) on_match(begin, end);
  }

 private:
  class Matcher {
   public:
    Matcher(const Regex& regex, std::string_view text);
    ~Matcher();
    bool next(size_t& begin, size_t& end);

   private:
    const Regex& regex_;
    std::string_view text_;
    void* match_data_;
    size_t offset_ = 0;
  };

  struct Code;
  std::unique_ptr<Code> code_;
  std::string pattern_;
};

}  // namespace llm
