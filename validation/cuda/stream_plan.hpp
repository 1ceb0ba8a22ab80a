// The CUDA replay's program: a schedule lowered to per-(rank, channel) streams of peer copies and
// reduction kernels, with its dependencies as events between streams. Plain data, std only and
// C++17, so the CPU tests inspect it and nvcc compiles the code that issues it (cuda_replay.cu).
//
// Lowering (lower_schedule.hpp): op i of the schedule runs on the stream of its receiver
// (dst rank, channel), the rank that pulls the data in, as NCCL's receive side does:
//  * transfer, copy:    one peer copy src chunk -> dst chunk;
//  * transfer, reduce:  a peer copy into the stream's staging buffer (on the receiver's GPU), then a
//                       kernel dst chunk += staging; the stream orders the next op's copy after it;
//  * local (src == dst): a device copy, or the kernel dst += src with no copy.
// Ops are issued in schedule order, which is topological (every dep has a lower id), so every wait
// names an event already recorded. A dependency on an earlier op of the same stream is kept by the
// stream's order; one on another stream becomes a wait on an event recorded after the op, and of
// several deps on one other stream only the last issued is waited on (stream order covers the rest).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace collsim::cuda {

/// An event id that names no event.
inline constexpr std::uint32_t kNoEvent = std::numeric_limits<std::uint32_t>::max();

/// Which device buffer of a rank a region lies in: the schedule's three buffers, and the staging
/// (receive) buffer of a stream, which belongs to the stream, not to a rank.
enum class Area : std::uint8_t { Data, Output, Scratch, Staging };

/// A byte range of one buffer. For Area::Staging, `owner` is the stream; otherwise the rank.
struct Region {
  std::uint32_t owner = 0;
  Area area = Area::Data;
  std::uint64_t offset = 0;  ///< bytes from the buffer's start
  std::uint64_t bytes = 0;
};

/// One schedule op as issued on its stream.
struct StreamOp {
  std::uint32_t op = 0;      ///< id in the schedule
  std::uint32_t stream = 0;  ///< index in StreamPlan::streams
  Region copy_from;          ///< the copy's source (unused when copy_bytes() is 0: a local reduce)
  Region copy_to;            ///< the copy's destination: the dst chunk, or the stream's staging buffer
  bool copy = true;          ///< false: a local reduce, which needs no copy
  bool reduce = false;       ///< after the copy, a kernel adds `reduce_from` into `reduce_into`
  Region reduce_from;        ///< staging (transfers) or the src chunk (local reduce)
  Region reduce_into;        ///< the dst chunk
  bool peer = false;         ///< the copy crosses ranks (a peer copy), not a copy within one rank
  std::vector<std::uint32_t> waits;  ///< events to wait on before the op, ascending
  std::uint32_t record = kNoEvent;   ///< event recorded after the op, or kNoEvent
};

/// A stream: the ops of one (rank, channel) in issue order, on the GPU that hosts the rank.
struct Stream {
  std::uint32_t rank = 0;
  std::uint16_t channel = 0;
  std::uint32_t device = 0;             ///< GPU index: rank / ranks_per_gpu
  std::uint64_t staging_bytes = 0;      ///< largest chunk this stream receives to reduce
  std::vector<std::uint32_t> ops;       ///< indices into StreamPlan::ops, in issue order
};

/// The whole program of one collective.
struct StreamPlan {
  std::uint32_t ranks = 0;          ///< participants and helpers: every rank gets buffers
  std::uint32_t participants = 0;   ///< the collective's N (ranks 0..N-1)
  std::uint32_t ranks_per_gpu = 1;
  std::uint32_t devices = 0;        ///< GPUs used: ceil(ranks / ranks_per_gpu)
  std::uint64_t buffer_bytes[3] = {0, 0, 0};  ///< Data, Output, Scratch bytes per rank (0: not allocated)
  std::vector<Stream> streams;      ///< ordered by (rank, channel)
  std::vector<StreamOp> ops;        ///< in issue order (the schedule's op order)
  std::uint32_t events = 0;         ///< events recorded inside the collective
};

}  // namespace collsim::cuda
