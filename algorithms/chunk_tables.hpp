// Chunk tables shared by several algorithms: a message cut into pipeline chunks (NCCL's chunkSize:
// a rank forwards chunk c while it receives chunk c+1), and the all-to-all blocks.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::algo {

/// The pipeline chunk size really used for a `size`-byte message of `element_size`-byte elements:
/// chunk_size rounded down to whole elements (at least one) when size is a multiple of the element
/// size, so every chunk boundary falls between elements as NCCL's element counts do; else
/// chunk_size. Throws std::invalid_argument when chunk_size is 0.
Bytes pipeline_chunk_bytes(Bytes size, Bytes chunk_size, Bytes element_size = 1);

/// Number of pipeline chunks of a `size`-byte message cut into pieces of
/// c = pipeline_chunk_bytes(size, chunk_size, element_size) bytes: ceil(size / c), and at least 1
/// (an empty message, or one of c bytes or less, moves as a single unpipelined chunk). Throws
/// std::invalid_argument when chunk_size is 0.
std::uint64_t pipeline_chunk_count(Bytes size, Bytes chunk_size, Bytes element_size = 1);

/// Throws TooManyPipelineChunks when a `size`-byte message cut into pipeline chunks of
/// pipeline_chunk_bytes(size, chunk_size, element_size) makes more than ScheduleBuilder::kMaxSlots
/// (2^24) of them: what pipeline_chunks checks for one piece, for a whole message that an
/// algorithm cuts into many pieces first (parts, halves, channels). Throws std::invalid_argument
/// when chunk_size is 0.
void check_pipeline_chunk_count(Bytes size, Bytes chunk_size, Bytes element_size = 1);

/// Bytes [offset, offset + size) of the data buffer cut into pipeline_chunk_count(size,
/// chunk_size, element_size) chunks, in order: with c = pipeline_chunk_bytes(..), chunk i covers
/// [offset + i·c, offset + min((i+1)·c, size)), so only the last may be shorter (as NCCL cuts it).
/// Precondition: offset is a multiple of the element size when size is. Chunks have part 0: the whole-buffer collectives (broadcast, reduce,
/// all-reduce) ignore parts. Throws std::invalid_argument when chunk_size is 0, TooManyPipelineChunks
/// when there would be more than ScheduleBuilder::kMaxSlots chunks.
std::vector<sched::Chunk> pipeline_chunks(Bytes offset, Bytes size, Bytes chunk_size, Bytes element_size = 1);

/// What pipeline_chunks throws for a message of more pipeline chunks than a schedule holds: the size
/// and the chunk size are what to change, not the ranks.
class TooManyPipelineChunks : public std::length_error {
 public:
  using std::length_error::length_error;
};

/// The all-to-all chunk table for N = `nranks` ranks and S = `size`: with B =
/// sched::alltoall_block(N, S, element_size) (floor(S/N), in whole elements when S is), chunk j
/// (0 <= j < N) is data block j, bytes [j·B, (j+1)·B) of the send buffer (part j: the block for
/// rank j), and chunk N+j is output block j, the same bytes of the receive buffer (part j: the
/// block from rank j). The S - N·B bytes past N·B are not moved (nccl-tests counts per peer).
/// Precondition: nranks >= 1.
std::vector<sched::Chunk> alltoall_chunks(sched::Rank nranks, Bytes size, Bytes element_size = 1);

/// Id of data block `j` in an alltoall_chunks table (the block rank j receives).
constexpr sched::ChunkId alltoall_data_chunk(sched::Rank j) noexcept { return j; }
/// Id of output block `j` in an alltoall_chunks table of `nranks` ranks (the block from rank j).
constexpr sched::ChunkId alltoall_output_chunk(sched::Rank nranks, sched::Rank j) noexcept { return nranks + j; }

}  // namespace collsim::algo
