#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace c10d {
class ProcessGroup;
}

namespace llm {

/// Where this process stands in a data-parallel run, as torchrun describes it.
struct DistributedConfig {
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t local_rank = 0;  // the rank among this machine's processes (its GPU, on CUDA)
  std::string master_addr = "127.0.0.1";
  int64_t master_port = 29500;
  /// How long the rendezvous and each collective may wait for the other ranks.
  std::chrono::seconds timeout{300};
  /// Not empty: the rendezvous goes through this file (c10d's FileStore), which only
  /// this machine's processes reach, instead of the store that rank 0 serves at
  /// MASTER_ADDR:MASTER_PORT (RendezvousStore). scripts/launch.sh sets it
  /// (LLM_RENDEZVOUS_FILE, in a fresh private folder) for a run on one machine.
  std::string rendezvous_file;

  /// Throws llm::Error naming the first impossible value.
  void validate() const;
};

/// torchrun's environment variables, each when it is set: WORLD_SIZE, RANK,
/// LOCAL_RANK, MASTER_PORT (whole numbers; anything else is an llm::Error naming the
/// variable) and MASTER_ADDR; and scripts/launch.sh's LLM_RENDEZVOUS_FILE.
struct DistributedEnvironment {
  std::optional<int64_t> world_size, rank, local_rank, master_port;
  std::optional<std::string> master_addr, rendezvous_file;
};
DistributedEnvironment read_distributed_environment();

/// A process group of LibTorch's c10d: Gloo over a rendezvous store that rank 0 serves
/// at master_addr:master_port and on no other address (or a FileStore at
/// rendezvous_file). Every
/// collective waits for all ranks; a rank that died or hangs past the timeout turns
/// into an llm::Error on the others.
class ProcessGroup {
 public:
  explicit ProcessGroup(const DistributedConfig& config);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int64_t rank() const { return config_.rank; }
  int64_t world_size() const { return config_.world_size; }
  bool is_main() const { return config_.rank == 0; }
  const DistributedConfig& config() const { return config_; }

  /// Copies `root`'s tensors into every rank's, in place.
  void broadcast(std::vector<torch::Tensor> tensors, int64_t root = 0);
  /// Sums `tensor` over the ranks, in place; or takes the largest of each element.
  void all_reduce_sum(torch::Tensor tensor);
  void all_reduce_max(torch::Tensor tensor);

  /// The c10d group itself (Gloo), for c10d's Reducer (GradientSync).
  c10::intrusive_ptr<c10d::ProcessGroup> c10d_group() const;

 private:
  struct Impl;
  void all_reduce(torch::Tensor tensor, bool max);
  DistributedConfig config_;
  std::unique_ptr<Impl> impl_;
};

/// Copies rank 0's parameters and buffers into every rank's module.
void broadcast_module(ProcessGroup& group, torch::nn::Module& module);

}  // namespace llm
