// The deterministic future-event set of the engine.
//
// Events are ordered by (time, insertion sequence): two events at the same picosecond run in the
// order they were scheduled, so every run of the same input is identical (the ns-3/SST rule).
// The payload is a small value type chosen by the user of the queue, so no event allocates
// (htsim keeps a tiny loop for the same reason; STYLE.md patterns 3-4).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::sim {

/// A binary min-heap of (time, sequence, payload). Not thread-safe; one per simulation.
template <typename Payload>
class EventQueue {
 public:
  struct Event {
    Time time;
    std::uint64_t seq;
    Payload payload;
  };

  /// Schedules `payload` at absolute time `t`. Throws std::logic_error if `t` < now(): the past
  /// cannot be changed, and a model that tries has a bug.
  void push(Time t, Payload payload) {
    if (t < now_) throw std::logic_error("EventQueue::push: event scheduled in the past");
    heap_.push_back(Event{t, next_seq_++, std::move(payload)});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  /// Removes and returns the earliest event and advances now() to its time.
  /// Precondition: !empty().
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Event e = std::move(heap_.back());
    heap_.pop_back();
    now_ = e.time;
    return e;
  }

  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }
  /// Time of the last popped event (0 before the first).
  [[nodiscard]] Time now() const noexcept { return now_; }

 private:
  // std heap functions build a max-heap, so "greater" means "runs later".
  static bool later(const Event& a, const Event& b) noexcept {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
  Time now_{0};
};

}  // namespace collsim::sim
