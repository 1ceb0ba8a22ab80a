#include "bench/bench_cases.hpp"

#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/event_queue.hpp"
#include "sim/network/network_model.hpp"
#include "run/log_prediction.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "run/sweep.hpp"
#include "run/text_request.hpp"
#include "topologies/load_json.hpp"

namespace collsim::bench {
namespace {

// The engine's event payload is 16 bytes (a flag and a 64-bit token); the queue case uses the same size.
struct HoldPayload {
  std::uint64_t token;
  std::uint64_t flags;
};

// xorshift64 (Marsaglia 2003): cheap, deterministic, good enough to scatter event times.
struct XorShift {
  std::uint64_t x = 88172645463325252ULL;
  std::uint64_t operator()() noexcept {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

constexpr std::int64_t kHoldSpreadPs = 1'000'000;  // delays in [0, 1 us)

}  // namespace

Work run_queue_hold(std::size_t pending, std::uint64_t events) {
  sim::EventQueue<HoldPayload> queue;
  XorShift next;
  for (std::size_t i = 0; i < pending; ++i)
    queue.push(Time{static_cast<std::int64_t>(next() % kHoldSpreadPs)}, HoldPayload{i, 0});
  std::uint64_t checksum = 0;
  for (std::uint64_t i = 0; i < events && !queue.empty(); ++i) {
    const auto e = queue.pop();
    checksum += e.payload.token;
    queue.push(e.time + Time{static_cast<std::int64_t>(next() % kHoldSpreadPs)}, e.payload);
  }
  // The checksum keeps the loop from being optimised away; it is always below 2^64 / 2 here.
  if (checksum == ~std::uint64_t{0}) throw std::logic_error("bench: impossible checksum");
  return Work{events, 0, std::nullopt};
}

Work run_queue_ties(std::size_t pending, std::uint64_t events) {
  // A ring step of 1 MiB at 50 GB/s (20,971,520 ps) and a 1 us latency, as in issue 7's runs.
  constexpr Time kTransmit{20'971'520};
  constexpr Time kLatency{1'000'000};
  sim::EventQueue<HoldPayload> queue;
  for (std::size_t i = 0; i < pending; ++i) queue.push(Time{0}, HoldPayload{i, 0});
  std::uint64_t checksum = 0;
  for (std::uint64_t i = 0; i < events && !queue.empty(); ++i) {
    auto e = queue.pop();
    checksum += e.payload.token;
    e.payload.flags ^= 1;  // alternates end of transmission and arrival
    queue.push(e.time + (e.payload.flags != 0 ? kTransmit : kLatency), e.payload);
  }
  if (checksum == ~std::uint64_t{0}) throw std::logic_error("bench: impossible checksum");
  return Work{events, 0, std::nullopt};
}

Work run_allreduce(std::string_view algorithm, topo::Fabric fabric, std::uint32_t ranks, Bytes size,
                   Bandwidth bandwidth, Time latency, bool fold_ranks) {
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& info = registry.find(sched::Collective::AllReduce, algorithm);
  const topo::Topology topology = topo::generate_fabric(fabric, ranks, bandwidth, latency);
  // The path of `collsim simulate --gpus N --fabric F --size S --algorithm A`: the same op budget
  // (--max-ops), and ops on demand where the algorithm has a stream.
  run::Plan plan = run::build_plan(info, topology, ranks, {}, size, 4, {}, run::Ops::OnDemand);
  plan.fold_ranks = fold_ranks;
  const run::Simulated run = run::simulate_plan(plan, topology, "flow");
  return Work{run.result.events, plan.stream ? plan.stream->op_count() : plan.schedule.ops.size(),
              run.result.makespan};
}

Work run_direct_channels(std::uint32_t ranks, std::uint32_t channels) {
  // `collsim simulate --gpus N --fabric switch --algorithm direct --size 1M --channels C` (25 GB/s
  // and 1 us per link, the generator's defaults): issue 14's slow contended solve, where all
  // N(N-1)·C transfers start at one picosecond.
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& info = registry.find(sched::Collective::AllReduce, "direct");
  const topo::Topology topology = topo::generate_fabric(topo::Fabric::Switch, ranks, Bandwidth{25'000'000'000ULL * 8}, Time{1'000'000});
  run::ModelOptions model;
  model.channels = channels;
  const run::Plan plan = run::build_plan(info, topology, ranks, {}, Bytes{1} << 20, 4, model, run::Ops::OnDemand);
  const run::Simulated run = run::simulate_plan(plan, topology, "flow");
  return Work{run.result.events, plan.stream ? plan.stream->op_count() : plan.schedule.ops.size(),
              run.result.makespan};
}

Work run_text(const run::SimulateText& text, bool fold_ranks) {
  const run::SimulationRequest request = run::simulation_request(text);
  run::Prepared prepared = run::prepare(request, run::builtin_algorithms());
  prepared.plan.fold_ranks = fold_ranks;
  const run::Outcome outcome = run::run_prepared(prepared, request);
  const run::Plan& plan = prepared.plan;
  return Work{outcome.run.result.events, plan.stream ? plan.stream->op_count() : plan.schedule.ops.size(),
              outcome.run.summary.time};
}

namespace {

// `collsim simulate --gpus N --fabric switch --nodes N/8 --algorithm A --size S` with the suite's
// links (50 GB/s, 1 us) for the GPUs' and the hosts' uplinks alike.
run::SimulateText switch_nodes(std::string_view algorithm, std::uint32_t n, const SuiteOptions& o) {
  run::SimulateText t;
  t.topology.gpus = std::to_string(n);
  t.topology.fabric = "switch";
  t.topology.nodes = std::to_string(n / 8);
  t.topology.link_bandwidth = fmt::format("{}b/s", o.bandwidth.bits_per_s);
  t.topology.link_latency = fmt::format("{}ps", o.latency.count());
  t.topology.net_bandwidth = t.topology.link_bandwidth;
  t.topology.net_latency = t.topology.link_latency;
  t.algorithm = std::string(algorithm);
  t.size = std::to_string(o.size);
  return t;
}

// `--gpus N --fabric switch --collective C --algorithm A` at the suite's size, rate and latency.
run::SimulateText switch_collective(std::string_view collective, std::string_view algorithm, std::uint32_t n,
                                    const SuiteOptions& o) {
  run::SimulateText t;
  t.topology.gpus = std::to_string(n);
  t.topology.fabric = "switch";
  t.topology.link_bandwidth = fmt::format("{}b/s", o.bandwidth.bits_per_s);
  t.topology.link_latency = fmt::format("{}ps", o.latency.count());
  t.collective = std::string(collective);
  t.algorithm = std::string(algorithm);
  t.size = std::to_string(o.size);
  return t;
}

// N/8 DGX H100 on a cluster fabric (`--node dgx-h100 --nodes N/8 --fabric F`), its defaults:
// 50 GB/s NDR NICs, 1:1.
run::SimulateText dgx_cluster(std::string_view fabric, std::uint32_t n, Bytes size) {
  run::SimulateText t;
  t.topology.node = "dgx-h100";
  t.topology.nodes = std::to_string(n / 8);
  t.topology.fabric = std::string(fabric);
  t.size = std::to_string(size);
  return t;
}

}  // namespace

// The rows of `request`, on `threads` threads, into memory (the path of `collsim sweep`).
Work run_sweep(run::SweepRequest request, unsigned threads) {
  const run::SweepPlan plan = run::plan_sweep(std::move(request), run::builtin_algorithms());
  run::SweepRunSpec spec = run::sweep_run_spec(plan);
  spec.threads = threads;
  std::ostringstream out, err;
  (void)run::run_jobs(spec, [&](std::size_t k, const std::atomic<bool>& stop) { return run::run_sweep_row(plan, k, &stop); }, out, err);
  return Work{};
}

Work run_compare_ring_32ch(std::uint32_t ranks, Bytes size, unsigned threads, std::string_view routing) {
  // The log: rows only (the request says the ranks and collective), one per size.
  const auto file = std::filesystem::temp_directory_path() / fmt::format("collsim-bench-{}-{}.txt", ::getpid(), ranks);
  std::uint64_t rows = 0;
  {
    std::ofstream out(file);
    for (Bytes s = Bytes{1} << 20; s <= size; s *= 4, ++rows) {
      const double us = static_cast<double>(s) / 50e3 + 20.0;
      const double algbw = static_cast<double>(s) / (us * 1e3);
      out << fmt::format("{} {} float sum -1 {:.1f} {:.2f} {:.2f} 0 {:.1f} {:.2f} {:.2f} 0\n", s, s / 4, us, algbw,
                         algbw * 2.0 * (ranks - 1) / ranks, us, algbw, algbw * 2.0 * (ranks - 1) / ranks);
    }
    if (!out.flush()) throw std::runtime_error(fmt::format("bench: cannot write {}", file.string()));
  }
  run::LogText text;
  text.log = file.string();
  text.topology.node = "dgx-h100";
  text.topology.nodes = std::to_string(ranks / 8);
  text.topology.fabric = "fat-tree";
  text.algorithm = "ring";
  text.ranks = std::to_string(ranks);
  text.collective = "allreduce";
  text.model.channels = "32";
  text.topology.routing = std::string(routing);
  text.jobs = std::to_string(threads);
  struct Remove {
    std::filesystem::path path;
    ~Remove() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  } remove{file};
  const run::LogRequest request = run::log_request(text);
  const run::LogRun log_run = run::open_log_run(request);
  (void)run::compare_log(log_run, request, nullptr);
  return Work{0, rows, std::nullopt};
}

// `collsim sweep dgx-a100 --ranks 2,3,4,5,6,7,8 --algorithms all -b 8 -e 8G -f 2 -j 2`.
run::SweepRequest dgx_a100_sweep() {
  run::SweepRequest r;
  r.topologies.push_back({topo::load_topology("dgx-a100"), ""});
  r.ranks = {2, 3, 4, 5, 6, 7, 8};
  r.algorithms = {"all"};
  for (Bytes s = 8; s <= (Bytes{8} << 30); s *= 2) r.sizes.push_back(s);
  return r;
}

std::vector<Case> suite(const SuiteOptions& o) {
  std::vector<Case> cases;
  const std::uint64_t hold_events = o.quick ? 200'000 : 10'000'000;
  for (const std::size_t pending : {std::size_t{1024}, std::size_t{65536}})
    cases.push_back({fmt::format("queue/{}", pending), 0, false,
                     [pending, hold_events] { return run_queue_hold(pending, hold_events); }});
  cases.push_back({"queue/ties/4096", 0, false, [hold_events] { return run_queue_ties(4096, hold_events); }});
  constexpr std::array algorithms{"ring", "tree", "halving-doubling"};
  constexpr std::array fabrics{topo::Fabric::Switch, topo::Fabric::Ring};
  for (const char* algorithm : algorithms)
    for (const topo::Fabric fabric : fabrics)
      for (const std::uint32_t n : o.ranks)
        cases.push_back({fmt::format("allreduce/{}/{}/{}", algorithm, topo::fabric_name(fabric), n), n, false,
                         [=] { return run_allreduce(algorithm, fabric, n, o.size, o.bandwidth, o.latency, true); }});
  // The log-depth all-gathers (PAT is NCCL's choice with one GPU per node): materialised, every
  // send waited for each receive of its rank's step before, O(N^3) dependencies (session 25).
  for (const char* algorithm : {"pat", "halving-doubling"})
    for (const std::uint32_t n : o.ranks)
      if (n <= 4096)
        cases.push_back({fmt::format("allgather/{}/switch/{}", algorithm, n), n, false,
                         [=] { return run_text(switch_collective("allgather", algorithm, n, o), true); }});
  // The same ring runs with every rank simulated (no rank symmetry fold, sim/rank_fold.hpp): the
  // engine's own cost per transfer.
  for (const topo::Fabric fabric : fabrics)
    for (const std::uint32_t n : o.ranks)
      cases.push_back({fmt::format("whole/allreduce/ring/{}/{}", topo::fabric_name(fabric), n), n, false,
                       [=] { return run_allreduce("ring", fabric, n, o.size, o.bandwidth, o.latency, false); }});
  // Issue 14: direct all-reduce of 1 MiB on 24 channels through one switch; 58 GPUs took over a
  // minute when every start re-solved the whole component (bench/PROFILE.md 3.10).
  cases.push_back({"allreduce/direct/switch-24ch/58", 58, false, [] { return run_direct_channels(58, 24); }});
  // Issue 18: clusters. Ring, tree and double tree on N/8 hosts of 8 GPUs behind one network
  // switch (against the same N on one switch above); ring (one channel) and NCCL's choice on DGX
  // H100 rail clusters; direct all-to-all on 32 DGX H100 of a 2:1 fat tree.
  for (const char* algorithm : {"ring", "tree", "double-tree"})
    for (const std::uint32_t n : o.ranks)
      if (n >= 16 && n % 8 == 0)
        cases.push_back({fmt::format("allreduce/{}/switch-nodes/{}", algorithm, n), n, false,
                         [=] { return run_text(switch_nodes(algorithm, n, o), true); }});
  for (const std::uint32_t n : o.ranks)
    if (n >= 16 && n % 8 == 0)
      cases.push_back({fmt::format("whole/allreduce/ring/switch-nodes/{}", n), n, false,
                       [=] { return run_text(switch_nodes("ring", n, o), false); }});
  for (const std::uint32_t n : o.ranks)
    if (n >= 16 && n % 8 == 0) {
      cases.push_back({fmt::format("cluster/ring/dgx-h100-rail/{}", n), n, false, [=] {
                         run::SimulateText t = dgx_cluster("rail", n, o.size);
                         t.model.channels = "1";
                         return run_text(t, true);
                       }});
      cases.push_back({fmt::format("cluster/nccl/dgx-h100-rail/{}", n), n, false, [=] {
                         run::SimulateText t = dgx_cluster("rail", n, o.size);
                         t.algorithm = "nccl";
                         return run_text(t, true);
                       }});
      // Under InfiniBand's destination routing a pair's channels share its path and fold.
      cases.push_back({fmt::format("cluster/nccl-dmodk/dgx-h100-rail/{}", n), n, false, [=] {
                         run::SimulateText t = dgx_cluster("rail", n, o.size);
                         t.algorithm = "nccl";
                         t.topology.routing = "dmodk";
                         return run_text(t, true);
                       }});
    }
  for (const std::uint32_t n : o.ranks)
    if (n >= 16 && n % 8 == 0)
      cases.push_back({fmt::format("compare/ring-32ch/dgx-h100-fat-tree/{}", n), n, false,
                       [=] { return run_compare_ring_32ch(n, o.size, 2, "ecmp"); }});
  // The same under InfiniBand's destination routing (D-Mod-K): a pair's channels share its path,
  // so they fold into one, and the ranks by symmetry.
  for (const std::uint32_t n : o.ranks)
    if (n >= 16 && n % 8 == 0)
      cases.push_back({fmt::format("compare/ring-32ch-dmodk/dgx-h100-fat-tree/{}", n), n, false,
                       [=] { return run_compare_ring_32ch(n, o.size, 2, "dmodk"); }});
  cases.push_back({"alltoall/direct/dgx-h100-fat-tree-2to1/256", 256, false, [o] {
                     run::SimulateText t = dgx_cluster("fat-tree", 256, o.size);
                     t.topology.oversubscription = "2";
                     t.collective = "alltoall";
                     t.algorithm = "direct";
                     return run_text(t, true);
                   }});
  // Issue 7's sweep: 7 rank counts x every all-reduce algorithm x 31 sizes (8 B .. 8 GiB) > 1,000 points.
  cases.push_back({"sweep/dgx-a100", 0, true, [] {
                     return run_sweep(dgx_a100_sweep(), 2);
                   }});
  return cases;
}

}  // namespace collsim::bench
