#include "llm/nn/gated_feed_forward.h"

namespace llm {

GatedFeedForwardImpl::GatedFeedForwardImpl(int64_t emb_dim, int64_t hidden_dim, GateActivation activation_,
                                           torch::Dtype dtype)
    : torch::nn::Module("FeedForward"), activation(activation_) {
  fc1 = register_module("fc1", Linear(emb_dim, hidden_dim, /*bias=*/false, dtype));
  fc2 = register_module("fc2", Linear(emb_dim, hidden_dim, /*bias=*/false, dtype));
  fc3 = register_module("fc3", Linear(hidden_dim, emb_dim, /*bias=*/false, dtype));
}

torch::Tensor GatedFeedForwardImpl::forward(const torch::Tensor& x) {
  const auto gate = fc1->forward_matvec(x);  // [..., hidden_dim]
  const auto activated = activation == GateActivation::kSiLU ? torch::silu(gate) : torch::gelu(gate, "tanh");
  return fc3->forward_matvec(activated * fc2->forward_matvec(x));  // [..., emb_dim]
}

}  // namespace llm
