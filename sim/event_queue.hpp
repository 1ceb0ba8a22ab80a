// The deterministic future-event set of the engine.
//
// Events are ordered by (time, insertion sequence): two events at the same picosecond run in the
// order they were scheduled, so every run of the same input is identical (the ns-3/SST rule).
// The payload is a small value type chosen by the user of the queue, so no event allocates
// (htsim keeps a tiny loop for the same reason; STYLE.md patterns 3-4).
//
// The set is a radix heap on the time (Ahuja, Mehlhorn, Orlin & Tarjan 1990, "Faster algorithms
// for the shortest path problem", J. ACM 37(2)), with 64-way buckets (6-bit digits) instead of
// the paper's binary ones. It is exact here because no event may be scheduled before the last
// popped one, which is what a radix heap needs (a monotone priority queue). Push is O(1); an event
// moves at most once per digit level below the one it was filed at (<= 11 moves, 4 for a delay
// under 1 us), and pop is O(1) plus those moves. The engine pushes many events at exactly the same
// picosecond (every rank of a ring step ends at once): they share one bucket and pop in O(1) each
// without a comparison, where a heap compares (time, seq) at every level. Measured side by side
// (bench/PROFILE.md section 5) against the 4-ary heap it replaces and 2- to 64-way buckets: 64-way
// is the fastest on the hold model (25 to 28 M events/s at 1,024 pending, 16-way 19 to 23) and
// still 5 times the heap when every event ties (52 against 76 M/s for 16-way, 11 for the heap).
//
// Why the sequence rule holds without comparing sequence numbers. Let `last` be the time of the
// last popped event (now()). current_ holds the events whose time equals `last`; every other event
// is filed in bucket (j, d): j is the highest 6-bit digit in which its time differs from `last`
// and d is its time's value of that digit. Claims:
//  (1) The bucket of an event is a function of its time and `last` alone, so events of equal
//      time are always in the same bucket. (`last` only changes in refill(), to the minimum m of
//      the lowest non-empty bucket (j, d), which agrees with `last` above digit j. An event of a
//      higher level agrees with m wherever it agrees with `last`, from its own level up, so its
//      bucket is unchanged; one of level j with digit d' != d (d' > d: no event is before `last`,
//      and d is the lowest) still differs from m first at digit j. Every event of (j, d) agrees
//      with m from digit j up, so it moves to current_ or to a level below j.)
//  (2) Every bucket lists its events in insertion order. push() appends, and insertion sequences
//      grow. refill() empties bucket (j, d), whose events it visits in order, into current_ and
//      levels 0 .. j-1, which were all empty (current_ was drained, and (j, d) was the lowest
//      non-empty bucket): each receives a subsequence of (j, d), still in order, and any later
//      push appends behind it.
//  (3) pop() takes the front of current_, refilled first when empty. No event is before `last`
//      (pushes are not before now(); a lower level or digit holds only earlier times, so the
//      lowest bucket holds the minimum), so current_ holds the earliest time, and by (1) and (2)
//      its front is the earliest-inserted event of that time.
// tests/unit/event_queue_test.cpp checks the order against a reference on random operations.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::sim {

/// A radix heap of (time, payload) that pops in (time, insertion sequence) order. The sequence is
/// kept by the buckets' order (the proof above), not stored: an event is its time and payload
/// only (24 bytes for the engine's, where a stored sequence made 32; events are copied from bucket
/// to bucket, session 28).
/// Not thread-safe; one per simulation. Memory: each bucket keeps the capacity of the most events
/// it ever held; the events of the current picosecond are reclaimed only when they drain.
template <typename Payload>
class EventQueue {
 public:
  struct Event {
    Time time;
    Payload payload;
  };

  /// Schedules `payload` at absolute time `t`. Throws std::logic_error if `t` < now(): the past
  /// cannot be changed, and a model that tries has a bug.
  void push(Time t, Payload payload) {
    if (t < now_) throw std::logic_error("EventQueue::push: event scheduled in the past");
    Event e{t, std::move(payload)};
    ++size_;
    if (key(t) == last_)
      current_.push_back(std::move(e));
    else
      place(std::move(e));
  }

  /// Removes and returns the earliest event and advances now() to its time.
  /// Precondition: !empty().
  Event pop() {
    if (head_ == current_.size()) refill();
    --size_;
    return std::move(current_[head_++]);
  }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// True if an event at now() is still queued (the next pop() would not move the time).
  [[nodiscard]] bool has_now() const noexcept { return head_ < current_.size(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Time of the last popped event (0 before the first).
  [[nodiscard]] Time now() const noexcept { return now_; }

 private:
  static constexpr unsigned kDigitBits = 6;  // 64 buckets per level: measured against 1 to 6 bits
  static constexpr unsigned kDigits = 1U << kDigitBits;
  static constexpr unsigned kLevels = (63 + kDigitBits - 1) / kDigitBits;  // keys are below 2^63

  static std::uint64_t key(Time t) noexcept { return static_cast<std::uint64_t>(t.count()); }

  // Files `e` (whose key differs from last_) under its highest digit that differs from last_.
  void place(Event&& e) {
    const std::uint64_t k = key(e.time);
    const unsigned level = (static_cast<unsigned>(std::bit_width(k ^ last_)) - 1) / kDigitBits;
    const unsigned digit = static_cast<unsigned>(k >> (level * kDigitBits)) & (kDigits - 1);
    buckets_[level][digit].push_back(std::move(e));
    digits_[level] |= std::uint64_t{1} << digit;
    levels_ |= std::uint32_t{1} << level;
  }

  // current_ is drained: makes the minimum of the lowest non-empty bucket the current time and
  // spreads that bucket, in order, over current_ and the lower levels (see the proof at the top).
  void refill() {
    current_.clear();
    head_ = 0;
    const auto level = static_cast<unsigned>(std::countr_zero(levels_));
    const auto digit = static_cast<unsigned>(std::countr_zero(digits_[level]));
    digits_[level] &= ~(std::uint64_t{1} << digit);
    if (digits_[level] == 0) levels_ &= ~(std::uint32_t{1} << level);
    std::vector<Event>& from = buckets_[level][digit];
    if (level == 0) {  // one digit below last_'s: every event of the bucket has the same time
      last_ = (last_ & ~std::uint64_t{kDigits - 1}) | digit;
      now_ = Time{static_cast<std::int64_t>(last_)};
      current_.swap(from);  // keeps the order; `from` takes current_'s empty buffer
      return;
    }
    // Local bounds: place() stores into vectors, which the compiler cannot tell apart from `from`.
    Event* const first = from.data();
    Event* const end = first + from.size();
    std::uint64_t m = key(first->time);
    for (const Event* e = first; e != end; ++e) m = key(e->time) < m ? key(e->time) : m;
    last_ = m;
    now_ = Time{static_cast<std::int64_t>(m)};
    for (Event* e = first; e != end; ++e) {
      if (key(e->time) == m)
        current_.push_back(std::move(*e));
      else
        place(std::move(*e));
    }
    from.clear();
  }

  std::vector<Event> current_;  // the events at now(), in insertion order; head_ is the next
  std::size_t head_ = 0;
  std::array<std::array<std::vector<Event>, kDigits>, kLevels> buckets_{};
  std::array<std::uint64_t, kLevels> digits_{};  // bit d of digits_[j]: bucket (j, d) may be non-empty
  std::uint32_t levels_ = 0;                     // bit j: digits_[j] != 0
  std::size_t size_ = 0;
  std::uint64_t last_ = 0;  // now() as a key
  Time now_{0};
};

}  // namespace collsim::sim
