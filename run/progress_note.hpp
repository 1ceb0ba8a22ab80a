// A note on a terminal when a simulation runs long: after `after` of wall time, once, how many ops
// are done and how long the rest needs at the rate so far (issue 18's newcomer: halving-doubling on
// 8,192 GPUs ran for minutes, and into gigabytes, with nothing said; the up-front estimate of
// run::long_run_notice counts transfers at the ring's rate and cannot see a slower algorithm).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>

#include "sim/engine.hpp"

namespace collsim::run {

class ProgressNote final : public sim::ProgressObserver {
 public:
  using Clock = std::chrono::steady_clock;
  /// Writes to `err` once `after` has passed since construction (by `now`, the steady clock unless a
  /// test gives another).
  ProgressNote(std::ostream& err, Clock::duration after, std::function<Clock::time_point()> now = Clock::now)
      : err_(err), after_(after), now_(std::move(now)), start_(now_()) {}
  /// "collsim: note: after 20 s, 1234 of 10000 ops (12.3 %) are done; about 2 minutes more at this rate
  /// (Ctrl-C stops the run)", once.
  void progress(std::uint64_t done, std::uint64_t total) override;

 private:
  std::ostream& err_;
  Clock::duration after_;
  std::function<Clock::time_point()> now_;
  Clock::time_point start_;
  bool said_ = false;
};

}  // namespace collsim::run
