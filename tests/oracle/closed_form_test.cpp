// Simulated ring all-reduce against the α-β closed form on contention-free fabrics
// (issue "collsim simulate", acceptance 3-5). Expected values come from the formula
// 2(N-1)·(hops·α + ⌈S/N⌉/B), computed here, never from the program (⌈S/N⌉ in whole float32
// elements when S is a multiple of 4, see closed_form_times_bw).
#include <catch2/catch.hpp>

#include "algorithms/ring_allreduce.hpp"
#include "sim/engine.hpp"
#include "sim/network/network_model.hpp"
#include "sim/summary.hpp"
#include "sim/units/int128.hpp"
#include "topologies/bundled.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace closed_form_test {

using namespace collsim;

namespace {

struct Run {
  sched::Schedule schedule;
  sim::Result result;
  sim::Summary summary;
};

Run simulate(const topo::Topology& t, sched::Rank n, Bytes size, std::string_view model = "fifo") {
  Run r{algo::build_ring_allreduce({sched::Collective::AllReduce, n, size}), {}, {}};
  auto net = net::make_network_model(model, t);
  const auto gpus = t.gpus().first(n);
  r.result = sim::run(r.schedule, t, gpus, *net);
  r.summary = sim::summarize(r.schedule, t, gpus, r.result, "fifo");
  return r;
}

// The exact closed form, scaled by B (bits/s) to stay in integers:
// t·B = 2(N-1)·(hops·α·B + ⌈S/N⌉·8e12), with t in ps and α in ps.
u128 closed_form_times_bw(std::uint32_t n, Bytes size, std::uint32_t hops, Time alpha, Bandwidth bw) {
  // ⌈S/N⌉ counted in float32 elements (the default element size; NCCL counts in elements) when S
  // is a whole number of them, else in bytes: the largest part of split_even(S, N, 4). Where S/N is
  // a whole number of elements this is S/N exactly, as before elements were counted.
  const u128 chunk = sched::split_even(size, n, 4).front().size;
  return u128{2} * (n - 1) *
         (u128{hops} * static_cast<u128>(alpha.count()) * bw.bits_per_s + chunk * 8u * 1'000'000'000'000u);
}

void check_closed_form(topo::Fabric fabric, std::uint32_t hops, Bandwidth bw, Time alpha) {
  for (std::uint32_t n = 2; n <= 64; n += (n < 10 ? 1 : 9)) {
    const auto t = topo::generate_fabric(fabric, n, bw, alpha);
    for (Bytes size : {Bytes{1}, Bytes{n - 1}, Bytes{1000003}, Bytes{1} << 20, (Bytes{1} << 30) + 7}) {
      INFO("N = " << n << ", S = " << size);
      for (const char* model : {"fifo", "flow"}) {
      INFO("network model " << model);
      const auto r = simulate(t, n, size, model);
      const u128 exact = closed_form_times_bw(n, size, hops, alpha, bw);
      const u128 sim = static_cast<u128>(r.result.makespan.count()) * bw.bits_per_s;
      // Each transfer rounds its duration up once, to the picosecond: at most 1 ps per step late.
      CHECK(sim >= exact);
      CHECK(sim - exact < u128{2} * (n - 1) * bw.bits_per_s);
      CHECK(r.summary.steps == 2 * (n - 1));
      CHECK(r.result.makespan >= r.summary.lower_bound);
      }
    }
  }
}

}  // namespace

TEST_CASE("ring fabric: time = 2(N-1)(α + ⌈S/N⌉/B) to within 1 ps per step", "[oracle][ring]") {
  check_closed_form(topo::Fabric::Ring, 1, parse_bandwidth("25GB/s"), parse_latency("1us"));
  check_closed_form(topo::Fabric::Ring, 1, parse_bandwidth("400Gb/s"), parse_latency("700ns"));
}

TEST_CASE("switch fabric: time = 2(N-1)(2α + ⌈S/N⌉/B) to within 1 ps per step", "[oracle][switch]") {
  check_closed_form(topo::Fabric::Switch, 2, parse_bandwidth("50GB/s"), parse_latency("1us"));
  check_closed_form(topo::Fabric::Switch, 2, parse_bandwidth("3.2Tb/s"), parse_latency("250ns"));
}

TEST_CASE("size 0 is pure latency: 2(N-1)·α", "[oracle][ring]") {
  const auto t = topo::generate_fabric(topo::Fabric::Ring, 8, parse_bandwidth("25GB/s"), parse_latency("1us"));
  const auto r = simulate(t, 8, 0);
  CHECK(r.result.makespan == 14 * parse_latency("1us"));
  CHECK(r.summary.algbw_GBps == 0.0);  // 0 bytes in 14 us
}

TEST_CASE("one rank moves nothing and takes no time", "[oracle][ring]") {
  const auto t = topo::load_topology("dgx-a100");
  const auto r = simulate(t, 1, Bytes{1} << 30);
  CHECK(r.result.makespan == Time{0});
  CHECK(r.summary.steps == 0);
  CHECK(r.summary.bytes_sent_per_rank_max == 0);
}

TEST_CASE("traffic: every rank sends and receives 2(N-1) chunks, links carry 2(N-1)·S", "[oracle][traffic]") {
  // Seed section 1.3.3: each GPU sends and receives 2(N-1)/N · S.
  for (std::uint32_t n : {2u, 3u, 4u, 7u, 8u, 16u, 64u}) {
    const auto t = topo::generate_fabric(topo::Fabric::Ring, n, parse_bandwidth("25GB/s"), parse_latency("1us"));
    // N divides S's float32 elements (the default element size), so every part is S/N bytes.
    const Bytes size = Bytes{n} * 4 * 12345;
    const auto r = simulate(t, n, size);
    for (const auto& rank : r.result.ranks) {
      CHECK(rank.sent == 2 * (n - 1) * (size / n));
      CHECK(rank.received == 2 * (n - 1) * (size / n));
    }
    Bytes on_links = 0;
    for (const auto& l : r.result.links) on_links += l.bytes;
    CHECK(on_links == 2 * (n - 1) * size);
    // traffic_factor = 2(N-1)/N exactly (as a double: the same division).
    CHECK(r.summary.bytes_sent_per_rank_max * n == 2 * (n - 1) * size);
    CHECK(r.summary.traffic_factor == static_cast<double>(2 * (n - 1)) / n);
  }
}

TEST_CASE("no bundled topology lets ring all-reduce beat the bandwidth lower bound", "[oracle][property]") {
  // Lower bound 2(N-1)/N · S / B, B = a GPU's summed outgoing bandwidth (Patarasuk & Yuan 2009).
  for (const auto& b : topo::bundled_topologies()) {
    const auto t = topo::load_topology(b.name);
    const auto ngpus = static_cast<std::uint32_t>(t.gpus().size());
    for (std::uint32_t n = 1; n <= ngpus; ++n) {
      for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{7}, Bytes{1} << 10, Bytes{1000003}, Bytes{1} << 27,
                         (Bytes{1} << 32) + 3}) {
        INFO(b.name << ", N = " << n << ", S = " << size);
        const auto r = simulate(t, n, size);
        CHECK(r.result.makespan >= r.summary.lower_bound);
        CHECK(r.summary.lower_bound ==
              sim::bandwidth_lower_bound(sched::Collective::AllReduce, n, size, r.summary.injection_bandwidth));
      }
    }
  }
}

TEST_CASE("the lower bound is 2(N-1)/N · S / B, rounded down", "[oracle]") {
  // 8 ranks, 1 GiB, 300 GB/s: 14/8 · 2^30 B / 3e11 B/s = 6.263091..e-3 s.
  const Time lb = sim::bandwidth_lower_bound(sched::Collective::AllReduce, 8, Bytes{1} << 30, parse_bandwidth("300GB/s"));
  const u128 num = u128{14} * (u128{1} << 30) * 8u * 1'000'000'000'000u;
  const u128 den = u128{8} * 2'400'000'000'000u;
  CHECK(static_cast<u128>(lb.count()) == num / den);
  CHECK(sim::bandwidth_lower_bound(sched::Collective::AllReduce, 1, 1000, parse_bandwidth("1GB/s")) == Time{0});
}
}  // namespace closed_form_test
