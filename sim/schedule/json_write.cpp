// Writing schedules as JSON (format: json_io.hpp, sim/schedule/schedule.schema.json).
#include "sim/schedule/json_io.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/schedule/builder.hpp"

namespace collsim::sched {
namespace {

// The dependencies ScheduleBuilder infers for `s`'s ops in their order (CSR, like Schedule).
// Precondition: `s` is structurally valid (ranks, chunks and sizes in range).
std::pair<std::vector<std::uint32_t>, std::vector<OpId>> inferred_deps(const Schedule& s) {
  ScheduleBuilder b(s.header, s.chunks);
  for (const Op& op : s.ops) b.send(op.src, op.src_chunk, op.dst, op.dst_chunk, op.combine, op.step, op.channel);
  Schedule built = std::move(b).build(s.algorithm);
  return {std::move(built.dep_offsets), std::move(built.deps)};
}

// A JSON string literal, escaped.
std::string json_string(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

}  // namespace

static_assert(kBufferNames.dense() && kBufferNames.distinct());
static_assert(kCombineNames.dense() && kCombineNames.distinct());

std::string_view buffer_name(Buffer b) noexcept { return kBufferNames.name(b); }

std::string_view combine_name(Combine c) noexcept { return kCombineNames.name(c); }

void write_schedule_json(const Schedule& s, std::ostream& out) {
  out << "{\n";
  out << fmt::format("  \"format\": {},\n", json_string(kScheduleFormat));
  out << fmt::format("  \"algorithm\": {},\n", json_string(s.algorithm));
  out << fmt::format("  \"collective\": {},\n", json_string(collective_name(s.header.collective)));
  out << fmt::format("  \"ranks\": {},\n", s.header.nranks);
  if (s.header.helpers > 0) out << fmt::format("  \"helpers\": {},\n", s.header.helpers);
  if (s.header.collective == Collective::Broadcast || s.header.collective == Collective::Reduce)
    out << fmt::format("  \"root\": {},\n", s.header.root);
  out << fmt::format("  \"size_bytes\": {},\n", s.header.size);
  if (s.header.element_size != 1) out << fmt::format("  \"element_size_bytes\": {},\n", s.header.element_size);
  if (s.chunks != split_even(s.header.size, s.header.nranks, s.header.element_size)) {
    out << "  \"chunks\": [";
    for (std::size_t i = 0; i < s.chunks.size(); ++i) {
      const Chunk& c = s.chunks[i];
      out << (i == 0 ? "\n" : ",\n")
          << fmt::format("    {{\"offset\": {}, \"size\": {}, \"buffer\": \"{}\", \"part\": {}}}", c.offset, c.size,
                         buffer_name(c.buffer), c.part);
    }
    out << (s.chunks.empty() ? "],\n" : "\n  ],\n");
  }
  if (!s.phases.empty()) {
    out << "  \"phases\": [";
    for (std::size_t i = 0; i < s.phases.size(); ++i) {
      const Phase& p = s.phases[i];
      out << (i == 0 ? "\n" : ",\n")
          << fmt::format("    {{\"name\": {}, \"first_step\": {}, \"last_step\": {}}}", json_string(p.name),
                         p.first_step, p.last_step);
    }
    out << "\n  ],\n";
  }
  // Deps are written only when the reader could not infer them, which keeps files short and
  // readable (and a template for people writing their own) while the round trip stays exact.
  const auto [offsets, deps] = inferred_deps(s);
  const bool explicit_deps = offsets != s.dep_offsets || deps != s.deps;
  out << "  \"ops\": [";
  for (OpId i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    std::string line = fmt::format("    {{\"src\": {}, \"dst\": {}, ", op.src, op.dst);
    if (op.src_chunk == op.dst_chunk) {
      line += fmt::format("\"chunk\": {}, ", op.src_chunk);
    } else {
      line += fmt::format("\"src_chunk\": {}, \"dst_chunk\": {}, ", op.src_chunk, op.dst_chunk);
    }
    line += fmt::format("\"combine\": \"{}\", \"step\": {}", combine_name(op.combine), op.step);
    if (op.channel != 0) line += fmt::format(", \"channel\": {}", op.channel);
    if (explicit_deps) line += fmt::format(", \"deps\": [{}]", fmt::join(s.deps_of(i), ", "));
    line += '}';
    out << (i == 0 ? "\n" : ",\n") << line;
  }
  out << (s.ops.empty() ? "]\n" : "\n  ]\n");
  out << "}\n";
}

}  // namespace collsim::sched
