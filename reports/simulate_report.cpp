#include "reports/simulate_report.hpp"

#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"
#include "sim/schedule/json_io.hpp"
#include "topologies/routing.hpp"

namespace collsim::reports {
namespace {

double utilization(const topo::Link& link, Bytes bytes, Time makespan) {
  if (makespan <= Time{0}) return 0;
  return static_cast<double>(bytes) * 8e12 / (static_cast<double>(link.bandwidth.bits_per_s) * static_cast<double>(makespan.count()));
}

std::string bottleneck_label(const SimulationView& v) {
  return v.summary.bottleneck_link ? v.topology.link_label(*v.summary.bottleneck_link) : std::string();
}

// Long tables are cut to their head and tail: people read the pattern, programs read the JSON.
constexpr std::size_t kHead = 8;
constexpr std::size_t kTail = 4;
bool elided(std::size_t i, std::size_t n) { return n > kHead + kTail + 1 && i >= kHead && i + kTail < n; }

std::string_view coverage_name(validation::ReplayCoverage c) {
  return c == validation::ReplayCoverage::Full ? "full" : "sampled";
}

nlohmann::ordered_json verification_json(const validation::ReplayReport& r) {
  using nlohmann::ordered_json;
  const auto text_or_null = [](const std::string& t) { return t.empty() ? ordered_json(nullptr) : ordered_json(t); };
  ordered_json mismatch(nullptr);
  if (const auto& m = r.mismatch)
    mismatch = {{"rank", m->rank},         {"chunk", m->chunk},       {"buffer", sched::buffer_name(m->buffer)},
                {"element", m->element},   {"expected", m->expected}, {"found", m->found}};
  return {{"dtype", validation::dtype_name(r.dtype)},
          {"op", r.reduces ? ordered_json(validation::reduce_op_name(r.op)) : ordered_json(nullptr)},  // moved, not combined
          {"coverage", coverage_name(r.coverage)},
          {"values_checked", r.values_checked},
          {"symbolic", r.symbolic},
          {"note", text_or_null(r.note)},
          {"problem", text_or_null(r.problem)},
          {"mismatch", mismatch}};
}

}  // namespace

std::string render_json(const SimulationView& v) {
  const sim::Summary& s = v.summary;
  nlohmann::ordered_json j;
  j["collective"] = sched::collective_name(s.collective);
  j["algorithm"] = s.algorithm;
  if (!s.algorithm_choice.empty()) j["algorithm_choice"] = s.algorithm_choice;  // only for NCCL's choice
  j["topology"] = s.topology;
  j["network"] = s.network;
  j["protocol"] = s.protocol;
  j["protocol_source"] = s.protocol_source;
  j["channels"] = s.channels;
  j["channels_source"] = s.channels_source;
  j["slice_bytes"] = s.slice;
  j["slice_source"] = s.slice_source;
  j["chunk_bytes"] = s.chunk;
  j["chunk_source"] = s.chunk_source;
  j["ranks"] = s.ranks;
  j["root"] = s.root ? nlohmann::ordered_json(*s.root) : nlohmann::ordered_json(nullptr);
  j["size_bytes"] = s.size;
  j["steps"] = s.steps;
  // ps / 1e6 is correctly rounded and printed shortest-round-trip, so it reads back exactly.
  j["time_us"] = to_us(s.time);
  j["time_ps"] = s.time.count();
  j["algbw_GBps"] = s.algbw_GBps ? nlohmann::ordered_json(*s.algbw_GBps) : nlohmann::ordered_json(nullptr);
  j["busbw_GBps"] = s.busbw_GBps ? nlohmann::ordered_json(*s.busbw_GBps) : nlohmann::ordered_json(nullptr);
  j["bytes_sent_per_rank_max"] = s.bytes_sent_per_rank_max;
  j["traffic_factor"] = s.traffic_factor;
  j["closed_form_us"] = s.closed_form ? nlohmann::ordered_json(to_us(*s.closed_form)) : nlohmann::ordered_json(nullptr);
  j["model"] = s.model.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.model);
  j["model_us"] = s.model_time ? nlohmann::ordered_json(to_us(*s.model_time)) : nlohmann::ordered_json(nullptr);
  // None where a helper rank (a server, a switch that reduces) lets GPUs beat it, as closed_form_us.
  j["lower_bound_us"] = s.helpers > 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(to_us(s.lower_bound));
  j["injection_bandwidth_GBps"] = to_GBps(s.injection_bandwidth);
  j["bottleneck_link"] = s.bottleneck_link ? nlohmann::ordered_json(bottleneck_label(v)) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json busiest = nlohmann::ordered_json::array();
  for (topo::LinkId l : s.busiest_switch_links)
    busiest.push_back({{"link", v.topology.link_label(l)}, {"bytes", v.result.links[l].bytes}});
  j["busiest_switch_links"] = std::move(busiest);
  j["switch_link_imbalance"] =
      s.switch_link_imbalance ? nlohmann::ordered_json(*s.switch_link_imbalance) : nlohmann::ordered_json(nullptr);
  const auto routing = topo::routing_in_effect(v.topology);
  j["routing"] = routing ? nlohmann::ordered_json(*routing) : nlohmann::ordered_json(nullptr);
  j["events"] = s.events;
  j["rank_images"] = s.rank_images;
  j["gpus_per_thread"] = s.gpus_per_thread;
  j["host_us"] = to_us(s.host_time);
  j["host_bound"] = s.host_bound;
  j["collective_us"] = to_us(s.collective_time);
  if (v.verification) {
    j["verified"] = v.verification->verified;
    j["verification"] = verification_json(*v.verification);
  }
  auto& ranks = j["per_rank"] = nlohmann::ordered_json::array();
  for (sched::Rank r = 0; r < v.result.ranks.size(); ++r) {
    ranks.push_back({{"rank", r},
                     {"gpu", v.topology.node(v.rank_to_gpu[r]).id},
                     {"bytes_sent", v.result.ranks[r].sent},
                     {"bytes_received", v.result.ranks[r].received}});
  }
  auto& links = j["links"] = nlohmann::ordered_json::array();
  for (topo::LinkId l = 0; l < v.result.links.size(); ++l) {
    const auto& t = v.result.links[l];
    if (t.bytes == 0) continue;
    const topo::Link& link = v.topology.link(l);
    links.push_back({{"from", v.topology.node(link.from).id},
                     {"to", v.topology.node(link.to).id},
                     {"type", topo::link_type_name(link.type)},
                     {"bandwidth_GBps", to_GBps(link.bandwidth)},
                     {"bytes", t.bytes},
                     {"busy_us", to_us(t.busy)},
                     {"utilization", utilization(link, t.bytes, s.time)}});
  }
  return j.dump(2) + "\n";
}

std::string render_csv(const SimulationView& v) {
  const sim::Summary& s = v.summary;
  std::string out =
      "topology,network,collective,algorithm,ranks,size_bytes,steps,time_us,time_ps,algbw_GBps,busbw_GBps,"
      "bytes_sent_per_rank_max,traffic_factor,closed_form_us,lower_bound_us,injection_bandwidth_GBps,bottleneck_link,"
      "events,protocol,channels,slice_bytes,model,model_us,protocol_source,channels_source,slice_source,"
      "chunk_bytes,chunk_source,gpus_per_thread,host_us,host_bound,collective_us,switch_link_imbalance,rank_images,root,"
      "routing\n";
  out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(s.topology), s.network,
                     sched::collective_name(s.collective), csv_field(s.algorithm), s.ranks, s.size, s.steps,
                     format_time_us_exact(s.time), s.time.count(), csv_number(s.algbw_GBps), csv_number(s.busbw_GBps),
                     s.bytes_sent_per_rank_max, s.traffic_factor,
                     s.closed_form ? format_time_us_exact(*s.closed_form) : std::string(), s.helpers > 0 ? std::string() : format_time_us_exact(s.lower_bound),
                     to_GBps(s.injection_bandwidth), csv_field(bottleneck_label(v)), s.events, s.protocol, s.channels,
                     s.slice, s.model, s.model_time ? format_time_us_exact(*s.model_time) : std::string(),
                     csv_field(s.protocol_source), csv_field(s.channels_source), csv_field(s.slice_source),
                     s.chunk, csv_field(s.chunk_source), s.gpus_per_thread, format_time_us_exact(s.host_time),
                     s.host_bound, format_time_us_exact(s.collective_time), csv_number(s.switch_link_imbalance),
                     s.rank_images, s.root ? std::to_string(*s.root) : std::string(),
                     topo::routing_in_effect(v.topology).value_or(std::string_view()));
  if (const auto* r = v.verification) {
    // Appended columns, so that readers of the plain header keep working.
    out.insert(out.find('\n'), ",verified,verify_dtype,verify_op,verify_coverage,verify_problem");
    out.insert(out.size() - 1, fmt::format(",{},{},{},{},{}", r->verified, validation::dtype_name(r->dtype),
                                           r->reduces ? validation::reduce_op_name(r->op) : "", coverage_name(r->coverage),
                                           csv_field(r->problem)));
  }
  return out;
}

std::string render_table(const SimulationView& v) {
  const sim::Summary& s = v.summary;
  sched::Ratio f = sched::bandwidth_factor(s.collective, s.ranks);
  if (const auto g = std::gcd(f.num, f.den); g > 1) f = {f.num / g, f.den / g};
  std::string out = fmt::format("{} {} of {} ({} B) on {} rank{} of {} (network model: {})\n\n", s.algorithm,
                                sched::collective_name(s.collective), format_size(s.size), s.size, s.ranks,
                                s.ranks == 1 ? "" : "s", s.topology, s.network);
  const auto row = [&out](std::string_view k, const std::string& val) { out += fmt::format("  {:<22}{}\n", k, val); };
  if (s.root) row("root", fmt::format("rank {}", *s.root));
  row("time", format_time(s.time));
  if (s.host_bound || s.gpus_per_thread > 1) {
    const Time each{s.host_time.count() / s.gpus_per_thread};
    row("host", fmt::format("{}  ({} GPU{} per thread ({}) x {} for {}; {})", format_time(s.host_time),
                            s.gpus_per_thread, s.gpus_per_thread == 1 ? "" : "s", s.gpus_per_thread_source,
                            format_time(each), s.size == 0 ? "an empty call, which launches nothing" : "a launch",
                            s.host_bound ? fmt::format("the host sets the time: the collective alone takes {}",
                                                       format_time(s.collective_time))
                                         : "below the collective's time"));
  }
  row("closed form", s.closed_form ? fmt::format("{}  (alpha-beta model of the algorithm)", format_time(*s.closed_form))
                                     : s.size == 0 && s.protocol != "none"
                                         ? std::string("- (none: NCCL discards a collective of 0 bytes, nothing runs)")
                                         : std::string("- (none for this algorithm and fabric yet)"));
  if (!s.model.empty())
    row(fmt::format("model ({})", s.model),
        s.model_time ? fmt::format("{}  ({})", format_time(*s.model_time),
                                   s.model == "nccl" ? "NCCL's tuning model, src/graph/tuning.cc" : "alpha-beta closed form")
                     : std::string("- (none for this algorithm and fabric)"));
  row("lower bound", s.helpers > 0 ? std::string("- (none: a helper rank, a server or a switch that reduces, "
                                                "lets each GPU send only S)")
                                    : fmt::format("{}  ({}/{} x S / {} per GPU)", format_time(s.lower_bound), f.num,
                                                  f.den, format_bandwidth(s.injection_bandwidth)));
  row("steps", fmt::format("{}", s.steps));
  if (!s.algorithm_choice.empty()) row("algorithm", fmt::format("{}  ({})", s.algorithm, s.algorithm_choice));
  row("protocol", fmt::format("{}  ({})", s.protocol, s.protocol_source));
  row("channels", fmt::format("{}  ({})", s.channels, s.channels_source));
  row("slice", s.slice == 0 ? fmt::format("none, chunks move whole  ({})", s.slice_source)
                            : fmt::format("{}  ({})", format_size(s.slice), s.slice_source));
  if (s.chunk != 0) row("pipeline chunk", fmt::format("{}  ({})", format_size(s.chunk), s.chunk_source));
  row("algbw", s.algbw_GBps ? fmt::format("{:.2f} GB/s", *s.algbw_GBps) : "- (time is 0)");
  row("busbw", s.busbw_GBps ? fmt::format("{:.2f} GB/s  (algbw x {}/{})", *s.busbw_GBps, f.num, f.den) : "-");
  row("sent per rank (max)", fmt::format("{} B = {:.6g} x S", s.bytes_sent_per_rank_max, s.traffic_factor));
  if (s.bottleneck_link) {
    const auto& l = v.topology.link(*s.bottleneck_link);
    row("bottleneck link", fmt::format("{} ({}, {}): {} B", v.topology.link_label(*s.bottleneck_link),
                                       topo::link_type_name(l.type), format_bandwidth(l.bandwidth),
                                       v.result.links[*s.bottleneck_link].bytes));
  } else {
    row("bottleneck link", "- (no data moved)");
  }
  if (s.switch_link_imbalance) {
    std::string busiest;
    for (topo::LinkId l : s.busiest_switch_links)
      busiest += fmt::format("{}{} {} B", busiest.empty() ? "" : ", ", v.topology.link_label(l), v.result.links[l].bytes);
    const auto routing = topo::routing_in_effect(v.topology);
    row("switch links", fmt::format("busiest {}; max/mean {:.2f}{}", busiest, *s.switch_link_imbalance,
                                    routing ? fmt::format(" (routing {})", *routing) : std::string()));
  }
  if (s.rank_images > 1)
    row("events", fmt::format("{}  ({} of {} ranks simulated; the rest repeat them by rank symmetry)", s.events,
                              s.ranks / s.rank_images, s.ranks));
  else
    row("events", fmt::format("{}", s.events));

  out += fmt::format("\n  {:>5}  {:<12} {:>16} {:>16}\n", "rank", "gpu", "bytes sent", "bytes received");
  const std::size_t nranks = v.result.ranks.size();
  for (sched::Rank r = 0; r < nranks; ++r) {
    if (elided(r, nranks)) {
      if (r == kHead) out += fmt::format("  {:>5}  ({} more ranks; --format json lists every one)\n", "...", nranks - kHead - kTail);
      continue;
    }
    out += fmt::format("  {:>5}  {:<12} {:>16} {:>16}\n", r, v.topology.node(v.rank_to_gpu[r]).id,
                       v.result.ranks[r].sent, v.result.ranks[r].received);
  }

  // The replay's verdict ends the table, where people and `grep ^verified` find it.
  const std::string verdict = v.verification ? "\n" + validation::replay_summary(*v.verification) + "\n" : "";
  std::vector<topo::LinkId> used;
  for (topo::LinkId l = 0; l < v.result.links.size(); ++l)
    if (v.result.links[l].bytes > 0) used.push_back(l);
  if (used.empty()) return out + "\n  no link carried data\n" + verdict;
  out += fmt::format("\n  {:<28} {:<10} {:>12} {:>16} {:>14} {:>6}\n", "link", "type", "bandwidth", "bytes", "busy",
                     "util");
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (elided(i, used.size())) {
      if (i == kHead) out += fmt::format("  ... ({} more links; --format json lists every one)\n", used.size() - kHead - kTail);
      continue;
    }
    const topo::LinkId l = used[i];
    const auto& t = v.result.links[l];
    const topo::Link& link = v.topology.link(l);
    out += fmt::format("  {:<28} {:<10} {:>12} {:>16} {:>14} {:>5.1f}%\n", v.topology.link_label(l),
                       topo::link_type_name(link.type), format_bandwidth(link.bandwidth), t.bytes, format_time(t.busy),
                       100.0 * utilization(link, t.bytes, s.time));
  }
  return out + verdict;
}

}  // namespace collsim::reports
