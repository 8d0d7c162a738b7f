// A safetensors file. The reader must return tensors that lie inside the data (every
// element is read, so ASan sees any that does not) or throw an llm::Error. What it
// returns must write back to bytes that read to the same tensors, and goes through
// loading into a micro GPT-2 (qkv_bias, 2 layers), in the lesson's names or Hugging
// Face's layout, which must accept it or throw an llm::Error.
#include <torch/torch.h>

#include "fuzz.h"
#include "llm/io/safetensors.h"
#include "llm/model/gpt_weights.h"
#include "llm/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source = "fuzz input";
  try {
    const auto tensors = llm::read_safetensors(llm::fuzz::bytes(data, size), source);
    for (const auto& [name, tensor] : tensors) {
      if (tensor.numel() > 0 && tensor.scalar_type() != torch::kBool) {
        (void)tensor.to(torch::kDouble).abs().sum().item<double>();
      }
    }
    const auto again = llm::read_safetensors(llm::safetensors_bytes(tensors), source);
    llm::fuzz::require(again.size() == tensors.size(), "a round trip changed the number of tensors");
    for (size_t i = 0; i < tensors.size(); ++i) {
      llm::fuzz::require(again[i].first == tensors[i].first && again[i].second.sizes() == tensors[i].second.sizes() &&
                             again[i].second.scalar_type() == tensors[i].second.scalar_type() &&
                             torch::equal(again[i].second.view(-1).view(torch::kByte),
                                          tensors[i].second.view(-1).view(torch::kByte)),
                         "a round trip changed '" + tensors[i].first + "'");
    }
    llm::GPTConfig micro;
    micro.vocab_size = 10, micro.context_length = 4, micro.emb_dim = 4, micro.n_heads = 2, micro.n_layers = 2;
    micro.qkv_bias = true;
    llm::GPTModel model(micro);
    llm::load_gpt_weights(*model, tensors, source);
  } catch (const llm::Error&) {
  }
  return 0;
}
