#include "algorithms/chunk_tables.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/builder.hpp"
#include "sim/schedule/collective_spec.hpp"

namespace collsim::algo {

Bytes pipeline_chunk_bytes(Bytes size, Bytes chunk_size, Bytes element_size) {
  if (chunk_size == 0) throw std::invalid_argument("the pipeline chunk size must be at least 1 byte");
  const Bytes unit = sched::cut_unit(size, element_size);
  return std::max(unit, chunk_size / unit * unit);
}

std::uint64_t pipeline_chunk_count(Bytes size, Bytes chunk_size, Bytes element_size) {
  const Bytes c = pipeline_chunk_bytes(size, chunk_size, element_size);
  return std::max<std::uint64_t>(1, size / c + (size % c != 0 ? 1 : 0));
}

namespace {

// The refusal both checks give, for `count` chunks of `chunk_size` bytes already cut from `size`.
void refuse_past_slots(Bytes size, Bytes chunk_size, std::uint64_t count) {
  if (count > sched::ScheduleBuilder::kMaxSlots)
    throw TooManyPipelineChunks(fmt::format("{} bytes in chunks of {} bytes make {} pipeline chunks; at most {} are "
                                        "supported",
                                        size, chunk_size, count, sched::ScheduleBuilder::kMaxSlots));
}

}  // namespace

void check_pipeline_chunk_count(Bytes size, Bytes chunk_size_asked, Bytes element_size) {
  const Bytes chunk_size = pipeline_chunk_bytes(size, chunk_size_asked, element_size);
  refuse_past_slots(size, chunk_size, pipeline_chunk_count(size, chunk_size));
}

std::vector<sched::Chunk> pipeline_chunks(Bytes offset, Bytes size, Bytes chunk_size_asked, Bytes element_size) {
  const Bytes chunk_size = pipeline_chunk_bytes(size, chunk_size_asked, element_size);
  const std::uint64_t count = pipeline_chunk_count(size, chunk_size);
  // Checked here, before allocating: a tiny chunk size on a large message would otherwise ask
  // for billions of chunks before the builder could refuse them.
  refuse_past_slots(size, chunk_size, count);
  std::vector<sched::Chunk> chunks;
  chunks.reserve(count);
  for (std::uint64_t c = 0; c < count; ++c) {
    const Bytes at = c * chunk_size;
    chunks.push_back(sched::Chunk{offset + at, std::min(chunk_size, size - at), sched::Buffer::Data, 0});
  }
  return chunks;
}

std::vector<sched::Chunk> alltoall_chunks(sched::Rank nranks, Bytes size, Bytes element_size) {
  const Bytes block = sched::alltoall_block(nranks, size, element_size);
  std::vector<sched::Chunk> chunks;
  chunks.reserve(2 * std::size_t{nranks});
  for (sched::Rank j = 0; j < nranks; ++j) chunks.push_back(sched::Chunk{j * block, block, sched::Buffer::Data, j});
  for (sched::Rank j = 0; j < nranks; ++j) chunks.push_back(sched::Chunk{j * block, block, sched::Buffer::Output, j});
  return chunks;
}

}  // namespace collsim::algo
