#include "validation/cpu_replay.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/collective_spec.hpp"
#include "sim/schedule/json_io.hpp"
#include "validation/element_types.hpp"
#include "validation/numeric_replay.hpp"
#include "validation/symbolic_replay.hpp"

namespace collsim::validation {

SlotLayout::SlotLayout(const sched::Schedule& s, const sched::CollectiveSpec& spec, std::uint32_t bytes_per_element,
                       bool first_and_last)
    : nchunks(s.chunks.size()), element_size(bytes_per_element), sampled(first_and_last) {
  elements.resize(nchunks);
  tracked.resize(nchunks);
  for (sched::ChunkId c = 0; c < nchunks; ++c) {
    elements[c] = s.chunks[c].size / element_size;
    tracked[c] = sampled ? std::min<std::uint64_t>(elements[c], 2) : elements[c];
  }
  std::vector<std::uint8_t> used(static_cast<std::size_t>(s.total_ranks()) * nchunks, 0);
  for (sched::Rank r = 0; r < s.total_ranks(); ++r)
    for (sched::ChunkId c = 0; c < nchunks; ++c)
      if (spec.initial(r, c)) used[slot(r, c)] = 1;
  for (const auto& op : s.ops) used[slot(op.dst, op.dst_chunk)] = 1;
  base.assign(used.size(), kNone);
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (used[i] == 0) continue;
    const auto c = static_cast<sched::ChunkId>(i % nchunks);
    base[i] = pool_elements;
    pool_elements += tracked[c];
    full_bytes += s.chunks[c].size;
  }
}

namespace {

// The checks a schedule made by ScheduleBuilder passes by construction; a schedule from elsewhere
// (a file) may not, and the replay must not index out of range on it.
std::optional<std::string> check_structure(const sched::Schedule& s) {
  const sched::ScheduleHeader& h = s.header;
  if (h.nranks == 0) return "the schedule has no ranks";
  if (h.root >= h.nranks) return fmt::format("root {} is out of range (ranks 0..{})", h.root, h.nranks - 1);
  const auto nchunks = s.chunks.size();
  for (sched::OpId id = 0; id < s.ops.size(); ++id) {
    const sched::Op& op = s.ops[id];
    if (op.src >= s.total_ranks() || op.dst >= s.total_ranks())
      return fmt::format("op {}: rank {} -> {} is out of range (ranks 0..{})", id, op.src, op.dst, s.total_ranks() - 1);
    if (op.src_chunk >= nchunks || op.dst_chunk >= nchunks)
      return fmt::format("op {}: chunk {} -> {} is out of range ({} chunks)", id, op.src_chunk, op.dst_chunk, nchunks);
    if (s.chunks[op.src_chunk].size != s.chunks[op.dst_chunk].size)
      return fmt::format("op {}: chunk {} ({} bytes) does not fit chunk {} ({} bytes)", id, op.src_chunk,
                         s.chunks[op.src_chunk].size, op.dst_chunk, s.chunks[op.dst_chunk].size);
    if (op.src == op.dst && op.src_chunk == op.dst_chunk)
      return fmt::format("op {}: rank {} combines chunk {} with itself", id, op.src, op.src_chunk);
  }
  return std::nullopt;
}

// Why `dtype` cannot be replayed on this chunk table, or nullopt when it can.
std::optional<std::string> misalignment(const sched::Schedule& s, Bytes data_bytes, DType dtype) {
  const std::uint32_t size = dtype_size(dtype);
  if (size == 1) return std::nullopt;
  if (data_bytes % size != 0)
    return fmt::format("{} bytes is not a multiple of {}'s {} bytes", data_bytes, dtype_name(dtype), size);
  for (sched::ChunkId c = 0; c < s.chunks.size(); ++c) {
    const sched::Chunk& ch = s.chunks[c];
    if (ch.size > 0 && (ch.offset % size != 0 || ch.size % size != 0))
      return fmt::format("chunk {} (bytes {}..{} of the {} buffer) is not cut at multiples of {}'s {} bytes", c,
                         ch.offset, ch.offset + ch.size, sched::buffer_name(ch.buffer), dtype_name(dtype), size);
  }
  return std::nullopt;
}

template <class E>
void replay_as(const sched::Schedule& s, const sched::CollectiveSpec& spec, const SlotLayout& layout,
               std::span<const sched::OpId> order, ReplayReport& report) {
  const InputPattern input(report.dtype, report.op, s.header.nranks);
  NumericReplay<E> replay(s, spec, layout, input, report.dtype, report.op);
  if (auto problem = replay.run(order)) {
    report.problem = std::move(*problem);
    return;
  }
  replay.check(report);
  if (const auto& m = report.mismatch)
    report.problem = fmt::format("rank {} chunk {} ({} buffer, element {} = byte {}): expected {}, found {}", m->rank,
                                 m->chunk, sched::buffer_name(m->buffer), m->element, m->element * layout.element_size,
                                 m->expected, m->found);
}

void dispatch(const sched::Schedule& s, const sched::CollectiveSpec& spec, const SlotLayout& layout,
              std::span<const sched::OpId> order, ReplayReport& report) {
  switch (report.dtype) {
    case DType::Float32: return replay_as<Float32Element>(s, spec, layout, order, report);
    case DType::Float64: return replay_as<Float64Element>(s, spec, layout, order, report);
    case DType::Float16: return replay_as<Float16Element>(s, spec, layout, order, report);
    case DType::BFloat16: return replay_as<BFloat16Element>(s, spec, layout, order, report);
    case DType::Int32: return replay_as<Int32Element>(s, spec, layout, order, report);
    case DType::UInt8: return replay_as<UInt8Element>(s, spec, layout, order, report);
  }
}

void add_note(std::string& note, const std::string& text) { note += note.empty() ? text : "; " + text; }

}  // namespace

ReplayReport replay_on_cpu(const sched::Schedule& s, const ReplayOptions& options) {
  ReplayReport report;
  report.dtype = options.dtype;
  report.op = options.op;
  report.reduces = sched::reduces(s.header.collective);
  if (auto problem = check_structure(s)) {
    report.problem = std::move(*problem);
    return report;
  }
  std::optional<sched::CollectiveSpec> spec;
  try {
    spec.emplace(s);
  } catch (const std::invalid_argument& e) {
    report.problem =
        fmt::format("the chunk table does not fit {}: {}", sched::collective_name(s.header.collective), e.what());
    return report;
  }
  std::vector<sched::OpId> order;
  if (auto problem = replay_order(s, options.order, order)) {
    report.problem = std::move(*problem);
    return report;
  }

  const Bytes data_bytes =
      sched::effective_size(s.header.collective, s.header.nranks, s.header.size, s.header.element_size);
  if (auto why = misalignment(s, data_bytes, options.dtype)) {
    report.dtype = DType::UInt8;
    const bool modular = options.op == ReduceOp::Sum || options.op == ReduceOp::Prod;
    add_note(report.note, report.reduces ? fmt::format("{}, so the replay used uint8 ({}{})", *why,
                                                       reduce_op_name(options.op), modular ? " modulo 256" : "")
                                         : fmt::format("{}, so the replay used uint8", *why));
  }
  const std::uint32_t element_size = dtype_size(report.dtype);
  std::optional<SlotLayout> layout;
  if (data_bytes <= options.full_replay_limit) {
    layout.emplace(s, *spec, element_size, false);
    if (layout->full_bytes > options.memory_limit) {
      add_note(report.note, fmt::format("a full replay would hold {} bytes of buffers, more than the {} allowed, "
                                        "so only the first and last element of every chunk were replayed",
                                        layout->full_bytes, options.memory_limit));
      layout.reset();
    }
  }
  if (!layout) {
    report.coverage = ReplayCoverage::Sampled;
    layout.emplace(s, *spec, element_size, true);
  }
  dispatch(s, *spec, *layout, order, report);
  if (report.problem.empty() && report.coverage == ReplayCoverage::Sampled) {
    // The symbolic state holds up to N contributions per slot; skip it rather than exhaust memory.
    const Bytes bound = Bytes{s.total_ranks()} * s.chunks.size() * s.header.nranks * sizeof(sched::Contribution);
    if (bound <= options.memory_limit) {
      report.symbolic = true;
      if (auto problem = verify_symbolic(s)) report.problem = "symbolic replay: " + *problem;
    } else {
      add_note(report.note, fmt::format("symbolic replay skipped: it could hold {} bytes of contributions, more "
                                        "than the {} allowed", bound, options.memory_limit));
    }
  }
  report.verified = report.problem.empty();
  return report;
}

std::string replay_summary(const ReplayReport& r) {
  if (!r.verified) return "verification failed: " + r.problem;
  const std::string what = r.coverage == ReplayCoverage::Full
                               ? fmt::format("every element ({} values compared)", r.values_checked)
                               : fmt::format("first and last element of every chunk ({} values compared){}",
                                             r.values_checked,
                                             r.symbolic ? " and the contributions of every chunk (symbolic replay)" : "");
  return fmt::format("verified: {}{}, {}{}", dtype_name(r.dtype),
                     r.reduces ? " " + std::string(reduce_op_name(r.op)) : std::string(), what,
                     r.note.empty() ? std::string() : "; " + r.note);
}

}  // namespace collsim::validation
