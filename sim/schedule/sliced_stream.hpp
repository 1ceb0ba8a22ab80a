// Slicing generated on demand: a stream whose ops move as pipelines of slices, op for op what
// slice_schedule (slicing.hpp) makes of the materialised schedule, without materialising it, so a
// run keeps O(N + ops in flight) memory and NCCL's slice at any N and size (issue 18, item 3: no op
// budget raises the slice of a streamed run).
#pragma once

#include <memory>

#include "sim/schedule/op_stream.hpp"

namespace collsim::sched {

/// `inner` with every op cut into k ops of at most `slice` bytes (the last one shorter), as
/// slice_schedule cuts the materialised schedule: slice j of an op waits for slice j of each op it
/// waited for; roots and successors come slice by slice in the inner order, op (key, j) keyed
/// key x k + j. Serves only where every chunk of inner.header() cuts into the same k pieces (then
/// slice_schedule pairs every op's slices with its dependencies' one to one) and the keys stay
/// below 2^kChannelKeyBits (OpStream::key_limit x k), and it has at most kMaxSlices slices;
/// otherwise returns null, and the caller materialises (within its op budget). Returns `inner` itself when no chunk is longer than `slice` (k = 1). The rank
/// period is inner's. Preconditions: slice >= 1, inner not null.
std::unique_ptr<OpStream> slice_stream(std::unique_ptr<OpStream> inner, Bytes slice);

/// The most slices (chunks x k) slice_stream cuts: the header lists each, and every slice of a
/// step may be in flight at once (ring: all of step 1's), so memory grows with them, not with N:
/// 2^20 slices (1 TiB in 1 MiB slices) ran in 192 MB, 2.6 M (10 MiB in 4-byte slices on 32 GPUs)
/// took 2.7 GB.
inline constexpr std::uint64_t kMaxSlices = std::uint64_t{1} << 20;

}  // namespace collsim::sched
