#include "run/parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <thread>

#include <fmt/format.h>

namespace collsim::run {
namespace {

std::string count_message(Field field, std::string_view text, std::uint64_t min, std::uint64_t max) {
  // A field bounded only by the type's range (a rank, before the ranks are known) is told the bound
  // that matters, not 4294967295, unless its value passes that one.
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool too_large = ec == std::errc::result_out_of_range || (ec == std::errc() && v > max);
  if (max == std::numeric_limits<std::uint32_t>::max() && !too_large)
    return fmt::format("{}: found \"{}\", expected a whole number, {} or more", ref(field), text, min);
  return fmt::format("{}: found \"{}\", expected a whole number from {} to {}", ref(field), text, min, max);
}

// The UnitError of a value, named by its field.
template <typename Parse>
auto with_field(Field field, std::string_view text, Parse parse) {
  try {
    return parse(text);
  } catch (const UnitError& e) {
    throw RequestError(field, std::string(text), fmt::format("{}: {}", ref(field), e.what()));
  }
}

}  // namespace

std::optional<std::uint64_t> whole_number(std::string_view text) noexcept {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

unsigned parse_jobs(std::string_view text) {
  return text.empty() ? std::max(1u, std::thread::hardware_concurrency()) : parse_count(Field::Jobs, text, 1, 1024);
}

std::uint32_t parse_count(Field field, std::string_view text, std::uint32_t min, std::uint32_t max) {
  const auto v = whole_number(text);
  if (!v || *v < min || *v > max) throw RequestError(field, std::string(text), count_message(field, text, min, max));
  return static_cast<std::uint32_t>(*v);
}

void check_count(Field field, std::uint64_t value, std::uint64_t min, std::uint64_t max) {
  if (value < min || value > max) {
    const std::string text = std::to_string(value);
    throw RequestError(field, text, count_message(field, text, min, max));
  }
}

Bytes parse_size(Field field, std::string_view text) {
  return with_field(field, text, [](std::string_view t) { return collsim::parse_size(t); });
}

Bandwidth parse_bandwidth(Field field, std::string_view text) {
  return with_field(field, text, [](std::string_view t) { return collsim::parse_bandwidth(t); });
}

Time parse_latency(Field field, std::string_view text) {
  return with_field(field, text, [](std::string_view t) { return collsim::parse_latency(t); });
}

sched::Collective parse_collective(Field field, std::string_view text) {
  const auto c = sched::parse_collective(text);
  if (!c)
    throw RequestError(field, std::string(text),
                       fmt::format("{}: found \"{}\", expected one of: {}", ref(field), text, sched::collective_names_list()));
  return *c;
}

topo::Fabric parse_fabric(std::string_view text) {
  const auto f = topo::parse_fabric(text);
  if (!f)
    throw RequestError(Field::Fabric, std::string(text),
                       fmt::format("{}: found \"{}\", expected {}", ref(Field::Fabric), text,
                                   topo::kFabricNames.list(ListStyle::Or)));
  return *f;
}

topo::ClusterFabric parse_cluster_fabric(std::string_view text) {
  const auto f = topo::kClusterFabricNames.parse(text);
  if (!f)
    throw RequestError(Field::Fabric, std::string(text),
                       fmt::format("{}: found \"{}\", expected {} with {} (a cluster of that machine)", ref(Field::Fabric),
                                   text, topo::kClusterFabricNames.list(ListStyle::Or), ref(Field::Node)));
  return *f;
}

double parse_oversubscription(std::string_view text) {
  const auto o = topo::parse_oversubscription(text);
  if (!o)
    throw RequestError(Field::Oversubscription, std::string(text),
                       fmt::format("{}: found \"{}\", expected a leaf's down to up ratio of at least 1, as 2:1 or 2",
                                   ref(Field::Oversubscription), text));
  return *o;
}

topo::Routing parse_routing(std::string_view text) {
  const auto r = topo::kRoutingNames.parse(text);
  if (!r)
    throw RequestError(Field::Routing, std::string(text),
                       fmt::format("{}: found \"{}\", expected {}", ref(Field::Routing), text,
                                   topo::kRoutingNames.list(ListStyle::Or)));
  return *r;
}

topo::P2pLevel parse_p2p_level(std::string_view text) {
  const auto level = topo::kP2pLevelNames.parse(text);
  if (!level)
    throw RequestError(Field::P2pLevel, std::string(text),
                       fmt::format("{}: found \"{}\", expected {} (NCCL_P2P_LEVEL's names; off is NCCL_P2P_DISABLE=1)",
                                   ref(Field::P2pLevel), text, topo::kP2pLevelNames.list(ListStyle::Or)));
  return *level;
}

topo::ProtocolChoice parse_protocol(std::string_view text) {
  const auto p = topo::parse_protocol_choice(text);
  if (!p)
    throw RequestError(Field::Protocol, std::string(text),
                       fmt::format("{}: found \"{}\", expected {}", ref(Field::Protocol), text,
                                   topo::kProtocolChoiceNames.list(ListStyle::Or)));
  return *p;
}

Formula parse_formula(std::string_view text) {
  if (text == "analytical") return Formula::Analytical;
  if (text == "nccl") return Formula::Nccl;
  throw RequestError(Field::Model, std::string(text),
                     fmt::format("{}: found \"{}\", expected analytical or nccl", ref(Field::Model), text));
}

std::vector<algo::NcclFamily> parse_nccl_algorithms(std::string_view text) {
  const bool exclude = text.starts_with('^');
  const std::string_view list = exclude ? text.substr(1) : text;
  // NCCL's names (ncclAlgoStr, src/graph/tuning.cc). NCCL weighs its CollNet algorithms only with
  // NCCL_COLLNET_ENABLE=1 and a SHARP plugin (ncclTopoTuneModel disables them otherwise), so its
  // default choice never runs them; collsim runs CollNet Direct as --algorithm collnet.
  constexpr std::array<std::pair<std::string_view, algo::NcclFamily>, 5> kModelled{
      {{"tree", algo::NcclFamily::Tree},
       {"ring", algo::NcclFamily::Ring},
       {"nvls", algo::NcclFamily::Nvls},
       {"nvlstree", algo::NcclFamily::NvlsTree},
       {"pat", algo::NcclFamily::Pat}}};
  constexpr std::array<std::string_view, 2> kLater{"collnetdirect", "collnetchain"};
  std::vector<algo::NcclFamily> named;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string name(list.substr(start, comma - start));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto it = std::find_if(kModelled.begin(), kModelled.end(), [&](const auto& m) { return m.first == name; });
    if (it != kModelled.end()) {
      named.push_back(it->second);
    } else if (std::find(kLater.begin(), kLater.end(), name) != kLater.end()) {
      if (exclude) {  // leaving out one NCCL's default never runs changes nothing
        start = comma + 1;
        continue;
      }
      throw RequestError(Field::NcclAlgo, std::string(text),
                         fmt::format("{}: {} is one of NCCL's CollNet algorithms, which NCCL weighs only with "
                                     "NCCL_COLLNET_ENABLE=1 and a SHARP plugin; expected ring, tree, nvls, nvlstree or "
                                     "pat, or --algorithm collnet to run CollNet Direct",
                                     ref(Field::NcclAlgo), name));
    } else {
      throw RequestError(Field::NcclAlgo, std::string(text),
                         fmt::format("{}: found \"{}\" in \"{}\", expected NCCL algorithm names separated by commas "
                                     "(ring, tree, nvls, nvlstree, pat), optionally after ^ to leave them out",
                                     ref(Field::NcclAlgo), name, text));
    }
    start = comma + 1;
  }
  std::vector<algo::NcclFamily> allowed;
  for (const auto& [name, family] : kModelled) {
    const bool listed = std::find(named.begin(), named.end(), family) != named.end();
    if (listed != exclude) allowed.push_back(family);
  }
  if (allowed.empty())
    throw RequestError(Field::NcclAlgo, std::string(text),
                       fmt::format("{}: \"{}\" leaves no algorithm; expected at least one of ring, tree, nvls, nvlstree, pat",
                                   ref(Field::NcclAlgo), text));
  return allowed;
}

validation::DType parse_dtype(std::string_view text) {
  const auto t = validation::parse_dtype(text);
  if (!t)
    throw RequestError(Field::Dtype, std::string(text),
                       fmt::format("{}: found \"{}\", expected one of: {}", ref(Field::Dtype), text,
                                   validation::dtype_names_list()));
  return *t;
}

validation::ReduceOp parse_reduce_op(std::string_view text) {
  const auto o = validation::parse_reduce_op(text);
  if (!o)
    throw RequestError(Field::Op, std::string(text),
                       fmt::format("{}: found \"{}\", expected one of: sum, min, max, prod", ref(Field::Op), text));
  return *o;
}

std::vector<std::string> parse_node_list(Field field, std::string_view text) {
  std::vector<std::string> ids;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    ids.emplace_back(rest.substr(0, comma));
    if (ids.back().empty())
      throw RequestError(field, std::string(text), fmt::format("{}: found an empty node id in \"{}\"", ref(field), text));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return ids;
}

}  // namespace collsim::run
