// The event queue orders by (time, insertion sequence): STYLE.md pattern 3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"

using collsim::Time;
using collsim::sim::EventQueue;

TEST_CASE("events pop in time order, ties in insertion order", "[event_queue]") {
  EventQueue<int> q;
  q.push(Time{30}, 1);
  q.push(Time{10}, 2);
  q.push(Time{20}, 3);
  q.push(Time{10}, 4);  // same time as 2, scheduled later: runs after it
  q.push(Time{10}, 5);
  std::vector<int> order;
  std::vector<Time> times;
  while (!q.empty()) {
    auto e = q.pop();
    order.push_back(e.payload);
    times.push_back(q.now());
  }
  CHECK(order == std::vector<int>{2, 4, 5, 3, 1});
  CHECK(times == std::vector<Time>{Time{10}, Time{10}, Time{10}, Time{20}, Time{30}});
}

TEST_CASE("many equal-time events keep their insertion order", "[event_queue]") {
  EventQueue<int> q;
  for (int i = 0; i < 1000; ++i) q.push(Time{5}, i);
  for (int i = 0; i < 1000; ++i) REQUIRE(q.pop().payload == i);
}

TEST_CASE("scheduling in the past is refused", "[event_queue]") {
  EventQueue<int> q;
  q.push(Time{100}, 1);
  q.pop();
  CHECK_THROWS_AS(q.push(Time{99}, 2), std::logic_error);
  CHECK_NOTHROW(q.push(Time{100}, 3));  // "now" is allowed: a completion at the current time
}

TEST_CASE("interleaved pushes and pops come out in (time, insertion) order", "[event_queue]") {
  // Reference: the same events sorted by (time, insertion index), which is the order the queue
  // promises; coarse times (0..49) make many ties, so the 4-ary heap's tie-breaking is exercised.
  EventQueue<std::uint32_t> q;
  std::vector<std::pair<std::int64_t, std::uint32_t>> pending;  // (time, insertion index)
  std::uint64_t x = 12345;
  const auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    return x >> 33;
  };
  std::uint32_t inserted = 0;
  for (int round = 0; round < 2000; ++round) {
    const auto pushes = next() % 4;
    for (std::uint64_t k = 0; k < pushes; ++k) {
      const std::int64_t t = q.now().count() + static_cast<std::int64_t>(next() % 50);
      q.push(Time{t}, inserted);
      pending.emplace_back(t, inserted++);
    }
    if (next() % 3 != 0 && !q.empty()) {
      const auto expected = *std::min_element(pending.begin(), pending.end());
      const auto e = q.pop();
      REQUIRE(e.time.count() == expected.first);
      REQUIRE(e.payload == expected.second);
      REQUIRE(e.seq == expected.second);  // seq counts insertions from 0
      pending.erase(std::find(pending.begin(), pending.end(), expected));
    }
  }
  while (!q.empty()) {
    const auto expected = *std::min_element(pending.begin(), pending.end());
    REQUIRE(q.pop().payload == expected.second);
    pending.erase(std::find(pending.begin(), pending.end(), expected));
  }
  CHECK(pending.empty());
}
