// Google Benchmark cases over the workloads of `collsim bench` (bench/bench_cases.hpp).
// Run: build/bench/collsim_gbench [--benchmark_filter=REGEX] [--benchmark_repetitions=5]
//      [--benchmark_format=json]. Peak memory needs a process per case; `collsim bench` does that.
#include <benchmark/benchmark.h>

#include "bench/bench_cases.hpp"

namespace {

using collsim::bench::run_allreduce;
using collsim::bench::run_queue_hold;
using collsim::bench::run_queue_ties;
using collsim::topo::Fabric;

// The bare event queue: hold model with state.range(0) pending events, 1M pops per iteration.
void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) events += run_queue_hold(pending, 1'000'000).events;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(1024)->Arg(65536)->Unit(benchmark::kMillisecond);

// The engine's pattern: state.range(0) ranks in lockstep, every pop ties with all others.
void BM_EventQueueTies(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) events += run_queue_ties(pending, 1'000'000).events;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueTies)->Arg(4096)->Unit(benchmark::kMillisecond);

// All-reduce of 1 GiB at 50 GB/s, 1 us per link (issue 7), schedule build plus engine run. Tree and
// halving-doubling on the ring fabric stop at N = 64: their contention makes larger N take minutes.
void BM_AllReduce(benchmark::State& state, const char* algorithm, Fabric fabric) {
  const auto ranks = static_cast<std::uint32_t>(state.range(0));
  const collsim::bench::SuiteOptions o;
  std::uint64_t events = 0;
  for (auto _ : state) events += run_allreduce(algorithm, fabric, ranks, o.size, o.bandwidth, o.latency, true).events;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_AllReduce, ring_switch, "ring", Fabric::Switch)->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, ring_ring, "ring", Fabric::Ring)->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, tree_switch, "tree", Fabric::Switch)->RangeMultiplier(8)->Range(8, 64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, tree_ring, "tree", Fabric::Ring)->RangeMultiplier(8)->Range(8, 64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, hd_switch, "halving-doubling", Fabric::Switch)->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, hd_ring, "halving-doubling", Fabric::Ring)->RangeMultiplier(8)->Range(8, 64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
