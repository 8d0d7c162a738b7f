// c10d declares its Gloo process group (Gloo's headers: libgloo-dev) only under this.
#ifndef USE_C10D_GLOO  // LibTorch's CMake flags may define it already
#define USE_C10D_GLOO
#endif
#include "llm/train/distributed.h"

#include <fmt/format.h>
#include <glog/logging.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <exception>

#include "llm/train/rendezvous_store.h"
#include "llm/util/error.h"

namespace llm {
namespace {

// The whole number in the environment variable `env`, when it is set.
std::optional<int64_t> environment_number(const char* env) {
  const char* value = std::getenv(env);
  if (value == nullptr || *value == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long number = std::strtoll(value, &end, 10);
  if (*end != '\0' || errno != 0) {
    throw Error(fmt::format("environment variable {} must be a whole number, got '{}'", env, value));
  }
  return number;
}

// c10d logs a failed connection through glog (LibTorch's log) before it throws; the
// llm::Error made of the exception says the same in one line, so the log is quiet
// while a rank connects.
class QuietLog {
 public:
  QuietLog() : saved_(FLAGS_minloglevel) { FLAGS_minloglevel = google::GLOG_FATAL; }
  ~QuietLog() { FLAGS_minloglevel = saved_; }

 private:
  int saved_;
};

// scripts/launch.sh names itself in LLM_LAUNCHER_PID. A rank it started gets SIGTERM
// when the launcher dies, even by SIGKILL, and stops at the next step boundary as on
// Ctrl-C: no rank trains on alone.
void stop_when_launcher_dies() {
  const auto launcher = environment_number("LLM_LAUNCHER_PID");
  if (!launcher) return;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != *launcher) std::raise(SIGTERM);  // it died before the line above
}

// A write to a rank that has died must fail as an error that Gloo reports, not end this
// process by SIGPIPE. Python ignores SIGPIPE from its start, so torch.distributed
// behaves the same way.
void ignore_broken_pipes() { std::signal(SIGPIPE, SIG_IGN); }

// Before Gloo connects, the ranks agree through the store that they form one world:
// every rank writes its world size, rank 0 reads them all and writes its verdict, and
// every other rank waits for the verdict. Ranks started with different WORLD_SIZEs, or
// a rank that never joins, are then named by every rank, instead of Gloo failing an
// assertion on the size of an address or timing out. Rank 0 keeps the store up until
// the ranks it heard from have read a failing verdict.
void agree_on_world_size(c10d::Store& store, const DistributedConfig& config) {
  using std::chrono::milliseconds;
  const auto set = [&](const std::string& key, const std::string& value) {
    store.set(key, std::vector<uint8_t>(value.begin(), value.end()));
  };
  const auto get = [&](const std::string& key) {
    const auto value = store.get(key);
    return std::string(value.begin(), value.end());
  };
  const auto arrives = [&](const std::string& key, milliseconds timeout) {
    try {
      store.wait({key}, std::max(timeout, milliseconds(1)));
      return true;
    } catch (const c10::Error&) {  // a timeout; a lost connection is another exception
      return false;
    }
  };
  const auto size_key = [](int64_t rank) { return fmt::format("llm/world_size/{}", rank); };
  const auto checked_key = [](int64_t rank) { return fmt::format("llm/checked/{}", rank); };
  const std::string mine = std::to_string(config.world_size), kOk = "ok";
  set(size_key(config.rank), mine);

  if (config.rank != 0) {
    // Rank 0 may wait up to the timeout for a missing rank before it answers.
    if (!arrives("llm/verdict", 2 * config.timeout + std::chrono::seconds(5))) {
      throw Error(fmt::format("rank {}: rank 0 did not answer within {} s", config.rank, 2 * config.timeout.count() + 5));
    }
    const auto verdict = get("llm/verdict"), rank0 = get(size_key(0));
    set(checked_key(config.rank), "1");
    if (verdict != kOk) throw Error(fmt::format("rank {}: {}", config.rank, verdict));
    if (rank0 != mine) {
      throw Error(fmt::format("rank {}: the ranks were started with different world sizes (rank 0: {}, rank {}: {}); "
                              "every rank needs the same WORLD_SIZE",
                              config.rank, rank0, config.rank, mine));
    }
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + config.timeout;
  const auto left = [&] { return std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()); };
  std::string problem;
  std::vector<int64_t> heard;
  for (int64_t rank = 1; rank < config.world_size && problem.empty(); ++rank) {
    if (!arrives(size_key(rank), left())) {
      problem = fmt::format("rank {} did not join within {} s; is it running, with the same MASTER_ADDR and "
                            "MASTER_PORT?",
                            rank, config.timeout.count());
      break;
    }
    heard.push_back(rank);
    if (const auto theirs = get(size_key(rank)); theirs != mine) {
      problem = fmt::format("the ranks were started with different world sizes (rank 0: {}, rank {}: {}); every rank "
                            "needs the same WORLD_SIZE",
                            mine, rank, theirs);
    }
  }
  set("llm/verdict", problem.empty() ? kOk : problem);
  if (problem.empty()) return;
  for (const int64_t rank : heard) arrives(checked_key(rank), config.timeout);
  throw Error(fmt::format("rank 0: {}", problem));
}

}  // namespace

DistributedEnvironment read_distributed_environment() {
  DistributedEnvironment env;
  env.world_size = environment_number("WORLD_SIZE");
  env.rank = environment_number("RANK");
  env.local_rank = environment_number("LOCAL_RANK");
  env.master_port = environment_number("MASTER_PORT");
  if (const char* addr = std::getenv("MASTER_ADDR"); addr != nullptr && *addr != '\0') env.master_addr = addr;
  if (const char* file = std::getenv("LLM_RENDEZVOUS_FILE"); file != nullptr && *file != '\0') {
    env.rendezvous_file = file;
  }
  return env;
}

void DistributedConfig::validate() const {
  if (world_size < 1) throw Error(fmt::format("world size must be at least 1, got {}", world_size));
  if (rank < 0 || rank >= world_size) {
    throw Error(fmt::format("rank must be in 0..{} (world size {}), got {}", world_size - 1, world_size, rank));
  }
  if (local_rank < 0) throw Error(fmt::format("local rank must not be negative, got {}", local_rank));
  if (master_port < 1 || master_port > 65535) {
    throw Error(fmt::format("master port must be in 1..65535, got {}", master_port));
  }
  if (timeout.count() <= 0) throw Error(fmt::format("the timeout must be positive, got {} s", timeout.count()));
}

namespace {

// The rendezvous store: a FileStore at config.rendezvous_file, else the store that
// rank 0 serves at master_addr:master_port (and on no other address) and the others
// reach there.
c10::intrusive_ptr<c10d::Store> open_store(const DistributedConfig& config, const std::string& where) {
  if (!config.rendezvous_file.empty()) {
    try {
      auto store = c10::make_intrusive<c10d::FileStore>(config.rendezvous_file, static_cast<int>(config.world_size));
      store->setTimeout(config.timeout);
      return store;
    } catch (const std::exception& e) {
      throw Error(fmt::format("rank {}: cannot open the rendezvous file '{}' ({})", config.rank,
                              config.rendezvous_file, first_line(e.what())));
    }
  }
  try {
    return c10::make_intrusive<RendezvousStore>(config.master_addr, static_cast<uint16_t>(config.master_port),
                                                /*serve=*/config.rank == 0, config.timeout);
  } catch (const StorePortInUse& e) {
    throw Error(fmt::format("rank 0: cannot serve the rendezvous on port {} ({}); is another program using "
                            "MASTER_PORT {}? Choose a free one (scripts/launch.sh --master-port)",
                            config.master_port, first_line(e.what()), config.master_port));
  } catch (const std::exception& e) {
    if (config.rank == 0) {  // rank 0 serves the rendezvous: it cannot have failed to reach itself
      throw Error(fmt::format("rank 0: cannot serve the rendezvous at {} ({}); is MASTER_ADDR an address of this "
                              "machine?",
                              where, first_line(e.what())));
    }
    throw Error(fmt::format("rank {}: the rendezvous at {} failed within {} s ({}); is rank 0 running, and are "
                            "MASTER_ADDR and MASTER_PORT the same for every rank?",
                            config.rank, where, config.timeout.count(), first_line(e.what())));
  }
}

// Waits for `work`, a rank lost on the way turning into one line that says so.
void wait_for(c10d::Work& work, int64_t rank, std::chrono::seconds timeout) {
  try {
    work.wait();
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: lost the other ranks ({}); another rank has stopped or did not answer within "
                            "{} s",
                            rank, first_line(e.what()), timeout.count()));
  }
}

}  // namespace

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

ProcessGroup::ProcessGroup(const DistributedConfig& config) : config_(config), impl_(std::make_unique<Impl>()) {
  const auto where = config.rendezvous_file.empty()
                         ? fmt::format("{}:{}", config.master_addr, config.master_port)
                         : fmt::format("the file '{}'", config.rendezvous_file);
  stop_when_launcher_dies();
  ignore_broken_pipes();
  const QuietLog quiet;
  impl_->store = open_store(config, where);
  try {
    agree_on_world_size(*impl_->store, config);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: the rendezvous at {} broke off ({})", config.rank, where, first_line(e.what())));
  }
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(config.timeout);
    // Gloo's connections go over GLOO_SOCKET_IFNAME when set (as in PyTorch), over the
    // loopback interface for a run on one machine, else over the host name's address.
    if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface != nullptr && *interface != '\0') {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    } else if (config.master_addr == "127.0.0.1" || config.master_addr == "localhost") {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, static_cast<int>(config.rank),
                                                               static_cast<int>(config.world_size), options);
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: cannot connect to the other ranks (rendezvous at {}): {}", config.rank, where,
                            first_line(e.what())));
  }
}

ProcessGroup::~ProcessGroup() = default;

c10::intrusive_ptr<c10d::ProcessGroup> ProcessGroup::c10d_group() const { return impl_->group; }

void ProcessGroup::all_reduce(torch::Tensor tensor, bool max) {
  std::vector<torch::Tensor> tensors = {std::move(tensor)};
  c10d::AllreduceOptions options;
  options.reduceOp = max ? c10d::ReduceOp::MAX : c10d::ReduceOp::SUM;
  c10::intrusive_ptr<c10d::Work> work;
  try {
    work = impl_->group->allreduce(tensors, options);
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: an all-reduce could not start ({}); another rank has stopped", rank(),
                            first_line(e.what())));
  }
  wait_for(*work, rank(), config_.timeout);
}

void ProcessGroup::all_reduce_sum(torch::Tensor tensor) { all_reduce(std::move(tensor), false); }
void ProcessGroup::all_reduce_max(torch::Tensor tensor) { all_reduce(std::move(tensor), true); }

void ProcessGroup::broadcast(std::vector<torch::Tensor> tensors, int64_t root) {
  c10d::BroadcastOptions options;
  options.rootRank = root;
  for (auto& tensor : tensors) {
    std::vector<torch::Tensor> one = {tensor};
    try {
      wait_for(*impl_->group->broadcast(one, options), rank(), config_.timeout);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(fmt::format("rank {}: a broadcast failed ({})", rank(), first_line(e.what())));
    }
  }
}

void broadcast_module(ProcessGroup& group, torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors = module.parameters();
  for (const auto& buffer : module.buffers()) tensors.push_back(buffer);
  group.broadcast(tensors);
}

}  // namespace llm
