// The event queue orders by (time, insertion sequence): STYLE.md pattern 3.
#include <catch2/catch.hpp>

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
