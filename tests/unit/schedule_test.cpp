// The schedule IR: chunking in whole bytes or whole elements, and dependencies inferred from data flow.
#include <catch2/catch.hpp>

#include <numeric>

#include "sim/schedule/builder.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace schedule_test {

using namespace collsim;
using namespace collsim::sched;

TEST_CASE("split_even: the first S mod N chunks get ceil(S/N) bytes, the rest floor(S/N)", "[schedule]") {
  // Issue "collsim simulate", point 2.
  for (Bytes s : {Bytes{0}, Bytes{1}, Bytes{5}, Bytes{6}, Bytes{7}, Bytes{1000003}, Bytes{1} << 30}) {
    for (std::uint32_t n : {1u, 2u, 3u, 7u, 8u, 64u}) {
      const auto chunks = split_even(s, n);
      REQUIRE(chunks.size() == n);
      Bytes offset = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const Bytes want = s / n + (i < s % n ? 1 : 0);
        CHECK(chunks[i].size == want);
        CHECK(chunks[i].offset == offset);
        offset += chunks[i].size;
      }
      CHECK(offset == s);
    }
  }
  CHECK_THROWS_AS(split_even(10, 0), std::invalid_argument);
}

TEST_CASE("split_even with an element size: whole elements, the first E mod N parts one element more",
          "[schedule]") {
  // NCCL counts buffers in elements: 12 B of float32 is E = 3 elements; over 5 parts the first 3
  // get one element each (4, 4, 4, 0, 0 bytes), not the byte cut 3, 3, 2, 2, 2.
  const auto sizes = [](const std::vector<Chunk>& c) {
    std::vector<Bytes> out;
    for (const auto& x : c) out.push_back(x.size);
    return out;
  };
  CHECK(sizes(split_even(12, 5, 4)) == std::vector<Bytes>{4, 4, 4, 0, 0});
  CHECK(sizes(split_even(12, 5, 1)) == std::vector<Bytes>{3, 3, 2, 2, 2});
  CHECK(sizes(split_even(12, 5, 2)) == std::vector<Bytes>{4, 2, 2, 2, 2});  // 6 halves
  // S not a multiple of the element size: bytes, as before.
  CHECK(sizes(split_even(13, 5, 4)) == sizes(split_even(13, 5)));
  CHECK(cut_unit(12, 4) == 4);
  CHECK(cut_unit(13, 4) == 1);
  CHECK(cut_unit(0, 8) == 8);
  for (Bytes e : {Bytes{2}, Bytes{4}, Bytes{8}})
    for (Bytes s : {Bytes{0}, Bytes{8}, Bytes{40}, Bytes{1000000}, (Bytes{1} << 30) + 8})
      for (std::uint32_t n : {1u, 3u, 5u, 7u, 64u}) {
        INFO("S = " << s << ", N = " << n << ", element " << e);
        const auto chunks = split_even(s, n, e);
        Bytes offset = 0;
        const Bytes elements = s / e;
        for (std::uint32_t i = 0; i < n; ++i) {
          CHECK(chunks[i].offset == offset);
          CHECK(chunks[i].offset % e == 0);
          CHECK(chunks[i].size == (elements / n + (i < elements % n ? 1 : 0)) * e);
          offset += chunks[i].size;
        }
        CHECK(offset == s);
      }
  CHECK_THROWS_AS(split_even(12, 5, 0), std::invalid_argument);
}

TEST_CASE("builder infers read-after-write, write-after-write and write-after-read", "[schedule]") {
  ScheduleBuilder b(Collective::AllReduce, 3, 3, split_even(3, 3));
  const OpId a = b.send(0, 1, 0, Combine::Reduce, 1);  // writes (1,0)
  const OpId c = b.send(1, 2, 0, Combine::Reduce, 2);  // reads (1,0): RAW on a
  const OpId d = b.send(2, 1, 0, Combine::Copy, 3);    // writes (1,0): WAW on a, WAR on c; RAW on c (wrote (2,0))
  const OpId e = b.send(0, 2, 1, Combine::Copy, 1);    // unrelated chunk: no deps
  const Schedule s = std::move(b).build("test");
  CHECK(s.deps_of(a).empty());
  CHECK(std::vector<OpId>(s.deps_of(c).begin(), s.deps_of(c).end()) == std::vector<OpId>{a});
  CHECK(std::vector<OpId>(s.deps_of(d).begin(), s.deps_of(d).end()) == std::vector<OpId>{a, c});
  CHECK(s.deps_of(e).empty());
  CHECK(s.steps == 3);
  CHECK(s.algorithm == "test");
}

TEST_CASE("a built schedule holds the builder's header, its element size cut to the unit S is counted in",
          "[schedule]") {
  // S = 24 is six 4-byte elements: the element size stays 4.
  const ScheduleHeader whole{Collective::Reduce, 3, 24, 2, 1, 4};
  const Schedule a = ScheduleBuilder(whole, split_even(24, 3, 4)).build("test");
  CHECK(a.header == whole);
  CHECK(a.total_ranks() == 4);
  // S = 10 is not a whole number of 4-byte elements: the parts are counted in bytes.
  const ScheduleHeader bytes{Collective::AllGather, 2, 10, 0, 0, 4};
  const Schedule b = ScheduleBuilder(bytes, split_even(10, 2, 4)).build("test");
  CHECK(b.header.element_size == 1);
  CHECK(b.header == ScheduleHeader{Collective::AllGather, 2, 10, 0, 0, 1});
}

TEST_CASE("builder rejects ops that cannot be", "[schedule]") {
  ScheduleBuilder b(Collective::AllReduce, 2, 5, split_even(5, 2));  // chunks of 3 and 2 bytes
  CHECK_THROWS_AS(b.send(0, 2, 0, Combine::Copy, 1), std::invalid_argument);      // no rank 2
  CHECK_THROWS_AS(b.send(1, 1, 0, Combine::Copy, 1), std::invalid_argument);      // to itself
  CHECK_THROWS_AS(b.send(0, 1, 2, Combine::Copy, 1), std::invalid_argument);      // no chunk 2
  CHECK_THROWS_AS(b.send(0, 0, 1, 1, Combine::Copy, 1), std::invalid_argument);   // 3 bytes into 2
  CHECK_THROWS_AS(b.send(0, 1, 0, Combine::Copy, 0), std::invalid_argument);      // step 0
  CHECK_THROWS_WITH(b.send(0, 3, 0, Combine::Copy, 1), Catch::Contains("out of range"));
}

TEST_CASE("builder refuses schedules it cannot hold in memory with a clear message", "[schedule]") {
  CHECK_THROWS_AS(ScheduleBuilder(Collective::AllReduce, 8192, 8192, split_even(8192, 8192)), std::length_error);
}
}  // namespace schedule_test
