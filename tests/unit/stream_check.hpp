// Checks a sched::OpStream against its materialised schedule (the oracle: the builder infers
// dependencies from data flow): the same run, op for op and to the picosecond.
#pragma once

#include <algorithm>
#include <functional>
#include <string_view>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/network/network_model.hpp"
#include "sim/schedule/op_stream.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"
#include "topologies/topology.hpp"

namespace collsim::testing {

/// Every op as (src, dst, bytes, ready, finish), sorted: ops between the same ranks of the same
/// size (one per chunk) differ in their times, so equal lists mean equal times op for op.
using StreamRow = std::tuple<sched::Rank, sched::Rank, Bytes, Time, Time>;

struct StreamRows final : sim::OpObserver {
  std::function<sched::StreamOp(sched::OpKey)> op;
  std::vector<StreamRow> rows;
  void op_done(sched::OpKey key, Time ready, Time finish) override {
    const auto o = op(key);
    rows.emplace_back(o.src, o.dst, o.bytes, ready, finish);
  }
};

/// Runs `stream` and the materialised `schedule` with rank r on node rank_to_node[r] (helpers too)
/// of `topology` with network model `model` and checks the makespan, the events, every op's (ready,
/// finish) and every link's bytes and busy time.
inline void check_stream_run(const sched::OpStream& stream, const sched::Schedule& schedule,
                             const topo::Topology& topology, std::string_view model,
                             const std::vector<topo::NodeId>& gpus) {
  const auto lazy_net = net::make_network_model(model, topology);
  const auto built_net = net::make_network_model(model, topology);
  const sched::ScheduleStream built_stream(schedule);
  StreamRows lazy, built;
  lazy.op = [&](sched::OpKey k) { return stream.op(k); };
  built.op = [&](sched::OpKey k) { return built_stream.op(k); };
  sim::RunOptions lazy_options, built_options;
  lazy_options.op_observer = &lazy;
  built_options.op_observer = &built;
  const auto a = sim::run(stream, topology, gpus, *lazy_net, lazy_options);
  const auto b = sim::run(schedule, topology, gpus, *built_net, built_options);
  CHECK(a.makespan == b.makespan);
  CHECK(a.events == b.events);
  std::sort(lazy.rows.begin(), lazy.rows.end());
  std::sort(built.rows.begin(), built.rows.end());
  CHECK(lazy.rows == built.rows);
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    CHECK(a.links[l].bytes == b.links[l].bytes);
    CHECK(a.links[l].busy == b.links[l].busy);
  }
}

/// check_stream_run on the first GPUs of `topology`, one a rank (no helpers).
inline void check_stream_run(const sched::OpStream& stream, const sched::Schedule& schedule,
                             const topo::Topology& topology, std::string_view model) {
  check_stream_run(stream, schedule, topology, model,
                   std::vector<topo::NodeId>(topology.gpus().begin(), topology.gpus().begin() + schedule.header.nranks));
}

/// The schedule without its ops: what a stream's header() must equal.
inline sched::Schedule shell_of(sched::Schedule schedule) {
  schedule.ops.clear();
  schedule.deps.clear();
  schedule.dep_offsets = {0};
  return schedule;
}

/// `entry`'s stream for `request` against its materialised schedule: the same header and op count,
/// and check_stream_run on a switch and a ring of N GPUs (50 GB/s, 1 us; the ring only when
/// `on_ring`: contended, it takes seconds past N = 32) with both models, and on dgx-a100 (flow)
/// for N <= 8.
inline void check_stream_entry(const algo::AlgorithmInfo& entry, const algo::Request& request, bool on_ring = true) {
  const Bandwidth bw{400'000'000'000};  // 50 GB/s
  const Time lat{1'000'000};            // 1 us
  const sched::Schedule schedule = entry.build(request);
  const auto stream = entry.stream(request);
  REQUIRE(stream != nullptr);
  CHECK(stream->header() == shell_of(schedule));
  REQUIRE(stream->op_count() == schedule.ops.size());
  for (const auto fabric : {topo::Fabric::Switch, topo::Fabric::Ring})
    for (const std::string_view model : {"flow", "fifo"}) {
      if (fabric == topo::Fabric::Ring && !on_ring) continue;
      INFO(topo::fabric_name(fabric) << ", " << model);
      check_stream_run(*stream, schedule, topo::generate_fabric(fabric, request.nranks, bw, lat), model);
    }
  if (request.nranks <= 8) check_stream_run(*stream, schedule, topo::load_topology("dgx-a100"), "flow");
}

}  // namespace collsim::testing
