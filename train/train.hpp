// A data-parallel training step (collsim train): the model's gradients cut into DDP buckets or FSDP
// units, each collective simulated on the topology by the run layer (run/simulate.hpp), laid out
// against the compute on a timeline (train/timeline.hpp). What the CLI and Python front ends call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "run/request.hpp"
#include "run/simulate.hpp"
#include "train/ddp_buckets.hpp"
#include "train/model.hpp"
#include "train/timeline.hpp"
#include "validation/dtype.hpp"

namespace collsim::train {

/// ddp: PyTorch DistributedDataParallel (gradient buckets all-reduced during backward); fsdp:
/// FullyShardedDataParallel FULL_SHARD (ZeRO-3: per-unit all-gather and reduce-scatter).
enum class Mode : std::uint8_t { Ddp, Fsdp };
/// "ddp", "fsdp".
[[nodiscard]] std::string_view mode_name(Mode m) noexcept;

/// What to simulate. Every (ranks, bucket cap) pair of the lists is one case (ranks outer).
struct TrainRequest {
  Mode mode = Mode::Ddp;
  Model model;  ///< its layers' times set (spread_times)
  validation::DType dtype = validation::DType::Float32;  ///< of parameters and gradients
  run::TopologySpec topology;
  std::vector<std::uint32_t> ranks;      ///< data-parallel group sizes; empty: every GPU of the topology
  std::vector<Bytes> bucket_caps{kDdpBucketCapBytes};  ///< DDP's bucket_cap_mb, in bytes (>= 1)
  /// Whether bucket_caps were given (DDP's bucket_cap_mb passed): then the first bucket's limit is
  /// the cap, not 1 MiB (DistributedDataParallel.__init__ and _ddp_init_helper, distributed.py,
  /// PyTorch v2.5: `_DEFAULT_FIRST_BUCKET_BYTES if self.bucket_bytes_cap_default else
  /// self.bucket_bytes_cap`).
  bool bucket_caps_given = false;
  /// The first bucket's limit over that rule (dist._DEFAULT_FIRST_BUCKET_BYTES set by the user).
  std::optional<Bytes> first_bucket;
  std::string algorithm = "nccl";        ///< every collective's algorithm (a registry name, or nccl)
  run::AlgorithmOptions options;
  run::ModelOptions model_options;
  std::string network = "flow";
};

/// One collective of a case: its place on the timeline, the algorithm that ran it (with NCCL's
/// reason when NCCL's choice picked it), the most bytes one rank sent in it, and the gradients
/// (DDP: the bucket's tensors; FSDP: the unit's) it carries.
struct CollectiveRow {
  CollectiveSpan span;
  std::string algorithm;
  std::string algorithm_choice;
  Bytes bytes_sent_per_rank = 0;
  std::size_t tensors = 0;
  std::string first_layer;  ///< the layers its gradients come from, in the order it holds them
  std::string last_layer;
};

/// DDP's first bucket limit for `cap`: request.first_bucket when set, else `cap` when the caps were
/// given, else 1 MiB (PyTorch v2.5's rule; TrainRequest::bucket_caps_given).
[[nodiscard]] Bytes first_bucket_of(const TrainRequest& request, Bytes cap);

/// One case: N ranks (and, for DDP, one bucket cap), its timeline and collectives.
struct TrainCase {
  std::uint32_t ranks = 0;
  Bytes bucket_cap = 0;   ///< DDP; 0 for FSDP
  Bytes first_bucket = 0; ///< DDP: the first bucket's limit; 0 for FSDP
  Timeline timeline;
  std::vector<CollectiveRow> collectives;  ///< in stream order, as timeline.collectives
  /// Sums over the step of the most bytes one rank sent, per collective kind.
  Bytes sent_allreduce = 0;
  Bytes sent_allgather = 0;
  Bytes sent_reducescatter = 0;
};

/// The step of every case, and what they share.
struct TrainResult {
  Mode mode = Mode::Ddp;
  std::string model;
  std::string model_source;
  std::uint64_t parameters = 0;
  std::size_t layers = 0;
  std::size_t tensors = 0;
  validation::DType dtype = validation::DType::Float32;
  std::string topology;
  std::string algorithm;   ///< as asked
  std::vector<TrainCase> cases;
};

/// Runs every case of `request`: DDP's buckets (ddp_buckets() over the gradients in reverse parameter
/// order, as DDP reverses model.parameters()) or FSDP's units (one per layer, its elements padded to a
/// multiple of N as FSDP pads its flat parameter: FlatParamHandle, _flat_param.py), each distinct
/// collective size simulated once. Throws run::RequestError (ranks above the topology's GPUs, an
/// algorithm that cannot serve a collective, naming the field), and what run::plan_on throws.
[[nodiscard]] TrainResult run_train(const TrainRequest& request,
                                    const algo::AlgorithmRegistry& registry = run::builtin_algorithms());

}  // namespace collsim::train
