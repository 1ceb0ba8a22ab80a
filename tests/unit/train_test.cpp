// collsim train's library: DDP's buckets (PyTorch's rules, worked by hand), the step timelines
// (hand-derived), FSDP's bytes per rank (the ZeRO-3 closed form), and the model inputs.
#include <catch2/catch.hpp>

#include <numeric>

#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/simulate.hpp"
#include "train/ddp_buckets.hpp"
#include "train/model.hpp"
#include "train/timeline.hpp"
#include "train/train.hpp"
#include "train/train_text.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace train_test {

using namespace collsim;
using namespace collsim::train;

namespace {

Time us(std::int64_t v) { return Time{v * 1'000'000}; }

constexpr Bytes MiB = Bytes{1} << 20;

// 4 GPUs on one switch, 25 GB/s and 1 us links (the generator's defaults), ring all-reduce: the
// README's closed form applies, 2(N-1)(2a + S/N/B).
run::TopologySpec switch4() {
  run::TopologySpec s;
  s.gpus = 4;
  s.fabric = topo::Fabric::Switch;
  return s;
}

Time ring_allreduce(Bytes size, std::uint32_t ranks = 4) {
  run::SimulationRequest r;
  r.topology = switch4();
  r.algorithm = "ring";
  r.size = size;
  r.ranks = ranks;
  return run::simulate(r).outcome.run.summary.time;
}

// model.parameters() of the hand-worked case, in elements (float32: 4 bytes each).
const std::vector<std::uint64_t> kParams{1'000'000, 262'144, 3'000'000, 4'000'000, 100, 262'144};

TrainRequest ddp_request(std::optional<Time> backward) {
  TrainRequest r;
  r.model.name = "hand";
  for (std::size_t i = 0; i < kParams.size(); ++i) r.model.layers.push_back(Layer{fmt::format("p{}", i), {kParams[i]}, {}, {}});
  spread_times(r.model, std::nullopt, backward, "--forward-time", "--backward-time");
  r.topology = switch4();
  r.algorithm = "ring";
  return r;
}

}  // namespace

TEST_CASE("DDP's buckets: PyTorch's rules worked by hand", "[train][ddp]") {
  // DDP reverses model.parameters() (distributed.py), then fills buckets in that order until each
  // reaches its limit, counting the gradient that crosses it (compute_bucket_assignment_by_size,
  // reducer.cpp, v2.5: `bucket.size >= bucket_size_limit`); the first limit 1 MiB, then 25 MiB.
  // Backward order in bytes: p5 1,048,576 | p4 400, p3 16,000,000, p2 12,000,000 | p1 1,048,576, p0 4,000,000.
  //  - bucket 0: p5 alone reaches 1 MiB exactly (>=).
  //  - bucket 1: 400 + 16,000,000 = 16,000,400 < 26,214,400; + 12,000,000 = 28,000,400 >= 25 MiB.
  //  - bucket 2: what is left, 5,048,576 bytes.
  std::vector<Bytes> bytes;
  for (std::size_t i = kParams.size(); i-- > 0;) bytes.push_back(kParams[i] * 4);
  const auto b = ddp_buckets(bytes, kDdpFirstBucketBytes, kDdpBucketCapBytes);
  REQUIRE(b.size() == 3);
  CHECK(b[0].tensors == std::vector<std::size_t>{0});
  CHECK(b[0].bytes == 1'048'576);
  CHECK(b[1].tensors == std::vector<std::size_t>{1, 2, 3});
  CHECK(b[1].bytes == 28'000'400);
  CHECK(b[2].tensors == std::vector<std::size_t>{4, 5});
  CHECK(b[2].bytes == 5'048'576);
  // One byte short of the first limit: the first bucket takes the next gradient too.
  const std::vector<Bytes> short_first{MiB - 1, 1, 5};
  const auto c = ddp_buckets(short_first, MiB, 25 * MiB);
  REQUIRE(c.size() == 2);
  CHECK(c[0].tensors == std::vector<std::size_t>{0, 1});
  CHECK(c[1].tensors == std::vector<std::size_t>{2});
  CHECK(ddp_buckets({}, MiB, MiB).empty());
  // PyTorch's defaults (reducer.hpp, v2.5).
  CHECK(kDdpFirstBucketBytes == 1024 * 1024);
  CHECK(kDdpBucketCapBytes == 25 * 1024 * 1024);
}

TEST_CASE("DDP step: the buckets of run_train, and with no compute the sum of their all-reduces", "[train][ddp]") {
  const TrainResult r = run_train(ddp_request(std::nullopt));
  REQUIRE(r.cases.size() == 1);
  const TrainCase& c = r.cases.front();
  REQUIRE(c.collectives.size() == 3);
  CHECK(c.collectives[0].span.bytes == 1'048'576);
  CHECK(c.collectives[0].first_layer == "p5");
  CHECK(c.collectives[1].span.bytes == 28'000'400);
  CHECK(c.collectives[1].tensors == 3);
  CHECK(c.collectives[1].first_layer == "p4");
  CHECK(c.collectives[1].last_layer == "p2");
  CHECK(c.collectives[2].span.bytes == 5'048'576);
  Time sum{0};
  for (const auto& row : c.collectives) {
    CHECK(row.span.end - row.span.start == ring_allreduce(row.span.bytes));
    sum += row.span.end - row.span.start;
  }
  // No compute: every bucket is ready at 0 and they run back to back.
  CHECK(c.timeline.compute_time == Time{0});
  CHECK(c.timeline.communication == sum);
  CHECK(c.timeline.step == sum);
  CHECK(c.timeline.exposed == sum);
  // The closed form for the first bucket: 2(N-1)(2a + S/N/B) = 6 (2 us + 262,144 B / 25 GB/s) = 6 x 12.48576 us.
  CHECK(c.collectives[0].span.end - c.collectives[0].span.start == Time{6 * 12'485'760});
  // Ring all-reduce: each rank sends 2(N-1)/N S.
  CHECK(c.sent_allreduce == (1'048'576 + 28'000'400 + 5'048'576) / 4 * 6);
}

TEST_CASE("DDP's first bucket: 1 MiB by default, the cap when the cap is given", "[train][ddp]") {
  // distributed.py (PyTorch v2.5) passes _DEFAULT_FIRST_BUCKET_BYTES as the first limit only when
  // bucket_cap_mb was left at its default, else bucket_bytes_cap. With a given cap of 25 MiB the
  // hand case's backward order (p5 1,048,576 | p4 400, p3 16,000,000, p2 12,000,000 | ...) fills
  // one bucket to 29,048,976 bytes (p5, p4, p3, p2: >= 25 MiB), and p1 and p0 make the second.
  TrainRequest r = ddp_request(std::nullopt);
  CHECK(first_bucket_of(r, kDdpBucketCapBytes) == kDdpFirstBucketBytes);
  r.bucket_caps_given = true;
  CHECK(first_bucket_of(r, 7) == 7);
  const TrainCase c = run_train(r).cases.front();
  REQUIRE(c.collectives.size() == 2);
  CHECK(c.collectives[0].span.bytes == 29'048'976);
  CHECK(c.collectives[1].span.bytes == 5'048'576);
  CHECK(c.first_bucket == kDdpBucketCapBytes);
  r.first_bucket = 1;  // set by the user: it wins
  CHECK(first_bucket_of(r, 7) == 1);
}

TEST_CASE("DDP step: a long backward hides every all-reduce but the last bucket's", "[train][ddp]") {
  // Backward 1 s spread by parameters: bucket 0 is ready after p5's share (about 31 ms), bucket 1
  // after p2's, each all-reduce takes under 4 ms, so the stream is free when backward ends and only
  // the last bucket (ready then) is exposed: step = backward + t(last bucket).
  const TrainResult r = run_train(ddp_request(us(1'000'000)));
  const TrainCase& c = r.cases.front();
  const Time last = ring_allreduce(5'048'576);
  CHECK(c.timeline.compute_time == us(1'000'000));
  CHECK(c.timeline.exposed == last);
  CHECK(c.timeline.step == us(1'000'000) + last);
  CHECK(c.timeline.collectives.back().ready == us(1'000'000));
}

TEST_CASE("DDP timeline by hand", "[train][ddp]") {
  // Forward 3 x 1, backward 3 x 2 (layer 2 first: 3..5, layer 1: 5..7, layer 0: 7..9). Bucket 0
  // (layer 2's gradients) runs 5..8, bucket 1 (layer 0's) is ready at 9 and runs 9..10.
  const std::vector<Time> f{us(1), us(1), us(1)}, b{us(2), us(2), us(2)};
  const std::vector<std::size_t> layer{2, 0};
  const std::vector<Bytes> bytes{100, 200};
  const std::vector<Time> d{us(3), us(1)};
  const Timeline t = ddp_timeline(f, b, layer, bytes, d);
  REQUIRE(t.collectives.size() == 2);
  CHECK(t.collectives[0].start == us(5));
  CHECK(t.collectives[0].end == us(8));
  CHECK(t.collectives[1].ready == us(9));
  CHECK(t.collectives[1].end == us(10));
  CHECK(t.step == us(10));
  CHECK(t.compute_time == us(9));
  CHECK(t.exposed == us(1));
  CHECK(t.communication == us(4));
}

TEST_CASE("FSDP timeline by hand: prefetch of the next unit, one stream", "[train][fsdp]") {
  // Two units, forward 10 each, backward 20 each, all-gather 3, reduce-scatter 5.
  // Forward: AG0 0..3, F0 3..13 (AG1 issued at 3: 3..6), F1 13..23.
  // Backward: AG1 23..26, B1 26..46 (AG0 issued at 26: 26..29), RS1 46..51, B0 46..66, RS0 66..71.
  const std::vector<Time> f{us(10), us(10)}, b{us(20), us(20)};
  const std::vector<UnitCollectives> u{{64, us(3), us(5)}, {64, us(3), us(5)}};
  const Timeline t = fsdp_timeline(f, b, u);
  REQUIRE(t.collectives.size() == 6);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{0, 3}, {3, 6}, {23, 26}, {26, 29}, {46, 51}, {66, 71}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(t.collectives[i].start == us(expected[i].first));
    CHECK(t.collectives[i].end == us(expected[i].second));
  }
  CHECK(t.collectives[4].collective == sched::Collective::ReduceScatter);
  CHECK(t.collectives[4].index == 1);
  CHECK(t.step == us(71));
  CHECK(t.compute_time == us(60));
  CHECK(t.exposed == us(11));
  CHECK(t.communication == us(22));
}

TEST_CASE("FSDP step: each rank sends 2(N-1)/N P E in all-gathers and (N-1)/N P E in reduce-scatters", "[train][fsdp]") {
  // ZeRO-3 (Rajbhandari et al. 2020, section 7.2.2): parameters gathered for forward and again for
  // backward, gradients reduce-scattered once. P = 4,096,000 in 4 units (each a multiple of N = 4,
  // so FSDP pads nothing), E = 4 (float32).
  TrainRequest r;
  r.mode = Mode::Fsdp;
  r.model = model_of_count(4'096'000, 4);
  r.topology = switch4();
  r.algorithm = "ring";
  for (std::uint32_t n : {2u, 4u}) {
    r.ranks = {n};
    const TrainCase c = run_train(r).cases.front();
    const Bytes pe = Bytes{4'096'000} * 4;
    CHECK(c.sent_allgather == 2 * (n - 1) * pe / n);
    CHECK(c.sent_reducescatter == (n - 1) * pe / n);
    CHECK(c.sent_allreduce == 0);
    CHECK(c.collectives.size() == 12);  // 2 all-gathers and 1 reduce-scatter per unit
    // No compute: one stream, so the step is the sum of the collectives.
    CHECK(c.timeline.step == c.timeline.communication);
  }
  // A unit whose elements N does not divide is padded to a multiple of N (FSDP's flat parameter).
  r.model = model_of_count(10, 1);
  r.ranks = {4};
  CHECK(run_train(r).cases.front().collectives.front().span.bytes == 12 * 4);
}

TEST_CASE("model inputs: counts, files, presets, and times spread by parameters", "[train][model]") {
  const Model m = model_of_count(10, 3);
  REQUIRE(m.layers.size() == 3);
  CHECK(m.layers[0].tensors == std::vector<std::uint64_t>{4});
  CHECK(m.layers[2].tensors == std::vector<std::uint64_t>{3});
  CHECK_THROWS_AS(model_of_count(2, 3), ModelError);

  const Model list = model_of_json("[3, 5, 7]", "m.json");
  CHECK(list.layers.size() == 3);
  CHECK(list.parameters() == 15);
  const Model obj = model_of_json(R"({"layers": [{"name": "emb", "tensors": [4, 4], "backward_time": "2ms"},
                                                  {"tensors": [8], "forward_time": "1.5ms", "backward_time": "3ms"}]})",
                                  "m.json");
  CHECK(obj.layers[0].name == "emb");
  CHECK(obj.layers[1].name == "layer1");
  CHECK(obj.layers[1].forward == Time{1'500'000'000});
  CHECK(obj.tensor_count() == 3);
  const auto error = [](std::string_view text) {
    try {
      (void)model_of_json(text, "m.json");
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("[3, 0]") == "m.json: /1: found 0, expected a whole number of elements >= 1");
  CHECK(error(R"({"layers": [{"tensors": [1, -2]}]})") ==
        "m.json: /layers/0/tensors/1: found -2, expected a whole number of elements >= 1");
  CHECK(error(R"({"layers": [{"tensors": [1], "backward_time": "2"}]})").starts_with("m.json: /layers/0/backward_time: "));
  CHECK(error(R"({"layers": [{"tensor": [1]}]})") ==
        "m.json: /layers/0/tensor: unknown key, expected name, tensors, forward_time or backward_time");
  CHECK(error("[]") == "m.json: found an empty array, expected at least one element count");
  CHECK(error("{").starts_with("m.json: not JSON"));

  // Shares of 10 ms over 1, 2, 3 parameters: floor(T x upto / P) differences sum to T exactly.
  Model t = model_of_json("[1, 2, 3]", "m.json");
  spread_times(t, us(9), Time{10'000'000'000}, "--forward-time", "--backward-time");
  CHECK(t.layers[0].backward == Time{1'666'666'666});
  CHECK(t.layers[1].backward == Time{3'333'333'334});
  CHECK(t.layers[2].backward == Time{5'000'000'000});
  CHECK(t.layers[0].forward == us(1) + Time{500'000});
  Model own = obj;
  CHECK_THROWS_AS(spread_times(own, std::nullopt, us(1), "--forward-time", "--backward-time"), ModelError);

  const auto gpt2 = preset_model("gpt2");
  REQUIRE(gpt2);
  CHECK(gpt2->parameters() == 124'439'808);
  CHECK(gpt2->layers.size() == 12);
  CHECK(!preset_model("gpt5"));
}

TEST_CASE("train requests: one model, flags where they apply", "[train][text]") {
  const auto field_of = [](const TrainText& t) {
    try {
      (void)train_request(t);
    } catch (const run::RequestError& e) {
      return std::string(run::field_name(e.field()));
    }
    return std::string("none");
  };
  TrainText t;
  CHECK(field_of(t) == "parameters");  // no model
  t.preset = "gpt2";
  t.parameters = "100";
  CHECK(field_of(t) == "preset");  // two models
  t.parameters = "";
  CHECK(field_of(t) == "none");
  t.layers = "3";
  CHECK(field_of(t) == "layers");  // --layers without --parameters
  t.layers = "";
  t.mode = "zero";
  CHECK(field_of(t) == "mode");
  t.mode = "fsdp";
  t.bucket_cap = "10M";
  CHECK(field_of(t) == "bucket_cap");
  t.mode = "ddp";
  t.bucket_cap = "10M,0";
  CHECK(field_of(t) == "bucket_cap");
  t.bucket_cap = "1M,25M,1M";
  CHECK(train_request(t).bucket_caps == std::vector<Bytes>{MiB, 25 * MiB});
  t.tensors = "/nonexistent/model.json";
  t.preset = "";
  CHECK(field_of(t) == "tensors");
}
}  // namespace train_test
