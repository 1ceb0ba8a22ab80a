#include "train/train_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"

namespace collsim::train {
namespace {

using nlohmann::ordered_json;

Time hidden(const Timeline& t) { return t.communication - t.exposed; }

std::string setup_line(const TrainResult& r) {
  return fmt::format("{} step of {} ({} in {}, {}, {}) on {}, algorithm {}", r.mode == Mode::Ddp ? "DDP" : "FSDP", r.model,
                     format_count(r.parameters, "parameter"), format_count(r.layers, "layer"), format_count(r.tensors, "tensor"),
                     validation::dtype_name(r.dtype), r.topology, r.algorithm);
}

std::string cap_text(const TrainResult& r, const TrainCase& c) {
  return r.mode == Mode::Ddp ? format_size(c.bucket_cap) : std::string("-");
}

}  // namespace

std::string render_table(const TrainResult& r) {
  std::string out = setup_line(r) + "\n";
  out += fmt::format("  model source          {}\n", r.model_source);
  if (r.cases.size() == 1) {
    const TrainCase& c = r.cases.front();
    const Timeline& t = c.timeline;
    out += fmt::format("  ranks                 {}\n", c.ranks);
    if (r.mode == Mode::Ddp) {
      out += fmt::format("  first bucket          {}\n", format_size(c.first_bucket));
      out += fmt::format("  bucket cap            {}\n", format_size(c.bucket_cap));
    }
    out += fmt::format("  step time             {}\n", format_time(t.step));
    out += fmt::format("  compute               {}\n", format_time(t.compute_time));
    out += fmt::format("  communication         {} in {}\n", format_time(t.communication), format_count(c.collectives.size(), "collective"));
    out += fmt::format("  exposed communication {} (hidden behind compute: {})\n", format_time(t.exposed), format_time(hidden(t)));
    if (r.mode == Mode::Ddp) {
      out += fmt::format("  bytes sent per rank   {} in all-reduce\n", c.sent_allreduce);
    } else {
      out += fmt::format("  bytes sent per rank   {} in all-gather, {} in reduce-scatter\n", c.sent_allgather,
                         c.sent_reducescatter);
    }
    out += "\n";
    out += fmt::format("{:<36} {:>7} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}  {}\n", "collective", "tensors", "bytes",
                       "ready", "start", "end", "time", "sent/rank", "algorithm");
    for (const CollectiveRow& row : c.collectives)
      out += fmt::format("{:<36} {:>7} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}  {}\n", row.span.name, row.tensors,
                         row.span.bytes, format_time(row.span.ready), format_time(row.span.start),
                         format_time(row.span.end), format_time(row.span.end - row.span.start), row.bytes_sent_per_rank,
                         row.algorithm);
    return out;
  }
  out += "\n";
  out += fmt::format("{:>7} {:>12} {:>12} {:>11} {:>16} {:>16} {:>16} {:>16}\n", "ranks", "first bucket", "bucket cap",
                     "collectives", "step", "compute", "communication", "exposed");
  for (const TrainCase& c : r.cases)
    out += fmt::format("{:>7} {:>12} {:>12} {:>11} {:>16} {:>16} {:>16} {:>16}\n", c.ranks,
                       r.mode == Mode::Ddp ? format_size(c.first_bucket) : std::string("-"), cap_text(r, c),
                       c.collectives.size(),
                       format_time(c.timeline.step), format_time(c.timeline.compute_time),
                       format_time(c.timeline.communication), format_time(c.timeline.exposed));
  return out;
}

std::string render_json(const TrainResult& r) {
  ordered_json j;
  j["mode"] = mode_name(r.mode);
  j["model"] = r.model;
  j["model_source"] = r.model_source;
  j["parameters"] = r.parameters;
  j["layers"] = r.layers;
  j["tensors"] = r.tensors;
  j["dtype"] = validation::dtype_name(r.dtype);
  j["topology"] = r.topology;
  j["algorithm"] = r.algorithm;
  j["cases"] = ordered_json::array();
  for (const TrainCase& c : r.cases) {
    ordered_json k;
    k["ranks"] = c.ranks;
    if (r.mode == Mode::Ddp) {
      k["bucket_cap_bytes"] = c.bucket_cap;
      k["first_bucket_bytes"] = c.first_bucket;
    }
    k["step_us"] = format_time_us_exact(c.timeline.step);
    k["compute_us"] = format_time_us_exact(c.timeline.compute_time);
    k["communication_us"] = format_time_us_exact(c.timeline.communication);
    k["exposed_us"] = format_time_us_exact(c.timeline.exposed);
    k["hidden_us"] = format_time_us_exact(hidden(c.timeline));
    k["bytes_sent_per_rank"] = {{"allreduce", c.sent_allreduce},
                                {"allgather", c.sent_allgather},
                                {"reducescatter", c.sent_reducescatter}};
    k["collectives"] = ordered_json::array();
    for (const CollectiveRow& row : c.collectives) {
      ordered_json x;
      x["name"] = row.span.name;
      x["collective"] = sched::collective_name(row.span.collective);
      x["index"] = row.span.index;
      x["bytes"] = row.span.bytes;
      x["tensors"] = row.tensors;
      x["first_layer"] = row.first_layer;
      x["last_layer"] = row.last_layer;
      x["ready_us"] = format_time_us_exact(row.span.ready);
      x["start_us"] = format_time_us_exact(row.span.start);
      x["end_us"] = format_time_us_exact(row.span.end);
      x["time_us"] = format_time_us_exact(row.span.end - row.span.start);
      x["bytes_sent_per_rank"] = row.bytes_sent_per_rank;
      x["algorithm"] = row.algorithm;
      x["algorithm_choice"] = row.algorithm_choice;
      k["collectives"].push_back(std::move(x));
    }
    j["cases"].push_back(std::move(k));
  }
  return j.dump(2) + "\n";
}

std::string render_csv(const TrainResult& r) {
  std::string out =
      "mode,model,parameters,dtype,topology,algorithm,ranks,bucket_cap_bytes,first_bucket_bytes,collectives,step_us,"
      "compute_us,communication_us,exposed_us,hidden_us,sent_allreduce_bytes,sent_allgather_bytes,"
      "sent_reducescatter_bytes\n";
  for (const TrainCase& c : r.cases) {
    const Timeline& t = c.timeline;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", mode_name(r.mode), reports::csv_field(r.model),
                       r.parameters, validation::dtype_name(r.dtype), reports::csv_field(r.topology),
                       reports::csv_field(r.algorithm), c.ranks, r.mode == Mode::Ddp ? std::to_string(c.bucket_cap) : "",
                       r.mode == Mode::Ddp ? std::to_string(c.first_bucket) : "", c.collectives.size(),
                       format_time_us_exact(t.step), format_time_us_exact(t.compute_time),
                       format_time_us_exact(t.communication), format_time_us_exact(t.exposed),
                       format_time_us_exact(hidden(t)), c.sent_allreduce, c.sent_allgather, c.sent_reducescatter);
  }
  return out;
}

void write_trace(std::ostream& out, const TrainResult& r, const TrainCase& c) {
  ordered_json events = ordered_json::array();
  const auto meta = [&](int tid, const char* name) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", tid}, {"args", {{"name", name}}}});
  };
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", setup_line(r)}}}});
  meta(0, "compute");
  meta(1, "communication");
  // Microseconds with the picoseconds' exact digits (the format's unit is the microsecond).
  const auto us = [](Time t) { return ordered_json::parse(format_time_us_exact(t)); };
  for (const Span& s : c.timeline.compute)
    if (s.end > s.start)
      events.push_back({{"name", s.name}, {"ph", "X"}, {"pid", 0}, {"tid", 0}, {"ts", us(s.start)}, {"dur", us(s.end - s.start)}});
  for (const CollectiveRow& row : c.collectives)
    events.push_back({{"name", row.span.name},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", 1},
                      {"ts", us(row.span.start)},
                      {"dur", us(row.span.end - row.span.start)},
                      {"args", {{"bytes", row.span.bytes}, {"algorithm", row.algorithm},
                                {"ready_us", format_time_us_exact(row.span.ready)}}}});
  out << ordered_json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}}.dump() << "\n";
}

}  // namespace collsim::train
