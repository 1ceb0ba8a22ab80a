#include "run/sweep_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "run/parse.hpp"
#include "run/plan.hpp"
#include "run/lists.hpp"

namespace collsim::run {
namespace {

bool generated(const TopologyText& t) {
  return !t.gpus.empty() || !t.fabric.empty() || !t.link_bandwidth.empty() || !t.link_latency.empty() ||
         !t.nodes.empty() || !t.net_bandwidth.empty() || !t.net_latency.empty() || !t.node.empty() ||
         !t.leaf_nics.empty() || !t.spines.empty() || !t.oversubscription.empty() || !t.planes.empty() ||
         !t.switch_latency.empty();
}

std::vector<SweepTopology> load_topologies(SweepText& o) {
  std::vector<SweepTopology> out;
  if (generated(o.generator)) {
    if (!o.generator.node.empty() && o.generator.gpus.empty() && o.topologies.empty() && o.built.empty()) {
      // One cluster per host count of --nodes (a list such as 16,32 or 16..128, as --gpus takes).
      if (o.generator.nodes.empty()) {
        out.push_back({load_topology(topology_spec(o.generator)), o.generator.fabric});
        return out;
      }
      for (std::uint32_t k : parse_count_list(Field::Nodes, o.generator.nodes, 1, 1u << 20)) {
        TopologyText t = o.generator;
        t.nodes = std::to_string(k);
        out.push_back({load_topology(topology_spec(t)), t.fabric});
      }
      return out;
    }
    if (!o.topologies.empty() || !o.built.empty())
      throw RequestError(Field::Gpus, o.generator.gpus,
                         fmt::format("{}/{}: given with topology files; expected one or the other", ref(Field::Gpus),
                                     ref(Field::Fabric)));
    if (o.generator.gpus.empty())
      throw RequestError(Field::Gpus, "",
                         fmt::format("{}: missing; a generated family needs {} LIST and {} F", ref(Field::Gpus),
                                     ref(Field::Gpus), ref(Field::Fabric)));
    for (std::uint32_t n : parse_count_list(Field::Gpus, o.generator.gpus, 1, 1u << 20)) {
      TopologyText t = o.generator;
      t.gpus = std::to_string(n);
      out.push_back({load_topology(topology_spec(t)), t.fabric});
    }
    return out;
  }
  if (o.topologies.empty() && o.built.empty()) o.topologies.emplace_back(kDefaultTopology);
  for (const auto& name : o.topologies) {
    TopologyText t;
    t.name = name;
    t.p2p_level = o.generator.p2p_level;
    t.routing = o.generator.routing;
    out.push_back({load_topology(topology_spec(t)), ""});
  }
  for (auto& t : o.built) {
    if (!o.generator.p2p_level.empty()) t.topology.set_p2p_level(parse_p2p_level(o.generator.p2p_level));
    if (!o.generator.routing.empty()) t.topology.set_routing(parse_routing(o.generator.routing));
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Bytes> sweep_sizes(const SweepText& o) {
  std::vector<Bytes> sizes;
  if (!o.minbytes.empty() || !o.maxbytes.empty()) {
    if (o.minbytes.empty())
      throw RequestError(Field::MinBytes, "",
                         fmt::format("{}: missing; -e needs -b (e.g. -b 8 -e 1G -f 2)", ref(Field::MinBytes)));
    sizes = size_range(o.minbytes, o.maxbytes, o.stepfactor, o.stepbytes, kMaxSweepRows);
  } else if (!o.stepfactor.empty() || !o.stepbytes.empty()) {
    const Field f = o.stepfactor.empty() ? Field::StepBytes : Field::StepFactor;
    throw RequestError(f, o.stepfactor.empty() ? o.stepbytes : o.stepfactor,
                       fmt::format("-f/-i: given without {}; expected -b MIN -e MAX with them", ref(Field::MinBytes)));
  }
  if (!o.sizes.empty())
    for (const auto& s : split_list(Field::Sizes, o.sizes)) sizes.push_back(parse_size(Field::Sizes, s));
  if (sizes.empty())
    throw RequestError(Field::Sizes, "",
                       fmt::format("-b/{}: missing; give sizes as -b 8 -e 1G [-f 2 | -i STEP] or {} 1M,1G",
                                   ref(Field::Sizes), ref(Field::Sizes)));
  return sizes;
}

}  // namespace

SweepSetup sweep_setup(SweepText o) {
  SweepSetup setup;
  SweepRequest& request = setup.request;
  request.dtype = parse_dtype(o.dtype);
  check_network_name(o.network);
  setup.threads = parse_jobs(o.jobs);
  if (!o.shard.empty()) {
    const auto slash = o.shard.find('/');
    if (slash == std::string::npos)
      throw RequestError(Field::Shard, o.shard,
                         fmt::format("{}: found \"{}\", expected I/K such as 0/4", ref(Field::Shard), o.shard));
    request.shards = parse_count(Field::Shard, o.shard.substr(slash + 1), 1, 1u << 20);
    request.shard = parse_count(Field::Shard, o.shard.substr(0, slash), 0, request.shards - 1);
    request.sharded = true;
  }
  request.format = o.format;
  request.network = o.network;
  request.collectives.clear();
  // "all": every collective, in their order (as --algorithms all is every algorithm).
  for (const auto& c : split_list(Field::Collectives, o.collectives)) {
    if (c == "all") {
      const auto every = sched::all_collectives();
      request.collectives.insert(request.collectives.end(), every.begin(), every.end());
      continue;
    }
    request.collectives.push_back(parse_collective(Field::Collectives, c));
  }
  // A collective named twice would sweep its rows twice.
  for (std::size_t i = 0; i < request.collectives.size(); ++i)
    if (std::find(request.collectives.begin(), request.collectives.begin() + static_cast<std::ptrdiff_t>(i),
                  request.collectives[i]) != request.collectives.begin() + static_cast<std::ptrdiff_t>(i))
      throw RequestError(Field::Collectives, o.collectives,
                         fmt::format("{}: {} is named twice in \"{}\"; expected each collective once (all: every one)",
                                     ref(Field::Collectives), sched::collective_name(request.collectives[i]),
                                     o.collectives));
  request.algorithms = split_list(Field::Algorithms, o.algorithms);
  request.sizes = sweep_sizes(o);
  request.topologies = load_topologies(o);
  request.params = o.params;
  if (!o.nccl_algo.empty()) {
    request.nccl_algorithms = parse_nccl_algorithms(o.nccl_algo);
    request.nccl_algo = o.nccl_algo;
  }
  if (!o.gpus_per_thread.empty())
    request.gpus_per_thread = parse_count(Field::GpusPerThread, o.gpus_per_thread, 1, kMaxGpusPerThread);
  if (!o.ranks.empty()) request.ranks = parse_count_list(Field::Ranks, o.ranks, 1, 1u << 20);
  request.options = algorithm_options(o.options);
  return setup;
}

std::string left_out_notice(const SweepPlan& plan) {
  if (plan.too_few_gpus == 0) return "";
  return fmt::format("sweep: left out {} topology/{} pair(s) with more ranks than GPUs", plan.too_few_gpus,
                     ref(Field::Ranks));
}

std::vector<std::string> finished_notices(const SweepPlan& plan, const SweepRunSpec& spec, const SweepRunReport& report,
                                          FieldSpelling spell) {
  std::vector<std::string> lines;
  if (report.skipped > 0) {
    const std::string first = render(first_skip(plan, report), spell);
    if (report.signal == 0 && spec.need_a_row && report.skipped == spec.count)
      throw RequestError(Field::Algorithms, "",
                         fmt::format("sweep: every row ({}) is one an algorithm cannot run, {}", report.skipped, first));
    lines.push_back(fmt::format("sweep: skipped {} row(s) that an algorithm cannot run, {}", report.skipped, first));
  }
  // Rows that could not be simulated: the first few named, then how many more.
  constexpr std::size_t kNamedNotes = 10;
  for (std::size_t n = 0; n < std::min(report.notes.size(), kNamedNotes); ++n)
    lines.push_back("warning: " + render(report.notes[n].second, spell) +
                    "; its result columns are empty and its error column says why");
  if (report.notes.size() > kNamedNotes)
    lines.push_back(fmt::format("warning: sweep: {} more row(s) not simulated; their error column says why",
                                report.notes.size() - kNamedNotes));
  return lines;
}

}  // namespace collsim::run
