#include "reports/sweep_row.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"

namespace collsim::reports {
namespace {

std::string bottleneck(const sim::Summary& s, const topo::Topology& t) {
  return s.bottleneck_link ? t.link_label(*s.bottleneck_link) : std::string();
}

}  // namespace

std::string sweep_csv_header() {
  return "row,topology,fabric,network,ranks,collective,algorithm,size_bytes,count,type,steps,time_us,time_ps,"
         "algbw_GBps,busbw_GBps,traffic_factor,bytes_sent_per_rank_max,lower_bound_us,closed_form_us,"
         "injection_bandwidth_GBps,bottleneck_link,events,protocol,channels,host_us,host_bound,"
         "switch_link_imbalance,root,chunk_bytes,routing,error\n";
}

std::string sweep_csv_row(const SweepRowContext& c, const sim::Summary& s, const topo::Topology& t) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},\n", c.row,
                     csv_field(s.topology),
                     csv_field(c.fabric), s.network, s.ranks, sched::collective_name(s.collective),
                     csv_field(s.algorithm), s.size, s.size / c.dtype_bytes, c.dtype, s.steps,
                     format_time_us_exact(s.time), s.time.count(), csv_number(s.algbw_GBps), csv_number(s.busbw_GBps),
                     s.traffic_factor, s.bytes_sent_per_rank_max,
                     s.helpers > 0 ? std::string() : format_time_us_exact(s.lower_bound),
                     s.closed_form ? format_time_us_exact(*s.closed_form) : std::string(),
                     to_GBps(s.injection_bandwidth), csv_field(bottleneck(s, t)), s.events, s.protocol, s.channels,
                     format_time_us_exact(s.host_time), s.host_bound, csv_number(s.switch_link_imbalance),
                     s.root ? std::to_string(*s.root) : std::string(), s.chunk,
                     topo::routing_in_effect(t).value_or(std::string_view()));
}

namespace {
// The columns that say which row it is (row .. type), shared by a result row and an error row.
nlohmann::ordered_json identity_json(const SweepRowContext& c, const SweepRowIdentity& r) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["row"] = c.row;
  j["topology"] = r.topology;
  j["fabric"] = c.fabric.empty() ? ordered_json(nullptr) : ordered_json(c.fabric);
  j["network"] = r.network;
  j["ranks"] = r.ranks;
  j["collective"] = r.collective;
  j["algorithm"] = r.algorithm;
  j["size_bytes"] = r.size;
  j["count"] = r.size / c.dtype_bytes;
  j["type"] = c.dtype;
  return j;
}
}  // namespace

std::string sweep_json_row(const SweepRowContext& c, const sim::Summary& s, const topo::Topology& t) {
  using nlohmann::ordered_json;
  const auto number_or_null = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
  ordered_json j = identity_json(
      c, SweepRowIdentity{s.topology, s.network, s.ranks, sched::collective_name(s.collective), s.algorithm, s.size});
  j["steps"] = s.steps;
  j["time_us"] = to_us(s.time);
  j["time_ps"] = s.time.count();
  j["algbw_GBps"] = number_or_null(s.algbw_GBps);
  j["busbw_GBps"] = number_or_null(s.busbw_GBps);
  j["traffic_factor"] = s.traffic_factor;
  j["bytes_sent_per_rank_max"] = s.bytes_sent_per_rank_max;
  j["lower_bound_us"] = s.helpers > 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(to_us(s.lower_bound));
  j["closed_form_us"] = s.closed_form ? ordered_json(to_us(*s.closed_form)) : ordered_json(nullptr);
  j["injection_bandwidth_GBps"] = to_GBps(s.injection_bandwidth);
  j["bottleneck_link"] = s.bottleneck_link ? ordered_json(bottleneck(s, t)) : ordered_json(nullptr);
  j["events"] = s.events;
  j["protocol"] = s.protocol;
  j["channels"] = s.channels;
  j["host_us"] = to_us(s.host_time);
  j["host_bound"] = s.host_bound;
  j["switch_link_imbalance"] = number_or_null(s.switch_link_imbalance);
  j["root"] = s.root ? ordered_json(*s.root) : ordered_json(nullptr);
  j["chunk_bytes"] = s.chunk;
  const auto routing = topo::routing_in_effect(t);
  j["routing"] = routing ? ordered_json(*routing) : ordered_json(nullptr);
  j["error"] = nullptr;
  return j.dump() + "\n";
}

std::string sweep_csv_error_row(const SweepRowContext& c, const SweepRowIdentity& r, std::string_view error) {
  // The 20 result columns from steps to routing are empty: a comma before each, and one before
  // error.
  return fmt::format("{},{},{},{},{},{},{},{},{},{}{},{}\n", c.row, csv_field(r.topology), csv_field(c.fabric), r.network,
                     r.ranks, r.collective, csv_field(r.algorithm), r.size, r.size / c.dtype_bytes, c.dtype,
                     std::string(20, ','), csv_field(error));
}

std::string sweep_json_error_row(const SweepRowContext& c, const SweepRowIdentity& r, std::string_view error) {
  using nlohmann::ordered_json;
  ordered_json j = identity_json(c, r);
  for (const char* key : {"steps", "time_us", "time_ps", "algbw_GBps", "busbw_GBps", "traffic_factor",
                          "bytes_sent_per_rank_max", "lower_bound_us", "closed_form_us", "injection_bandwidth_GBps",
                          "bottleneck_link", "events", "protocol", "channels", "host_us", "host_bound",
                          "switch_link_imbalance", "root", "chunk_bytes", "routing"})
    j[key] = nullptr;
  j["error"] = error;
  return j.dump() + "\n";
}

}  // namespace collsim::reports
