#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "helpers.h"
#include "llm/io/state_dict.h"
#include "llm/model/generate.h"
#include "llm/model/gpt_model.h"
#include "llm/train/adamw.h"
#include "llm/train/checkpoint.h"
#include "llm/train/distributed.h"
#include "llm/train/gradient_sync.h"
#include "llm/train/loss.h"
#include "llm/train/lr_schedule.h"
#include "llm/train/metrics.h"
#include "llm/train/pretrain_task.h"
#include "llm/train/trainer.h"
#include "llm/train/training_run.h"
#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/progress.h"

using llm::NamedTensors;
using Catch::Matchers::Contains;

namespace {

const llm::BpeTokenizer& tokenizer() {
  static const auto kTokenizer = llm::BpeTokenizer::gpt2();
  return kTokenizer;
}

// The test case is skipped unless the-verdict and GPT-2's vocabulary were fetched.
void require_training_data() {
  for (const char* name : {"the-verdict.txt", "gpt2/encoder.json", "gpt2/vocab.bpe"}) llm::test::data_or_skip(name);
}

// The run of a golden (its settings were written by the reference script), on the
// tiny model, writing nothing unless out_dir is given.
llm::TrainConfig golden_run(const NamedTensors& golden, const std::string& out_dir = "") {
  auto config = llm::parse_train_config(llm::tensor_to_string(llm::find_tensor(golden, "config/train", "golden")), "golden");
  config.model = llm::config_file("tiny.json").string();
  config.out_dir = out_dir;
  return config;
}

llm::GPTConfig tiny() { return llm::load_gpt_config(llm::config_file("tiny.json")); }
llm::ModelConfig tiny_model() { return llm::ModelConfig::load(llm::config_file("tiny.json")); }

// A pretraining run of `config` on the tiny model (or `model`): its text read, split and
// windowed, the model built after the run's seed.
std::unique_ptr<llm::Trainer> pretraining(const llm::TrainConfig& config, const llm::ModelConfig& model = tiny_model()) {
  llm::TrainingRun run;
  run.config = config;
  run.model_config = model;
  return llm::make_trainer(run, std::make_shared<llm::PretrainTask>(), tokenizer());
}

// The records of a metrics file (metrics.jsonl), as a plot reads them.
std::vector<llm::EvalRecord> read_metrics(const std::filesystem::path& path) {
  std::vector<llm::EvalRecord> records;
  std::istringstream in(llm::read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto json = nlohmann::json::parse(line);
    llm::EvalRecord r;
    r.step = json.at("step").get<int64_t>();
    r.epoch = json.at("epoch").get<int64_t>();
    r.epochs_seen = json.at("epochs_seen").get<double>();
    r.tokens_seen = json.at("tokens_seen").get<int64_t>();
    r.train_loss = json.at("train_loss").get<double>();
    r.val_loss = json.at("val_loss").get<double>();
    r.lr = json.at("lr").get<double>();
    records.push_back(r);
  }
  return records;
}

NamedTensors history_of(const llm::Trainer& trainer) {
  return llm::with_prefix_removed(trainer.checkpoint(), "history/");
}

void check_same_history(const NamedTensors& actual, const NamedTensors& expected) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO(actual[i].first);
    CHECK(actual[i].first == expected[i].first);
    CHECK(torch::equal(actual[i].second, expected[i].second));
  }
}

}  // namespace

TEST_CASE("training losses equal PyTorch's: the lesson's loop and every option (warmup, cosine, clip, accumulation)") {
  require_training_data();
  for (const std::string name : {"lesson", "options"}) {
    INFO(name);
    const auto golden = llm::load_tensors(llm::test::golden("ch05-train-" + name + ".pt"));
    const auto trainer = pretraining(golden_run(golden));
    REQUIRE(trainer->train() == llm::TrainEnd::kFinished);
    const auto history = history_of(*trainer);
    for (const std::string column : {"step", "epoch", "tokens_seen"}) {
      CHECK(torch::equal(llm::find_tensor(history, column, "run"), llm::find_tensor(golden, "history/" + column, "golden")));
    }
    for (const std::string column : {"train_loss", "val_loss"}) {
      llm::test::check_close(llm::find_tensor(history, column, "run"), llm::find_tensor(golden, "history/" + column, "golden"),
                             name + " " + column, llm::test::tolerance::kTraining);
    }
    llm::test::check_close(llm::find_tensor(history, "lr", "run"), llm::find_tensor(golden, "history/lr", "golden"),
                           name + " lr", llm::test::tolerance::kSchedule);
  }
}

TEST_CASE("appendix D clips only once warmup is over, clip_during_warmup on every step") {
  require_training_data();
  auto config = golden_run(llm::load_tensors(llm::test::golden("ch05-train-options.pt")));
  config.grad_clip = 0.05;  // small enough to bite on every step
  config.eval_freq = 1;
  config.max_steps = config.warmup_steps + 2;
  std::vector<torch::Tensor> val_losses;
  for (const bool during_warmup : {false, true}) {
    config.clip_during_warmup = during_warmup;
    const auto trainer = pretraining(config);
    REQUIRE(trainer->train() == llm::TrainEnd::kMaxSteps);
    val_losses.push_back(llm::find_tensor(history_of(*trainer), "val_loss", "run"));
  }
  // The warmup steps are clipped in one run only, so the losses part.
  CHECK((val_losses[0] - val_losses[1]).abs().max().item<double>() > 1e-4);
}

TEST_CASE("a resumed run equals the uninterrupted one, stopped mid-epoch or at an epoch's end") {
  require_training_data();
  const auto golden = llm::load_tensors(llm::test::golden("ch05-train-lesson.pt"));
  // The lesson's run, into the second epoch up to its next evaluation (every 5 steps), so
  // that each resumed run evaluates; one resumes mid-epoch and crosses the next epoch's
  // start, the other resumes at an epoch's end.
  auto whole_config = golden_run(golden);
  const auto steps_per_epoch = pretraining(whole_config)->steps_per_epoch();
  REQUIRE(whole_config.eval_freq < steps_per_epoch);
  whole_config.max_steps = (steps_per_epoch / whole_config.eval_freq + 1) * whole_config.eval_freq + 1;
  const auto whole = pretraining(whole_config);
  REQUIRE(whole->train() == llm::TrainEnd::kMaxSteps);
  const auto expected = history_of(*whole);
  for (const int64_t stop_at : {whole_config.eval_freq - 1, steps_per_epoch}) {
    INFO("stopped after step " << stop_at);
    const auto dir = llm::test::temp_dir("resume-" + std::to_string(stop_at));
    auto first_config = golden_run(golden, dir.string());
    first_config.max_steps = stop_at;
    {
      const auto first = pretraining(first_config);
      REQUIRE(first->train() == llm::TrainEnd::kMaxSteps);
      REQUIRE(first->progress().step == stop_at);
      // While it lives, it holds the folder: another trainer into it is refused before
      // it writes anything.
      const auto second = pretraining(first_config);
      CHECK_THROWS_WITH(second->train(), Catch::Contains("another run is writing there"));
    }

    const auto checkpoint = llm::load_checkpoint(dir / "checkpoint.pt");
    auto config = llm::checkpoint_train_config(checkpoint, "checkpoint");
    config.max_steps = whole_config.max_steps;
    const auto resumed = pretraining(config);
    resumed->resume(checkpoint, "checkpoint");
    REQUIRE(resumed->train() == llm::TrainEnd::kMaxSteps);
    check_same_history(history_of(*resumed), expected);
    CHECK(torch::equal(resumed->model()->head()->weight, whole->model()->head()->weight));
    // The metrics file holds each evaluation once, across the two runs.
    CHECK(read_metrics(dir / "metrics.jsonl").size() == resumed->progress().history.size());
  }
}

TEST_CASE("a checkpoint round trip restores every entry exactly") {
  require_training_data();
  const auto golden = llm::load_tensors(llm::test::golden("ch05-train-lesson.pt"));
  const auto dir = llm::test::temp_dir("checkpoint-round-trip");
  auto config = golden_run(golden, dir.string());
  config.max_steps = 7;
  const auto trainer = pretraining(config);
  trainer->train();
  const auto saved = llm::load_checkpoint(dir / "checkpoint.pt");
  const auto before = trainer->checkpoint();
  const auto saved_config = llm::checkpoint_train_config(saved, "checkpoint");
  const auto restored = pretraining(saved_config);
  restored->resume(saved, "checkpoint");
  const auto after = restored->checkpoint();
  REQUIRE(before.size() == after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    INFO(before[i].first);
    CHECK(before[i].first == after[i].first);
    CHECK(torch::equal(before[i].second, after[i].second));
  }
  // The weights alone are the model's PyTorch state dict.
  const auto weights = llm::checkpoint_weights(saved);
  auto model = llm::checkpoint_model_config(saved, "checkpoint").make();
  llm::load_state_dict(*model, weights, "weights");
  const auto trained = llm::state_dict(*trainer->model());
  for (const auto& [name, tensor] : llm::state_dict(*model)) {
    INFO(name);
    CHECK(torch::equal(tensor, llm::find_tensor(trained, name, "trained")));
  }
}

TEST_CASE("a truncated, corrupt or foreign checkpoint is rejected with an error naming it") {
  require_training_data();
  const auto golden = llm::load_tensors(llm::test::golden("ch05-train-lesson.pt"));
  const auto dir = llm::test::temp_dir("bad-checkpoint");
  auto config = golden_run(golden, dir.string());
  config.max_steps = 1;
  const auto trainer = pretraining(config);
  trainer->train();
  const auto good = llm::read_file(dir / "checkpoint.pt");
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  };
  const auto cut = write("cut.pt", good.substr(0, good.size() / 2));
  CHECK_THROWS_WITH(llm::load_checkpoint(cut), Contains("cut.pt"));
  auto damaged = good;
  for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 64; ++i) damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
  CHECK_THROWS_AS(llm::load_checkpoint(write("damaged.pt", damaged)), llm::Error);
  llm::save_tensors(dir / "state-dict.pt", llm::state_dict(*trainer->model()));
  CHECK_THROWS_WITH(llm::load_checkpoint(dir / "state-dict.pt"), Contains("is not a training checkpoint"));
  CHECK_THROWS_WITH(llm::load_checkpoint(write("text.pt", "hello")), Contains("text.pt"));

  // A checkpoint of another model shape: the weights do not fit.
  auto checkpoint = llm::load_checkpoint(dir / "checkpoint.pt");
  auto other = tiny();
  other.emb_dim = 32;
  for (auto& [name, tensor] : checkpoint) {
    if (name == "config/model") tensor = llm::string_to_tensor(llm::to_json(other).dump());
  }
  const auto mismatched = pretraining(config, llm::checkpoint_model_config(checkpoint, "other.pt"));
  CHECK_THROWS_WITH(mismatched->resume(checkpoint, "other.pt"), Contains("other.pt"));

  // Negative counts: refused, naming the entry, not trained on as NaN or garbage.
  for (const std::string entry : {"progress/step", "progress/epoch", "progress/tokens_seen", "optimizer/tok_emb.weight/step"}) {
    auto forged = llm::load_checkpoint(dir / "checkpoint.pt");
    for (auto& [name, tensor] : forged) {
      if (name == entry) tensor = torch::full_like(tensor, -3);
    }
    const auto resumed = pretraining(config);
    const auto field = entry.substr(entry.rfind('/') + 1);
    CHECK_THROWS_WITH(resumed->resume(forged, "forged.pt"), Contains("forged.pt") && Contains(field + " is -3"));
  }
  // More epochs than steps: refused, not taken as a finished run.
  auto forged = llm::load_checkpoint(dir / "checkpoint.pt");
  for (auto& [name, tensor] : forged) {
    if (name == "progress/epoch") tensor = torch::full_like(tensor, int64_t{1} << 62);
  }
  const auto resumed = pretraining(config);
  CHECK_THROWS_WITH(resumed->resume(forged, "forged.pt"), Contains("progress/epoch is 4611686018427387904 after only"));
}

TEST_CASE("the one-pass AdamW step follows LibTorch's AdamW step to float rounding") {
  torch::manual_seed(7);
  const std::vector<torch::Tensor> initial{torch::randn({300, 70}), torch::randn({70}),
                                           torch::randn({5, 3, 2}, torch::kDouble)};
  std::vector<torch::Tensor> ours, theirs;
  for (const auto& t : initial) {
    ours.push_back(t.clone().requires_grad_(true));
    theirs.push_back(t.clone().requires_grad_(true));
  }
  const auto options = torch::optim::AdamWOptions(3e-3).weight_decay(0.1).betas({0.85, 0.97}).eps(1e-6);
  llm::AdamW fused(ours, options);
  torch::optim::AdamW reference(theirs, options);
  for (int step = 0; step < 25; ++step) {
    for (size_t i = 0; i < ours.size(); ++i) {
      const auto grad = torch::randn_like(ours[i]) * (step % 5 == 0 ? 1e-4 : 1.0);
      ours[i].mutable_grad() = grad.clone();
      theirs[i].mutable_grad() = grad.clone();
    }
    fused.step();
    reference.step();
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    const std::string name = "parameter " + std::to_string(i);
    llm::test::check_close(ours[i], theirs[i], name, llm::test::tolerance::kAdamWParameters);
    CHECK(!torch::equal(ours[i], initial[i]));
    const auto& a =
        static_cast<torch::optim::AdamWParamState&>(*fused.state().at(llm::AdamW::state_key(ours[i])));
    const auto& b =
        static_cast<torch::optim::AdamWParamState&>(*reference.state().at(llm::AdamW::state_key(theirs[i])));
    CHECK(a.step() == 25);
    CHECK(a.step() == b.step());
    llm::test::check_close(a.exp_avg(), b.exp_avg(), name + " exp_avg", llm::test::tolerance::kAdamWMoment1);
    llm::test::check_close(a.exp_avg_sq(), b.exp_avg_sq(), name + " exp_avg_sq", llm::test::tolerance::kAdamWMoment2);
  }
}

TEST_CASE("the lesson's loss helpers: cross-entropy by hand, loader mean") {
  const auto logits = torch::randn({2, 3, 7});
  const auto targets = torch::randint(0, 7, {2, 3}, torch::kLong);
  const auto log_probas = torch::log_softmax(logits, -1).gather(-1, targets.unsqueeze(-1));  // [2, 3, 1]
  llm::test::check_close(llm::token_cross_entropy(logits, targets), -log_probas.mean(), "cross entropy", llm::test::tolerance::kSameMath);
}

TEST_CASE("the fused output layer and cross-entropy equal the unfused ones, loss and gradients") {
  torch::manual_seed(11);
  const auto hidden = torch::randn({2, 5, 16}, torch::requires_grad());
  const auto weight = (torch::randn({300, 16}) * 0.3).requires_grad_(true);
  const auto targets = torch::randint(0, 300, {2, 5}, torch::kLong);
  const auto loss = llm::linear_cross_entropy(hidden, weight, targets);
  const auto [grad_hidden, grad_weight] = [&] {
    const auto grads = torch::autograd::grad({loss * 3.0}, {hidden, weight});
    return std::pair{grads[0], grads[1]};
  }();
  const auto reference = llm::token_cross_entropy(hidden.matmul(weight.t()), targets);
  const auto expected = torch::autograd::grad({reference * 3.0}, {hidden, weight});
  llm::test::check_close(loss, reference, "loss", llm::test::tolerance::kSameMath);
  llm::test::check_close(grad_hidden, expected[0], "d loss / d hidden", llm::test::tolerance::kSameMath);
  llm::test::check_close(grad_weight, expected[1], "d loss / d weight", llm::test::tolerance::kSameMath);
  CHECK(grad_weight.abs().sum().item<double>() > 0);
  {
    torch::NoGradGuard no_grad;
    llm::test::check_close(llm::linear_cross_entropy(hidden, weight, targets), reference, "loss without autograd", llm::test::tolerance::kSameMath);
  }
}

TEST_CASE("the fused loss leaves out ignore_index targets as cross_entropy does, loss and gradients") {
  torch::manual_seed(12);
  const auto hidden = torch::randn({2, 5, 16}, torch::requires_grad());
  const auto weight = (torch::randn({300, 16}) * 0.3).requires_grad_(true);
  auto targets = torch::randint(0, 300, {2, 5}, torch::kLong);
  targets.index_put_({1, torch::indexing::Slice(2)}, llm::kIgnoreIndex);  // padding
  targets.index_put_({0, 0}, llm::kIgnoreIndex);                          // a masked prompt token
  const auto loss = llm::linear_cross_entropy(hidden, weight, targets);
  const auto grads = torch::autograd::grad({loss}, {hidden, weight});
  const auto reference = llm::token_cross_entropy(hidden.matmul(weight.t()), targets);
  const auto expected = torch::autograd::grad({reference}, {hidden, weight});
  llm::test::check_close(loss, reference, "loss", llm::test::tolerance::kSameMath);
  llm::test::check_close(grads[0], expected[0], "d loss / d hidden", llm::test::tolerance::kSameMath);
  llm::test::check_close(grads[1], expected[1], "d loss / d weight", llm::test::tolerance::kSameMath);
  CHECK(grads[0][1][3].abs().sum().item<double>() == 0.0);  // an ignored position gets no gradient
  // The lesson's example (7.3): [0, 1, -100] gives the loss of the first two alone.
  const auto logits = torch::tensor({{-1.0F, 1.0F}, {-0.5F, 1.5F}, {-0.5F, 1.5F}}).unsqueeze(0);
  CHECK(llm::token_cross_entropy(logits, torch::tensor({0L, 1L, llm::kIgnoreIndex}).unsqueeze(0)).item<float>() ==
        Approx(1.1269).epsilon(1e-4));
}

TEST_CASE("calc_loss_batch: with a LoRA on out_head, the loss of the logits the model computes") {
  torch::manual_seed(4);
  llm::GPTModel model(llm::load_gpt_config(llm::config_file("tiny.json")));
  model->eval();
  for (auto& parameter : model->parameters()) parameter.set_requires_grad(false);
  llm::add_lora(*model, 4, 8.0);
  {
    torch::NoGradGuard no_grad;
    model->out_head->lora->B.normal_();  // the update is not zero
  }
  const llm::Batch batch{torch::randint(0, 50257, {2, 8}, torch::kLong), torch::randint(0, 50257, {2, 8}, torch::kLong)};
  const auto loss = llm::calc_loss_batch(*model, batch);
  llm::test::check_close(loss, llm::token_cross_entropy(model(batch.inputs), batch.targets), "loss with LoRA",
                         llm::test::tolerance::kSameMath);
  loss.backward();
  CHECK(model->out_head->lora->A.grad().abs().sum().item<double>() > 0);  // the head's LoRA trains
  CHECK_FALSE(model->out_head->weight.grad().defined());                  // its weight does not
}

TEST_CASE("the learning rate: linear warmup, then constant or cosine down to min_lr") {
  llm::TrainConfig config;
  config.lr = 1e-3;
  config.warmup_steps = 10;
  config.initial_lr = 1e-5;
  CHECK(llm::learning_rate(config, 0, 100) == Approx(1e-5));
  CHECK(llm::learning_rate(config, 5, 100) == Approx(1e-5 + 5 * (1e-3 - 1e-5) / 10));
  CHECK(llm::learning_rate(config, 50, 100) == Approx(1e-3));
  config.lr_schedule = "cosine";
  config.min_lr = 1e-4;
  CHECK(llm::learning_rate(config, 10, 100) == Approx(1e-3));
  CHECK(llm::learning_rate(config, 55, 100) == Approx(1e-4 + 0.5 * (1e-3 - 1e-4)));
  CHECK(llm::learning_rate(config, 100, 100) == Approx(1e-4));
}

TEST_CASE("run configs: unknown keys, wrong types and impossible values are errors naming the key") {
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"epochs": 3})", "r.json"), Contains("r.json': unknown key 'epochs'"));
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"lr": "fast"})", "r.json"), Contains("lr must be a number"));
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"batch_size": 0})", "r.json"), Contains("batch_size must be positive"));
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"lr": -1})", "r.json"), Contains("lr must be positive"));
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"train_ratio": 1})", "r.json"), Contains("train_ratio"));
  CHECK_THROWS_WITH(llm::parse_train_config(R"({"lr_schedule": "step"})", "r.json"), Contains("lr_schedule"));
  CHECK_THROWS_WITH(llm::parse_train_config("[1]", "r.json"), Contains("expected a JSON object"));
  const auto config = llm::parse_train_config(R"({"num_epochs": 3, "lr": 0.001, "data": "x.txt"})", "r.json");
  CHECK(config.num_epochs == 3);
  CHECK(config.lr == 0.001);
  CHECK(config.data == "x.txt");
  CHECK(llm::parse_train_config(llm::to_json(config).dump(), "again").num_epochs == 3);
}

TEST_CASE("metrics are JSON lines that read back, and the progress line shows step, loss, speed and time left") {
  const auto dir = llm::test::temp_dir("metrics");
  llm::EvalRecord record;
  record.step = 5;
  record.epoch = 1;
  record.epochs_seen = 0.25;
  record.tokens_seen = 3072;
  record.train_loss = 9.5;
  record.val_loss = 9.75;
  record.lr = 5e-4;
  {
    llm::MetricsLog log(dir / "m.jsonl", {record});
    record.step = 10;
    log.append(record);
  }
  const auto back = read_metrics(dir / "m.jsonl");
  REQUIRE(back.size() == 2);
  CHECK(back[0].step == 5);
  CHECK(back[1].step == 10);
  CHECK(back[1].val_loss == 9.75);
  CHECK(back[1].epochs_seen == 0.25);
  llm::ProgressInfo info;
  info.step = 12;
  info.total_steps = 90;
  info.epoch = 2;
  info.num_epochs = 10;
  info.loss = 6.1234;
  info.tokens_per_second = 1234.4;
  info.seconds_left = 65;
  CHECK(llm::format_progress(info) == "step 12/90 (13%) | epoch 2/10 | loss 6.123 | 1,234 tok/s | 0:01:05 left");
}

TEST_CASE("gradient sync (c10d's Reducer) buckets by size and, on one rank, leaves the accumulated gradients") {
  llm::DistributedConfig config;
  config.master_port = 0;  // one rank: the store picks a free port
  config.timeout = std::chrono::seconds(30);
  llm::ProcessGroup group(config);
  torch::manual_seed(123);
  torch::nn::Sequential net(torch::nn::Linear(4, 8), torch::nn::Tanh(), torch::nn::Linear(8, 8), torch::nn::Tanh(),
                            torch::nn::Linear(8, 2));
  const auto x = torch::randn({3, 4}), y = torch::randn({3, 2});
  const auto loss = [&] { return torch::mse_loss(net->forward(x), y); };
  // Two micro-batches, as with grad_accum 2: the reference gradients first.
  loss().backward();
  loss().backward();
  std::vector<torch::Tensor> expected;
  for (const auto& p : net->parameters()) expected.push_back(p.grad().clone());

  llm::GradientSync sync(group, net->parameters(), /*find_unused_parameters=*/false,
                         /*bucket_bytes=*/150);  // tensors of 8 to 256 bytes
  CHECK(sync.buckets() > 1);
  for (int step = 0; step < 3; ++step) {  // the second step rebuilds the buckets, as DDP's does
    net->zero_grad(/*set_to_none=*/true);
    loss().backward();  // the first micro-batch: no all-reduce (DDP's no_sync)
    sync.backward(loss());
    const auto parameters = net->parameters();
    for (size_t i = 0; i < parameters.size(); ++i) CHECK(torch::allclose(parameters[i].grad(), expected[i]));
  }
  // A parameter the loss does not reach takes part with a zero gradient when asked to
  // look for one; without find_unused_parameters, the Reducer would wait for it.
  llm::GradientSync routed(group, net->parameters(), /*find_unused_parameters=*/true);
  net->zero_grad(/*set_to_none=*/true);
  routed.backward(torch::mse_loss(net[0]->as<torch::nn::Linear>()->forward(x), torch::zeros({3, 8})));
  CHECK(net->parameters().back().grad().defined() == false);
  CHECK(net->parameters().front().grad().defined());
}
