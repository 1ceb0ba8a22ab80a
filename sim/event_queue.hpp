// The deterministic future-event set of the engine.
//
// Events are ordered by (time, insertion sequence): two events at the same picosecond run in the
// order they were scheduled, so every run of the same input is identical (the ns-3/SST rule).
// The payload is a small value type chosen by the user of the queue, so no event allocates
// (htsim keeps a tiny loop for the same reason; STYLE.md patterns 3-4).
//
// The heap is 4-ary rather than binary: half as many levels, and the four children of a node are
// adjacent in memory, so a pop touches fewer cache lines (LaMarca & Ladner 1996, "The influence
// of caches on the performance of heaps"). Sifts move a hole instead of swapping, so each level
// costs one copy. Measured with `collsim bench --cases queue` (bench/PROFILE.md): about 1.5x the
// events per second of std::push_heap/pop_heap on a binary heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::sim {

/// A 4-ary min-heap of (time, sequence, payload). Not thread-safe; one per simulation.
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
    sift_up(heap_.size() - 1);
  }

  /// Removes and returns the earliest event and advances now() to its time.
  /// Precondition: !empty().
  Event pop() {
    Event top = std::move(heap_.front());
    Event last = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(std::move(last));
    now_ = top.time;
    return top;
  }

  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }
  /// Time of the last popped event (0 before the first).
  [[nodiscard]] Time now() const noexcept { return now_; }

 private:
  static constexpr std::size_t kArity = 4;

  static bool earlier(const Event& a, const Event& b) noexcept {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }

  // Lifts the event at `i` (the new last one) to its place: its slot becomes a hole that moves up.
  void sift_up(std::size_t i) {
    Event e = std::move(heap_[i]);
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!earlier(e, heap_[parent])) break;
      heap_[i] = std::move(heap_[parent]);
      i = parent;
    }
    heap_[i] = std::move(e);
  }

  // Moves the hole at the root down until `e` fits there.
  void sift_down(Event e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= n) break;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], e)) break;
      heap_[i] = std::move(heap_[best]);
      i = best;
    }
    heap_[i] = std::move(e);
  }

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
  Time now_{0};
};

}  // namespace collsim::sim
