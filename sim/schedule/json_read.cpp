// Reading schedule JSON: strict parsing, structural checks with JSON paths, then ScheduleBuilder
// (format: json_io.hpp, sim/schedule/schedule.schema.json).
#include "sim/schedule/json_io.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/io/text_file.hpp"
#include "sim/json/strict_json.hpp"
#include "sim/schedule/builder.hpp"
#include "sim/schedule/explicit_deps.hpp"

namespace collsim::sched {
namespace {

using nlohmann::json;

using strictjson::brief;

// Strict JSON (sim/json/strict_json.hpp), its errors as ScheduleFileError.
json parse_strict(std::string_view text, std::string_view where) {
  try {
    return strictjson::parse_strict(text, where);
  } catch (const strictjson::JsonSyntaxError& e) {
    throw ScheduleFileError(e.what());
  }
}

using Reader = strictjson::Reader<ScheduleFileError>;

constexpr std::uint64_t kU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kU64 = std::numeric_limits<std::uint64_t>::max();

// One op as the file gives it, before dependencies are settled.
struct FileOp {
  Op op;
  std::optional<std::vector<OpId>> deps;
};

FileOp read_op(const Reader& rd, const json& jop, OpId self, const Schedule& s, std::size_t nops) {
  const std::string path = fmt::format("/ops/{}", self);
  rd.object_at(jop, path, "an op object {\"src\", \"dst\", \"chunk\", \"combine\", \"step\"}");
  rd.only_keys(jop, path, {"src", "dst", "chunk", "src_chunk", "dst_chunk", "combine", "step", "channel", "deps"});
  FileOp f;
  Op& op = f.op;
  const Rank last_rank = s.total_ranks() - 1;
  const std::string rank_what =
      s.header.helpers == 0
          ? std::string("a rank")
          : fmt::format("a rank ({} participants, then {} helpers)", s.header.nranks, s.header.helpers);
  op.src = static_cast<Rank>(
      rd.uint_at(rd.member(jop, path, "src", "the sending rank"), path + "/src", 0, last_rank, rank_what));
  op.dst = static_cast<Rank>(
      rd.uint_at(rd.member(jop, path, "dst", "the receiving rank"), path + "/dst", 0, last_rank, rank_what));

  const std::uint64_t nchunks = s.chunks.size();
  const auto chunk_at = [&](const json& v, const std::string& p) -> ChunkId {
    if (nchunks == 0) rd.fail(p, fmt::format("found {}, but the chunk table is empty; expected no ops", brief(v)));
    return static_cast<ChunkId>(rd.uint_at(v, p, 0, nchunks - 1, "a chunk index into /chunks"));
  };
  const json* chunk = rd.optional(jop, "chunk");
  const json* src_chunk = rd.optional(jop, "src_chunk");
  const json* dst_chunk = rd.optional(jop, "dst_chunk");
  if (chunk != nullptr) {
    if (src_chunk != nullptr || dst_chunk != nullptr)
      rd.fail(path + (src_chunk != nullptr ? "/src_chunk" : "/dst_chunk"),
              "found both \"chunk\" and src_chunk/dst_chunk, expected either \"chunk\" (the same chunk on both ranks) "
              "or \"src_chunk\" and \"dst_chunk\"");
    op.src_chunk = op.dst_chunk = chunk_at(*chunk, path + "/chunk");
  } else {
    if (src_chunk == nullptr && dst_chunk == nullptr)
      rd.fail(path, "missing key \"chunk\" (or \"src_chunk\" and \"dst_chunk\"): the chunk the op moves");
    op.src_chunk =
        chunk_at(rd.member(jop, path, "src_chunk", "the sender's chunk, with dst_chunk"), path + "/src_chunk");
    op.dst_chunk =
        chunk_at(rd.member(jop, path, "dst_chunk", "the receiver's chunk, with src_chunk"), path + "/dst_chunk");
    const Bytes from = s.chunks[op.src_chunk].size, to = s.chunks[op.dst_chunk].size;
    if (from != to)
      rd.fail(path + "/dst_chunk",
              fmt::format("chunk {} has {} bytes but src_chunk {} has {}, expected chunks of the same size",
                          op.dst_chunk, to, op.src_chunk, from));
  }
  if (op.src == op.dst && op.src_chunk == op.dst_chunk)
    rd.fail(path, fmt::format("rank {} combines chunk {} with itself, expected a different rank or chunk", op.src,
                              op.src_chunk));

  const json& jcombine = rd.member(jop, path, "combine", kCombineNames.list(ListStyle::QuotedOr));
  const auto combine = jcombine.is_string() ? kCombineNames.parse(jcombine.get_ref<const std::string&>()) : std::nullopt;
  if (!combine)
    rd.fail(path + "/combine", fmt::format("found {}, expected \"reduce\" (add into the receiver's chunk) or \"copy\" "
                                           "(overwrite it)",
                                           brief(jcombine)));
  op.combine = *combine;
  const json& step = rd.member(jop, path, "step", "the logical step, from 1");
  if (step.is_number_unsigned() && step.get<std::uint64_t>() == 0)
    rd.fail(path + "/step", "found 0, expected a step of at least 1 (steps are 1-based)");
  op.step = static_cast<std::uint32_t>(rd.uint_at(step, path + "/step", 1, kU32, "a logical step"));
  if (const json* ch = rd.optional(jop, "channel"))
    op.channel = static_cast<std::uint16_t>(rd.uint_at(*ch, path + "/channel", 0, 65535, "a channel"));

  if (const json* jdeps = rd.optional(jop, "deps")) {
    rd.array_at(*jdeps, path + "/deps", "an array of op indices (the ops this one waits for)");
    std::vector<OpId> deps;
    std::unordered_set<OpId> seen;
    deps.reserve(jdeps->size());
    for (std::size_t k = 0; k < jdeps->size(); ++k) {
      const std::string p = fmt::format("{}/deps/{}", path, k);
      const json& jd = (*jdeps)[k];
      const auto d = static_cast<OpId>(rd.uint_at(jd, p, 0, nops - 1, "an op index into /ops"));
      if (d == self) rd.fail(p, fmt::format("op {} depends on itself, expected another op", self));
      // A set only for long lists, so that the common short ones allocate nothing more.
      const bool repeated =
          deps.size() < 32 ? std::find(deps.begin(), deps.end(), d) != deps.end() : !seen.insert(d).second;
      if (repeated) rd.fail(p, fmt::format("op {} is listed twice, expected each dependency once", d));
      deps.push_back(d);
      if (deps.size() == 32) seen.insert(deps.begin(), deps.end());
    }
    f.deps = std::move(deps);
  }
  return f;
}

// Throws when the explicit deps have a forward reference: names a cycle when they form one.
}  // namespace

Schedule parse_schedule_json(std::string_view text, std::string_view where) {
  const json doc = parse_strict(text, where);
  const Reader rd(where);
  rd.object_at(doc, "", "a schedule object with \"format\", \"collective\", \"ranks\", \"size_bytes\" and \"ops\"");
  rd.only_keys(doc, "",
               {"$schema", "description", "format", "algorithm", "collective", "ranks", "helpers", "root", "size_bytes",
                "element_size_bytes", "chunks", "phases", "ops"});
  if (const json* v = rd.optional(doc, "$schema")) (void)rd.string_at(*v, "/$schema", "a string (the schema's URL)");
  if (const json* v = rd.optional(doc, "description")) (void)rd.string_at(*v, "/description", "a non-empty string");

  const json& format = rd.member(doc, "", "format", fmt::format("\"{}\"", kScheduleFormat));
  if (!format.is_string() || format.get_ref<const std::string&>() != kScheduleFormat)
    rd.fail("/format", fmt::format("found {}, expected \"{}\" (the only schedule format this version reads)",
                                   brief(format), kScheduleFormat));

  Schedule s;  // the header, for reading the ops; the schedule itself comes from ScheduleBuilder
  const std::string algorithm =
      rd.string_at(rd.member(doc, "", "algorithm", "the algorithm's name"), "/algorithm", "a non-empty string");
  const std::string collective_text = rd.string_at(rd.member(doc, "", "collective", collective_names_list()),
                                                   "/collective", "the name of a collective");
  const auto collective = parse_collective(collective_text);
  if (!collective)
    rd.fail("/collective", fmt::format("found \"{}\", expected one of: {}", collective_text, collective_names_list()));
  s.header.collective = *collective;
  s.header.nranks = static_cast<Rank>(
      rd.uint_at(rd.member(doc, "", "ranks", "the number of participants N"), "/ranks", 1, kU32, "a number of ranks"));
  if (const json* v = rd.optional(doc, "helpers"))
    s.header.helpers =
        static_cast<Rank>(rd.uint_at(*v, "/helpers", 0, kU32 - s.header.nranks, "a number of helper ranks"));
  if (const json* v = rd.optional(doc, "root")) {
    if (s.header.collective != Collective::Broadcast && s.header.collective != Collective::Reduce)
      rd.fail("/root", fmt::format("found a root, but {} has none; expected \"root\" only for broadcast and reduce",
                                   collective_name(s.header.collective)));
    s.header.root = static_cast<Rank>(rd.uint_at(*v, "/root", 0, s.header.nranks - 1, "a participant rank"));
  }
  s.header.size = rd.uint_at(rd.member(doc, "", "size_bytes", "S in bytes, as nccl-tests counts it"), "/size_bytes", 0,
                             kU64, "a size in bytes");
  if (const json* v = rd.optional(doc, "element_size_bytes")) {
    s.header.element_size = rd.uint_at(*v, "/element_size_bytes", 1, kU64, "an element size in bytes");
    if (s.header.size % s.header.element_size != 0)
      rd.fail("/element_size_bytes",
              fmt::format("found {}, which does not divide size_bytes {}; expected a divisor of it (or leave it out "
                          "for parts counted in bytes)",
                          s.header.element_size, s.header.size));
  }

  if (const json* jchunks = rd.optional(doc, "chunks")) {
    rd.array_at(*jchunks, "/chunks", "an array of chunks {\"offset\", \"size\", \"buffer\", \"part\"}");
    s.chunks.reserve(jchunks->size());
    for (std::size_t i = 0; i < jchunks->size(); ++i) {
      const std::string path = fmt::format("/chunks/{}", i);
      const json& jc = rd.object_at((*jchunks)[i], path, "a chunk object {\"offset\", \"size\", \"buffer\", \"part\"}");
      rd.only_keys(jc, path, {"offset", "size", "buffer", "part"});
      Chunk c;
      c.offset =
          rd.uint_at(rd.member(jc, path, "offset", "the first byte"), path + "/offset", 0, kU64, "a byte offset");
      c.size = rd.uint_at(rd.member(jc, path, "size", "bytes"), path + "/size", 0, kU64 - c.offset,
                          "a size in bytes that keeps offset + size within 2^64 - 1");
      if (const json* b = rd.optional(jc, "buffer")) {
        const auto buffer = b->is_string() ? kBufferNames.parse(b->get_ref<const std::string&>()) : std::nullopt;
        if (!buffer)
          rd.fail(path + "/buffer", fmt::format("found {}, expected {}", brief(*b), kBufferNames.list(ListStyle::QuotedOr)));
        c.buffer = *buffer;
      }
      if (c.buffer != Buffer::Scratch && c.offset + c.size > s.header.size)
        rd.fail(path + "/size", fmt::format("the chunk ends at byte {}, past size_bytes {}; expected {} chunks inside "
                                            "the buffer",
                                            c.offset + c.size, s.header.size, buffer_name(c.buffer)));
      if (const json* p = rd.optional(jc, "part"))
        c.part = static_cast<Rank>(rd.uint_at(*p, path + "/part", 0, s.header.nranks - 1, "a participant rank"));
      s.chunks.push_back(c);
    }
  }
  // Checked before split_even, which would otherwise build a table of up to 2^32 chunks.
  const bool own_chunks = doc.contains("chunks");
  const std::uint64_t nchunks = own_chunks ? s.chunks.size() : s.header.nranks;
  const std::uint64_t slots = std::uint64_t{s.total_ranks()} * nchunks;
  if (slots > ScheduleBuilder::kMaxSlots)
    rd.fail(own_chunks ? "/chunks" : "/ranks",
            fmt::format("{} ranks x {} chunks is {} buffer slots; expected at most {}, as this version materialises "
                        "schedules",
                        s.total_ranks(), nchunks, slots, ScheduleBuilder::kMaxSlots));
  if (!own_chunks) s.chunks = split_even(s.header.size, s.header.nranks, s.header.element_size);

  std::vector<Phase> phases;
  if (const json* jphases = rd.optional(doc, "phases")) {
    rd.array_at(*jphases, "/phases", "an array of {\"name\", \"first_step\", \"last_step\"}");
    for (std::size_t i = 0; i < jphases->size(); ++i) {
      const std::string path = fmt::format("/phases/{}", i);
      const json& jp = rd.object_at((*jphases)[i], path, "a phase object {\"name\", \"first_step\", \"last_step\"}");
      rd.only_keys(jp, path, {"name", "first_step", "last_step"});
      Phase p;
      p.name = rd.string_at(rd.member(jp, path, "name", "a name"), path + "/name", "a non-empty string");
      const std::uint64_t after = phases.empty() ? 0 : phases.back().last_step;
      if (after == kU32) rd.fail(path, "found a phase after one that ends at the last possible step, expected none");
      p.first_step = static_cast<std::uint32_t>(rd.uint_at(
          rd.member(jp, path, "first_step", "the phase's first step"), path + "/first_step", after + 1, kU32,
          phases.empty() ? "a step (1-based)" : "a step after the previous phase (phases ascend and do not overlap)"));
      p.last_step = static_cast<std::uint32_t>(rd.uint_at(rd.member(jp, path, "last_step", "the phase's last step"),
                                                          path + "/last_step", p.first_step, kU32,
                                                          "a step no earlier than first_step"));
      phases.push_back(std::move(p));
    }
  }

  const json& jops = rd.array_at(rd.member(doc, "", "ops", "an array of ops"), "/ops", "an array of ops");
  if (jops.size() >= std::numeric_limits<OpId>::max()) rd.fail("/ops", "found 2^32-1 ops or more, expected fewer");
  std::vector<FileOp> ops;
  ops.reserve(jops.size());
  std::optional<std::size_t> with_deps, without_deps;
  for (std::size_t i = 0; i < jops.size(); ++i) {
    ops.push_back(read_op(rd, jops[i], static_cast<OpId>(i), s, jops.size()));
    (ops.back().deps ? with_deps : without_deps).emplace(i);
    if (with_deps && without_deps) {
      const std::size_t lacking = *without_deps;
      rd.fail(fmt::format("/ops/{}", lacking),
              fmt::format("missing key \"deps\": op {} lists its deps, so every op must ([] for none); expected deps "
                          "on every op, or on none to infer them from data flow",
                          *with_deps));
    }
  }

  // The builder infers dependencies in file order; with explicit deps, they are the reference the
  // explicit ones must cover.
  ScheduleBuilder builder(s.header, s.chunks);
  for (const FileOp& f : ops)
    (void)builder.send(f.op.src, f.op.src_chunk, f.op.dst, f.op.dst_chunk, f.op.combine, f.op.step, f.op.channel);
  for (Phase& p : phases) builder.add_phase(std::move(p.name), p.first_step, p.last_step);
  Schedule schedule = std::move(builder).build(algorithm);
  if (!with_deps) return schedule;

  std::vector<std::vector<OpId>> deps;
  deps.reserve(ops.size());
  for (FileOp& f : ops) deps.push_back(std::move(*f.deps));
  if (auto problem = check_explicit_deps(schedule, deps)) {
    const std::string path = problem->dep_index ? fmt::format("/ops/{}/deps/{}", problem->op, *problem->dep_index)
                                                : fmt::format("/ops/{}/deps", problem->op);
    rd.fail(path, problem->message);
  }
  set_deps(schedule, deps);
  return schedule;
}

Schedule load_schedule_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = io::read_text_file(path, fmt::format("a schedule JSON file (\"format\": \"{}\")", kScheduleFormat));
  } catch (const io::FileReadError& e) {
    throw ScheduleFileError(e.what());
  }
  return parse_schedule_json(text, path.string());
}

}  // namespace collsim::sched
