// The data of a CUDA replay: the inputs it starts from and the check of what it leaves, both as the
// CPU replay defines them (validation/input_pattern.hpp, validation/numeric_replay.hpp): slot
// (rank, chunk) starts as the collective's initial content, and must end holding its required
// content, each element the sum of the contributions' inputs; exact for int32, within the CPU
// replay's rounding margin (sum_tolerance_factor) for floats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/schedule/schedule.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/cuda/gpu_runtime.hpp"
#include "validation/dtype.hpp"

namespace collsim::cuda {

/// The replay's element type for `dtype` (float32, float16, bfloat16, int32); nullopt for others.
[[nodiscard]] std::optional<Elem> elem_of(validation::DType dtype) noexcept;

/// What the check found.
struct DataCheck {
  std::uint64_t values_checked = 0;
  bool sampled = false;                            ///< only the first and last `sample` elements of each chunk
  std::optional<validation::Mismatch> mismatch;    ///< the first wrong value (lowest rank, chunk, element)
};

/// Uploads every slot the collective defines at the start (every rank's inputs) into `replay`,
/// encoded as `dtype` (one elem_of accepts). Precondition: chunk offsets and sizes are multiples of
/// the dtype's size.
void upload_inputs(const sched::Schedule& s, validation::DType dtype, Replay& replay);

/// Downloads and checks every slot the collective defines at the end. Chunks larger than
/// `full_limit` bytes are checked at their first and last `sample` elements only (DataCheck::sampled).
[[nodiscard]] DataCheck check_outputs(const sched::Schedule& s, validation::DType dtype, const Replay& replay,
                                      std::uint64_t full_limit = std::uint64_t{64} << 20, std::uint64_t sample = 4096);

/// "rank 2 chunk 1 (data) element 7: expected 10, found 6".
[[nodiscard]] std::string mismatch_text(const validation::Mismatch& m);

}  // namespace collsim::cuda
