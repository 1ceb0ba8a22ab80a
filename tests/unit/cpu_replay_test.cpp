// The CPU replay (validation/cpu_replay.hpp): inputs, tolerances, hand-made schedules with known
// results, and broken schedules caught at the right rank, chunk and element.
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/input_pattern.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace cpu_replay_test {

using namespace collsim;
using namespace collsim::validation;
using sched::Buffer;
using sched::Collective;
using sched::Combine;

namespace {

sched::Schedule build(Collective c, std::string_view algorithm, sched::Rank n, Bytes size, Bytes element_size = 4) {
  const auto registry = algo::builtin_registry();
  algo::Request req{c, n, size};
  req.element_size = element_size;
  return registry.find(c, algorithm).build(req);
}

// `s` without op `victim`: later ids shift down by one, deps on the victim disappear.
sched::Schedule without_op(const sched::Schedule& s, sched::OpId victim) {
  sched::Schedule out = s;
  out.ops.clear();
  out.deps.clear();
  out.dep_offsets.assign(1, 0);
  for (sched::OpId id = 0; id < s.ops.size(); ++id) {
    if (id == victim) continue;
    out.ops.push_back(s.ops[id]);
    for (const sched::OpId d : s.deps_of(id))
      if (d != victim) out.deps.push_back(d > victim ? d - 1 : d);
    out.dep_offsets.push_back(static_cast<std::uint32_t>(out.deps.size()));
  }
  return out;
}

// The exact all-reduce sum at element `e`: the sum of every rank's input there.
std::int64_t all_ranks_sum(const InputPattern& input, sched::Rank n, std::uint64_t e) {
  std::int64_t sum = 0;
  for (sched::Rank q = 0; q < n; ++q) sum += input.value(q, e);
  return sum;
}

}  // namespace

TEST_CASE("dtype and operator names", "[cpu-replay]") {
  CHECK(parse_dtype("float32") == DType::Float32);
  CHECK(parse_dtype("FLOAT") == DType::Float32);
  CHECK(parse_dtype("double") == DType::Float64);
  CHECK(parse_dtype("half") == DType::Float16);
  CHECK(parse_dtype("bf16") == DType::BFloat16);
  CHECK(parse_dtype("int32") == DType::Int32);
  CHECK(parse_dtype("uint8") == DType::UInt8);
  CHECK(parse_dtype("int8") == std::nullopt);
  CHECK(parse_dtype("") == std::nullopt);
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt8})
    CHECK(parse_dtype(dtype_name(t)) == t);
  CHECK(dtype_size(DType::Float64) == 8);
  CHECK(dtype_size(DType::BFloat16) == 2);
  CHECK(dtype_precision(DType::Float32) == 24);
  CHECK(dtype_precision(DType::BFloat16) == 8);
  CHECK(parse_reduce_op("Max") == ReduceOp::Max);
  CHECK(parse_reduce_op("avg") == std::nullopt);
}

TEST_CASE("input pattern: SplitMix64 values in 1..m, m keeping N inputs' sums exact", "[cpu-replay]") {
  // The first two outputs of SplitMix64 seeded with 0 (Steele, Lea & Flood 2014 reference code).
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafULL);
  CHECK(splitmix64(0x9e3779b97f4a7c15ULL) == 0x6e789e6aa1b965f4ULL);
  // m = min(2^16, max(1, floor(2^p / N))).
  CHECK(InputPattern(DType::Float32, ReduceOp::Sum, 8).range() == 65536);   // 2^24 / 8 = 2^21, capped
  CHECK(InputPattern(DType::Float16, ReduceOp::Sum, 3).range() == 682);     // 2048 / 3
  CHECK(InputPattern(DType::BFloat16, ReduceOp::Sum, 64).range() == 4);     // 256 / 64
  CHECK(InputPattern(DType::BFloat16, ReduceOp::Sum, 300).range() == 1);    // at least 1
  CHECK(InputPattern(DType::UInt8, ReduceOp::Sum, 3).range() == 255);
  CHECK(InputPattern(DType::Int32, ReduceOp::Sum, 3).range() == 65536);
  const InputPattern f16(DType::Float16, ReduceOp::Sum, 3);
  const InputPattern prod(DType::Int32, ReduceOp::Prod, 3);
  bool saw_minus_one = false;
  for (sched::Rank q = 0; q < 3; ++q)
    for (std::uint64_t e = 0; e < 1000; ++e) {
      const auto v = f16.value(q, e);
      CHECK((v >= 1 && v <= 682));
      const auto p = prod.value(q, e);
      CHECK((p == 1 || p == -1));
      CHECK(p == ((splitmix64((std::uint64_t{q} << 40) + e) & 1) != 0 ? -1 : 1));
      saw_minus_one = saw_minus_one || p == -1;
    }
  CHECK(saw_minus_one);
}

TEST_CASE("sum tolerance: 0 while sums stay exact, else the non-negative summation bound", "[cpu-replay]") {
  // 64 inputs of at most 2^18: partial sums stay within 2^24, exact in float32.
  CHECK(sum_tolerance(DType::Float32, 64, std::int64_t{1} << 18, 1e6) == 0);
  CHECK(sum_tolerance(DType::Float32, 65, std::int64_t{1} << 18, 1e6) > 0);
  // Two bfloat16 inputs of up to 256 may round once: ((1 + 2^-8)^1 - 1) · 300 = 300/256.
  CHECK(sum_tolerance(DType::BFloat16, 2, 256, 300) == Approx(300.0 / 256).epsilon(1e-12));
  // To first order (k-1)·u·sum (Higham eq. 4.6) and never below it.
  const double t = sum_tolerance(DType::Float16, 1000, 1000, 5e5);
  CHECK(t >= 999 * std::ldexp(1.0, -11) * 5e5);
  CHECK(t <= 1.3 * 999 * std::ldexp(1.0, -11) * 5e5);
  CHECK(sum_tolerance(DType::Int32, 1000, 65536, 1e9) == 0);
  CHECK(sum_tolerance(DType::Float64, 1, 1, 1) == 0);
}

TEST_CASE("a hand-made all-reduce on 2 ranks is verified, every value compared", "[cpu-replay]") {
  // One chunk of 8 bytes = 2 float32 elements: rank 0 adds into rank 1, rank 1 copies the sum back.
  sched::ScheduleBuilder b(Collective::AllReduce, 2, 8, sched::split_even(8, 1));
  b.send(0, 1, 0, Combine::Reduce, 1);
  b.send(1, 0, 0, Combine::Copy, 2);
  const auto s = std::move(b).build("hand");
  const auto r = replay_on_cpu(s);
  INFO(r.problem);
  CHECK(r.verified);
  CHECK(r.dtype == DType::Float32);
  CHECK(r.coverage == ReplayCoverage::Full);
  CHECK(r.values_checked == 4);  // 2 ranks x 2 elements
  CHECK(r.note.empty());
  CHECK(replay_summary(r) == "verified: float32 sum, every element (4 values compared)");

  // Without the copy back, rank 0 keeps its own input: wrong at its element 0.
  const auto broken = without_op(s, 1);
  const auto w = replay_on_cpu(broken);
  REQUIRE_FALSE(w.verified);
  REQUIRE(w.mismatch);
  CHECK(w.mismatch->rank == 0);
  CHECK(w.mismatch->chunk == 0);
  CHECK(w.mismatch->element == 0);
  const InputPattern input(DType::Float32, ReduceOp::Sum, 2);
  CHECK(w.mismatch->expected == std::to_string(input.value(0, 0) + input.value(1, 0)));
  CHECK(w.mismatch->found == std::to_string(input.value(0, 0)));
  CHECK_THAT(w.problem, Catch::StartsWith("rank 0 chunk 0 (data buffer, element 0 = byte 0): expected "));
}

TEST_CASE("dropping the last op of ring all-reduce is caught at the rank and chunk it wrote", "[cpu-replay]") {
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt8, DType::Float64}) {
    const sched::Rank n = 4;
    const auto s = build(Collective::AllReduce, "ring", n, 4 * 64);  // 4 chunks of 64 bytes
    const sched::Op victim = s.ops.back();  // an all-gather copy nobody forwards
    const auto r = replay_on_cpu(without_op(s, static_cast<sched::OpId>(s.ops.size() - 1)), {.dtype = t});
    INFO(dtype_name(t) << ": " << r.problem);
    REQUIRE(r.mismatch);
    CHECK(r.dtype == t);
    CHECK(r.mismatch->rank == victim.dst);
    CHECK(r.mismatch->chunk == victim.dst_chunk);
    CHECK(r.mismatch->buffer == Buffer::Data);
    CHECK(r.mismatch->element == s.chunks[victim.dst_chunk].offset / dtype_size(t));
    CHECK(r.mismatch->found != r.mismatch->expected);
  }
}

TEST_CASE("a reduce turned into a copy loses one contribution, seen first on rank 0", "[cpu-replay]") {
  const sched::Rank n = 5;
  auto s = build(Collective::AllReduce, "ring", n, 4 * 5 * 3);  // 5 chunks of 3 float32
  REQUIRE(s.ops[0].combine == Combine::Reduce);
  s.ops[0].combine = Combine::Copy;
  const sched::Op op = s.ops[0];
  const auto r = replay_on_cpu(s);
  REQUIRE(r.mismatch);
  // The chunk's sum misses rank op.dst's input and travels to every rank, rank 0 included.
  CHECK(r.mismatch->rank == 0);
  CHECK(r.mismatch->chunk == op.dst_chunk);
  const std::uint64_t e = s.chunks[op.dst_chunk].offset / 4;
  CHECK(r.mismatch->element == e);
  const InputPattern input(DType::Float32, ReduceOp::Sum, n);
  CHECK(r.mismatch->expected == std::to_string(all_ranks_sum(input, n, e)));
  CHECK(r.mismatch->found == std::to_string(all_ranks_sum(input, n, e) - input.value(op.dst, e)));
}

TEST_CASE("integer sums wrap: uint8 modulo 256, shown as such", "[cpu-replay]") {
  const sched::Rank n = 3;
  auto s = build(Collective::AllReduce, "ring", n, 3);  // 3 chunks of 1 byte
  s.ops[0].combine = Combine::Copy;
  const auto r = replay_on_cpu(s, {.dtype = DType::UInt8});
  REQUIRE(r.mismatch);
  const InputPattern input(DType::UInt8, ReduceOp::Sum, n);
  const std::uint64_t e = s.chunks[r.mismatch->chunk].offset;
  CHECK(r.mismatch->expected == std::to_string(all_ranks_sum(input, n, e) % 256));
}

TEST_CASE("a missing dependency shows up when ready ops run latest first", "[cpu-replay]") {
  // Broadcast from rank 0 along 0 -> 1 -> 2; the second op must wait for the first.
  sched::ScheduleBuilder b({Collective::Broadcast, 3, 8, 0, 0}, sched::split_even(8, 1));
  b.send(0, 1, 0, Combine::Copy, 1);
  b.send(1, 2, 0, Combine::Copy, 2);
  auto s = std::move(b).build("chain");
  CHECK(replay_on_cpu(s).verified);
  s.deps.clear();
  s.dep_offsets = {0, 0, 0};
  CHECK(replay_on_cpu(s, {.order = ReplayOrder::Program}).verified);  // program order hides the race
  const auto r = replay_on_cpu(s);
  CHECK_FALSE(r.verified);
  CHECK(r.problem == "op 1 (step 2): rank 1 sends chunk 0, which holds no defined data there");
}

TEST_CASE("schedules that are not schedules are reported, not crashed on", "[cpu-replay]") {
  sched::ScheduleBuilder b(Collective::AllReduce, 2, 8, sched::split_even(8, 1));
  b.send(0, 1, 0, Combine::Reduce, 1);
  b.send(1, 0, 0, Combine::Copy, 2);
  const auto good = std::move(b).build("hand");

  auto cycle = good;
  cycle.deps = {1, 0};
  cycle.dep_offsets = {0, 1, 2};
  CHECK_THAT(replay_on_cpu(cycle).problem, Catch::StartsWith("the dependencies form a cycle"));

  auto dangling = good;
  dangling.deps = {7};
  dangling.dep_offsets = {0, 0, 1};
  CHECK(replay_on_cpu(dangling).problem == "op 1 depends on op 7, which does not exist (ops 0..1)");

  auto far_rank = good;
  far_rank.ops[1].dst = 5;
  CHECK(replay_on_cpu(far_rank).problem == "op 1: rank 1 -> 5 is out of range (ranks 0..1)");

  auto wrong_size = good;
  wrong_size.header.size = 12;
  CHECK_THAT(replay_on_cpu(wrong_size).problem, Catch::StartsWith("the chunk table does not fit allreduce"));

  auto reduce_into_nothing = good;
  reduce_into_nothing.header.collective = Collective::Broadcast;  // rank 1 starts undefined
  reduce_into_nothing.header.root = 0;
  CHECK(replay_on_cpu(reduce_into_nothing).problem ==
        "op 0 (step 1): reduces into chunk 0 of rank 1, which holds no defined data");
}

TEST_CASE("sizes the dtype cannot cut are replayed as uint8, and the note says why", "[cpu-replay]") {
  const auto odd = replay_on_cpu(build(Collective::AllReduce, "ring", 3, 10));
  CHECK(odd.verified);
  CHECK(odd.dtype == DType::UInt8);
  CHECK(odd.note == "10 bytes is not a multiple of float32's 4 bytes, so the replay used uint8 (sum modulo 256)");
  // 16 bytes on 3 ranks cut in bytes (element size 1, as a schedule file may cut them): chunks of
  // 6, 5 and 5 bytes split float32 elements.
  const auto cut = replay_on_cpu(build(Collective::AllReduce, "ring", 3, 16, 1), {.op = ReduceOp::Max});
  CHECK(cut.verified);
  CHECK(cut.dtype == DType::UInt8);
  CHECK(cut.note ==
        "chunk 0 (bytes 0..6 of the data buffer) is not cut at multiples of float32's 4 bytes, so the replay used "
        "uint8 (max)");
  // Built for float32 (the default element size), the same 16 bytes are cut in whole elements,
  // 8, 4 and 4 bytes, and replay as float32; so do 12 bytes on 5 ranks (4, 4, 4, 0, 0).
  for (const auto& [n, size] : {std::pair{3u, Bytes{16}}, std::pair{5u, Bytes{12}}}) {
    const auto whole = replay_on_cpu(build(Collective::AllReduce, "ring", n, size));
    CHECK(whole.verified);
    CHECK(whole.dtype == DType::Float32);
    CHECK(whole.note.empty());
    CHECK(whole.values_checked == n * size / 4);
  }
  // 1 byte is never refused.
  for (DType t : {DType::Float64, DType::BFloat16}) {
    const auto one = replay_on_cpu(build(Collective::AllReduce, "ring", 4, 1), {.dtype = t});
    CHECK(one.verified);
    CHECK(one.dtype == DType::UInt8);
    CHECK(one.values_checked == 4);  // 1 element on each of 4 ranks
  }
}

TEST_CASE("above the full-replay limit: first and last element of every chunk, plus the symbolic replay",
          "[cpu-replay]") {
  const auto s = build(Collective::AllReduce, "ring", 4, 64);  // 4 chunks of 4 float32
  const auto full = replay_on_cpu(s);
  CHECK(full.coverage == ReplayCoverage::Full);
  CHECK(full.values_checked == 4 * 16);  // every element of every rank
  const auto sampled = replay_on_cpu(s, {.full_replay_limit = 63});
  CHECK(sampled.verified);
  CHECK(sampled.coverage == ReplayCoverage::Sampled);
  CHECK(sampled.symbolic);
  CHECK(sampled.values_checked == 4 * 4 * 2);  // 4 ranks x 4 chunks x 2 ends
  // A broken last element is found in sampled mode too.
  const sched::Op victim = s.ops.back();
  const auto broken = replay_on_cpu(without_op(s, static_cast<sched::OpId>(s.ops.size() - 1)), {.full_replay_limit = 0});
  REQUIRE(broken.mismatch);
  CHECK(broken.mismatch->rank == victim.dst);
  CHECK(broken.mismatch->chunk == victim.dst_chunk);
  // Too little memory for a full replay: sampled, with a note.
  const auto small = replay_on_cpu(s, {.memory_limit = 100});
  CHECK(small.coverage == ReplayCoverage::Sampled);
  CHECK_THAT(small.note, Catch::StartsWith("a full replay would hold 256 bytes of buffers, more than the 100 allowed"));
  CHECK_FALSE(small.symbolic);  // 4 x 4 x 4 contributions x 8 bytes = 512 > 100
  CHECK_THAT(small.note, Catch::Contains("symbolic replay skipped"));
}

TEST_CASE("a doubled contribution that max cannot see is caught by the symbolic replay", "[cpu-replay]") {
  auto s = build(Collective::AllReduce, "ring", 3, 12);
  // Append: rank 0 adds its (final) chunk 0 into rank 1's chunk 0 once more, after everything.
  const auto last = static_cast<sched::OpId>(s.ops.size());
  s.ops.push_back(sched::Op{0, 1, 0, 0, Combine::Reduce, s.steps + 1, 0});
  for (sched::OpId d = 0; d < last; ++d) s.deps.push_back(d);
  s.dep_offsets.push_back(static_cast<std::uint32_t>(s.deps.size()));
  const auto numeric = replay_on_cpu(s, {.op = ReduceOp::Max});
  CHECK(numeric.verified);  // max(x, x) = x: invisible to numbers
  const auto sum = replay_on_cpu(s);
  REQUIRE(sum.mismatch);
  CHECK(sum.mismatch->rank == 1);
  CHECK(sum.mismatch->chunk == 0);
  const auto sampled = replay_on_cpu(s, {.op = ReduceOp::Max, .full_replay_limit = 0});
  CHECK_FALSE(sampled.verified);
  CHECK_THAT(sampled.problem, Catch::StartsWith("symbolic replay: rank 1 chunk 0: holds A0+A0+B0+B0+C0+C0"));
}

TEST_CASE("bfloat16 sums of more than 256 ones round, within the derived bound", "[cpu-replay]") {
  // N = 257 ranks, every input 1 (m = 1): the exact sum 257 is no bfloat16 (256 and 258 are).
  const auto s = build(Collective::AllReduce, "ring", 257, 2 * 257);
  const auto r = replay_on_cpu(s, {.dtype = DType::BFloat16});
  INFO(r.problem);
  CHECK(r.verified);
  CHECK(r.dtype == DType::BFloat16);
}

TEST_CASE("helper ranks and scratch chunks: ps with an external server", "[cpu-replay]") {
  const auto registry = algo::builtin_registry();
  algo::Request req{Collective::AllReduce, 4, 4 * 4 * 2};
  req.ps_external_server = true;
  req.ps_shards = 2;
  auto s = registry.find(Collective::AllReduce, "ps").build(req);
  REQUIRE(s.header.helpers == 2);
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max, ReduceOp::Prod})
    for (DType t : {DType::Float16, DType::Int32}) {
      const auto r = replay_on_cpu(s, {.dtype = t, .op = op});
      INFO(r.problem);
      CHECK(r.verified);
    }
  // The first server-side reduce made a copy: the part it serves misses one worker everywhere.
  for (auto& op : s.ops)
    if (op.combine == Combine::Reduce) {
      op.combine = Combine::Copy;
      CHECK(op.src == op.dst);  // a local op on the server
      const auto r = replay_on_cpu(s);
      REQUIRE(r.mismatch);
      CHECK(r.mismatch->rank == 0);
      CHECK(r.mismatch->chunk == op.dst_chunk);  // the server's part k is data chunk k
      break;
    }
}

TEST_CASE("replay order: lowest ready id first is program order, highest first runs as late as deps allow",
          "[cpu-replay]") {
  // Ops 0 and 1 are independent; op 2 waits for op 0.
  sched::ScheduleBuilder b(Collective::AllReduce, 3, 3, sched::split_even(3, 3));
  b.send(0, 1, 0, Combine::Reduce, 1);
  b.send(0, 2, 1, Combine::Reduce, 1);
  b.send(1, 2, 0, Combine::Reduce, 2);
  const auto s = std::move(b).build("dag");
  std::vector<sched::OpId> order;
  CHECK(replay_order(s, ReplayOrder::Program, order) == std::nullopt);
  CHECK(order == std::vector<sched::OpId>{0, 1, 2});
  CHECK(replay_order(s, ReplayOrder::LatestReadyFirst, order) == std::nullopt);
  CHECK(order == std::vector<sched::OpId>{1, 0, 2});
  auto broken = s;
  broken.dep_offsets.pop_back();
  CHECK_THAT(*replay_order(broken, ReplayOrder::Program, order), Catch::StartsWith("the dependency table has 3 offsets"));
}
}  // namespace cpu_replay_test
