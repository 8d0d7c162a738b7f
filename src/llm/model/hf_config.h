#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm {

/// A family's settings read from a Hugging Face config.json, and whether the output
/// head is the token embeddings (tie_word_embeddings, with the family's default).
struct HfSettings {
  nlohmann::json settings;
  bool tie_word_embeddings = false;
};

/// The keys of a Hugging Face config.json a family reads, each checked for its type.
/// A config.json holds many keys that change nothing here (initializer_range,
/// use_cache); those are ignored. Keys that would change the computation in a way the
/// course's model does not have are refused (`require`). Errors name the file and the
/// key.
class HfConfig {
 public:
  HfConfig(const nlohmann::json& json, std::string source) : json_(json), source_(std::move(source)) {}

  bool has(const char* key) const;
  int64_t integer(const char* key) const;
  int64_t integer(const char* key, int64_t otherwise) const;
  double number(const char* key) const;
  double number(const char* key, double otherwise) const;
  std::string string(const char* key, const std::string& otherwise) const;
  /// A key whose value is an object (rope_scaling), to be read by its own HfConfig.
  const nlohmann::json& object(const char* key) const;
  bool flag(const char* key, bool otherwise) const;
  std::vector<std::string> strings(const char* key) const;
  /// The dtype the model computes in: "torch_dtype" (or newer transformers' "dtype"),
  /// "float32" or "bfloat16"; float16 is widened to float32 (LibTorch's CPU matrix
  /// products have none), and float32 is taken when neither key is given.
  std::string dtype() const;

  /// Refuses the config unless `key` is absent or one of `allowed`; `what` says what
  /// another value would need ("a softcap on the logits").
  void require(const char* key, const std::vector<nlohmann::json>& allowed, std::string_view what) const;

  const std::string& source() const { return source_; }

  /// An llm::Error naming the file and `key`.
  [[noreturn]] void fail(std::string_view key, std::string_view what) const;

 private:
  const nlohmann::json& value(const char* key) const;

  const nlohmann::json& json_;
  std::string source_;
};

}  // namespace llm
