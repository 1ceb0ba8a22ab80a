// sendrecv (algorithms/ring_sendrecv.hpp): the schedule nccl-tests' sendrecv_perf runs, its
// pre/post-conditions (sim/schedule/collective_spec.hpp), its busbw factor and closed form. Expected
// values by hand from nccl-tests src/sendrecv.cu: rank r sends its S bytes to r+1 and receives r-1's.
#include <catch2/catch.hpp>

#include "algorithms/channels.hpp"
#include "algorithms/closed_form.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_sendrecv.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_sendrecv_test {

using namespace collsim;
using sched::Collective;

TEST_CASE("sendrecv: each rank sends S to the next rank of the ring, in one step", "[algo][sendrecv]") {
  const auto s = algo::build_ring_sendrecv(algo::Request{Collective::SendRecv, 4, 1000});
  CHECK(s.steps == 1);
  REQUIRE(s.ops.size() == 4);
  for (sched::Rank r = 0; r < 4; ++r) {
    CHECK(s.ops[r].src == r);
    CHECK(s.ops[r].dst == (r + 1) % 4);
  }
  CHECK(sched::bytes_sent_per_rank(s) == std::vector<Bytes>{1000, 1000, 1000, 1000});
  CHECK_FALSE(validation::verify_symbolic(s));
  // One rank sends to itself: a local copy into its output buffer.
  const auto one = algo::build_ring_sendrecv(algo::Request{Collective::SendRecv, 1, 64});
  REQUIRE(one.ops.size() == 1);
  CHECK(one.ops[0].src == one.ops[0].dst);
  CHECK_FALSE(validation::verify_symbolic(one));
  // nccl-tests' busbw factor is 1; with one rank nothing leaves the GPU.
  CHECK(sched::bandwidth_factor(Collective::SendRecv, 8).num == 1);
  CHECK(sched::bandwidth_factor(Collective::SendRecv, 8).den == 1);
  CHECK(sched::bandwidth_factor(Collective::SendRecv, 1).num == 0);
}

TEST_CASE("sendrecv: the spec catches a schedule that sends the wrong way", "[algo][sendrecv]") {
  // Rank r sending to r-1 leaves every output with the wrong neighbour's data.
  const std::vector<sched::Chunk> chunks{sched::Chunk{0, 8, sched::Buffer::Data, 0},
                                         sched::Chunk{0, 8, sched::Buffer::Output, 0}};
  sched::ScheduleBuilder b(Collective::SendRecv, 3, 8, chunks);
  for (sched::Rank r = 0; r < 3; ++r) b.send(r, 0, (r + 2) % 3, 1, sched::Combine::Copy, 1);
  CHECK(validation::verify_symbolic(std::move(b).build("backwards")));
}

TEST_CASE("sendrecv on channels keeps its direction on every channel", "[algo][sendrecv][channels]") {
  // Odd channels reverse the ranks of the other collectives; sendrecv's would then send to r-1.
  const auto registry = algo::builtin_registry();
  const auto& ring = registry.find(Collective::SendRecv, "ring");
  for (std::uint32_t channels : {2u, 3u, 16u})
    for (Bytes size : {Bytes{7}, Bytes{1000}, Bytes{1} << 20}) {
      INFO(channels << " channels, " << size << " B");
      const auto s = algo::build_with_channels(ring, algo::Request{Collective::SendRecv, 5, size}, channels);
      CHECK_FALSE(validation::verify_symbolic(s));
      for (const auto& op : s.ops) CHECK(op.dst == (op.src + 1) % 5);
    }
}

TEST_CASE("sendrecv's closed form is one message: a + S/B", "[algo][sendrecv][closed-form]") {
  algo::AlphaBeta fabric;
  fabric.alpha = Time{1'000'000};                   // 1 us
  fabric.bandwidth = Bandwidth{8'000'000'000'000};  // 1000 GB/s: 1 MB takes 1 us
  fabric.shared_port = true;                        // one peer: the port is not shared
  const auto t = algo::closed_form_time("ring", algo::Request{Collective::SendRecv, 8, 1'000'000}, fabric);
  REQUIRE(t);
  CHECK(*t == Time{2'000'000});
}
}  // namespace algo_sendrecv_test
