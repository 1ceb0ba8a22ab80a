#include "reports/explain.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "validation/symbolic_replay.hpp"

namespace collsim::reports {
namespace {

char rank_letter(sched::Rank r, bool upper) { return static_cast<char>((upper ? 'A' : 'a') + r); }

std::string content_text(const validation::Content& content) {
  std::string s;
  for (const auto& c : content) {
    if (!s.empty()) s += '+';
    s += fmt::format("{}{}", rank_letter(c.rank, true), c.chunk);
  }
  return s.empty() ? "-" : s;
}

std::string buffer_line(const sched::Schedule& schedule, const validation::SymbolicState& state, sched::Rank r) {
  std::string s = fmt::format("GPU{}: [", r);
  for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
    if (c > 0) s += ", ";
    s += content_text(state.at(r, c));
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

Explanation explain(const sched::Schedule& schedule) {
  if (schedule.nranks > 26)
    throw std::invalid_argument(fmt::format("explain names ranks A..Z, so it shows at most 26 ranks, found {}", schedule.nranks));
  Explanation ex;
  for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
    const auto& ch = schedule.chunks[c];
    ex.chunks.push_back(ch.size == 0 ? fmt::format("chunk {} = no elements", c)
                                     : fmt::format("chunk {} = elements {}..{}", c, ch.offset, ch.offset + ch.size - 1));
  }
  validation::SymbolicState state(schedule);
  for (sched::Rank r = 0; r < schedule.nranks; ++r) {
    std::string elems, names;
    for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
      elems += (c ? " | " : "") + elements_text(r, schedule.chunks[c]);
      names += fmt::format("{}{}{}", c ? " | " : "", rank_letter(r, true), c);
    }
    ex.inputs.push_back(fmt::format("GPU{}: [{}] = [{}]", r, elems, names));
  }
  ex.elements_sent.assign(schedule.nranks, 0);

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
      es.sends.push_back(fmt::format("GPU{} -> GPU{}: {} ({} chunk {})", op.src, op.dst,
                                     content_text(state.at(op.src, op.src_chunk)),
                                     op.combine == sched::Combine::Reduce ? "added into" : "copied to", op.dst_chunk));
      ex.elements_sent[op.src] += schedule.op_bytes(id);
      state.apply(op);
    }
    for (sched::Rank r = 0; r < schedule.nranks; ++r) es.buffers.push_back(buffer_line(schedule, state, r));
    ex.steps.push_back(std::move(es));
  }
  return ex;
}

std::string render_explanation(const sched::Schedule& schedule, const Explanation& ex) {
  std::string out = fmt::format("{} {} on {} GPUs, {} elements in {} chunks, {} steps\n", schedule.algorithm,
                                sched::collective_name(schedule.collective), schedule.nranks, schedule.size,
                                schedule.chunks.size(), schedule.steps);
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
  for (sched::Rank r = 0; r < schedule.nranks; ++r) out += fmt::format(" GPU{} {}", r, ex.elements_sent[r]);
  out += fmt::format(" (of {} in the buffer)\n", schedule.size);
  const auto problem = validation::verify_symbolic(schedule);
  out += problem ? fmt::format("check: FAILED: {}\n", *problem)
                 : fmt::format("check: every GPU holds every rank's share of every chunk exactly once ({} is complete)\n",
                               sched::collective_name(schedule.collective));
  return out;
}

}  // namespace collsim::reports
