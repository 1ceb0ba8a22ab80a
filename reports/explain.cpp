#include "reports/explain.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/units/units.hpp"
#include "validation/symbolic_replay.hpp"

namespace collsim::reports {
namespace {

char rank_letter(sched::Rank r, bool upper) { return static_cast<char>((upper ? 'A' : 'a') + r); }

std::string buffer_line(const sched::Schedule& schedule, const validation::SymbolicState& state, sched::Rank r,
                        const std::string& name) {
  std::string s = fmt::format("{}: [", name);
  for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
    if (c > 0) s += ", ";
    s += validation::content_text(state.at(r, c), schedule.header.nranks);
  }
  return s + "]";
}

// "a0, a1" for short chunks, "a0..a9" for long ones, "(empty)" for none.
std::string elements_text(sched::Rank r, const sched::Chunk& chunk) {
  const char l = rank_letter(r, false);
  if (chunk.size == 0) return "(empty)";
  if (chunk.size > 3) return fmt::format("{}{}..{}{}", l, chunk.offset, l, chunk.offset + chunk.size - 1);
  std::string s;
  for (Bytes e = chunk.offset; e < chunk.offset + chunk.size; ++e) s += fmt::format("{}{}{}", s.empty() ? "" : ", ", l, e);
  return s;
}

}  // namespace

Explanation explain(const sched::Schedule& schedule, const std::string& helper) {
  if (schedule.total_ranks() > 26)
    throw std::invalid_argument(fmt::format("explain names ranks A..Z, so it shows at most 26 ranks, found {}", schedule.header.nranks));
  Explanation ex;
  const sched::Rank n = schedule.header.nranks;
  for (sched::Rank r = 0; r < schedule.total_ranks(); ++r)
    ex.names.push_back(r < n                         ? fmt::format("GPU{}", r)
                       : schedule.header.helpers == 1 ? helper
                                                      : fmt::format("{}{}", helper, r - n));
  const auto& name = ex.names;
  for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
    const auto& ch = schedule.chunks[c];
    // Output and scratch chunks are other buffers: say which, so "elements" are not read as data.
    const char* where = ch.buffer == sched::Buffer::Data ? "" : ch.buffer == sched::Buffer::Output ? "output " : "scratch ";
    ex.chunks.push_back(ch.size == 0 ? fmt::format("chunk {} = no {}elements", c, where)
                                     : fmt::format("chunk {} = {}elements {}..{}", c, where, ch.offset,
                                                   ch.offset + ch.size - 1));
  }
  validation::SymbolicState state(schedule);
  const sched::CollectiveSpec spec(schedule);
  for (sched::Rank r = 0; r < schedule.total_ranks(); ++r) {
    std::string elems, names;
    for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
      // Undefined input (all-gather's other parts, broadcast's non-roots, scratch) shows as "?".
      const bool defined = spec.initial(r, c).has_value();
      elems += (c ? " | " : "") + (defined ? elements_text(r, schedule.chunks[c]) : std::string("?"));
      names += (c ? " | " : "") + validation::content_text(spec.initial(r, c), schedule.header.nranks);
    }
    ex.inputs.push_back(fmt::format("{}: [{}] = [{}]", name[r], elems, names));
  }
  ex.elements_sent.assign(schedule.total_ranks(), 0);

  // Ops are in program order and each step's ops are applied in that order; sends show what the
  // sender holds when it sends.
  std::map<std::uint32_t, std::vector<sched::OpId>> by_step;
  for (sched::OpId i = 0; i < schedule.ops.size(); ++i) by_step[schedule.ops[i].step].push_back(i);
  std::map<std::string, std::uint32_t> phase_first;
  for (const auto& p : schedule.phases) phase_first[p.name] = p.first_step;
  for (const auto& [step, ops] : by_step) {
    ExplainedStep es;
    es.step = step;
    es.phase = std::string(schedule.phase_of(step));
    es.phase_step = es.phase.empty() ? step : step - phase_first[es.phase] + 1;
    for (sched::OpId id : ops) {
      const sched::Op& op = schedule.ops[id];
      const std::string what = validation::content_text(state.at(op.src, op.src_chunk), schedule.header.nranks);
      const char* how = op.combine == sched::Combine::Reduce ? "added into" : "copied to";
      es.sends.push_back(op.src == op.dst
                             ? fmt::format("{} locally: {} from chunk {} {} chunk {}", name[op.src], what, op.src_chunk,
                                           how, op.dst_chunk)
                             : fmt::format("{} -> {}: {} ({} chunk {})", name[op.src], name[op.dst], what, how,
                                           op.dst_chunk));
      if (op.src != op.dst) ex.elements_sent[op.src] += schedule.op_bytes(id);
      // A broken schedule still gets explained; the closing check names the problem.
      (void)state.apply(id);
    }
    for (sched::Rank r = 0; r < schedule.total_ranks(); ++r)
      es.buffers.push_back(buffer_line(schedule, state, r, name[r]));
    ex.steps.push_back(std::move(es));
  }
  return ex;
}

namespace {

// What the closing check proved, in the collective's own terms (its postcondition in
// sim/schedule/collective_spec.hpp).
std::string postcondition(const sched::Schedule& schedule) {
  switch (schedule.header.collective) {
    case sched::Collective::AllReduce:
      return "every GPU holds every rank's share of every chunk exactly once";
    case sched::Collective::ReduceScatter:
      return "GPU r holds every rank's share of part r exactly once";
    case sched::Collective::AllGather:
      return "every GPU holds every rank's part";
    case sched::Collective::Broadcast:
      return fmt::format("every GPU holds GPU{}'s buffer", schedule.header.root);
    case sched::Collective::Reduce:
      return fmt::format("GPU{} holds every rank's share of every chunk exactly once", schedule.header.root);
    case sched::Collective::AllToAll:
      return "GPU r holds block r of every rank's buffer";
    case sched::Collective::SendRecv:
      return "GPU r holds GPU r-1's buffer (mod N)";
  }
  return "the collective's result is in place";
}

}  // namespace

std::string render_explanation(const sched::Schedule& schedule, const Explanation& ex) {
  std::string out = fmt::format("{} {} on {}, {} in {}, {}\n", schedule.algorithm,
                                sched::collective_name(schedule.header.collective),
                                format_count(schedule.header.nranks, "GPU"), format_count(schedule.header.size, "element"),
                                format_count(schedule.chunks.size(), "chunk"), format_count(schedule.steps, "step"));
  for (const auto& c : ex.chunks) out += "  " + c + "\n";
  out += "\ninput\n";
  for (const auto& line : ex.inputs) out += "  " + line + "\n";
  for (const auto& s : ex.steps) {
    out += s.phase.empty() ? fmt::format("\nstep {} of {}\n", s.step, schedule.steps)
                           : fmt::format("\n{} step {} (step {} of {})\n", s.phase, s.phase_step, s.step, schedule.steps);
    for (const auto& line : s.sends) out += "  " + line + "\n";
    out += " after the step:\n";
    for (const auto& line : s.buffers) out += "  " + line + "\n";
  }
  out += "\nelements sent per GPU:";
  for (sched::Rank r = 0; r < schedule.total_ranks(); ++r) out += fmt::format(" {} {}", ex.names[r], ex.elements_sent[r]);
  out += fmt::format(" (of {} in the buffer)\n", schedule.header.size);
  const auto problem = validation::verify_symbolic(schedule);
  out += problem ? fmt::format("check: FAILED: {}\n", *problem)
                 : fmt::format("check: {} ({} is complete)\n", postcondition(schedule),
                               sched::collective_name(schedule.header.collective));
  return out;
}

}  // namespace collsim::reports
