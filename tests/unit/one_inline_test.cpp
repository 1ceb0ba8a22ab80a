// net::OneInline against std::vector: the same elements in the same order after every insert and
// erase, at random positions, through the sizes 0, 1 and 2 where its storage changes.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "sim/network/one_inline.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace one_inline_test {

TEST_CASE("OneInline holds what a std::vector holds after random inserts and erases", "[engine][flow]") {
  std::mt19937_64 rng(4);
  collsim::net::OneInline<double> a;
  std::vector<double> b;
  std::size_t crossings = 0;  // steps between one element and two, where the storage moves
  for (int step = 0; step < 20000; ++step) {
    const std::size_t before = b.size();
    // Mostly small: grow three times in four below 3 elements, one time in three from there.
    const bool grow = b.empty() || (b.size() < 3 ? rng() % 4 != 0 : rng() % 3 == 0);
    if (grow) {
      const auto at = static_cast<std::ptrdiff_t>(rng() % (b.size() + 1));
      const double v = static_cast<double>(rng() % 1000);
      a.insert(a.begin() + at, v);
      b.insert(b.begin() + at, v);
    } else {
      const auto at = static_cast<std::ptrdiff_t>(rng() % b.size());
      a.erase(a.begin() + at);
      b.erase(b.begin() + at);
    }
    crossings += (before == 1 && b.size() == 2) || (before == 2 && b.size() == 1);
    REQUIRE(a.size() == b.size());
    REQUIRE(a.empty() == b.empty());
    REQUIRE(std::vector<double>(a.begin(), a.end()) == b);
    if (!b.empty()) CHECK(a[b.size() - 1] == b.back());
  }
  CHECK(crossings > 1000);
}

}  // namespace one_inline_test
