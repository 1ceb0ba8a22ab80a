#include "run/calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "run/fidelity.hpp"
#include "sim/op_costs.hpp"
#include "sim/units/saturate.hpp"
#include "topologies/routes.hpp"
#include "validation/nelder_mead.hpp"

namespace collsim::run {
namespace {

using topo::LinkClass;

// The protocols whose ring latencies a fit reports: every one NCCL runs (LL128 too, which NCCL picks
// at mid sizes on NVLink and InfiniBand machines).
constexpr std::array<topo::Protocol, 3> kShownProtocols{topo::Protocol::LL, topo::Protocol::LL128,
                                                        topo::Protocol::Simple};

// The link classes the fit can see: those of a step of the ring over the first N GPUs (a rank's
// route to the next), and those of the routes' bottleneck links, for the N of every log.
struct Classes {
  std::vector<LinkClass> steps;
  std::vector<LinkClass> bottlenecks;
};

Classes ring_classes(const topo::Topology& t, std::span<const LogRows> logs) {
  std::set<LinkClass> steps, bottlenecks;
  const auto gpus = t.gpus();
  for (const auto& log : logs) {
    const std::uint32_t ranks = log.run->ranks;
    topo::RouteCache routes(t, log.run->paths.get());
    for (std::uint32_t r = 0; ranks > 1 && r < ranks; ++r) {
      const topo::Route& route = routes.get(gpus[r], gpus[(r + 1) % ranks]);
      steps.insert(route.link_class);
      for (topo::LinkId l : route.links)
        if (t.link(l).bandwidth == route.bottleneck) bottlenecks.insert(topo::link_class(t.link(l).type));
    }
  }
  return {{steps.begin(), steps.end()}, {bottlenecks.begin(), bottlenecks.end()}};
}

// Latencies up to the clock's end times a factor up to e^7: saturates there instead of overflowing.
Time scaled(Time t, double factor) { return saturating_round_ps(static_cast<double>(t.count()) * factor); }

// The search may wander far on a flat objective; the values it tries stay where a run is defined:
// latency factors in [e^-7, e^7] (about 1/1000 to 1000), efficiencies in [1/1000, 1] (beyond 1 the
// objective is flat and the search comes back).
double efficiency(double ln_e) { return std::clamp(std::exp(ln_e), kMinEfficiency, 1.0); }

// The fitted variables (ln s, the latency factor, and ln e_c for every bottleneck class) as
// parameters, over `base`.
class Model {
 public:
  /// `max_ln_factor`: the largest ln of the latency factor (physics: no fixed latency above the
  /// fastest measured collective), at most 7.
  Model(topo::ModelParams base, Classes classes, double max_ln_factor = 7.0)
      : base_(std::move(base)), classes_(std::move(classes)), max_ln_factor_(std::min(max_ln_factor, 7.0)) {}

  double factor(double ln_s) const { return std::exp(std::clamp(ln_s, -7.0, max_ln_factor_)); }
  double max_ln_factor() const { return max_ln_factor_; }
  const Classes& classes() const { return classes_; }

  // The start: factor 1, efficiencies as `base` has them.
  std::vector<double> start() const {
    std::vector<double> x(1, 0.0);
    for (LinkClass c : classes_.bottlenecks) x.push_back(std::log(base_.link_efficiency_or_default(c)));
    return x;
  }

  topo::ModelParams params(std::span<const double> x) const {
    topo::ModelParams p;
    p.protocol = base_.protocol.value_or(topo::ProtocolChoice::Auto);
    for (std::size_t f = 0; f < topo::kFamilies; ++f)
      for (std::size_t pr = 0; pr < topo::kProtocols; ++pr) {
        const auto family = static_cast<topo::AlgoFamily>(f);
        const auto protocol = static_cast<topo::Protocol>(pr);
        p.base_latency[f][pr] = scaled(base_.base_latency_or_default(family, protocol), factor(x[0]));
        for (std::size_t k = 0; k < classes_.steps.size(); ++k) {
          const LinkClass c = classes_.steps[k];
          p.step_latency[f][static_cast<std::size_t>(c)][pr] =
              scaled(base_.step_latency_or_default(family, c, protocol), factor(x[0]));
        }
      }
    for (std::size_t k = 0; k < classes_.bottlenecks.size(); ++k)
      p.link_efficiency[static_cast<std::size_t>(classes_.bottlenecks[k])] = efficiency(x[1 + k]);
    return p;
  }

  // What a person reads: the ring's LL and Simple latencies and the efficiencies.
  std::vector<FittedValue> values(std::span<const double> x0, std::span<const double> x) const {
    const topo::ModelParams a = params(x0), b = params(x);
    std::vector<FittedValue> out;
    const auto ring = topo::AlgoFamily::Ring;
    for (auto pr : kShownProtocols)
      out.push_back({fmt::format("base latency, ring {}", topo::protocol_name(pr)), "us",
                     to_us(a.base_latency_or_default(ring, pr)), to_us(b.base_latency_or_default(ring, pr)), std::nullopt});
    for (LinkClass c : classes_.steps)
      for (auto pr : kShownProtocols)
        out.push_back({fmt::format("step latency, ring {} {}", topo::link_class_name(c), topo::protocol_name(pr)), "us",
                       to_us(a.step_latency_or_default(ring, c, pr)), to_us(b.step_latency_or_default(ring, c, pr)), std::nullopt});
    for (LinkClass c : classes_.bottlenecks)
      out.push_back({fmt::format("link efficiency, {}", topo::link_class_name(c)), "", a.link_efficiency_or_default(c),
                     b.link_efficiency_or_default(c), std::nullopt});
    return out;
  }

 private:
  topo::ModelParams base_;
  Classes classes_;
  double max_ln_factor_ = 7.0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Calibration calibrate(const LogRun& run, const LogRequest& o, std::span<const validation::NcclRow> rows,
                      std::size_t max_evaluations) {
  const LogRows one{&run, {rows.begin(), rows.end()}};
  return calibrate(std::span(&one, 1), o, max_evaluations);
}

Calibration calibrate(std::span<const LogRows> logs, const LogRequest& o, std::size_t max_evaluations) {
  const topo::Topology& topology = logs.front().run->topology;
  // Every row of every log, with the log it belongs to.
  struct Fitted {
    const LogRun* run;
    validation::NcclRow row;
  };
  std::vector<Fitted> rows;
  for (const auto& l : logs)
    for (const auto& r : l.rows) rows.push_back({l.run, r});
  topo::ModelParams base = topology.params();
  if (!o.model.params.empty()) base.merge(load_params_file(o.model.params));
  const topo::ModelParams flags = option_params(o.model, false);
  base.merge(flags);
  Classes classes = ring_classes(topology, logs);
  Calibration c;
  // An efficiency is fitted only where the rows can tell it: where at least two of them are bound by
  // that class's bandwidth (half or more of the row's time moves with it). Fitted on rows that only
  // its latencies move, it would soak up whatever the model's latencies miss, run off to values no
  // link has (0.19 of NVLink on the B200 all-gather up to 16 MiB), and wreck the large sizes.
  {
    const Model probe(base, classes);
    const std::vector<double> x0 = probe.start();
    const auto times = [&](std::span<const double> x) {
      ModelOptions fidelity = o.model;
      fidelity.fitted = probe.params(x);
      std::vector<double> t;
      for (const auto& f : rows) t.push_back(to_us(predict_row(*f.run, o, fidelity, f.row).time));
      return t;
    };
    const std::vector<double> t0 = times(x0);
    std::vector<LinkClass> identifiable;
    for (std::size_t k = 0; k < classes.bottlenecks.size(); ++k) {
      std::vector<double> x = x0;
      x[1 + k] -= std::log(2.0);  // half the efficiency
      const std::vector<double> t = times(x);
      std::size_t bound = 0;
      double most = 0;
      for (std::size_t i = 0; i < t.size(); ++i) {
        const double share = t0[i] > 0 && t[i] > 0 ? std::log(t[i] / t0[i]) / std::log(2.0) : 0.0;
        most = std::max(most, share);
        if (share >= kBandwidthBoundShare) ++bound;
      }
      if (bound >= kBandwidthBoundRows) {
        identifiable.push_back(classes.bottlenecks[k]);
      } else {
        const LinkClass lc = classes.bottlenecks[k];
        c.notes.push_back(fmt::format(
            "link efficiency, {}: kept at {:.4g}: {} of the fitted rows {} bound by its bandwidth (at most {:.0f} % of "
            "a row's time moves with it; {} needed); fit larger sizes to fit it",
            topo::link_class_name(lc), base.link_efficiency_or_default(lc), bound, bound == 1 ? "is" : "are",
            100.0 * most, kBandwidthBoundRows));
      }
    }
    classes.bottlenecks = std::move(identifiable);
  }
  // Physics bounds the latency factor: the smallest fixed latency a collective pays (the ring's
  // base latency of its fastest protocol) cannot exceed the fastest measured collective (rows of
  // 0 bytes launch nothing and are left out).
  double fastest_us = std::numeric_limits<double>::infinity();
  for (const auto& f : rows)
    if (f.row.size > 0) fastest_us = std::min(fastest_us, f.row.time_us);
  Time smallest_base = Time::max();
  for (std::size_t pr = 0; pr < topo::kProtocols; ++pr)
    smallest_base = std::min(smallest_base, base.base_latency_or_default(topo::AlgoFamily::Ring, static_cast<topo::Protocol>(pr)));
  const double max_ln_factor = std::isfinite(fastest_us) && smallest_base > Time{0}
                                   ? std::log(fastest_us / to_us(smallest_base))
                                   : 7.0;
  const Model model(base, classes, max_ln_factor);

  // The rows' errors under the parameters of x.
  // abs_pct, when given, gets each row's |error| in %, in row order.
  const auto errors = [&](std::span<const double> x, std::vector<double>* abs_pct) {
    ModelOptions fidelity = o.model;
    fidelity.fitted = model.params(x);
    double sum = 0;
    for (const auto& f : rows) {
      const double predicted = to_us(predict_row(*f.run, o, fidelity, f.row).time);
      if (predicted <= 0) return std::numeric_limits<double>::infinity();
      const double d = std::log(predicted) - std::log(f.row.time_us);
      sum += d * d;
      if (abs_pct) abs_pct->push_back(std::abs(100.0 * (predicted - f.row.time_us) / f.row.time_us));
    }
    return sum / static_cast<double>(rows.size());
  };

  const std::vector<double> x0 = model.start();
  validation::SimplexOptions options;
  options.initial_step = -0.3;  // lower latencies and efficiencies first: an efficiency above 1 is flat
  options.max_evaluations = max_evaluations;
  options.tolerance = 1e-7;
  const auto fit = validation::nelder_mead([&](std::span<const double> x) { return errors(x, nullptr); }, x0, options);

  std::vector<double> start_pct, fitted_pct;
  c.rms_log_error_start = std::sqrt(errors(x0, &start_pct));
  c.rms_log_error = std::sqrt(errors(fit.x, &fitted_pct));
  c.median_abs_error_start_pct = median(start_pct);
  c.median_abs_error_pct = median(fitted_pct);
  std::vector<double> x = fit.x;
  // Least squares on ln time can trade most rows for a few far ones: where the model's shape differs
  // from the log's (a protocol or channel count picked at other sizes than NCCL did), scaling every
  // latency up to meet a few slow rows makes the typical row worse. Such a fit explains nothing
  // about the machine; the start is kept, and the note says what the fit would have done.
  // A point of median |error| is within what the logs' printed times and the fit's tolerance move.
  if (c.median_abs_error_pct > c.median_abs_error_start_pct + kWorseMedianPoints) {
    c.notes.push_back(fmt::format(
        "the fit lowered the rms of ln(predicted/measured) ({:.4f} -> {:.4f}) but raised the median |error| of the "
        "fitted rows ({:.1f} % -> {:.1f} %): the model's shape differs from the log's, so the starting values are kept",
        c.rms_log_error_start, c.rms_log_error, c.median_abs_error_start_pct, c.median_abs_error_pct));
    x = x0;
    c.rms_log_error = c.rms_log_error_start;
    c.median_abs_error_pct = c.median_abs_error_start_pct;
  }
  c.rows = rows.size();
  // Each log's median |error| before and after (the rows are in log order).
  {
    const std::vector<double>& kept_pct = x == x0 ? start_pct : fitted_pct;
    std::size_t at = 0;
    for (const auto& l : logs) {
      LogFit fit_of_log;
      fit_of_log.log = l.run->log.file;
      fit_of_log.rows = l.rows.size();
      fit_of_log.median_abs_error_start_pct =
          median({start_pct.begin() + static_cast<std::ptrdiff_t>(at), start_pct.begin() + static_cast<std::ptrdiff_t>(at + l.rows.size())});
      fit_of_log.median_abs_error_pct =
          median({kept_pct.begin() + static_cast<std::ptrdiff_t>(at), kept_pct.begin() + static_cast<std::ptrdiff_t>(at + l.rows.size())});
      at += l.rows.size();
      c.logs.push_back(std::move(fit_of_log));
    }
  }
  c.evaluations = fit.evaluations;
  c.values = model.values(x0, x);
  c.params = model.params(x);
  if (x != x0) {
    // Each fitted value's uncertainty, from the objective's curvature at the fit (least squares on
    // ln time: var(ln θ) ≈ 2σ² / (n f''), σ² the residual variance, n rows; cross terms left out).
    const double n = static_cast<double>(rows.size());
    const double p = static_cast<double>(x.size());
    const double f = c.rms_log_error * c.rms_log_error;  // the objective at the fit
    const double sigma2 = n > p ? f * n / (n - p) : f;
    std::vector<double> rel(x.size(), std::numeric_limits<double>::infinity());
    constexpr double h = 0.05;
    for (std::size_t k = 0; k < x.size(); ++k) {
      std::vector<double> up = x, down = x;
      up[k] += h;
      down[k] -= h;
      const double curvature = (errors(up, nullptr) + errors(down, nullptr) - 2 * f) / (h * h);
      if (curvature > 0) rel[k] = 100.0 * std::sqrt(2 * sigma2 / (n * curvature));
    }
    // Values: the latencies share coordinate 0, each efficiency its own (in the order of `values`).
    std::size_t efficiency_k = 1;
    for (auto& v : c.values) v.uncertainty_pct = v.unit == "us" ? rel[0] : rel[efficiency_k++];
    // A value on a bound is where physics stopped the fit, not where the rows put it.
    if (x[0] >= model.max_ln_factor() - 1e-3)
      c.notes.push_back(fmt::format("the latency factor sits on its bound {:.4g}: the ring's smallest base latency "
                                    "reaches the fastest measured collective ({} us); the rows want more latency "
                                    "than a collective can pay",
                                    std::exp(model.max_ln_factor()), fastest_us));
    for (std::size_t k = 0; k < model.classes().bottlenecks.size(); ++k) {
      const double e = efficiency(x[1 + k]);
      const std::string_view name = topo::link_class_name(model.classes().bottlenecks[k]);
      if (e >= 1.0 - 1e-9)
        c.notes.push_back(fmt::format("link efficiency, {}: sits on its bound 1 (the link's full rate): the rows want "
                                      "more bandwidth than the link has",
                                      name));
      else if (e <= kMinEfficiency * 1.001)
        c.notes.push_back(fmt::format("link efficiency, {}: sits on its bound {}: the rows want less bandwidth than "
                                      "any link delivers",
                                      name, kMinEfficiency));
    }
  }
  c.params.channels = flags.channels;
  c.params.slice = flags.slice;
  return c;
}

}  // namespace collsim::run
