#include "validation/symbolic_replay.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim::validation {

SymbolicState::SymbolicState(const sched::Schedule& schedule)
    : schedule_(schedule), nchunks_(schedule.chunks.size()) {
  const sched::CollectiveSpec spec(schedule);
  slots_.resize(static_cast<std::size_t>(schedule.total_ranks()) * nchunks_);
  for (sched::Rank r = 0; r < schedule.total_ranks(); ++r)
    for (sched::ChunkId c = 0; c < nchunks_; ++c)
      if (const auto content = spec.initial(r, c)) {
        // An input slot holds one contribution (collective_spec.hpp); anything else is shared.
        Slot& slot = slots_[index(r, c)];
        slot.defined = true;
        if (content->size() == 1)
          slot.one = content->front();
        else
          slot.many = std::make_shared<const Content>(*content);
      }
}

std::optional<std::string> SymbolicState::apply(sched::OpId id) {
  const sched::Op& op = schedule_.ops[id];
  const Slot& src = slots_[index(op.src, op.src_chunk)];
  Slot& dst = slots_[index(op.dst, op.dst_chunk)];
  if (!src.defined)
    return fmt::format("op {} (step {}): rank {} sends chunk {}, which holds no defined data there", id, op.step, op.src,
                       op.src_chunk);
  if (op.combine == sched::Combine::Copy) {
    dst = src;
    return std::nullopt;
  }
  if (!dst.defined)
    return fmt::format("op {} (step {}): reduces into chunk {} of rank {}, which holds no defined data", id, op.step,
                       op.dst_chunk, op.dst);
  const auto a = *src.view();
  const auto b = *dst.view();
  Content merged;
  merged.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged));
  dst.many = std::make_shared<const Content>(std::move(merged));
  return std::nullopt;
}

std::string content_text(const std::optional<Content>& content, sched::Rank nranks) {
  return content_text(content ? ContentView(*content) : std::nullopt, nranks);
}

std::string content_text(ContentView content, sched::Rank nranks) {
  if (!content) return "?";
  std::string s;
  for (const auto& c : *content) {
    if (!s.empty()) s += '+';
    s += nranks <= 26 ? fmt::format("{}{}", static_cast<char>('A' + c.rank), c.chunk)
                      : fmt::format("r{}:c{}", c.rank, c.chunk);
  }
  return s.empty() ? "-" : s;
}

std::optional<std::string> verify_symbolic(const sched::Schedule& schedule) {
  std::optional<sched::CollectiveSpec> spec;
  try {
    spec.emplace(schedule);
  } catch (const std::invalid_argument& e) {
    return fmt::format("the chunk table does not fit {}: {}", sched::collective_name(schedule.header.collective),
                       e.what());
  }
  SymbolicState state(schedule);
  for (sched::OpId id = 0; id < schedule.ops.size(); ++id)
    if (auto problem = state.apply(id)) return problem;
  for (sched::Rank r = 0; r < schedule.header.nranks; ++r) {
    for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
      const ContentView got = state.at(r, c);
      if (spec->meets(got, spec->requirement(r, c))) continue;
      return fmt::format("rank {} chunk {}: holds {} but {} needs {}", r, c, content_text(got, schedule.header.nranks),
                         sched::collective_name(schedule.header.collective),
                         content_text(spec->required(r, c), schedule.header.nranks));
    }
  }
  return std::nullopt;
}

}  // namespace collsim::validation
