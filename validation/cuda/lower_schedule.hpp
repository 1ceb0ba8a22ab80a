// Lowers a schedule to the CUDA replay's streams and events (stream_plan.hpp describes the rules).
#pragma once

#include <cstdint>

#include "sim/schedule/schedule.hpp"
#include "validation/cuda/stream_plan.hpp"

namespace collsim::cuda {

/// The device buffer area that holds a schedule buffer's chunks.
[[nodiscard]] Area area_of(sched::Buffer buffer) noexcept;

/// The stream program of `schedule` with `ranks_per_gpu` consecutive ranks on each GPU (rank r on
/// GPU r / ranks_per_gpu). Pure: touches no GPU. Throws std::invalid_argument when ranks_per_gpu is
/// 0 or an op names a rank or chunk the schedule does not have.
[[nodiscard]] StreamPlan lower_schedule(const sched::Schedule& schedule, std::uint32_t ranks_per_gpu);

}  // namespace collsim::cuda
