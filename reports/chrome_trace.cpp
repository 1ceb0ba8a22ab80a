#include "reports/chrome_trace.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "topologies/routes.hpp"

namespace collsim::reports {
namespace {

using nlohmann::ordered_json;

constexpr int kLinksPid = 1;
constexpr int kRanksPid = 2;

struct Slice {
  Time begin{0};
  Time end{0};
  sched::OpId op = 0;
};

// Greedy interval partitioning (sorted by start, lowest free lane first): the fewest lanes such
// that no two slices of a lane overlap. Returns each slice's lane, in the order of `slices`.
std::vector<std::size_t> assign_lanes(std::vector<Slice>& slices) {
  std::sort(slices.begin(), slices.end(),
            [](const Slice& a, const Slice& b) { return std::tie(a.begin, a.op) < std::tie(b.begin, b.op); });
  std::vector<Time> lane_end;
  std::vector<std::size_t> lanes;
  for (const Slice& s : slices) {
    std::size_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] > s.begin) ++lane;
    if (lane == lane_end.size()) lane_end.push_back(s.end);
    lane_end[lane] = s.end;
    lanes.push_back(lane);
  }
  return lanes;
}

class Writer {
 public:
  explicit Writer(const sched::Schedule& schedule) : schedule_(schedule) {}

  // One track (and its sub-tracks) of process `pid` named `name`, with `slices`.
  void track(int pid, const std::string& name, std::vector<Slice> slices, std::string_view category) {
    const auto lanes = assign_lanes(slices);
    const std::size_t count = lanes.empty() ? 1 : *std::max_element(lanes.begin(), lanes.end()) + 1;
    const int first_tid = next_tid_;
    for (std::size_t k = 0; k < count; ++k) {
      const int tid = next_tid_++;
      const std::string label = k == 0 ? name : fmt::format("{} #{}", name, k + 1);
      events_.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", label}}}});
      events_.push_back(
          {{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
    for (std::size_t i = 0; i < slices.size(); ++i) events_.push_back(slice(pid, first_tid + static_cast<int>(lanes[i]), slices[i], category));
  }

  void process(int pid, std::string_view name) {
    events_.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  }

  ordered_json take() { return std::move(events_); }

 private:
  ordered_json slice(int pid, int tid, const Slice& s, std::string_view category) const {
    const sched::Op& op = schedule_.ops[s.op];
    const bool reduce = op.combine == sched::Combine::Reduce;
    return {{"ph", "X"},
            {"name", fmt::format("{} chunk {} r{}->r{} step {}", reduce ? "reduce" : "copy", op.src_chunk, op.src,
                                 op.dst, op.step)},
            {"cat", category},
            {"pid", pid},
            {"tid", tid},
            {"ts", to_us(s.begin)},
            {"dur", to_us(s.end - s.begin)},
            {"args",
             {{"op", s.op},
              {"src", op.src},
              {"dst", op.dst},
              {"chunk", op.src_chunk},
              {"step", op.step},
              {"bytes", schedule_.op_bytes(s.op)},
              {"combine", reduce ? "reduce" : "copy"},
              {"begin_ps", s.begin.count()},
              {"end_ps", s.end.count()}}}};
  }

  const sched::Schedule& schedule_;
  ordered_json events_ = ordered_json::array();
  int next_tid_ = 1;
};

}  // namespace

void TraceRecorder::transmit_begin(Time now, net::TransferId id) {
  if (id >= spans_.size()) spans_.resize(static_cast<std::size_t>(id) + 1);
  spans_[id].first = now;
}

void TraceRecorder::transmit_end(Time now, net::TransferId id) {
  if (id >= spans_.size()) spans_.resize(static_cast<std::size_t>(id) + 1);
  spans_[id].second = now;
}

std::pair<Time, Time> TraceRecorder::span_of(net::TransferId id) const {
  return id < spans_.size() ? spans_[id] : std::pair<Time, Time>{};
}

void write_chrome_trace(std::ostream& out, const TraceRecorder& recorder, const sched::Schedule& schedule,
                        const topo::Topology& topology, std::span<const topo::NodeId> rank_to_node,
                        const sim::Result& result) {
  topo::RouteCache routes(topology);
  std::vector<std::vector<Slice>> on_link(topology.links().size());
  std::vector<std::vector<Slice>> on_rank(schedule.total_ranks());
  for (sched::OpId id = 0; id < schedule.ops.size(); ++id) {
    const sched::Op& op = schedule.ops[id];
    on_rank[op.src].push_back({result.ops[id].ready, result.ops[id].finish, id});
    if (op.src == op.dst) continue;
    const auto [begin, end] = recorder.span_of(id);
    for (topo::LinkId l : routes.get(rank_to_node[op.src], rank_to_node[op.dst], op.channel).links)
      on_link[l].push_back({begin, end, id});
  }
  Writer w(schedule);
  w.process(kLinksPid, "links");
  w.process(kRanksPid, "ranks");
  for (topo::LinkId l = 0; l < on_link.size(); ++l)
    if (!on_link[l].empty()) w.track(kLinksPid, topology.link_label(l), std::move(on_link[l]), "link");
  for (sched::Rank r = 0; r < on_rank.size(); ++r)
    w.track(kRanksPid, fmt::format("rank {} ({})", r, topology.node(rank_to_node[r]).id), std::move(on_rank[r]),
            "rank");
  ordered_json doc;
  doc["traceEvents"] = w.take();
  doc["displayTimeUnit"] = "ns";
  doc["otherData"] = {{"algorithm", schedule.algorithm},
                      {"collective", sched::collective_name(schedule.header.collective)},
                      {"topology", topology.name()},
                      {"ranks", schedule.header.nranks},
                      {"makespan_ps", result.makespan.count()}};
  out << doc.dump() << "\n";
}

}  // namespace collsim::reports
