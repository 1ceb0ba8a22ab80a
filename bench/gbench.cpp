// Google Benchmark cases over the workloads of `collsim bench` (tools/bench_cases.hpp).
// Run: build/bench/collsim_gbench [--benchmark_filter=REGEX] [--benchmark_repetitions=5]
//      [--benchmark_format=json]. Peak memory needs a process per case; `collsim bench` does that.
#include <benchmark/benchmark.h>

#include "tools/bench_cases.hpp"

namespace {

using collsim::cli::bench::run_allreduce;
using collsim::cli::bench::run_queue_hold;
using collsim::topo::Fabric;

// The bare event queue: hold model with state.range(0) pending events, 1M pops per iteration.
void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) events += run_queue_hold(pending, 1'000'000).events;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(1024)->Arg(65536)->Unit(benchmark::kMillisecond);

// All-reduce of 1 GiB at 50 GB/s, 1 us per link (issue 7), schedule build plus engine run.
template <Fabric F>
void BM_AllReduce(benchmark::State& state, const char* algorithm) {
  const auto ranks = static_cast<std::uint32_t>(state.range(0));
  const collsim::cli::bench::SuiteOptions o;
  std::uint64_t events = 0;
  for (auto _ : state) events += run_allreduce(algorithm, F, ranks, o.size, o.bandwidth, o.latency).events;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Switch>, ring_switch, "ring")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Ring>, ring_ring, "ring")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Switch>, tree_switch, "tree")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Ring>, tree_ring, "tree")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Switch>, hd_switch, "halving-doubling")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce<Fabric::Ring>, hd_ring, "halving-doubling")->RangeMultiplier(8)->Range(8, 512)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
