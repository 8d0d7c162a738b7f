#include "llm/nn/moe_feed_forward.h"

#include <fmt/format.h>

#include "llm/util/error.h"

namespace llm {

MoEFeedForwardImpl::MoEFeedForwardImpl(int64_t emb_dim, int64_t num_experts, int64_t per_token, int64_t hidden,
                                       torch::Dtype dtype)
    : torch::nn::Module("MoEFeedForward"), num_experts_per_tok(per_token) {
  if (num_experts <= 0 || per_token <= 0 || per_token > num_experts) {
    throw Error(fmt::format("MoEFeedForward: num_experts_per_tok must be in 1..num_experts ({}), got {}", num_experts,
                            per_token));
  }
  gate = register_module("gate", Linear(emb_dim, num_experts, /*bias=*/false, dtype));
  // Each list drawn whole before the next, as the course's three nn.ModuleLists are.
  fc1 = register_module("fc1", ModuleListOf<Linear>());
  for (int64_t e = 0; e < num_experts; ++e) fc1->push_back(Linear(emb_dim, hidden, /*bias=*/false, dtype));
  fc2 = register_module("fc2", ModuleListOf<Linear>());
  for (int64_t e = 0; e < num_experts; ++e) fc2->push_back(Linear(emb_dim, hidden, /*bias=*/false, dtype));
  fc3 = register_module("fc3", ModuleListOf<Linear>());
  for (int64_t e = 0; e < num_experts; ++e) fc3->push_back(Linear(hidden, emb_dim, /*bias=*/false, dtype));
}

torch::Tensor MoEFeedForwardImpl::forward(const torch::Tensor& x) {
  const auto [top_scores, top_experts] = torch::topk(gate->forward_matvec(x), num_experts_per_tok, -1);  // [b, t, k]
  const auto x_flat = x.reshape({-1, x.size(-1)});                                                    // [n, emb_dim]
  const auto experts = top_experts.reshape({-1, num_experts_per_tok});                                // [n, k]
  const auto probs = torch::softmax(top_scores, -1).reshape({-1, num_experts_per_tok});                // [n, k]
  auto out = torch::zeros_like(x_flat);
  // Each chosen expert once, in ascending order, on the tokens that chose it.
  const auto chosen = std::get<0>(torch::_unique2(experts, /*sorted=*/true)).to(torch::kCPU);
  for (const int64_t e : std::vector<int64_t>(chosen.data_ptr<int64_t>(), chosen.data_ptr<int64_t>() + chosen.numel())) {
    const auto slots = experts == e;                             // [n, k]
    const auto tokens = slots.any(-1).nonzero().squeeze(-1);     // [m]
    const auto input = x_flat.index_select(0, tokens);           // [m, emb_dim]
    const auto hidden = torch::silu(fc1[e](input)) * fc2[e](input);
    const auto slot = slots.index_select(0, tokens).to(torch::kInt).argmax(-1, /*keepdim=*/true);  // [m, 1]
    const auto weight = probs.index_select(0, tokens).gather(-1, slot).squeeze(-1);                // [m]
    out.index_add_(0, tokens, fc3[e](hidden) * weight.unsqueeze(-1));
  }
  return out.view(x.sizes());  // [b, t, emb_dim]
}

}  // namespace llm
