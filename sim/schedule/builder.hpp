// Building a schedule op by op, with dependencies inferred from data flow (msccl-tools style).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// A Schedule with `header` (its element size stored as cut_unit(size, element_size)), `chunks`,
/// `phases`, `steps` and no ops (dep_offsets holds the leading 0): what ScheduleBuilder starts
/// from, and the header() of a sched::OpStream. Throws
/// std::invalid_argument for no participant, a root out of range or an element size of 0.
Schedule schedule_without_ops(const ScheduleHeader& header, std::vector<Chunk> chunks, std::string algorithm = {},
                              std::uint32_t steps = 0, std::vector<Phase> phases = {});

/// Collects ops in program order and derives each op's dependencies from the (rank, chunk) slots
/// it touches: it waits for the last op that wrote the chunk it sends (read after write), and for
/// the last writer and every reader since of the chunk it writes (write after write, write after
/// read). So an op that sends chunk c from rank r waits for every earlier op that delivered c to r.
/// Errors (rank or chunk out of range, src == dst, chunk sizes that differ, step 0) throw
/// std::invalid_argument with the op's index in the message. An op from a rank to itself is a
/// local op and must use two different chunks.
class ScheduleBuilder {
 public:
  /// Largest nranks × chunks this version materialises (128 MiB of slot bookkeeping, 8 bytes a slot,
  /// besides the ops; N = 4096 for ring all-reduce).
  static constexpr std::uint64_t kMaxSlots = std::uint64_t{1} << 24;

  /// `chunks` is the cut of every rank's buffer; usually split_even(size, nranks, element_size).
  /// Throws std::length_error when ranks × chunks exceeds kMaxSlots, std::invalid_argument for
  /// no participant or a root out of range.
  ScheduleBuilder(const ScheduleHeader& header, std::vector<Chunk> chunks);
  ScheduleBuilder(Collective collective, Rank nranks, Bytes size, std::vector<Chunk> chunks)
      : ScheduleBuilder(ScheduleHeader{collective, nranks, size, 0, 0}, std::move(chunks)) {}

  /// Appends "rank src sends its chunk src_chunk to rank dst, which copies or reduces it into
  /// its chunk dst_chunk" at logical step `step` (>= 1). Returns the new op's id.
  /// Ranks may be participants or helpers.
  OpId send(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Combine combine, std::uint32_t step,
            std::uint16_t channel = 0);

  /// The common case: the same chunk index on both sides.
  OpId send(Rank src, Rank dst, ChunkId chunk, Combine combine, std::uint32_t step) {
    return send(src, chunk, dst, chunk, combine, step);
  }

  /// From now on, a rank's ops of step s also wait for everything it received in its latest
  /// earlier step: the step-synchronous progress of MPI_Sendrecv-based algorithms (recursive
  /// halving/doubling), whose α-β costs assume it. Without it ops wait only for their data, and
  /// a rank may send what it already holds ahead of its step.
  void order_steps_per_rank() { ordered_steps_ = true; }

  /// Bytes of chunk `c` of the table (for builders that pick slots by size).
  [[nodiscard]] Bytes chunk_size_of(ChunkId c) const { return schedule_.chunks.at(c).size; }

  /// Names the steps first..last (for explain and reports). Ranges must not overlap.
  void add_phase(std::string name, std::uint32_t first_step, std::uint32_t last_step);

  /// Finishes the schedule under the algorithm name `algorithm`.
  [[nodiscard]] Schedule build(std::string algorithm) &&;

 private:
  static constexpr OpId kNone = std::numeric_limits<OpId>::max();
  // A slot's readers since its last write are a linked list in reader_links_, newest first: one
  // shared array instead of a vector per slot, so a send allocates nothing of its own (the builder
  // ran at the speed of malloc) and a slot takes 8 bytes. Cleared lists leave their links behind;
  // there is one link per op.
  struct Slot {
    OpId last_writer = kNone;
    OpId readers = kNone;  // index of the newest link in reader_links_, or kNone
  };
  struct ReaderLink {
    OpId op;
    OpId next;  // the link before, or kNone
  };
  Slot& slot(Rank r, ChunkId c) { return slots_[static_cast<std::size_t>(r) * schedule_.chunks.size() + c]; }

  struct Received {
    std::uint32_t step = 0;     // the latest step in which the rank received
    std::vector<OpId> ops;      // what it received in that step
    std::uint32_t prev_step = 0;
    std::vector<OpId> prev_ops; // the step before, for ops added in the same step
  };
  Schedule schedule_;
  std::vector<Slot> slots_;
  std::vector<ReaderLink> reader_links_;
  bool ordered_steps_ = false;
  std::vector<Received> received_;  // by rank, when ordered_steps_
  std::vector<OpId> scratch_;
};

}  // namespace collsim::sched
