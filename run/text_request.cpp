#include "run/text_request.hpp"

#include <limits>

#include <fmt/format.h>

#include "run/parse.hpp"

namespace collsim::run {
namespace {

constexpr std::uint32_t kAnyCount = std::numeric_limits<std::uint32_t>::max();

}  // namespace

TopologySpec topology_spec(const TopologyText& t) {
  TopologySpec s;
  s.name = t.name;
  if (!t.gpus.empty()) s.gpus = parse_count(Field::Gpus, t.gpus, 1, 1u << 20);
  s.node = t.node;
  if (!t.fabric.empty()) {
    if (t.node.empty()) s.fabric = parse_fabric(t.fabric);
    else s.cluster_fabric = parse_cluster_fabric(t.fabric);
  }
  if (!t.leaf_nics.empty()) s.leaf_nics = parse_count(Field::LeafNics, t.leaf_nics, 1, 1u << 16);
  if (!t.spines.empty()) s.spines = parse_count(Field::Spines, t.spines, 1, 1u << 16);
  if (!t.oversubscription.empty()) s.oversubscription = parse_oversubscription(t.oversubscription);
  if (!t.planes.empty()) s.planes = parse_count(Field::Planes, t.planes, 1, 64);
  if (!t.switch_latency.empty()) s.switch_latency = parse_latency(Field::SwitchLatency, t.switch_latency);
  if (!t.link_bandwidth.empty()) s.link_bandwidth = parse_bandwidth(Field::LinkBandwidth, t.link_bandwidth);
  if (!t.link_latency.empty()) s.link_latency = parse_latency(Field::LinkLatency, t.link_latency);
  if (!t.nodes.empty()) s.nodes = parse_count(Field::Nodes, t.nodes, 1, 1u << 20);
  if (!t.net_bandwidth.empty()) s.net_bandwidth = parse_bandwidth(Field::NetBandwidth, t.net_bandwidth);
  if (!t.net_latency.empty()) s.net_latency = parse_latency(Field::NetLatency, t.net_latency);
  if (!t.p2p_level.empty()) s.p2p_level = parse_p2p_level(t.p2p_level);
  if (!t.routing.empty()) s.routing = parse_routing(t.routing);
  return s;
}

AlgorithmOptions algorithm_options(const AlgorithmText& t) {
  AlgorithmOptions o;
  if (!t.root.empty()) o.root = parse_count(Field::Root, t.root, 0, kAnyCount);
  if (!t.chunk_size.empty()) o.chunk_size = parse_size(Field::ChunkSize, t.chunk_size);
  if (!t.ps_shards.empty()) o.ps_shards = parse_count(Field::PsShards, t.ps_shards, 1, kAnyCount);
  if (!t.ps_node.empty()) o.ps_node = parse_node_list(Field::PsNode, t.ps_node);
  return o;
}

ModelOptions model_options(const ModelText& t) {
  ModelOptions m;
  if (!t.model.empty()) m.formula = parse_formula(t.model);  // the formula's error first, as it always was
  if (!t.protocol.empty()) m.protocol = parse_protocol(t.protocol);
  if (!t.channels.empty()) m.channels = parse_count(Field::Channels, t.channels, 1, 64);
  if (!t.slice.empty()) m.slice = parse_size(Field::Slice, t.slice);
  m.params = t.params;
  if (!t.max_ops.empty()) m.max_ops = parse_count(Field::MaxOps, t.max_ops, 1, kAnyCount);
  if (!t.nccl_algo.empty()) m.nccl_algorithms = parse_nccl_algorithms(t.nccl_algo);
  if (!t.gpus_per_thread.empty()) m.gpus_per_thread = parse_count(Field::GpusPerThread, t.gpus_per_thread, 1, kMaxGpusPerThread);
  return m;
}

std::optional<validation::ReplayOptions> replay_options(bool verify, std::string_view dtype, std::string_view op) {
  validation::ReplayOptions r;
  r.dtype = dtype.empty() ? validation::DType::Float32 : parse_dtype(dtype);
  if (!op.empty()) r.op = parse_reduce_op(op);
  if (!verify) {
    if (!op.empty())
      throw RequestError(Field::Op, std::string(op),
                         fmt::format("{}: only used with {}; add {}", ref(Field::Op), ref(Field::Verify), ref(Field::Verify)));
    return std::nullopt;
  }
  return r;
}

SimulationRequest simulation_request(const SimulateText& t) {
  SimulationRequest r;
  r.schedule = t.schedule;
  if (t.schedule.empty()) {
    if (t.size.empty())
      throw RequestError(Field::Size, "",
                         fmt::format("{}: missing; give the message size, e.g. {} 1G", ref(Field::Size), ref(Field::Size)));
    r.size = parse_size(Field::Size, t.size);
    r.collective = parse_collective(Field::Collective, t.collective);
    r.algorithm = t.algorithm;
  }
  r.options = algorithm_options(t.options);
  r.dtype = t.dtype.empty() ? validation::DType::Float32 : parse_dtype(t.dtype);
  r.model = model_options(t.model);
  r.topology = topology_spec(t.topology);
  if (!t.ranks.empty()) r.ranks = parse_count(Field::Ranks, t.ranks, 1, kAnyCount);
  r.network = t.network;
  r.verify = replay_options(t.verify, t.dtype, t.op);
  // An op that nothing applies would be ignored while looking as if it had been checked.
  if (r.verify && !t.op.empty() && t.schedule.empty() && !sched::reduces(r.collective))
    throw RequestError(Field::Op, t.op,
                       fmt::format("{}: {} combines nothing, it only moves data; expected {} only with allreduce, "
                                   "reducescatter or reduce",
                                   ref(Field::Op), sched::collective_name(r.collective), ref(Field::Op)));
  // The ops are materialised only for what reads them; otherwise they are generated as they run.
  r.ops = r.verify ? Ops::Materialised : Ops::OnDemand;
  return r;
}

LogRequest log_request(const LogText& t) {
  LogRequest r;
  r.log = t.log;
  r.topology = topology_spec(t.topology);
  r.algorithm = t.algorithm;
  if (!t.ranks.empty()) r.ranks = parse_count(Field::Ranks, t.ranks, 1, kAnyCount);
  if (!t.collective.empty()) r.collective = parse_log_collective(t.collective);
  r.network = t.network;
  r.model = model_options(t.model);
  r.threads = parse_jobs(t.jobs);
  return r;
}

}  // namespace collsim::run
