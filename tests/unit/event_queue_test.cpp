// The event queue orders by (time, insertion sequence): STYLE.md pattern 3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace event_queue_test {

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
  // promises; coarse times (0..49) make many ties, so tie-breaking is exercised.
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

TEST_CASE("ties keep insertion order when a bucket is spread over lower ones", "[event_queue]") {
  // Worked example of the radix heap with 6-bit digits (sim/event_queue.hpp): with now() = 0,
  // times 96, 112 and 127 (octal 140, 160, 177) first differ from 0 in digit 1, all with value 1,
  // so they share bucket (1, 1). The first pop spreads it around 96: the 96s become current, 112
  // and 127 go to level 0 (digits 48 and 63), where a later push of 112 joins the earlier 112s.
  // The rule (time, insertion) gives a c | b e f | d.
  EventQueue<char> q;
  q.push(Time{96}, 'a');
  q.push(Time{112}, 'b');
  q.push(Time{96}, 'c');
  q.push(Time{127}, 'd');
  q.push(Time{112}, 'e');
  std::string order;
  order += q.pop().payload;
  q.push(Time{112}, 'f');
  while (!q.empty()) order += q.pop().payload;
  CHECK(order == "acbefd");
}

TEST_CASE("events pushed at now() run after the earlier ones of the same time", "[event_queue]") {
  EventQueue<int> q;
  q.push(Time{5}, 1);
  q.push(Time{5}, 2);
  q.push(Time{9}, 4);
  CHECK(q.pop().payload == 1);
  q.push(Time{5}, 3);  // now() is 5: joins the end of the current picosecond
  CHECK(q.size() == 3);
  CHECK(q.pop().payload == 2);
  CHECK(q.pop().payload == 3);
  CHECK(q.pop().payload == 4);
  CHECK(q.empty());
  CHECK(q.now() == Time{9});
}

TEST_CASE("times up to the largest picosecond count are ordered", "[event_queue]") {
  // The radix heap's top level: a key of 2^63 - 1 differs from 0 in bit 62, digit 10.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EventQueue<int> q;
  q.push(Time{kMax}, 1);
  q.push(Time{kMax - 1}, 2);
  q.push(Time{1}, 3);
  q.push(Time{kMax}, 4);
  CHECK(q.pop().payload == 3);
  CHECK(q.pop().payload == 2);
  CHECK(q.pop().payload == 1);
  CHECK(q.pop().payload == 4);
  CHECK(q.now() == Time{kMax});
}

TEST_CASE("100k random pushes and pops match a reference priority queue", "[event_queue]") {
  // Reference: std::priority_queue on (time, insertion index), the order the queue promises.
  // Delays mix 0 (a push at now()), small ones and powers of two from 1 ps to 2^33 ps, so equal
  // times are frequent and events cross many buckets before they pop.
  using Key = std::tuple<std::int64_t, std::uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> reference;
  EventQueue<std::uint64_t> q;
  std::uint64_t x = 99991;
  const auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    return x >> 33;
  };
  constexpr std::array<std::int64_t, 6> kDelays{0, 1, 7, 1024, std::int64_t{1} << 20, std::int64_t{1} << 33};
  std::uint64_t inserted = 0;
  std::uint64_t popped = 0;
  for (int op = 0; op < 100'000; ++op) {
    if (next() % 2 == 0 || reference.empty()) {
      const std::int64_t t = q.now().count() + kDelays[next() % kDelays.size()] +
                             (next() % 4 == 0 ? static_cast<std::int64_t>(next() % 16) : 0);
      q.push(Time{t}, inserted);
      reference.emplace(t, inserted++);
    } else {
      const auto [t, index] = reference.top();
      reference.pop();
      const auto e = q.pop();
      REQUIRE(e.time.count() == t);
      REQUIRE(e.payload == index);
      REQUIRE(q.now().count() == t);
      ++popped;
    }
    REQUIRE(q.size() == reference.size());
  }
  CHECK(popped > 40'000);
}
}  // namespace event_queue_test
