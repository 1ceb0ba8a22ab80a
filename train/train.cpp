#include "train/train.hpp"

#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "run/errors.hpp"
#include "topologies/routes.hpp"

namespace collsim::train {
namespace {

// A collective's simulated outcome, as a case needs it.
struct Priced {
  Time time{0};
  Bytes sent = 0;
  std::string algorithm;
  std::string choice;
};

// What a collective's error is about: the step's sizes are the model's, not a --size the user gave.
std::string context(sched::Collective c, std::uint32_t ranks, Bytes bytes) {
  return fmt::format("the step's {} of {} bytes on {} ranks: ", sched::collective_name(c), bytes, ranks);
}

// Simulates each (collective, ranks, bytes) once on one topology, its routes shared by every run.
class Pricer {
 public:
  Pricer(const TrainRequest& request, const algo::AlgorithmRegistry& registry)
      : request_(request), registry_(registry), topology_(std::make_shared<topo::Topology>(run::load_topology(request.topology))) {}

  [[nodiscard]] const topo::Topology& topology() const { return *topology_; }

  const Priced& price(sched::Collective collective, std::uint32_t ranks, Bytes bytes) {
    const auto key = std::make_tuple(collective, ranks, bytes);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    run::SimulationRequest r;
    r.topology.given = topology_;
    r.collective = collective;
    r.algorithm = request_.algorithm;
    r.size = bytes;
    r.ranks = ranks;
    r.dtype = request_.dtype;
    r.options = request_.options;
    r.model = request_.model_options;
    r.network = request_.network;
    r.ops = run::Ops::OnDemand;
    sim::Summary s;
    try {
      const run::Plan plan = run::plan_on(r, *topology_, registry_, &paths_);
      s = run::run_plan(plan, *topology_, r).run.summary;
    } catch (const run::OverflowError& e) {
      throw run::OverflowError(e.field(), e.value(), context(collective, ranks, bytes) + e.message());
    } catch (const run::RequestError& e) {
      throw run::RequestError(e.field(), e.value(), context(collective, ranks, bytes) + e.message());
    }
    return cache_.emplace(key, Priced{s.time, s.bytes_sent_per_rank_max, s.algorithm, s.algorithm_choice}).first->second;
  }

 private:
  const TrainRequest& request_;
  const algo::AlgorithmRegistry& registry_;
  std::shared_ptr<const topo::Topology> topology_;
  topo::PathTable paths_;
  std::map<std::tuple<sched::Collective, std::uint32_t, Bytes>, Priced> cache_;
};

// A gradient in the order backward makes it ready: its layer and its bytes.
struct Gradient {
  std::size_t layer = 0;
  Bytes bytes = 0;
};

// model.parameters() reversed (DistributedDataParallel._build_params_for_reducer reverses the
// parameters "to approximate the order in which their gradients are produced").
std::vector<Gradient> backward_order(const Model& m, std::uint32_t element) {
  std::vector<Gradient> g;
  for (std::size_t l = m.layers.size(); l-- > 0;)
    for (std::size_t t = m.layers[l].tensors.size(); t-- > 0;)
      g.push_back(Gradient{l, checked_bytes(m.layers[l].tensors[t], element)});
  return g;
}

std::vector<Time> times(const Model& m, std::optional<Time> Layer::*field) {
  std::vector<Time> t;
  for (const Layer& l : m.layers) t.push_back((l.*field).value_or(Time{0}));
  return t;
}

void add_sent(TrainCase& c, sched::Collective collective, Bytes sent) {
  Bytes& total = collective == sched::Collective::AllReduce   ? c.sent_allreduce
                 : collective == sched::Collective::AllGather ? c.sent_allgather
                                                              : c.sent_reducescatter;
  total += sent;
}

TrainCase ddp_case(const TrainRequest& request, Pricer& pricer, std::uint32_t ranks, Bytes cap) {
  const Model& m = request.model;
  const std::vector<Gradient> grads = backward_order(m, validation::dtype_size(request.dtype));
  std::vector<Bytes> bytes;
  for (const Gradient& g : grads) bytes.push_back(g.bytes);
  const Bytes first = first_bucket_of(request, cap);
  const std::vector<Bucket> buckets = ddp_buckets(bytes, first, cap);
  std::vector<std::size_t> layer;
  std::vector<Bytes> size;
  std::vector<Time> time;
  std::vector<const Priced*> priced;
  for (const Bucket& b : buckets) {
    layer.push_back(grads[b.tensors.back()].layer);
    size.push_back(b.bytes);
    priced.push_back(&pricer.price(sched::Collective::AllReduce, ranks, b.bytes));
    time.push_back(priced.back()->time);
  }
  TrainCase c;
  c.ranks = ranks;
  c.bucket_cap = cap;
  c.first_bucket = first;
  c.timeline = ddp_timeline(times(m, &Layer::forward), times(m, &Layer::backward), layer, size, time);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const Priced& p = *priced[b];
    c.collectives.push_back(CollectiveRow{c.timeline.collectives[b], p.algorithm, p.choice, p.sent,
                                          buckets[b].tensors.size(), m.layers[grads[buckets[b].tensors.front()].layer].name,
                                          m.layers[grads[buckets[b].tensors.back()].layer].name});
    add_sent(c, sched::Collective::AllReduce, p.sent);
  }
  return c;
}

TrainCase fsdp_case(const TrainRequest& request, Pricer& pricer, std::uint32_t ranks) {
  const Model& m = request.model;
  const std::uint32_t element = validation::dtype_size(request.dtype);
  std::vector<UnitCollectives> units;
  for (const Layer& l : m.layers) {
    // FSDP pads its flat parameter to a multiple of the world size (each rank holds one shard).
    const std::uint64_t p = l.parameters();
    const std::uint64_t padded = (p / ranks + (p % ranks != 0 ? 1 : 0)) * ranks;
    const Bytes bytes = checked_bytes(padded, element);
    units.push_back(UnitCollectives{bytes, pricer.price(sched::Collective::AllGather, ranks, bytes).time,
                                    pricer.price(sched::Collective::ReduceScatter, ranks, bytes).time});
  }
  TrainCase c;
  c.ranks = ranks;
  c.timeline = fsdp_timeline(times(m, &Layer::forward), times(m, &Layer::backward), units);
  for (const CollectiveSpan& s : c.timeline.collectives) {
    const Priced& p = pricer.price(s.collective, ranks, s.bytes);
    const Layer& l = m.layers[s.index];
    c.collectives.push_back(CollectiveRow{s, p.algorithm, p.choice, p.sent, l.tensors.size(), l.name, l.name});
    add_sent(c, s.collective, p.sent);
  }
  return c;
}

}  // namespace

Bytes first_bucket_of(const TrainRequest& request, Bytes cap) {
  if (request.first_bucket) return *request.first_bucket;
  return request.bucket_caps_given ? cap : kDdpFirstBucketBytes;
}

std::string_view mode_name(Mode m) noexcept { return m == Mode::Ddp ? "ddp" : "fsdp"; }

TrainResult run_train(const TrainRequest& request, const algo::AlgorithmRegistry& registry) {
  Pricer pricer(request, registry);
  const topo::Topology& topology = pricer.topology();
  TrainResult r;
  r.mode = request.mode;
  r.model = request.model.name;
  r.model_source = request.model.source;
  r.parameters = request.model.parameters();
  r.layers = request.model.layers.size();
  r.tensors = request.model.tensor_count();
  r.dtype = request.dtype;
  r.topology = topology.name();
  r.algorithm = request.algorithm;
  const auto gpus = static_cast<std::uint32_t>(topology.gpus().size());
  std::vector<std::uint32_t> ranks = request.ranks;
  if (ranks.empty()) ranks.push_back(gpus);
  for (std::uint32_t n : ranks)
    if (n > gpus)
      throw run::RequestError(run::Field::Ranks, std::to_string(n),
                              fmt::format("{}: found {}, but topology {} has {} GPUs; expected 1 to {}",
                                          run::ref(run::Field::Ranks), n, topology.name(), gpus, gpus));
  try {
    for (std::uint32_t n : ranks) {
      if (request.mode == Mode::Fsdp) {
        r.cases.push_back(fsdp_case(request, pricer, n));
        continue;
      }
      for (Bytes cap : request.bucket_caps) r.cases.push_back(ddp_case(request, pricer, n, cap));
    }
  } catch (const ClockOverflowError& e) {  // compute and communication past the clock's end
    throw run::RequestError(run::Field::BackwardTime, "",
                            fmt::format("{} and {}: the step passes the simulated clock's end (about 106 days): {}; "
                                        "expected shorter compute times or a smaller model",
                                        run::ref(run::Field::ForwardTime), run::ref(run::Field::BackwardTime), e.what()));
  } catch (const ModelError& e) {  // a unit padded to N elements past 2^64 bytes
    throw run::RequestError(run::Field::Parameters, std::to_string(r.parameters),
                            fmt::format("{}: {}", run::ref(run::Field::Parameters), e.what()));
  }
  return r;
}

}  // namespace collsim::train
