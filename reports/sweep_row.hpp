// One row of `collsim sweep`: the scalar results of one simulated collective, as a CSV record or
// a JSON-lines object with the same keys in the same order.
//
// Columns (stable; scripts and `collsim plot` rely on them):
//   row                       position in the whole (unsharded) sweep, from 0: merge sorts by it
//   topology, fabric          topology name; generated fabric (ring|switch|fully-connected), empty for a file
//   network                   network model (flow|fifo)
//   ranks, collective, algorithm
//   size_bytes, count, type   S in bytes; S / sizeof(type) elements of --dtype (rounded down, as nccl-tests)
//   steps, time_us, time_ps   logical steps; simulated time (µs written exactly, and ps)
//   algbw_GBps, busbw_GBps    S / t and algbw · factor, GB/s = 1e9 B/s; empty when t = 0
//   traffic_factor, bytes_sent_per_rank_max
//   lower_bound_us, closed_form_us (empty when the algorithm has no closed form for the fabric)
//   injection_bandwidth_GBps, bottleneck_link, events
//   protocol, channels        what ran (NCCL's pick per size where the protocol is auto; "none": the ideal model)
//   host_us, host_bound       the host's time per iteration (--gpus-per-thread launches) and whether it set time_us
//   switch_link_imbalance     max/mean load of the switch-to-switch links (empty without them)
//   root, chunk_bytes         the root of a broadcast or reduce (empty for the others) and the pipeline
//                             chunk that ran (0 for an algorithm without one), as simulate prints them
//   error                     empty; for a row that could not be simulated (its time passes the
//                             simulated clock's end) why, with every column from steps to chunk_bytes empty
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/summary.hpp"
#include "topologies/topology.hpp"

namespace collsim::reports {

/// What a sweep row shows besides the summary.
struct SweepRowContext {
  std::uint64_t row = 0;         ///< index in the unsharded sweep
  std::string_view fabric;       ///< generator fabric name, "" for a topology file
  std::string_view dtype;        ///< element type name, e.g. "float32"
  std::uint32_t dtype_bytes = 4; ///< its size in bytes (>= 1)
};

/// What names a row that could not be simulated (its columns before the results).
struct SweepRowIdentity {
  std::string_view topology;
  std::string_view network;
  std::uint32_t ranks = 0;
  std::string_view collective;
  std::string_view algorithm;
  Bytes size = 0;
};

/// The CSV header line (newline-terminated).
std::string sweep_csv_header();
/// One CSV record (newline-terminated) for `summary`, whose links are those of `topology`.
std::string sweep_csv_row(const SweepRowContext& context, const sim::Summary& summary, const topo::Topology& topology);
/// One JSON object on one line (newline-terminated), the CSV's columns as keys; numbers as
/// numbers, empty values as null.
std::string sweep_json_row(const SweepRowContext& context, const sim::Summary& summary,
                           const topo::Topology& topology);
/// The CSV record (newline-terminated) of a row that could not be simulated: its identity, empty
/// results and `error` (one line) in the error column.
std::string sweep_csv_error_row(const SweepRowContext& context, const SweepRowIdentity& row, std::string_view error);
/// The same as one JSON object on one line: the results null, "error" the message.
std::string sweep_json_error_row(const SweepRowContext& context, const SweepRowIdentity& row, std::string_view error);

}  // namespace collsim::reports
