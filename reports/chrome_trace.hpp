// Timelines of one run in the Chrome trace event format (the JSON that Perfetto and
// chrome://tracing open; "Trace Event Format", Google, 2016: complete events "ph":"X" with ts and
// dur in microseconds, metadata events "ph":"M" naming processes and threads).
//
// Two groups of tracks: "links" (one track per directed link that carried data) and "ranks" (one
// per rank). A slice is one transfer: on a link from its first byte leaving to its last byte
// leaving (latency excluded), on its sending rank from the op being ready to its data having
// arrived. Slices that overlap on one track (transfers sharing a link under the flow model, or a
// rank sending to several peers at once) go to sub-tracks "#2", "#3", ..., lowest free first, so
// no two slices of one track overlap. Each slice's args give op, src, dst, chunk, step, bytes,
// combine and its exact begin_ps/end_ps.
#pragma once

#include <ostream>
#include <span>
#include <vector>

#include "sim/engine.hpp"

namespace collsim::reports {

/// Records when each transfer (op id) transmits, for write_chrome_trace. One per run.
class TraceRecorder final : public net::TransferObserver {
 public:
  void transmit_begin(Time now, net::TransferId id) override;
  void transmit_end(Time now, net::TransferId id) override;
  /// When op `id` started and stopped transmitting; {0, 0} for an op that never used the network.
  [[nodiscard]] std::pair<Time, Time> span_of(net::TransferId id) const;

 private:
  std::vector<std::pair<Time, Time>> spans_;  // by transfer id
};

/// Writes the trace of `result` (a run of `schedule` on `topology`, rank r on rank_to_node[r],
/// recorded by `recorder`) to `out` as one JSON object {"traceEvents": [...], "displayTimeUnit":
/// "ns", "otherData": {...}}. Deterministic.
void write_chrome_trace(std::ostream& out, const TraceRecorder& recorder, const sched::Schedule& schedule,
                        const topo::Topology& topology, std::span<const topo::NodeId> rank_to_node,
                        const sim::Result& result);

}  // namespace collsim::reports
