#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <ostream>
#include <string_view>

namespace llm {

/// Appendix E's LoRALayer: the low-rank update x -> (alpha / rank) * (x @ A @ B), with
/// A [in, rank] drawn kaiming-uniform (a = sqrt(5), as nn.Linear draws its weight) and
/// B [rank, out] zeros, so that a new LoRA changes nothing until it trains.
struct LoRAImpl : torch::nn::Module {
  LoRAImpl(int64_t in_features, int64_t out_features, int64_t rank, double alpha);
  torch::Tensor forward(const torch::Tensor& x);
  /// What the update adds to a Linear's weight [out, in]: (alpha / rank) * (A @ B)^T.
  torch::Tensor weight_delta() const;
  void pretty_print(std::ostream& stream) const override;

  int64_t rank;
  double alpha;
  torch::Tensor A, B;  // [in, rank], [rank, out]
};
TORCH_MODULE(LoRA);

/// How Linear layers keep their weights for decoding (--weights-dtype).
enum class WeightsDtype { kFloat32, kBFloat16, kInt8 };
/// "float32", "bfloat16" or "int8"; an llm::Error naming the three otherwise.
WeightsDtype parse_weights_dtype(std::string_view name);
std::string_view weights_dtype_name(WeightsDtype dtype);

/// PyTorch's nn.Linear, y = x W^T + b, as every GPT projection uses it, plus appendix
/// E's LinearWithLoRA when `lora` is set: y = x W^T + b + lora(x).
///
/// The weight [out, in] and bias [out] are drawn as nn.Linear draws them (kaiming-
/// uniform with a = sqrt(5), then the bias uniform in +-1/sqrt(in)), so the same seed
/// gives PyTorch's weights, and the state dict has its names. forward is at::linear,
/// as in PyTorch: a 3-D input is one matrix product with the bias fused in (addmm),
/// where LibTorch's torch::nn::Linear runs matmul and then adds the bias. Same values,
/// PyTorch's autograd graph, one op fewer.
struct LinearImpl : torch::nn::Module {
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true, torch::Dtype dtype = torch::kFloat);
  torch::Tensor forward(const torch::Tensor& x);
  /// forward(x), but a single row (one token decoded with a KV cache) goes through a
  /// matrix-vector product: the BLAS's for float32 weights, which it does about four
  /// times faster than the same product as a one-row matrix (docs/benchmarks.md); the
  /// decode kernels (matvec.h) for bfloat16 and int8 weights, on the CPU.
  torch::Tensor forward_matvec(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

  /// Keeps the weight in fewer bytes for decoding (--weights-dtype): bfloat16, or int8
  /// with a float32 scale per output row (weight_scale, quantize_int8). forward_matvec
  /// then reads it through the decode kernels, and forward widens it to its input's
  /// dtype first, a block of rows at a time (a prompt's prefill, the explorer). kFloat32
  /// changes nothing (a
  /// bfloat16 model keeps its bfloat16 weights); a weight already in the asked dtype
  /// stays as it is. Either of the two makes the weight stop requiring grad: a
  /// converted Linear is for inference.
  void convert_weight(WeightsDtype dtype);
  /// The weight as a tensor of `dtype` (itself when it has that dtype), dequantized
  /// when it is int8.
  torch::Tensor weight_as(torch::ScalarType dtype) const;
  /// Rows [begin, begin + n) of weight_as(dtype).
  torch::Tensor rows_as(int64_t begin, int64_t n, torch::ScalarType dtype) const;
  /// Sets the weight to `w` (of its shape, any floating-point dtype) in the bytes it keeps:
  /// copied into a float32 or bfloat16 weight; quantized when it is int8, from `w` in the
  /// dtype the layer was built with, so that loading into a converted layer equals loading
  /// and then converting.
  void load_weight(const torch::Tensor& w);

  torch::Tensor weight, bias;  // [out, in], [out] or undefined
  torch::Tensor weight_scale;  // [out] float32 when the weight is int8, else undefined
  LoRA lora{nullptr};          // appendix E: registered as "lora" when added

 private:
  /// forward for a weight kept in another dtype than x's (a converted one): widened a
  /// block of rows at a time, so that a prefill never holds the whole weight widened
  /// (the output head's 1 GB in float32, for Llama 3.2 1B).
  torch::Tensor forward_widened(const torch::Tensor& x) const;

  torch::Dtype built_dtype_;  // the weight's dtype when drawn
};
TORCH_MODULE(Linear);

/// Appendix E's replace_linear_with_lora: gives every Linear in `module` a LoRA of
/// this rank and alpha, in the order the appendix's recursion visits them (depth
/// first, in registration order), each A drawn from the global generator on the CPU,
/// as the appendix does before model.to(device). Freezes nothing: the appendix froze
/// the model before. Returns how many Linear layers it gave one; a Linear that has a
/// LoRA already is an llm::Error.
int64_t add_lora(torch::nn::Module& module, int64_t rank, double alpha);

/// LinearImpl::convert_weight on every Linear in `module`; returns how many.
int64_t convert_linear_weights(torch::nn::Module& module, WeightsDtype dtype);

/// While one lives, every Linear built on this thread converts its weight (convert_
/// weight) as soon as it has drawn it, so that a model built for decoding in bfloat16
/// or int8 never holds its float32 weights all at once: one layer's at most. The draws
/// are the same, and so are the converted weights; weights loaded afterwards
/// (load_state_dict, load_weight) are converted as each is copied in.
class ConvertLinearsWhenBuilt {
 public:
  explicit ConvertLinearsWhenBuilt(WeightsDtype dtype);
  ~ConvertLinearsWhenBuilt();
  ConvertLinearsWhenBuilt(const ConvertLinearsWhenBuilt&) = delete;
  ConvertLinearsWhenBuilt& operator=(const ConvertLinearsWhenBuilt&) = delete;

 private:
  WeightsDtype outer_;  // the one in force before, back when this one goes
};

/// The bytes of every Linear's weight, scales and bias in `module`: what one decoded
/// token reads besides its embedding row, its norms and its KV cache.
int64_t linear_weight_bytes(const torch::nn::Module& module);

/// Whether any Linear in `module` has a LoRA.
bool has_lora(const torch::nn::Module& module);

/// Folds every LoRA into its Linear's weight (W += (alpha / rank) * (A @ B)^T) and
/// removes it: the same function, as plain Linear layers, with the state dict of a
/// model that never had LoRA. Returns how many it merged.
int64_t merge_lora(torch::nn::Module& module);

}  // namespace llm
