#include "run/sweep.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "reports/sweep_row.hpp"
#include "run/errors.hpp"
#include "run/fidelity.hpp"
#include "run/nccl_choice.hpp"
#include "run/parse.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "topologies/export.hpp"

namespace collsim::run {
namespace {

// The algorithms named for `collective` (all that support it for "all"); a name that exists only
// for other collectives is left out, an unknown one is an error.
std::vector<const algo::AlgorithmInfo*> algorithms_for(const algo::AlgorithmRegistry& registry, sched::Collective c,
                                                       const std::vector<std::string>& names) {
  std::vector<const algo::AlgorithmInfo*> out;
  for (const auto& name : names) {
    const bool every = name == "all";  // the keyword, not an algorithm
    if (is_nccl_choice(name)) {  // NCCL's choice, made per row: a null entry
      if (std::find(out.begin(), out.end(), nullptr) == out.end()) out.push_back(nullptr);
      continue;
    }
    if (!every) {
      if (registry.named(name).empty()) {
        try {
          (void)registry.find(c, name);  // throws, listing the algorithms
        } catch (const algo::AlgorithmError& e) {
          throw RequestError(Field::Algorithms, name, fmt::format("{}: {}", ref(Field::Algorithms), e.what()));
        }
      }
    }
    for (const auto& info : registry.all())
      if (info.collective == c && (every || info.answers_to(name)) && std::find(out.begin(), out.end(), &info) == out.end())
        out.push_back(&info);
  }
  return out;
}

// FNV-1a (64 bit) of `text` as 16 hex digits: stable across builds, unlike std::hash.
std::string fnv1a_hex(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325u;
  for (unsigned char ch : text) hash = (hash ^ ch) * 0x100000001b3u;
  return fmt::format("{:016x}", hash);
}

template <typename T>
std::string optional_text(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string();
}

// A flag that no row of the sweep uses would change nothing while looking as if it had: refused,
// as a single run refuses a flag its algorithm does not use (check_used_by). NCCL's choice (a null
// algorithm) may pick a pipelined algorithm, never a parameter server.
void check_options_used(const AlgorithmOptions& o, const std::vector<SweepJob>& jobs) {
  const auto any = [&](auto&& uses) { return jobs.empty() || std::any_of(jobs.begin(), jobs.end(), uses); };
  if (o.root && !any([](const SweepJob& j) { return sched::has_root(j.collective); }))
    throw RequestError(Field::Root, std::to_string(*o.root),
                       fmt::format("{}: none of the swept collectives has a root; expected {} only with {} that "
                                   "include broadcast or reduce",
                                   ref(Field::Root), ref(Field::Root), ref(Field::Collectives)));
  if (o.chunk_size && !any([](const SweepJob& j) { return j.algorithm == nullptr || j.algorithm->pipelined; }))
    throw RequestError(Field::ChunkSize, std::to_string(*o.chunk_size),
                       fmt::format("{}: none of the swept algorithms is pipelined in chunks; expected {} only with "
                                   "{} that include {}",
                                   ref(Field::ChunkSize), ref(Field::ChunkSize), ref(Field::Algorithms),
                                   kPipelinedAlgorithms));
  // (A sweep takes no --ps-node: its rows run on topologies of different nodes.)
  const auto servers = [](const SweepJob& j) { return j.algorithm != nullptr && j.algorithm->takes.ps_shards; };
  if (o.ps_shards && !any(servers))
    throw RequestError(Field::PsShards, std::to_string(*o.ps_shards),
                       fmt::format("{}: none of the swept algorithms has servers; expected it only with {} that "
                                   "include ps",
                                   ref(Field::PsShards), ref(Field::Algorithms)));
}

}  // namespace

SweepPlan plan_sweep(SweepRequest request, const algo::AlgorithmRegistry& registry) {
  SweepPlan plan;
  const SweepRequest& o = request;
  check_network_name(o.network);
  check_count(Field::Shard, o.shards, 1, 1u << 20);
  check_count(Field::Shard, o.shard, 0, o.shards - 1);
  if (o.sizes.empty())
    throw RequestError(Field::Sizes, "", fmt::format("{}: missing; give at least one size", ref(Field::Sizes)));
  if (o.topologies.empty())
    throw RequestError(Field::Topology, "", fmt::format("{}: missing; give at least one topology", ref(Field::Topology)));
  // Read once up front: a bad file fails at once, every row sees the same values, and they key resume.
  std::string params_text;
  if (!o.params.empty()) {
    plan.model.fitted = load_params_file(o.params);
    plan.model.fitted_source = fmt::format("--params {}", o.params);  // as reports print a value's source
    params_text = topo::write_model_params_json(*plan.model.fitted);
  }
  // What identifies the sweep: the partial file's (resume) adds the shard to it, the shard file's
  // (merge) does not. Contents, not names: a topology file edited, or a generated fabric with other
  // link options, keeps its name but must not resume or merge with the old rows.
  const bool json = o.format == RowFormat::Json;
  plan.options_text = fmt::format("{}|{}|{}|{}|{}|{}|{}", json ? "json" : "csv", o.network,
                                  validation::dtype_name(o.dtype), optional_text(o.options.root),
                                  optional_text(o.options.chunk_size), optional_text(o.options.ps_shards),
                                  reports::sweep_csv_header());
  for (const auto& t : o.topologies) plan.fingerprint_text += "|" + topo::normalized_json(t.topology);
  plan.fingerprint_text += "|" + params_text;
  if (!o.nccl_algorithms.empty()) {
    if (std::none_of(o.algorithms.begin(), o.algorithms.end(), [](const std::string& a) { return is_nccl_choice(a); }))
      throw RequestError(Field::NcclAlgo, o.nccl_algo,
                         fmt::format("{}: only with {} nccl, whose choice it restricts", ref(Field::NcclAlgo),
                                     ref(Field::Algorithms)));
    plan.model.nccl_algorithms = o.nccl_algorithms;
    plan.fingerprint_text += "|nccl_algo=" + o.nccl_algo;
  }
  if (o.gpus_per_thread) {
    plan.model.gpus_per_thread = o.gpus_per_thread;
    plan.fingerprint_text += fmt::format("|gpus_per_thread={}", *o.gpus_per_thread);
  }
  for (std::size_t t = 0; t < o.topologies.size(); ++t) {
    const auto gpus = static_cast<std::uint32_t>(o.topologies[t].topology.gpus().size());
    for (std::uint32_t n : o.ranks.empty() ? std::vector<std::uint32_t>{gpus} : o.ranks) {
      if (n > gpus) {
        ++plan.too_few_gpus;
        continue;
      }
      for (sched::Collective c : o.collectives)
        for (const auto* a : algorithms_for(registry, c, o.algorithms))
          for (Bytes s : o.sizes) {
            if (plan.jobs.size() >= kMaxSweepRows)
              throw RequestError(Field::Sizes, "", fmt::format("sweep: more than {} rows; expected fewer", kMaxSweepRows));
            plan.jobs.push_back({t, n, a, s, c});
            plan.fingerprint_text += fmt::format("|{}:{}:{}:{}:{}", o.topologies[t].topology.name(), n,
                                                 plan.jobs.back().name(), sched::collective_name(c), s);
          }
    }
  }
  // A name that serves none of the collectives would silently give no rows.
  for (const auto& name : o.algorithms) {
    bool used = name == "all";
    for (sched::Collective c : o.collectives) used |= !algorithms_for(registry, c, {name}).empty();
    if (!used) {
      std::vector<std::string_view> kinds;
      for (sched::Collective c : o.collectives) kinds.push_back(sched::collective_name(c));
      throw RequestError(Field::Algorithms, name,
                         fmt::format("{}: {} has none of the collectives {}; `collsim algorithms` lists what each one "
                                     "has",
                                     ref(Field::Algorithms), name, fmt::join(kinds, ",")));
    }
  }
  if (plan.jobs.empty() && plan.too_few_gpus > 0) {
    // Every pair left out: a header alone would look like a sweep that ran.
    std::size_t most = 0;
    for (const auto& t : o.topologies) most = std::max(most, t.topology.gpus().size());
    std::vector<std::string> counts;
    for (auto n : o.ranks) counts.push_back(std::to_string(n));
    throw RequestError(Field::Ranks, fmt::format("{}", fmt::join(counts, ",")),
                       fmt::format("{}: found {}, but no topology has that many GPUs; expected at most {}",
                                   ref(Field::Ranks), fmt::join(counts, ","), most));
  }
  check_options_used(o.options, plan.jobs);
  // Options are checked once up front, so a bad value fails at once rather than skipping every row.
  if (o.options.chunk_size && *o.options.chunk_size == 0)
    throw RequestError(Field::ChunkSize, "0", fmt::format("{}: found 0, expected at least 1 byte", ref(Field::ChunkSize)));
  for (std::size_t i = o.shard; i < plan.jobs.size(); i += o.shards) plan.mine.push_back(i);
  plan.request = std::move(request);
  plan.registry = &registry;
  return plan;
}

JobOutcome run_sweep_row(const SweepPlan& plan, std::size_t k, const std::atomic<bool>* stop) {
  const SweepRequest& o = plan.request;
  const SweepJob& j = plan.jobs[plan.mine[k]];
  const SweepTopology& t = o.topologies[j.topology];
  const bool json = o.format == RowFormat::Json;
  const auto element = validation::dtype_size(o.dtype);
  const reports::SweepRowContext context{plan.mine[k], t.fabric, validation::dtype_name(o.dtype), element};
  try {
    Plan p;
    try {
      const algo::AlgorithmInfo* algorithm = j.algorithm;
      std::string choice;
      if (!algorithm) {
        const NcclChoice pick = choose_nccl_algorithm(*plan.registry, t.topology, t.topology.gpus().first(j.ranks),
                                                      j.collective, j.size, plan.model, plan.model.nccl_algorithms);
        algorithm = pick.entry;
        choice = pick.reason(j.size);
        check_used_by(o.options, *algorithm);  // the options checked against the row's pick
      }
      p = build_plan(*algorithm, t.topology, j.ranks, o.options, j.size, element, plan.model, Ops::OnDemand);
      p.algorithm_choice = std::move(choice);
    } catch (const algo::AlgorithmError& e) {
      return {true, e.what(), {}};
    } catch (const OverflowError&) {
      throw;
    } catch (const RequestError& e) {  // e.g. a root beyond this row's ranks
      return {true, e.message(), {}};  // its references rendered by the front end
    }
    const Simulated run = simulate_plan(p, t.topology, o.network, Formula::None, nullptr, stop);
    return {false, json ? reports::sweep_json_row(context, run.summary, t.topology)
                        : reports::sweep_csv_row(context, run.summary, t.topology),
            {}};
  } catch (const ClockOverflowError& e) {
    // A valid row whose time does not fit the clock: reported in its row and on stderr, and the
    // other rows run.
    const auto collective = sched::collective_name(j.collective);
    const reports::SweepRowIdentity id{t.topology.name(), o.network, j.ranks, collective, j.name(), j.size};
    return {false,
            json ? reports::sweep_json_error_row(context, id, e.what())
                 : reports::sweep_csv_error_row(context, id, e.what()),
            fmt::format("sweep row {} ({}, {} ranks, {} {}, {} bytes): not simulated: {}", plan.mine[k],
                        t.topology.name(), j.ranks, collective, j.name(), j.size, e.what())};
  }
}

SweepRunSpec sweep_run_spec(const SweepPlan& plan) {
  const SweepRequest& o = plan.request;
  const bool json = o.format == RowFormat::Json;
  SweepRunSpec spec;
  spec.count = plan.mine.size();
  spec.header = json ? std::string() : reports::sweep_csv_header();
  spec.fingerprint = fnv1a_hex(fmt::format("{}|{}/{}{}", plan.options_text, o.shard, o.shards, plan.fingerprint_text));
  if (o.sharded) {
    // Framed by the lines that tell merge which sweep and which rows it holds (sweep_shard.hpp).
    const ShardHead head{o.shard, o.shards, fnv1a_hex(plan.options_text + plan.fingerprint_text), plan.jobs.size(),
                         json ? "json" : "csv"};
    spec.header = shard_head_line(head) + spec.header;
    const std::vector<std::size_t>* mine = &plan.mine;
    spec.footer = [head, mine](const std::vector<std::size_t>& skipped) {
      std::vector<std::uint64_t> rows;
      for (std::size_t k : skipped) rows.push_back((*mine)[k]);
      return shard_end_line(head, rows);
    };
  }
  // A whole sweep with no row to show is an error, not a file with a header only; a shard with none
  // is not (the other shards may hold rows, and merge needs its file).
  spec.need_a_row = o.shards == 1;
  return spec;
}

std::string first_skip(const SweepPlan& plan, const SweepRunReport& report) {
  if (!report.first_skipped) return "";
  const SweepJob& j = plan.jobs[plan.mine[*report.first_skipped]];
  return fmt::format("first {} on {} ranks of {}: {}", j.name(), j.ranks,
                     plan.request.topologies[j.topology].topology.name(), report.first_skip_reason);
}

}  // namespace collsim::run
