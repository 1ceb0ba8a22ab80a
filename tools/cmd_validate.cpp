// collsim validate: replay a schedule on this machine's GPUs, check its data, time it like
// nccl-tests, and hold collsim's prediction (and optionally NCCL) against the measurement (issue 6).
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/option_table.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "run/lists.hpp"
#include "topologies/load_json.hpp"
#include "validation/cuda/detect_topology.hpp"
#include "validation/cuda/gpu_data.hpp"
#include "validation/cuda/lower_schedule.hpp"

namespace collsim::cli {
namespace {

constexpr std::size_t kMaxSizes = 64;

// One measured size.
struct Row {
  Bytes size = 0;
  double measured_s = 0;
  double predicted_s = 0;
  std::optional<double> nccl_s;
  double busbw_factor = 1;
  std::uint64_t values_checked = 0;
  bool sampled = false;
  std::string problem;  // the first wrong value, empty when the data check passed
  [[nodiscard]] double error_pct() const { return (predicted_s - measured_s) / measured_s * 100; }
  [[nodiscard]] double algbw_GBps() const { return static_cast<double>(size) / measured_s / 1e9; }
};

// Everything the flags say, checked before any GPU is looked for.
struct Request {
  const algo::AlgorithmInfo* algorithm = nullptr;
  std::vector<Bytes> sizes;
  std::uint32_t ranks_per_gpu = 1;
  int warmup = 5, iters = 20;
  validation::DType dtype = validation::DType::Float32;
  cuda::Elem elem = cuda::Elem::F32;
  std::optional<cuda::NcclColl> nccl;
  run::AlgorithmOptions options;  ///< --root, --chunk-size, --ps-shards, --ps-node
};

std::optional<cuda::NcclColl> nccl_collective(sched::Collective c) {
  switch (c) {
    case sched::Collective::AllReduce: return cuda::NcclColl::AllReduce;
    case sched::Collective::AllGather: return cuda::NcclColl::AllGather;
    case sched::Collective::ReduceScatter: return cuda::NcclColl::ReduceScatter;
    case sched::Collective::Broadcast: return cuda::NcclColl::Broadcast;
    case sched::Collective::Reduce: return cuda::NcclColl::Reduce;
    default: return std::nullopt;
  }
}

Request check_flags(const ValidateOptions& o, const algo::AlgorithmRegistry& registry) {
  Request r;
  if (o.format != "table" && o.format != "csv" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, csv or json", o.format));
  run::check_network_name(o.network);
  r.algorithm = &registry.find(o.algorithm.collective_kind(), o.algorithm.algorithm);
  r.options = o.algorithm.options();
  const auto dtype = validation::parse_dtype(o.dtype);
  const auto elem = dtype ? cuda::elem_of(*dtype) : std::nullopt;
  if (!elem) throw UsageError(fmt::format("--dtype: found \"{}\", expected float32, float16, bfloat16 or int32", o.dtype));
  r.dtype = *dtype;
  r.elem = *elem;
  if (!o.size.empty() && !o.min_bytes.empty()) throw UsageError("--size: given with -b; expected one or the other");
  if (o.min_bytes.empty() && (!o.max_bytes.empty() || !o.step_factor.empty()))
    throw UsageError("-e/-f: given without -b/--minbytes; expected -b MIN -e MAX [-f FACTOR]");
  if (!o.size.empty()) r.sizes.push_back(parse_size_flag("--size", o.size));
  else if (!o.min_bytes.empty())
    r.sizes = run::size_range(o.min_bytes, o.max_bytes, o.step_factor, "", kMaxSizes);
  else
    throw UsageError("--size: missing; give --size S or -b MIN -e MAX [-f FACTOR], e.g. -b 1M -e 1G -f 2");
  const Bytes esize = validation::dtype_size(r.dtype);
  for (const Bytes s : r.sizes)
    if (s == 0 || s % esize != 0)
      throw UsageError(fmt::format("--size: found {} bytes, expected a positive multiple of {} ({} elements)", s, esize,
                                   validation::dtype_name(r.dtype)));
  if (!o.ranks_per_gpu.empty()) r.ranks_per_gpu = parse_count("--ranks-per-gpu", o.ranks_per_gpu, 1, 1024);
  if (!o.warmup.empty()) r.warmup = static_cast<int>(parse_count("-w", o.warmup, 0, 100000));
  if (!o.iters.empty()) r.iters = static_cast<int>(parse_count("-n", o.iters, 1, 100000));
  if (o.nccl) {
    r.nccl = nccl_collective(r.algorithm->collective);
    if (!r.nccl)
      throw UsageError(fmt::format("--nccl: NCCL has no {} collective; expected allreduce, allgather, reducescatter, "
                                   "broadcast or reduce",
                                   sched::collective_name(r.algorithm->collective)));
    if (r.ranks_per_gpu != 1)
      throw UsageError(fmt::format("--nccl: NCCL runs one rank per GPU; found --ranks-per-gpu {}, expected 1", r.ranks_per_gpu));
  }
  return r;
}

void print(const ValidateOptions& o, const Request& r, std::uint32_t ranks, std::uint32_t gpus, std::string_view gpu_name,
           std::string_view topology, const std::vector<Row>& rows, std::ostream& out) {
  const auto nccl = [](const Row& row) { return row.nccl_s ? fmt::format("{:.2f}", *row.nccl_s * 1e6) : std::string("-"); };
  const auto check = [](const Row& row) {
    return row.problem.empty() ? fmt::format("ok{}", row.sampled ? " (sampled)" : "") : std::string("FAILED");
  };
  if (o.format == "json") {
    nlohmann::ordered_json doc;
    doc["collective"] = sched::collective_name(r.algorithm->collective);
    doc["algorithm"] = r.algorithm->name;
    doc["ranks"] = ranks;
    doc["ranks_per_gpu"] = r.ranks_per_gpu;
    doc["gpus"] = gpus;
    doc["gpu"] = gpu_name;
    doc["topology"] = topology;
    doc["dtype"] = validation::dtype_name(r.dtype);
    doc["warmup"] = r.warmup;
    doc["iters"] = r.iters;
    auto& rs = doc["rows"] = nlohmann::ordered_json::array();
    for (const Row& row : rows) {
      nlohmann::ordered_json j;
      j["size_bytes"] = row.size;
      j["measured_us"] = row.measured_s * 1e6;
      j["predicted_us"] = row.predicted_s * 1e6;
      j["error_pct"] = row.error_pct();
      j["algbw_GBps"] = row.algbw_GBps();
      j["busbw_GBps"] = row.algbw_GBps() * row.busbw_factor;
      j["nccl_us"] = row.nccl_s ? nlohmann::ordered_json(*row.nccl_s * 1e6) : nlohmann::ordered_json();
      j["values_checked"] = row.values_checked;
      j["check"] = row.problem.empty() ? "ok" : row.problem;
      rs.push_back(std::move(j));
    }
    out << doc.dump(2) << "\n";
    return;
  }
  if (o.format == "csv") {
    out << "size_bytes,measured_us,predicted_us,error_pct,algbw_GBps,busbw_GBps,nccl_us,values_checked,check\n";
    for (const Row& row : rows)
      out << fmt::format("{},{:.3f},{:.3f},{:.2f},{:.3f},{:.3f},{},{},{}\n", row.size, row.measured_s * 1e6,
                         row.predicted_s * 1e6, row.error_pct(), row.algbw_GBps(), row.algbw_GBps() * row.busbw_factor,
                         row.nccl_s ? fmt::format("{:.3f}", *row.nccl_s * 1e6) : "", row.values_checked,
                         row.problem.empty() ? "ok" : "failed");
    return;
  }
  out << fmt::format("# collsim validate: {} {}, {} ranks on {} x {} ({} per GPU), {}, topology {}; {} warm-up + {} timed runs\n",
                     sched::collective_name(r.algorithm->collective), r.algorithm->name, ranks, gpus, gpu_name,
                     r.ranks_per_gpu, validation::dtype_name(r.dtype), topology, r.warmup, r.iters);
  out << fmt::format("# {:>12} {:>12} {:>12} {:>8} {:>10} {:>10} {:>10}  {}\n", "size", "measured_us", "predicted_us",
                     "error_%", "algbw_GB/s", "busbw_GB/s", "nccl_us", "data");
  for (const Row& row : rows)
    out << fmt::format("  {:>12} {:>12.2f} {:>12.2f} {:>8.1f} {:>10.2f} {:>10.2f} {:>10}  {}\n", row.size,
                       row.measured_s * 1e6, row.predicted_s * 1e6, row.error_pct(), row.algbw_GBps(),
                       row.algbw_GBps() * row.busbw_factor, nccl(row), check(row));
}

}  // namespace

cuda::Probe require_gpu(std::string_view command) {
  cuda::Probe p = cuda::probe();
  if (!p.built)
    throw NoGpuError(fmt::format("{}: this collsim was built without CUDA support (no CUDA toolkit was found when it "
                                 "was configured; see COLLSIM_CUDA in docs/validation.md)",
                                 command));
  if (p.devices.empty()) throw NoGpuError(fmt::format("{}: {}", command, p.problem));
  return p;
}

CLI::App* add_validate(CLI::App& app, ValidateOptions& o) {
  auto* cmd = app.add_subcommand("validate", "Replay the schedule on this machine's GPUs, check the data, time it as "
                                             "nccl-tests does, and print measured vs predicted time (needs CUDA and a GPU; "
                                             "exit 3 without)");
  o.topology.add_to(*cmd);
  cmd->get_option("topology")->description(
      "Topology of the prediction: a JSON file or bundled name; default: this machine's (collsim topo --detect)");
  o.algorithm.add_to(*cmd);
  add_value(*cmd, "--size", o.size, "S in bytes as nccl-tests counts it (1G = 2^30), or use -b/-e/-f");
  add_size_range(*cmd, o.min_bytes, o.max_bytes, o.step_factor);
  add_value(*cmd, "--ranks", o.ranks, "Ranks (the first N GPUs of the topology; default all)");
  add_value(*cmd, "--ranks-per-gpu", o.ranks_per_gpu,
            "Run K consecutive ranks on each GPU (default 1), so one GPU can host a whole ring");
  add_value(*cmd, "-w,--warmup_iters", o.warmup, "Warm-up runs per size, as nccl-tests -w (default 5)");
  add_value(*cmd, "-n,--iters", o.iters, "Timed runs per size, as nccl-tests -n (default 20)");
  add_shared(*cmd, run::Field::Dtype, o.dtype);
  add_shared(*cmd, run::Field::Network, o.network);
  cmd->add_flag("--nccl", o.nccl, "Also time NCCL's own collective on the same GPUs (loads libnccl.so.2 at run time)");
  add_value(*cmd, "--format", o.format, "table (default), csv or json");
  return cmd;
}

int run_validate(const ValidateOptions& o, std::ostream& out, std::ostream& err) {
  const Request r = check_flags(o, run::builtin_algorithms());
  // A given topology and --ranks are checked before any GPU is looked for: bad input exits 2, not 3.
  std::optional<topo::Topology> given;
  if (!o.topology.empty()) given = o.topology.load();
  if (!o.ranks.empty())
    (void)parse_count("--ranks", o.ranks, 1,
                      given ? static_cast<std::uint32_t>(given->gpus().size()) : std::numeric_limits<std::uint32_t>::max());
  const cuda::Probe probe = require_gpu("validate");

  const topo::Topology topology =
      given ? std::move(*given)
            : topo::parse_topology_json(cuda::detect_topology_json(probe, r.ranks_per_gpu), "detected", "detected");
  const auto gpus = topology.gpus();
  std::uint32_t ranks = static_cast<std::uint32_t>(gpus.size());
  if (!o.ranks.empty()) ranks = parse_count("--ranks", o.ranks, 1, static_cast<std::uint32_t>(gpus.size()));
  const std::uint64_t capacity = std::uint64_t{r.ranks_per_gpu} * probe.devices.size();

  std::vector<Row> rows;
  std::uint32_t used_gpus = 0;
  for (const Bytes size : r.sizes) {
    const run::Plan plan =
        run::build_plan(*r.algorithm, topology, ranks, r.options, size, validation::dtype_size(r.dtype), {});
    const sched::Schedule& s = plan.schedule;
    if (s.total_ranks() > capacity)
      throw UsageError(fmt::format("--ranks-per-gpu: {} ranks need {} GPUs at {} per GPU, found {}", s.total_ranks(),
                                   (s.total_ranks() + r.ranks_per_gpu - 1) / r.ranks_per_gpu, r.ranks_per_gpu,
                                   probe.devices.size()));
    const run::Simulated predicted = run::simulate_plan(plan, topology, o.network);
    const cuda::StreamPlan streams = cuda::lower_schedule(s, r.ranks_per_gpu);
    used_gpus = streams.devices;
    Row row;
    row.size = size;
    row.predicted_s = to_us(predicted.summary.time) * 1e-6;
    const sched::Ratio f = sched::bandwidth_factor(s.header.collective, s.header.nranks);
    row.busbw_factor = static_cast<double>(f.num) / static_cast<double>(f.den);
    {
      cuda::Replay replay(streams, r.elem);
      cuda::upload_inputs(s, r.dtype, replay);
      replay.run_once();
      const cuda::DataCheck check = cuda::check_outputs(s, r.dtype, replay);
      row.values_checked = check.values_checked;
      row.sampled = check.sampled;
      if (check.mismatch) row.problem = cuda::mismatch_text(*check.mismatch);
      row.measured_s = replay.time_per_run(r.warmup, r.iters);
    }
    if (r.nccl)
      row.nccl_s = cuda::nccl_time_per_run(*r.nccl, r.elem, size, static_cast<int>(s.header.nranks),
                                            static_cast<int>(s.header.root), r.warmup, r.iters);
    rows.push_back(std::move(row));
  }
  print(o, r, ranks, used_gpus, probe.devices.front().name, topology.name(), rows, out);
  for (const Row& row : rows)
    if (!row.problem.empty()) {
      err << fmt::format("collsim: validate: data check failed at {} bytes: {}\n", row.size, row.problem);
      return kExitCheckFailed;
    }
  return kExitOk;
}

}  // namespace collsim::cli
