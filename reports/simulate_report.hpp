// Writers for the result of `collsim simulate`: a table for people, JSON and CSV for programs.
//
// JSON keys (stable; scripts rely on them): collective, algorithm, topology, network, protocol,
// protocol_source, channels, channels_source, slice_bytes, slice_source, ranks,
// size_bytes, steps, time_us, time_ps, algbw_GBps, busbw_GBps, bytes_sent_per_rank_max,
// traffic_factor, closed_form_us (null when the algorithm has none), model and model_us (--model;
// null without it or when the formula has none), lower_bound_us, injection_bandwidth_GBps, bottleneck_link, events,
// per_rank [{rank, gpu, bytes_sent, bytes_received}],
// links [{from, to, type, bandwidth_GBps, bytes, busy_us, utilization}] (links that carried data).
// utilization = bytes / (bandwidth · time): the share of the link's capacity the run used.
// With a CPU replay (simulate --verify): verified (true/false) and verification {dtype, op,
// coverage (full|sampled), values_checked, symbolic, note, problem, mismatch {rank, chunk, buffer,
// element, expected, found}}; CSV gains the columns verified, verify_dtype, verify_op,
// verify_coverage, verify_problem. Without it, neither appears.
#pragma once

#include <span>
#include <string>

#include "sim/engine.hpp"
#include "sim/summary.hpp"
#include "validation/cpu_replay.hpp"

namespace collsim::reports {

/// Everything a report shows about one simulated collective.
struct SimulationView {
  const sim::Summary& summary;
  const sim::Result& result;
  const topo::Topology& topology;
  std::span<const topo::NodeId> rank_to_gpu;
  const validation::ReplayReport* verification = nullptr;  ///< the CPU replay's outcome, when one ran
};

/// The human table.
std::string render_table(const SimulationView& view);
/// One JSON document (pretty-printed, keys in a fixed order, newline-terminated).
std::string render_json(const SimulationView& view);
/// RFC 4180 CSV: one header row and one data row, the scalar fields of the JSON.
std::string render_csv(const SimulationView& view);

}  // namespace collsim::reports
