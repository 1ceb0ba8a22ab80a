// Ring all-reduce: the seed's worked example (3 GPUs, 6 elements) table by table, the step count
// 2(N-1), the per-rank traffic 2(N-1)/N·S, and a symbolic proof that every rank ends with the sum.
#include <catch2/catch.hpp>

#include "algorithms/ring_allreduce.hpp"
#include "reports/explain.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace ring_allreduce_test {

using namespace collsim;

namespace {
sched::Schedule ring(sched::Rank n, Bytes s) { return algo::build_ring_allreduce({sched::Collective::AllReduce, n, s}); }
using Lines = std::vector<std::string>;
}  // namespace

TEST_CASE("the seed's five tables: ring all-reduce of 6 elements on 3 GPUs", "[ring][seed]") {
  // seeds/000_803837ffad897e06.txt, section 1.3.2. Terms are written in rank order
  // (the seed writes GPU2's first chunk after step 1 as "C0+B0").
  const auto s = ring(3, 6);
  const auto ex = reports::explain(s);
  REQUIRE(ex.steps.size() == 4);  // 2(N-1)

  // Table 1: the input, each GPU's 6 elements cut into 3 chunks of 2.
  CHECK(ex.inputs == Lines{"GPU0: [a0, a1 | a2, a3 | a4, a5] = [A0 | A1 | A2]",
                           "GPU1: [b0, b1 | b2, b3 | b4, b5] = [B0 | B1 | B2]",
                           "GPU2: [c0, c1 | c2, c3 | c4, c5] = [C0 | C1 | C2]"});
  // Table 2: after scatter-reduce step 1 (GPU0 -> A2 -> GPU1 -> B0 -> GPU2 -> C1 -> GPU0).
  CHECK(ex.steps[0].phase == "reduce-scatter");
  CHECK(ex.steps[0].phase_step == 1);
  CHECK(ex.steps[0].sends == Lines{"GPU0 -> GPU1: A2 (added into chunk 2)", "GPU1 -> GPU2: B0 (added into chunk 0)",
                                   "GPU2 -> GPU0: C1 (added into chunk 1)"});
  CHECK(ex.steps[0].buffers == Lines{"GPU0: [A0, A1+C1, A2]", "GPU1: [B0, B1, A2+B2]", "GPU2: [B0+C0, C1, C2]"});
  // Table 3: after step 2 each GPU holds one fully reduced chunk.
  CHECK(ex.steps[1].buffers ==
        Lines{"GPU0: [A0+B0+C0, A1+C1, A2]", "GPU1: [B0, A1+B1+C1, A2+B2]", "GPU2: [B0+C0, C1, A2+B2+C2]"});
  // Table 4: all-gather step 1 forwards S0, S1, S2.
  CHECK(ex.steps[2].phase == "all-gather");
  CHECK(ex.steps[2].phase_step == 1);
  CHECK(ex.steps[2].buffers == Lines{"GPU0: [A0+B0+C0, A1+C1, A2+B2+C2]", "GPU1: [A0+B0+C0, A1+B1+C1, A2+B2]",
                                     "GPU2: [B0+C0, A1+B1+C1, A2+B2+C2]"});
  // Table 5: every GPU holds [S0, S1, S2].
  const std::string all = "[A0+B0+C0, A1+B1+C1, A2+B2+C2]";
  CHECK(ex.steps[3].buffers == Lines{"GPU0: " + all, "GPU1: " + all, "GPU2: " + all});
  // Each GPU sent 2(N-1)/N · 6 = 8 elements (seed section 1.3.3).
  CHECK(ex.elements_sent == std::vector<Bytes>{8, 8, 8});
}

TEST_CASE("rank r sends chunk (r - s) mod N to r+1 in reduce-scatter step s", "[ring]") {
  // Issue "collsim simulate", point 4.
  for (sched::Rank n : {2u, 3u, 5u, 8u}) {
    const auto s = ring(n, 1000);
    REQUIRE(s.ops.size() == 2ull * n * (n - 1));
    for (const auto& op : s.ops) {
      CHECK(op.dst == (op.src + 1) % n);
      CHECK(op.src_chunk == op.dst_chunk);
      if (op.step <= n - 1) {
        CHECK(op.combine == sched::Combine::Reduce);
        CHECK(op.src_chunk == (op.src + n - op.step % n) % n);
      } else {
        const std::uint32_t ag = op.step - (n - 1);  // all-gather step, 1-based
        CHECK(op.combine == sched::Combine::Copy);
        CHECK(op.src_chunk == (op.src + n - ag % n + 1) % n);
      }
    }
  }
}

TEST_CASE("ring all-reduce computes the all-reduce for every N and size", "[ring][verify]") {
  for (sched::Rank n = 1; n <= 64; n = n < 17 ? n + 1 : n * 2) {
    for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{n - 1}, Bytes{n}, Bytes{2 * n + 1}, Bytes{1} << 20}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = ring(n, size);
      CHECK(s.steps == 2 * (n - 1));
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("a broken ring is caught by the symbolic check", "[ring][verify]") {
  // Drop the last all-gather op: rank 0 then misses a reduced chunk.
  auto s = ring(4, 4000);
  s.ops.pop_back();
  s.dep_offsets.pop_back();
  const auto problem = validation::verify_symbolic(s);
  REQUIRE(problem.has_value());
  CHECK_THAT(*problem, Catch::Contains("rank 0"));
}

TEST_CASE("explain works for every N up to 26 and ends with the full sum everywhere", "[ring][explain]") {
  for (sched::Rank n = 1; n <= 26; ++n) {
    for (Bytes elements : {Bytes{1}, Bytes{n}, Bytes{3 * n + 2}}) {
      const auto s = ring(n, elements);
      const auto ex = reports::explain(s);
      CHECK(ex.steps.size() == 2 * (n - 1));
      const auto text = reports::render_explanation(s, ex);
      CHECK_THAT(text, Catch::Contains("check: every GPU holds"));
    }
  }
  CHECK_THROWS_AS(reports::explain(ring(27, 27)), std::invalid_argument);
}
}  // namespace ring_allreduce_test
