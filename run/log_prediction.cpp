// Settling a log's run and predicting its rows: shared by compare and calibrate.
#include "run/log_prediction.hpp"

#include <atomic>
#include <exception>
#include <optional>
#include <stdexcept>
#include <thread>

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "reports/error_bands.hpp"
#include "run/errors.hpp"
#include "run/nccl_choice.hpp"
#include "run/parse.hpp"
#include "sim/network/network_model.hpp"

namespace collsim::run {
namespace {

// The nccl-tests program that measures `c` (for reports of logs that do not name theirs).
std::string_view program_of(sched::Collective c) {
  switch (c) {
    case sched::Collective::AllReduce: return "all_reduce_perf";
    case sched::Collective::ReduceScatter: return "reduce_scatter_perf";
    case sched::Collective::AllGather: return "all_gather_perf";
    case sched::Collective::Broadcast: return "broadcast_perf";
    case sched::Collective::Reduce: return "reduce_perf";
    case sched::Collective::AllToAll: return "alltoall_perf";
    case sched::Collective::SendRecv: return "sendrecv_perf";
  }
  return "";
}

// The collective: the log's, or the request's for a log that does not say; both must agree.
sched::Collective log_collective(const validation::NcclLog& log, std::optional<sched::Collective> given) {
  if (log.test.empty()) {
    if (!given)
      throw RequestError(Field::Collective, "",
                         fmt::format("{}: missing; {} has only result rows and does not say which collective it "
                                     "measured, expected {} C (e.g. {} allreduce)",
                                     ref(Field::Collective), log.file, ref(Field::Collective), ref(Field::Collective)));
    return *given;
  }
  const auto from_log = validation::collective_of_test(log.test);
  if (!from_log)
    throw RequestError(Field::Log, log.file,
                       fmt::format("{}:{}: found {}, expected a program whose collective collsim simulates: "
                                   "all_reduce_perf, reduce_scatter_perf, all_gather_perf, broadcast_perf, reduce_perf "
                                   "or alltoall_perf",
                                   log.file, log.test_line, log.test));
  if (given && *given != *from_log)
    throw RequestError(Field::Collective, std::string(sched::collective_name(*given)),
                       fmt::format("{}: found {}, but {}:{} says the log measured {}; expected {} or no {}",
                                   ref(Field::Collective), sched::collective_name(*given), log.file, log.test_line,
                                   log.test, sched::collective_name(*from_log), ref(Field::Collective)));
  return *from_log;
}

// The rank count: the log's, or the request's for a log that does not say; both must agree.
std::uint32_t log_ranks(const validation::NcclLog& log, std::optional<std::uint32_t> given) {
  if (!log.ranks) {
    if (!given)
      throw RequestError(Field::Ranks, "",
                         fmt::format("{}: missing; {} has only result rows and does not say how many ranks ran, "
                                     "expected {} N",
                                     ref(Field::Ranks), log.file, ref(Field::Ranks)));
    check_count(Field::Ranks, *given, 1, std::numeric_limits<std::uint32_t>::max());
    return *given;
  }
  if (given && *given != *log.ranks)
    throw RequestError(Field::Ranks, std::to_string(*given),
                       fmt::format("{}: found {}, but {}:{} says the log ran on {} ranks; expected {} or no {}",
                                   ref(Field::Ranks), *given, log.file, log.ranks_line, *log.ranks, *log.ranks,
                                   ref(Field::Ranks)));
  return *log.ranks;
}

// What a single simulation is asked for one row.
SimulationRequest row_request(const LogRequest& o, sched::Collective c, std::uint32_t ranks,
                              const validation::NcclRow& row, const std::string& file) {
  SimulationRequest s;
  s.network = o.network;
  s.algorithm = o.algorithm;
  s.collective = c;
  s.size = row.size;
  s.ranks = ranks;
  // A row needs only its time (and the rates from it): identical channels run once, as copies,
  // where the network model times copies as the channels would run (Ops::TimesOnly).
  s.ops = net::network_folds_copies(o.network) ? Ops::TimesOnly : Ops::OnDemand;
  // nccl-tests prints root -1 where it does not apply and redop "none" for the collectives that do
  // not reduce (src/common.cu), but for sendrecv; a row that says otherwise belongs to another
  // collective.
  const bool rooted = c == sched::Collective::Broadcast || c == sched::Collective::Reduce;
  const bool reduces = sched::reduces(c);
  const auto name = sched::collective_name(c);
  if (row.root && (*row.root >= 0) != rooted)
    throw RequestError(Field::Log, file,
                       fmt::format("{}:{}: found root {}, expected {} for {} {}", file, row.line, *row.root,
                                   rooted ? "a rank" : "-1", ref(Field::Collective), name));
  // sendrecv_perf prints the -o operation it was given (sum by default) though nothing reduces.
  if (!row.redop.empty() && c != sched::Collective::SendRecv && (row.redop != "none") != reduces)
    throw RequestError(Field::Log, file,
                       fmt::format("{}:{}: found redop {}, expected {} for {} {}", file, row.line, row.redop,
                                   reduces ? "sum, prod, min, max or avg" : "none", ref(Field::Collective), name));
  // Broadcast and reduce run from the printed root.
  if (rooted && row.root && *row.root >= 0) {
    if (*row.root >= ranks)
      throw RequestError(Field::Log, file,
                         fmt::format("{}:{}: found root {}, expected a rank below {}", file, row.line, *row.root, ranks));
    s.options.root = static_cast<std::uint32_t>(*row.root);
  }
  return s;
}

}  // namespace

sched::Collective parse_log_collective(std::string_view text) {
  const auto c = validation::collective_of_test(text);
  if (!c)
    throw RequestError(Field::Collective, std::string(text),
                       fmt::format("{}: found \"{}\", expected one of: {} (or the nccl-tests program, e.g. "
                                   "all_reduce_perf)",
                                   ref(Field::Collective), text, sched::collective_names_list()));
  return *c;
}

LogRun open_log_run(const LogRequest& o) {
  if (o.log.empty())
    throw RequestError(Field::Log, "",
                       fmt::format("{}: missing; expected an nccl-tests output file, e.g. collsim compare run.txt "
                                   "dgx-a100",
                                   ref(Field::Log)));
  validation::NcclLog log;
  try {
    log = validation::read_nccl_log(o.log);
  } catch (const validation::NcclLogError& e) {
    throw RequestError(Field::Log, o.log, e.what());
  }
  check_network_name(o.network);
  const sched::Collective collective = log_collective(log, o.collective);
  const std::uint32_t ranks = log_ranks(log, o.ranks);
  topo::Topology t = load_topology(o.topology);
  if (ranks > t.gpus().size())
    throw RequestError(Field::Topology, t.name(),
                       fmt::format("{}: ran on {} ranks, but topology {} has only {} GPUs; expected a topology with at "
                                   "least {} GPUs",
                                   log.file, ranks, t.name(), t.gpus().size(), ranks));
  return LogRun{std::move(log), collective, ranks, std::move(t)};
}

std::string test_program(const LogRun& run) {
  return run.log.test.empty() ? std::string(program_of(run.collective)) : run.log.test;
}

namespace {

// predict_row with the routes' links from `paths` (a thread's own table where rows run at once).
sim::Summary predict_row_on(const LogRun& run, const LogRequest& o, const ModelOptions& model,
                            const validation::NcclRow& row, const algo::AlgorithmRegistry& registry,
                            topo::PathTable* paths) {
  SimulationRequest s = row_request(o, run.collective, run.ranks, row, run.log.file);
  s.model = model;
  s.model.formula = Formula::None;
  // The host drove as many GPUs per thread as the log's nGpus says, unless the request says.
  if (!s.model.gpus_per_thread && run.log.gpus_per_thread) {
    s.model.gpus_per_thread = run.log.gpus_per_thread;
    s.model.gpus_per_thread_source = fmt::format("{}:{}: nGpus {}", run.log.file, run.log.gpus_per_thread_line,
                                                 *run.log.gpus_per_thread);
  }
  const Plan plan = plan_on(s, run.topology, registry, paths);
  return run_plan(plan, run.topology, s).run.summary;
}

}  // namespace

sim::Summary predict_row(const LogRun& run, const LogRequest& o, const ModelOptions& model,
                         const validation::NcclRow& row, const algo::AlgorithmRegistry& registry) {
  return predict_row_on(run, o, model, row, registry, run.paths.get());
}

LogComparison compare_log(const LogRun& run, const LogRequest& request, FieldSpelling spell,
                          const algo::AlgorithmRegistry& registry) {
  LogComparison out;
  reports::CompareView& view = out.view;
  view.log = request.log;
  view.test = test_program(run);
  view.collective = std::string(sched::collective_name(run.collective));
  view.ranks = run.ranks;
  for (const auto& d : run.log.devices)
    if (std::find(view.devices.begin(), view.devices.end(), d) == view.devices.end()) view.devices.push_back(d);
  view.hosts = run.log.hosts.size();
  view.log_forms = run.log.forms;
  // Rows are taken in the log's order; after a row fails (other than by passing the clock) no
  // thread takes another, and every row before it has been taken, so the first failure in the
  // log's order is the one a single thread would meet.
  const std::size_t count = run.log.rows.size();
  std::vector<std::optional<sim::Summary>> predicted(count);
  std::vector<std::exception_ptr> failed(count);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  const auto work = [&](topo::PathTable* paths) {
    for (std::size_t i; !stop.load() && (i = next.fetch_add(1)) < count;) {
      try {
        predicted[i] = predict_row_on(run, request, request.model, run.log.rows[i], registry, paths);
      } catch (const OverflowError&) {
        failed[i] = std::current_exception();
      } catch (...) {
        failed[i] = std::current_exception();
        stop = true;
      }
    }
  };
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, request.threads), count));
  if (threads <= 1) {
    work(run.paths.get());
  } else {
    std::vector<topo::PathTable> tables(threads);
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, &tables[t]);
  }
  std::vector<reports::SizedError> errors;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& row = run.log.rows[i];
    try {
      if (failed[i]) std::rethrow_exception(failed[i]);
      // Rows after the first failure are never reached: it was rethrown above.
      if (!predicted[i]) throw std::logic_error("compare_log: a row before the first failure was not predicted");
      const sim::Summary& s = *predicted[i];
      view.algorithm = s.algorithm;
      view.topology = s.topology;
      view.network = s.network;
      view.gpus_per_thread = s.gpus_per_thread;
      view.gpus_per_thread_source = s.gpus_per_thread_source;
      view.rows.push_back(compared_row(row, s));
      errors.push_back({row.size, view.rows.back().error_pct});
    } catch (const OverflowError& e) {
      // A row whose predicted time passes the clock's end: reported in its row, the others predicted.
      reports::ComparedRow r = measured_row(row);
      r.error = e.rendered(spell);
      view.rows.push_back(std::move(r));
      out.warnings.push_back(fmt::format("collsim: warning: compare: {}:{} ({} bytes): not predicted: {}; its "
                                         "predicted columns are empty\n",
                                         run.log.file, row.line, row.size, e.rendered(spell)));
    }
  }
  // NCCL's choice names the algorithm every row ran, or "nccl" where rows ran different ones (each
  // row says its own).
  view.nccl_choice = is_nccl_choice(request.algorithm);
  for (const auto& r : view.rows)
    if (view.nccl_choice && !r.algorithm.empty() && r.algorithm != view.algorithm) view.algorithm = "nccl";
  if (errors.empty() && !view.rows.empty())
    throw RequestError(Field::Log, run.log.file,
                       fmt::format("{}:{}: no row could be predicted, the first: {}", run.log.file,
                                   view.rows.front().line, view.rows.front().error));
  view.bands = reports::summarize_error_bands(errors);
  return out;
}

reports::ComparedRow measured_row(const validation::NcclRow& row) {
  reports::ComparedRow r;
  r.line = row.line;
  r.size = row.size;
  r.measured_us = row.time_us;
  r.measured_algbw_GBps = row.algbw_GBps;
  r.measured_busbw_GBps = row.busbw_GBps;
  return r;
}

reports::ComparedRow compared_row(const validation::NcclRow& row, const sim::Summary& s) {
  reports::ComparedRow r = measured_row(row);
  r.predicted = s.time;
  r.predicted_algbw_GBps = s.algbw_GBps;
  r.predicted_busbw_GBps = s.busbw_GBps;
  r.error_pct = reports::error_pct(to_us(s.time), row.time_us);
  r.algorithm = s.algorithm;
  r.protocol = s.protocol;
  r.channels = s.channels;
  r.host_bound = s.host_bound;
  return r;
}

}  // namespace collsim::run
