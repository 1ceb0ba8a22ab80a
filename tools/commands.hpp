// The subcommands: their options, registration on the CLI11 app, and what they do.
#pragma once

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/summary.hpp"
#include "tools/fidelity_options.hpp"
#include "tools/options.hpp"
#include "tools/verify_options.hpp"
#include "train/train_text.hpp"
#include "validation/cuda/gpu_runtime.hpp"

namespace collsim::cli {

struct SimulateOptions {
  TopologyOptions topology;
  AlgorithmOptions algorithm;
  std::string size;
  std::string ranks;
  std::string format = "table";
  std::string network = "flow";
  VerifyOptions verify;
  FidelityOptions fidelity;  ///< --protocol, --channels, --slice, --params, --model
  std::string schedule;       ///< --schedule FILE: simulate this schedule file instead of building one
  std::string save_schedule;  ///< --save-schedule FILE, or "-" for standard output
  std::string trace;          ///< --trace FILE: Chrome trace event timeline of the run
  std::vector<std::string> given;  ///< the flags given on the command line that have defaults, e.g. "--format"
  /// True when `flag` (one of those tracked in `given`) was on the command line.
  [[nodiscard]] bool was_given(std::string_view flag) const {
    return std::find(given.begin(), given.end(), flag) != given.end();
  }
};
CLI::App* add_simulate(CLI::App& app, SimulateOptions& options);
int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

struct ExplainOptions {
  AlgorithmOptions algorithm;
  std::string ranks = "3";
  std::string elements = "6";
  std::string nodes;
};
CLI::App* add_explain(CLI::App& app, ExplainOptions& options);
int run_explain(const ExplainOptions& options, std::ostream& out);

struct AlgorithmsOptions {
  std::string format = "table";
};
CLI::App* add_algorithms(CLI::App& app, AlgorithmsOptions& options);
int run_algorithms(const AlgorithmsOptions& options, std::ostream& out);

struct CompareOptions {
  std::string log;              ///< LOG: the nccl-tests output file
  TopologyOptions topology;     ///< TOPOLOGY (positional) or the generator flags
  std::string algorithm = "nccl";  ///< NCCL's choice per row unless the log was forced (--algorithm)
  std::string ranks;            ///< --ranks N: needed when the log does not say
  std::string collective;       ///< --collective C: needed when the log does not say
  std::string format = "table";
  std::string network = "flow"; ///< --network flow|fifo, as simulate's
  FidelityOptions fidelity;     ///< --protocol, --channels, --slice, --params (no --model)
  std::string plot;             ///< --plot FILE: the predicted-vs-measured chart
  std::string jobs;  ///< -j: rows predicted at once (compare only)
};
CLI::App* add_compare(CLI::App& app, CompareOptions& options);
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err);

struct CalibrateOptions {
  CompareOptions compare;       ///< the log, topology, ranks, collective, algorithm and fidelity flags
  std::string output;           ///< -o FILE: the parameter file to write
  std::string min_size;         ///< --min-size S: fit only rows of at least S bytes
  std::string max_size;         ///< --max-size S: fit only rows of at most S bytes
  std::string max_evaluations;  ///< --max-evaluations K; empty: 150
  std::vector<std::string> also;  ///< --also LOG (repeatable): more logs of the same machine, fitted at once
};
CLI::App* add_calibrate(CLI::App& app, CalibrateOptions& options);
/// Fits the model parameters to the log (run/calibration.hpp), writes them to options.output
/// atomically, and prints the fit: a table, or JSON with --format json.
int run_calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err);

struct TopoOptions {
  TopologyOptions topology;
  bool dot = false;              ///< --dot: Graphviz DOT
  bool detect = false;           ///< --detect: the topology JSON of this machine's GPUs (needs CUDA and a GPU)
  std::string ranks_per_gpu;     ///< --ranks-per-gpu K with --detect: K virtual ranks per GPU (default 1)
  std::string format = "table";  ///< table or json (the normalised topology)
};
CLI::App* add_topo(CLI::App& app, TopoOptions& options);
int run_topo(const TopoOptions& options, std::ostream& out);

struct ValidateOptions {
  TopologyOptions topology;      ///< empty: the detected topology of this machine (topo --detect)
  AlgorithmOptions algorithm;
  std::string size;              ///< --size S, or the sizes of -b/-e/-f
  std::string min_bytes, max_bytes, step_factor;
  std::string ranks;             ///< --ranks N; default: every GPU of the topology
  std::string ranks_per_gpu;     ///< --ranks-per-gpu K; default 1
  std::string warmup;            ///< -w; default 5
  std::string iters;             ///< -n; default 20
  std::string dtype = "float32";
  std::string network = "flow";
  bool nccl = false;             ///< --nccl: NCCL's own collective as well (libnccl loaded at run time)
  std::string format = "table";
};
CLI::App* add_validate(CLI::App& app, ValidateOptions& options);
/// Parses and checks every flag first; then, without CUDA support or a GPU, throws NoGpuError (exit 3).
/// Replays the schedule on the GPUs for each size, checks the data, times it and prints measured vs
/// predicted time. Returns 1 when a data check fails.
int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err);
/// The GPUs of this machine for `command` ("validate", "topo --detect"); throws NoGpuError naming
/// what is missing: CUDA support in this build, or a GPU (cudaGetDeviceCount's error).
cuda::Probe require_gpu(std::string_view command);

struct BenchOptions {
  std::string cases;       ///< --cases REGEX; empty: every case
  bool quick = false;
  std::string max_ranks;   ///< empty: 4096, or 64 with --quick; no cap when --ranks is given
  std::string ranks;       ///< --ranks LIST: N of the collective cases; empty: 8,64,512,4096,16384
  std::string repeat;      ///< empty: 1
  std::string size;        ///< empty: 1G
  std::string max_memory;  ///< empty: 3/4 of the machine's memory; "0": no limit
  std::string timeout;     ///< seconds per run; empty: 300
  std::string format = "table";
};
CLI::App* add_bench(CLI::App& app, BenchOptions& options);
/// Runs the suite (bench/bench_cases.hpp); progress goes to `err` when stderr is a terminal.
int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err);

struct SweepOptions {
  std::vector<std::string> topologies;  ///< files or bundled names
  TopologyOptions generator;            ///< --gpus (a list here), --fabric, --link-bandwidth, --link-latency
  std::string ranks;
  std::string min_bytes, max_bytes, step_factor, step_bytes, sizes;
  std::string collectives = "allreduce";
  std::string algorithms = "ring";
  AlgorithmOptions algorithm;  ///< --root, --chunk-size, --ps-shards (collective and algorithm set per row)
  std::string dtype = "float32";
  std::string network = "flow";
  std::string params;  ///< --params FILE: model parameters over each topology's own (e.g. from calibrate)
  std::string nccl_algo;  ///< --nccl-algo: NCCL_ALGO-style list restricting the algorithm nccl rows
  std::string gpus_per_thread;  ///< --gpus-per-thread: GPUs one host thread drives (nccl-tests -g G)
  std::string format = "csv";
  std::string output;
  std::string jobs;
  std::string shard;
  bool resume = false;
};
CLI::App* add_sweep(CLI::App& app, SweepOptions& options);
int run_sweep(const SweepOptions& options, std::ostream& out, std::ostream& err);

struct MergeOptions {
  std::vector<std::string> shards;
  std::string output;
};
CLI::App* add_merge(CLI::App& app, MergeOptions& options);
int run_merge(const MergeOptions& options, std::ostream& out);

struct PlotOptions {
  std::string input;
  std::string x = "size_bytes";
  std::string y = "busbw_GBps";
  std::string by = "algorithm";
  std::string facet;
  std::string output;
  std::string title;
};
CLI::App* add_plot(CLI::App& app, PlotOptions& options);
int run_plot(const PlotOptions& options);

/// collsim train's flags: the request's text (train/train_text.hpp) and what the command prints.
struct TrainOptions {
  train::TrainText text;
  TopologyOptions topology;
  FidelityOptions fidelity;  ///< --protocol, --channels, --slice, --params, --max-ops, --nccl-algo, --gpus-per-thread
  std::string format = "table";
  std::string trace;  ///< --trace FILE: the step's timeline (Chrome trace event format)
};
CLI::App* add_train(CLI::App& app, TrainOptions& options);
int run_train(const TrainOptions& options, std::ostream& out, std::ostream& err);

}  // namespace collsim::cli
