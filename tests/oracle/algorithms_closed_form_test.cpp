// On a fully connected fabric (one link per GPU pair, so nothing contends) every algorithm with a
// closed form simulates to exactly that form (issue "Algorithm library", acceptance 3). The forms
// are written out here from the papers, independently of algorithms/closed_form.cpp, and the
// two are compared with the simulator.
#include <catch2/catch.hpp>

#include "algorithms/closed_form.hpp"
#include "sim/engine.hpp"
#include "sim/network/fifo_link_model.hpp"
#include "topologies/generate.hpp"

using namespace collsim;

namespace {

Time simulate(const algo::AlgorithmInfo& info, const algo::Request& req, const topo::Topology& t) {
  const auto schedule = info.build(req);
  net::FifoLinkModel model(t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().begin() + req.nranks);
  return sim::run(schedule, t, gpus, model).makespan;
}

}  // namespace

TEST_CASE("fully connected: simulated time equals the closed form", "[oracle][closed-form]") {
  const Bandwidth bw = parse_bandwidth("25GB/s");
  const Time alpha = parse_latency("1us");
  const algo::AlphaBeta fabric{alpha, bw, false};
  const auto registry = algo::builtin_registry();
  const auto tau = [&](Bytes n) { return transfer_time(n, bw); };
  int compared = 0;
  for (std::uint32_t n : {2u, 3u, 4u, 5u, 8u, 16u}) {
    const auto t = topo::generate_fabric(topo::Fabric::FullyConnected, n, bw, alpha);
    for (const Bytes size : {Bytes{n} << 20, Bytes{n} * 3000}) {
      for (const auto& info : registry.all()) {
        algo::Request req{info.collective, n, size};
        req.chunk_size = Bytes{256} << 10;
        const auto form = algo::closed_form_time(info.name, req, fabric);
        if (!form) continue;
        INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ", S = " << size);
        CHECK(simulate(info, req, t) == *form);
        ++compared;
      }
      // The published forms, written out: ring all-reduce 2(N-1)(α + S/N/B) (Patarasuk & Yuan 2009);
      // ps with one server on one link per pair 2(α + S/B); recursive doubling log2 N (α + S/B).
      algo::Request ar{sched::Collective::AllReduce, n, size};
      CHECK(algo::closed_form_time("ring", ar, fabric) == 2 * (n - 1) * (alpha + tau(size / n)));
      CHECK(algo::closed_form_time("ps", ar, fabric) == 2 * (alpha + tau(size)));
      if (n == 8) {
        CHECK(algo::closed_form_time("recursive-doubling", ar, fabric) == 3 * (alpha + tau(size)));
        // Rabenseifner for N = 8: steps send 4, 2, 1 parts then 1, 2, 4: 6α + 14·τ(S/8).
        CHECK(algo::closed_form_time("halving-doubling", ar, fabric) == 6 * alpha + 14 * tau(size / 8));
      }
    }
  }
  CHECK(compared > 60);
}

TEST_CASE("ps on one port: the server's port carries (N-1)·S each way", "[oracle][closed-form]") {
  const Bandwidth bw = parse_bandwidth("50GB/s");
  const Time alpha = parse_latency("1us");
  const auto registry = algo::builtin_registry();
  for (std::uint32_t n : {2u, 4u, 8u}) {
    const auto t = topo::generate_fabric(topo::Fabric::Switch, n, bw, alpha);
    algo::Request req{sched::Collective::AllReduce, n, Bytes{1} << 20};
    const auto form = algo::closed_form_time("ps", req, algo::AlphaBeta{2 * alpha, bw, true});
    REQUIRE(form);
    CHECK(*form == 2 * (2 * alpha + (n - 1) * transfer_time(Bytes{1} << 20, bw)));
    CHECK(simulate(registry.find(sched::Collective::AllReduce, "ps"), req, t) == *form);
  }
}
