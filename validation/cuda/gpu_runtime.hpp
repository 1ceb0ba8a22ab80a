// The GPU side of `collsim validate` and `collsim topo --detect`: what the CUDA runtime says about
// the GPUs, the replay of a StreamPlan on them, and NCCL's own collective as the reference.
// Std only and C++17: cuda_replay.cu implements it where CUDA is built, gpu_runtime_stub.cpp
// elsewhere (probe() then says so and everything else throws GpuError).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "validation/cuda/stream_plan.hpp"

namespace collsim::cuda {

/// A CUDA runtime or NCCL call failed; what() names the call and CUDA's error string.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One GPU as the CUDA runtime reports it.
struct DeviceInfo {
  std::string name;              ///< "NVIDIA H100 80GB HBM3"
  int cc_major = 0;              ///< compute capability, e.g. 9.0
  int cc_minor = 0;
  std::uint64_t memory_bytes = 0;
};

/// What is there: CUDA support in this build, then the GPUs.
struct Probe {
  bool built = false;  ///< false: this collsim was built without CUDA
  std::string problem; ///< why there is no GPU: cudaGetDeviceCount's error, or "no GPU found"; empty when count > 0
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<int>> peer_access;  ///< [i][j]: cudaDeviceCanAccessPeer (1 on the diagonal)
};

/// Asks the CUDA runtime; never throws. Any error from cudaGetDeviceCount counts as "no GPU".
Probe probe();

/// Copy speed on one GPU: `concurrent` device-to-device copies of `bytes` each, at once on their own
/// streams (as the K ranks of a --ranks-per-gpu K replay copy at once).
struct CopyMeasure {
  double bytes_per_s = 0;  ///< per copy: bytes / (time for all of them to finish)
  double latency_s = 0;    ///< one 4-byte copy, averaged over 100 in a row
};
/// Throws GpuError.
CopyMeasure measure_copy(int device, int concurrent, std::uint64_t bytes);

/// The element types of the replay: float32, float16, bfloat16, int32; the operator is sum.
enum class Elem : std::uint8_t { F32, F16, BF16, I32 };

/// A StreamPlan on the GPUs: device buffers for every rank and stream, streams, events.
/// Not copyable; releases everything on destruction. Throws GpuError from every member.
class Replay {
 public:
  /// Allocates and enables peer access between the plan's devices. `plan` must outlive the replay.
  Replay(const StreamPlan& plan, Elem elem);
  ~Replay();
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;
  /// Copies host bytes into rank `rank`'s buffer `area` at `offset` (outside any collective).
  void upload(std::uint32_t rank, Area area, std::uint64_t offset, const void* host, std::uint64_t bytes);
  /// Copies device bytes back to the host.
  void download(std::uint32_t rank, Area area, std::uint64_t offset, void* host, std::uint64_t bytes) const;
  /// Runs the collective once and waits for it.
  void run_once();
  /// nccl-tests' timing: `warmup` runs, then `iters` runs between two CUDA events; the seconds per
  /// run. Each run starts after the previous one ends on every stream (a GPU-side barrier, no host
  /// synchronisation inside).
  double time_per_run(int warmup, int iters);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// NCCL's collectives that have a counterpart here.
enum class NcclColl : std::uint8_t { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce };

/// Runs NCCL's own collective (libnccl.so.2 loaded with dlopen now, not at start-up) on GPUs
/// 0..devices-1, one rank each, with S = `bytes` as nccl-tests counts it, and returns its seconds
/// per run with the same warm-up and iterations. Throws GpuError (NCCL missing or failing).
double nccl_time_per_run(NcclColl coll, Elem elem, std::uint64_t bytes, int devices, int root, int warmup, int iters);

}  // namespace collsim::cuda
