// gpu_runtime.hpp in a build without CUDA: there is nothing to run on.
#include "validation/cuda/gpu_runtime.hpp"

namespace collsim::cuda {
namespace {
[[noreturn]] void unsupported() { throw GpuError("this collsim was built without CUDA support"); }
}  // namespace

struct Replay::Impl {};

Probe probe() { return Probe{false, "this collsim was built without CUDA support", {}, {}}; }
CopyMeasure measure_copy(int, int, std::uint64_t) { unsupported(); }
Replay::Replay(const StreamPlan&, Elem) { unsupported(); }
Replay::~Replay() = default;
void Replay::upload(std::uint32_t, Area, std::uint64_t, const void*, std::uint64_t) { unsupported(); }
void Replay::download(std::uint32_t, Area, std::uint64_t, void*, std::uint64_t) const { unsupported(); }
void Replay::run_once() { unsupported(); }
double Replay::time_per_run(int, int) { unsupported(); }
double nccl_time_per_run(NcclColl, Elem, std::uint64_t, int, int, int, int) { unsupported(); }

}  // namespace collsim::cuda
