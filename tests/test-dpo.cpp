// The DPO bonus (dpo-from-scratch.ipynb) against its notebook's code: the collate's
// padding and masks, and on a small GPT whose policy three DPO steps moved away from
// its reference (tests/golden/ch07-dpo.pt, scripts/reference/ch07_dpo.py), the
// log-probabilities, the loss, the rewards, the gradients and the steps themselves.
#include "helpers.h"
#include "llm/io/state_dict.h"
#include "llm/model/model_config.h"
#include "llm/text/preference_data.h"
#include "llm/train/adamw.h"
#include "llm/train/dpo.h"
#include "llm/train/dpo_task.h"

namespace {

using llm::NamedTensors;

const NamedTensors& golden() {
  static const auto tensors = llm::load_tensors(llm::test::golden("ch07-dpo.pt"));
  return tensors;
}

const torch::Tensor& golden_at(const std::string& name) { return llm::find_tensor(golden(), name, "golden"); }

// The golden's GPT with its reference's, or its trained policy's, weights.
llm::LanguageModel golden_model(const std::string& weights) {
  auto model = llm::ModelConfig::parse(llm::tensor_to_string(golden_at("config")), "golden").make();
  llm::load_state_dict(*model, llm::with_prefix_removed(golden(), weights + "/"), "golden");
  model->eval();
  return model;
}

llm::PreferenceBatch golden_batch() {
  return {golden_at("batch/chosen"), golden_at("batch/rejected"), golden_at("batch/chosen_mask"), golden_at("batch/rejected_mask")};
}

}  // namespace

TEST_CASE("DPO: the collate pads to the longest text plus one and masks all but the responses") {
  const llm::PreferenceTokens item{{1, 2}, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 6, 7}};
  llm::PreferenceCollate collate;
  collate.pad_token_id = 0;
  auto batch = collate({&item});
  CHECK(torch::equal(batch.chosen, torch::tensor({{1, 2, 3, 4, 5, 0, 0, 0}}, torch::kLong)));
  CHECK(torch::equal(batch.rejected, torch::tensor({{1, 2, 3, 4, 5, 6, 7, 0}}, torch::kLong)));
  // Masked: the prompt, the two "\n" after it, and the padding.
  CHECK(torch::equal(batch.chosen_mask.to(torch::kLong), torch::tensor({{0, 0, 0, 0, 1, 0, 0, 0}}, torch::kLong)));
  CHECK(torch::equal(batch.rejected_mask.to(torch::kLong), torch::tensor({{0, 0, 0, 0, 1, 1, 1, 0}}, torch::kLong)));
  collate.mask_prompt_tokens = false;
  collate.allowed_max_length = 6;
  batch = collate({&item});
  CHECK(torch::equal(batch.chosen_mask.to(torch::kLong), torch::tensor({{1, 1, 1, 1, 1, 0}}, torch::kLong)));
  CHECK(batch.rejected.size(1) == 6);
}

TEST_CASE("DPO: a Batch of the dataset holds the chosen rows, then the rejected ones") {
  const llm::Batch batch{torch::arange(12).reshape({4, 3}), torch::ones({4, 3}, torch::kBool)};
  const auto parts = llm::preference_batch(batch);
  CHECK(torch::equal(parts.chosen, torch::arange(6).reshape({2, 3})));
  CHECK(torch::equal(parts.rejected, torch::arange(6, 12).reshape({2, 3})));
}

TEST_CASE("DPO: the log-probabilities, loss, rewards and gradients of a moved policy equal the notebook's") {
  auto policy = golden_model("policy");
  auto reference = golden_model("reference");
  const auto batch = golden_batch();
  for (const auto& [name, model] : {std::pair<std::string, llm::LanguageModel*>{"policy", &policy},
                                    {"reference", &reference}}) {
    torch::NoGradGuard no_grad;
    llm::test::check_close(llm::response_logprobs(**model, batch.chosen, batch.chosen_mask),
                           golden_at("logprobs/" + name + "/chosen"), name + " chosen", llm::test::tolerance::kForward);
    llm::test::check_close(llm::response_logprobs(**model, batch.rejected, batch.rejected_mask),
                           golden_at("logprobs/" + name + "/rejected"), name + " rejected", llm::test::tolerance::kForward);
  }
  policy->train();
  const auto result = llm::compute_dpo_loss_batch(batch, *policy, *reference, 0.1);
  const auto figures = torch::stack({result.loss, result.chosen_rewards, result.rejected_rewards}).detach();
  llm::test::check_close(figures, golden_at("loss"), "loss and rewards", llm::test::tolerance::kForward);
  result.loss.backward();
  for (const auto& parameter : policy->named_parameters()) {
    llm::test::check_close(parameter.value().grad(), golden_at("grad/" + parameter.key()), parameter.key(),
                           llm::test::tolerance::kGradient);
  }
  // beta is in the loss: the policy differs from the reference, so another beta gives another loss.
  torch::NoGradGuard no_grad;
  const auto other_beta = llm::compute_dpo_loss_batch(batch, *policy, *reference, 0.5).loss.item<double>();
  CHECK(std::abs(other_beta - golden_at("loss")[0].item<double>()) > 1e-2);
}

TEST_CASE("DPO: three AdamW steps from the reference give the notebook's losses and rewards") {
  auto policy = golden_model("reference");
  auto reference = golden_model("reference");
  policy->train();
  llm::AdamW optimizer(policy->parameters(), torch::optim::AdamWOptions(0.01).weight_decay(0.01));
  const auto batch = golden_batch();
  std::vector<torch::Tensor> steps;
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    const auto result = llm::compute_dpo_loss_batch(batch, *policy, *reference, 0.1);
    result.loss.backward();
    optimizer.step();
    steps.push_back(torch::stack({result.loss, result.chosen_rewards, result.rejected_rewards}).detach());
  }
  llm::test::check_close(torch::stack(steps).to(torch::kDouble), golden_at("steps"), "steps", llm::test::tolerance::kTraining);
  CHECK(golden_at("steps")[0][0].item<double>() == Approx(std::log(2.0)));  // the policy starts as the reference
}

TEST_CASE("DPO: the reference's log-probabilities carry no autograd graph") {
  auto policy = golden_model("policy");
  auto reference = golden_model("reference");  // its parameters require gradients here
  policy->train();
  llm::compute_dpo_loss_batch(golden_batch(), *policy, *reference, 0.1).loss.backward();
  for (const auto& parameter : reference->parameters()) CHECK_FALSE(parameter.grad().defined());
}

TEST_CASE("DPO: the fused log-probabilities equal compute_logprobs of the logits, with and without a mask") {
  auto model = golden_model("policy");
  const auto batch = golden_batch();
  torch::NoGradGuard no_grad;
  const auto logits = model->forward(batch.chosen);
  llm::test::check_close(llm::response_logprobs(*model, batch.chosen, batch.chosen_mask),
                         llm::compute_logprobs(logits, batch.chosen, batch.chosen_mask), "masked",
                         llm::test::tolerance::kSameMath);
  const auto all = torch::ones_like(batch.chosen_mask);
  llm::test::check_close(llm::response_logprobs(*model, batch.chosen, all), llm::compute_logprobs(logits, batch.chosen),
                         "unmasked", llm::test::tolerance::kSameMath);
}

TEST_CASE("DPO: a model's weights fingerprint changes with any weight") {
  auto model = golden_model("reference");
  const auto before = llm::weights_fingerprint(*model);
  CHECK(torch::equal(before, llm::weights_fingerprint(*golden_model("reference"))));
  {
    torch::NoGradGuard no_grad;
    model->parameters().back().view(-1)[0].add_(1e-3);
  }
  CHECK_FALSE(torch::equal(before, llm::weights_fingerprint(*model)));
}
