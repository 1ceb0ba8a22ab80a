// Max-min fairness, cases worked out by hand (SimGrid's maxmin tests style: system, expectation,
// reason).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "sim/network/maxmin.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace maxmin_test {

using collsim::net::MaxMinSolver;

TEST_CASE("two flows on one link get half each", "[maxmin]") {
  MaxMinSolver s;
  const auto l = s.add_resource(100);
  s.add_flow({l});
  s.add_flow({l});
  CHECK(s.solve() == std::vector<double>{50, 50});
}

TEST_CASE("parking lot: a long flow across three links and a short flow on each", "[maxmin]") {
  // Each link (capacity 1) carries the long flow and one short one: all four get 1/2.
  MaxMinSolver s;
  const auto a = s.add_resource(1), b = s.add_resource(1), c = s.add_resource(1);
  s.add_flow({a, b, c});
  s.add_flow({a});
  s.add_flow({b});
  s.add_flow({c});
  CHECK(s.solve() == std::vector<double>{0.5, 0.5, 0.5, 0.5});
}

TEST_CASE("a flow limited elsewhere leaves its share to the others", "[maxmin]") {
  // Link A (capacity 10) carries flows 0 and 1; flow 1 also crosses link B (capacity 2). Flow 1 is
  // held to 2 by B, so flow 0 gets A's remaining 8, not the even split 5.
  MaxMinSolver s;
  const auto a = s.add_resource(10), b = s.add_resource(2);
  s.add_flow({a});
  s.add_flow({a, b});
  CHECK(s.solve() == std::vector<double>{8, 2});
}

TEST_CASE("a bottleneck cascade", "[maxmin]") {
  // Link X (3) carries flows 0, 1, 2; link Y (10) carries 2 and 3. X splits 1 each; Y then gives
  // flow 3 the remaining 9.
  MaxMinSolver s;
  const auto x = s.add_resource(3), y = s.add_resource(10);
  s.add_flow({x});
  s.add_flow({x});
  s.add_flow({x, y});
  s.add_flow({y});
  CHECK(s.solve() == std::vector<double>{1, 1, 1, 9});
}

TEST_CASE("half duplex: both directions draw on one resource", "[maxmin]") {
  // A half-duplex link is one resource for both directions: two opposite flows share it (half
  // each); full duplex is two resources, each flow gets all of its own.
  MaxMinSolver half;
  const auto h = half.add_resource(8);
  half.add_flow({h});
  half.add_flow({h});
  CHECK(half.solve() == std::vector<double>{4, 4});
  MaxMinSolver full;
  const auto up = full.add_resource(8), down = full.add_resource(8);
  full.add_flow({up});
  full.add_flow({down});
  CHECK(full.solve() == std::vector<double>{8, 8});
}

TEST_CASE("a class of k flows gets the rate k separate flows get, bit for bit", "[maxmin]") {
  // The flow model adds the flows of one route as one class (add_flow_over with a count). Oracle:
  // the same system with every flow added on its own. Capacities are NVLink-like bits/s that do
  // not divide evenly (1.92e12 / 17): here 1.5e12 - 10 * share and ten subtractions of share differ
  // in the last bit, so a class that subtracted count * share at once would fail the third check.
  // Closed form for the first class: link A (1.92e12) carries 7 + 10 flows, B (1.5e12) 10 + 3;
  // A's share 1.92e12 / 17 = 112.94 Gb/s is the smaller, so A's 17 flows get it and B's other 3
  // flows split what is left: (1.5e12 - 10 * 1.92e12 / 17) / 3.
  const double a_cap = 1.92e12, b_cap = 1.5e12;
  MaxMinSolver separate, grouped;
  const auto a1 = separate.add_resource(a_cap), b1 = separate.add_resource(b_cap);
  const auto a2 = grouped.add_resource(a_cap), b2 = grouped.add_resource(b_cap);
  for (int k = 0; k < 7; ++k) separate.add_flow({a1});
  for (int k = 0; k < 10; ++k) separate.add_flow({a1, b1});
  for (int k = 0; k < 3; ++k) separate.add_flow({b1});
  const std::vector<std::uint32_t> only_a{a2}, both{a2, b2}, only_b{b2};
  grouped.add_flow_over(only_a, 7);
  grouped.add_flow_over(both, 10);
  grouped.add_flow_over(only_b, 3);
  grouped.add_flow_over(both, 0);  // an empty class: ignored
  const auto each = separate.solve();
  const auto classes = grouped.solve();
  REQUIRE(classes.size() == 4);
  CHECK(classes[0] == each[0]);
  CHECK(classes[1] == each[7]);
  CHECK(classes[2] == each[17]);
  CHECK(classes[3] == std::numeric_limits<double>::infinity());
  CHECK(classes[0] == Approx(a_cap / 17).epsilon(1e-12));
  CHECK(classes[2] == Approx((b_cap - 10 * a_cap / 17) / 3).epsilon(1e-12));
}

TEST_CASE("the heap's rounds give the plain rounds' rates bit for bit on random systems", "[maxmin]") {
  // solve() finds each round's bottleneck from a heap of fair shares refreshed where a round fixed
  // classes; solve_by_rounds() scans every resource and class each round (the reference). Random
  // systems with few distinct capacities (ties between resources), classes of several flows,
  // repeated routes, empty classes and sprayed weights: every rate must be the same double.
  std::mt19937_64 rng(7);
  const double caps[] = {1.92e12, 1.5e12, 4e11, 1.92e12 / 3};
  const double weights[] = {1.0, 1.0, 0.5, 0.25};
  int checked = 0, weighted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    MaxMinSolver solver;
    const std::size_t nres = 1 + rng() % 12;
    for (std::size_t r = 0; r < nres; ++r) solver.add_resource(caps[rng() % std::size(caps)]);
    const std::size_t nflows = rng() % 20;
    const bool spray = rng() % 4 == 0;
    for (std::size_t f = 0; f < nflows; ++f) {
      std::vector<std::uint32_t> rs;
      std::vector<double> ws;
      for (std::uint32_t r = 0; r < nres; ++r)
        if (rng() % 3 == 0) {
          rs.push_back(r);
          ws.push_back(spray ? weights[rng() % std::size(weights)] : 1.0);
        }
      solver.add_flow_over(rs, static_cast<std::uint32_t>(rng() % 5), spray ? std::span<const double>(ws) : std::span<const double>());
    }
    // The heap from the first round, and after the default plain rounds.
    solver.set_plain_rounds(trial % 2 == 0 ? 0 : 4);
    const auto fast = solver.solve();
    const auto plain = solver.solve_by_rounds();
    INFO("trial " << trial);
    REQUIRE(fast.size() == plain.size());
    for (std::size_t f = 0; f < fast.size(); ++f) {
      INFO("class " << f << ": " << fast[f] << " against " << plain[f]);
      CHECK(std::memcmp(&fast[f], &plain[f], sizeof(double)) == 0);
    }
    checked += static_cast<int>(fast.size());
    weighted += spray;
  }
  CHECK(checked > 20000);
  CHECK(weighted > 500);
}

TEST_CASE("recorded rounds, and a problem resumed from them at a level, by hand", "[maxmin][levels]") {
  // A (capacity 10) carries flows 0 and 1, B (20) flows 1 and 2. Round 1: A's share 10/2 = 5 is the
  // smallest (B's is 10), so flows 0 and 1 get 5, A is left 0 and B 20 - 5 = 15. Round 2: B's
  // share 15/1 fixes flow 2 at 15.
  MaxMinSolver s;
  const auto a = s.add_resource(10), b = s.add_resource(20);
  s.add_flow({a});
  s.add_flow({a, b});
  s.add_flow({b});
  std::vector<MaxMinSolver::Settled> rounds;
  s.record_rounds(&rounds);
  std::vector<double> rate;
  s.solve_into(rate);
  CHECK(rate == std::vector<double>{5, 5, 15});
  REQUIRE(rounds.size() == 3);
  std::sort(rounds.begin(), rounds.begin() + 2, [](const auto& x, const auto& y) { return x.resource < y.resource; });
  CHECK((rounds[0].resource == a && rounds[0].share == 5 && rounds[0].left == 0 && rounds[0].fixed == 2));
  CHECK((rounds[1].resource == b && rounds[1].share == 5 && rounds[1].left == 15 && rounds[1].fixed == 1));
  CHECK((rounds[2].resource == b && rounds[2].share == 15 && rounds[2].left == 0 && rounds[2].fixed == 1));
  // Resumed after round 1 with a second flow on B: B has 15 left for 2 flows, 7.5 each.
  MaxMinSolver resumed;
  const auto b2 = resumed.add_resource_left(15);
  resumed.add_flow_over(std::vector<std::uint32_t>{b2}, 2);
  CHECK(resumed.solve() == std::vector<double>{7.5});
  CHECK_THROWS_AS(resumed.add_resource_left(std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST_CASE("a problem resumed at any recorded level gives the whole solve's rates bit for bit", "[maxmin][levels]") {
  // The state progressive filling leaves below a level (what each resource has left after the
  // rounds below it, the classes not fixed yet) is all a resumed solve needs: random systems are
  // solved whole with their rounds recorded, then resumed at each level from the recorded lefts
  // with the classes fixed at that level or later, and must give those classes the same doubles.
  std::mt19937_64 rng(20261204);
  const double caps[] = {1.92e12, 1.5e12, 4e11, 1.92e12 / 3, 5e10};
  int resumed_classes = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const std::size_t nres = 1 + rng() % 10;
    MaxMinSolver built;
    std::vector<double> cap;
    for (std::size_t r = 0; r < nres; ++r) {
      cap.push_back(caps[rng() % std::size(caps)]);
      built.add_resource(cap.back());
    }
    std::vector<std::vector<std::uint32_t>> classes;
    std::vector<std::uint32_t> counts;
    const std::size_t nflows = 1 + rng() % 16;
    for (std::size_t f = 0; f < nflows; ++f) {
      std::vector<std::uint32_t> rs;
      for (std::uint32_t r = 0; r < nres; ++r)
        if (rng() % 3 == 0) rs.push_back(r);
      if (rs.empty()) rs.push_back(static_cast<std::uint32_t>(rng() % nres));
      classes.push_back(rs);
      counts.push_back(static_cast<std::uint32_t>(1 + rng() % 4));
      built.add_flow_over(classes.back(), counts.back());
    }
    built.set_plain_rounds(trial % 2 == 0 ? 0 : 4);
    std::vector<MaxMinSolver::Settled> rounds;
    built.record_rounds(&rounds);
    std::vector<double> rate;
    built.solve_into(rate);
    INFO("trial " << trial);
    for (std::size_t k = 0; k < rounds.size(); ++k) {
      const double cut = rounds[k].share;
      if (k > 0 && rounds[k - 1].share == cut) continue;  // one resume per level
      std::vector<double> left = cap;
      for (std::size_t j = 0; j < k; ++j) left[rounds[j].resource] = rounds[j].left;
      MaxMinSolver resumed;
      for (std::size_t r = 0; r < nres; ++r) resumed.add_resource_left(left[r]);
      std::vector<std::size_t> open;
      for (std::size_t f = 0; f < classes.size(); ++f)
        if (rate[f] >= cut) {
          open.push_back(f);
          resumed.add_flow_over(classes[f], counts[f]);
        }
      const auto again = resumed.solve();
      for (std::size_t i = 0; i < open.size(); ++i) {
        INFO("class " << open[i] << " at level " << cut);
        CHECK(std::memcmp(&again[i], &rate[open[i]], sizeof(double)) == 0);
        ++resumed_classes;
      }
    }
  }
  CHECK(resumed_classes > 10000);
}

}  // namespace maxmin_test
