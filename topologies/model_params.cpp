#include "topologies/model_params.hpp"

#include "sim/io/text_file.hpp"
#include "topologies/json_reader.hpp"
#include "topologies/host_costs.hpp"
#include "topologies/nccl_tuning.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {
namespace {

// Every value has one name; a table's order is the order of its keys in a written file.
static_assert(kProtocolNames.dense() && kProtocolNames.distinct() && kProtocolNames.size() == kProtocols);
static_assert(kProtocolChoiceNames.dense() && kProtocolChoiceNames.distinct());
static_assert(kLinkClassNames.dense() && kLinkClassNames.distinct() && kLinkClassNames.size() == kLinkClasses);
static_assert(kFamilyNames.dense() && kFamilyNames.distinct() && kFamilyNames.size() == kFamilies);
constexpr std::string_view kFormat = "collsim-params-1";

template <class T>
void take(std::optional<T>& into, const std::optional<T>& from) {
  if (from) into = from;
}
template <class T, std::size_t N>
void take(std::array<T, N>& into, const std::array<T, N>& from) {
  for (std::size_t i = 0; i < N; ++i) take(into[i], from[i]);
}
template <class T>
bool none(const std::optional<T>& v) {
  return !v;
}
template <class T, std::size_t N>
bool none(const std::array<T, N>& a) {
  for (const auto& v : a)
    if (!none(v)) return false;
  return true;
}

// Reads {"<name>": leaf, ...} for the names given, each leaf with `leaf`.
template <class E, class T, std::size_t N, class Leaf>
void read_table(const detail::Reader& rd, const detail::json& obj, const std::string& path,
                const EnumNames<E, N>& names, std::array<T, N>& into, Leaf leaf) {
  if (!obj.is_object())
    rd.fail(path, fmt::format("found {}, expected an object with keys among: {}", detail::brief(obj), names.list()));
  for (const auto& [key, value] : obj.items()) {
    const std::optional<E> e = names.parse(key);
    if (!e) rd.fail(path + "/" + key, fmt::format("unknown key \"{}\", expected one of: {}", key, names.list()));
    leaf(value, path + "/" + key, into[static_cast<std::size_t>(*e)]);
  }
}

// Exact and readable: "6.6us".
detail::json latency_json(Time t) { return format_time_us_exact(t) + "us"; }

}  // namespace

std::string_view protocol_name(Protocol p) noexcept { return kProtocolNames.name(p); }

std::string_view protocol_choice_name(ProtocolChoice p) noexcept { return kProtocolChoiceNames.name(p); }

std::optional<ProtocolChoice> parse_protocol_choice(std::string_view s) noexcept { return kProtocolChoiceNames.parse(s); }

std::string_view link_class_name(LinkClass c) noexcept { return kLinkClassNames.name(c); }
std::string_view family_name(AlgoFamily f) noexcept { return kFamilyNames.name(f); }

LinkClass link_class(LinkType t) noexcept {
  switch (t) {
    case LinkType::NvLink:
    case LinkType::NvSwitch:
    case LinkType::XGMI: return LinkClass::NvLink;
    case LinkType::Pcie:
    case LinkType::UPI: return LinkClass::Pcie;
    case LinkType::InfiniBand:
    case LinkType::Ethernet:
    case LinkType::RoCE:
    case LinkType::Network: return LinkClass::Network;
  }
  return LinkClass::Network;
}

namespace {
std::size_t ix(auto e) { return static_cast<std::size_t>(e); }
}  // namespace

double ModelParams::link_efficiency_or_default(LinkClass c) const { return link_efficiency[ix(c)].value_or(1.0); }
double ModelParams::protocol_efficiency_or_default(Protocol p) const {
  return protocol_efficiency[ix(p)].value_or(nccl::kProtocolEfficiency[ix(p)]);
}
Time ModelParams::host_launch_or_default() const { return host_launch.value_or(host::kLaunchPerGpu); }
Time ModelParams::host_empty_call_or_default() const { return host_empty_call.value_or(host::kEmptyCall); }

Time ModelParams::base_latency_or_default(AlgoFamily f, Protocol p) const {
  return base_latency[ix(f)][ix(p)].value_or(nccl::kBaseLatency[ix(f)][ix(p)]);
}
Time ModelParams::step_latency_or_default(AlgoFamily f, LinkClass c, Protocol p) const {
  return step_latency[ix(f)][ix(c)][ix(p)].value_or(nccl::kStepLatency[ix(f)][ix(c)][ix(p)]);
}
Bytes ModelParams::slice_or_default(Protocol p) const { return slice.value_or(nccl::kSliceBytes[ix(p)]); }

void ModelParams::merge(const ModelParams& over) {
  take(protocol, over.protocol);
  take(channels, over.channels);
  take(slice, over.slice);
  take(reduction_cost, over.reduction_cost);
  take(link_efficiency, over.link_efficiency);
  take(protocol_efficiency, over.protocol_efficiency);
  take(base_latency, over.base_latency);
  take(step_latency, over.step_latency);
  take(host_launch, over.host_launch);
  take(host_empty_call, over.host_empty_call);
}

bool ModelParams::empty() const {
  return none(protocol) && none(channels) && none(slice) && none(reduction_cost) && none(link_efficiency) &&
         none(protocol_efficiency) && none(base_latency) && none(step_latency) && none(host_launch) &&
         none(host_empty_call);
}

namespace detail {

ModelParams read_model_params(const Reader& rd, const json& obj, const std::string& path, bool allow_format) {
  if (!obj.is_object()) rd.fail(path, fmt::format("found {}, expected an object of model parameters", brief(obj)));
  if (allow_format) {
    rd.only_keys(obj, path,
                 {"$schema", "format", "description", "protocol", "channels", "slice", "reduction_cost",
                  "link_efficiency", "protocol_efficiency", "base_latency", "step_latency", "host_launch",
                  "host_empty_call"});
    const json& f = rd.member(obj, path, "format", "\"collsim-params-1\"");
    if (f != kFormat) rd.fail(path + "/format", fmt::format("found {}, expected \"{}\"", brief(f), kFormat));
  } else {
    rd.only_keys(obj, path,
                 {"protocol", "channels", "slice", "reduction_cost", "link_efficiency", "protocol_efficiency",
                  "base_latency", "step_latency", "host_launch", "host_empty_call"});
  }
  ModelParams p;
  const auto at = [&](const char* key) { return path + "/" + key; };
  if (auto it = obj.find("protocol"); it != obj.end()) {
    const auto choice = it->is_string() ? parse_protocol_choice(it->get_ref<const std::string&>()) : std::nullopt;
    if (!choice)
      rd.fail(at("protocol"), fmt::format("found {}, expected \"auto\", {}", brief(*it), kProtocolNames.list(ListStyle::QuotedOr)));
    p.protocol = choice;
  }
  if (auto it = obj.find("channels"); it != obj.end()) p.channels = rd.count_at(*it, at("channels"), 1, 64);
  if (auto it = obj.find("slice"); it != obj.end()) p.slice = rd.size_at(*it, at("slice"));
  if (auto it = obj.find("reduction_cost"); it != obj.end()) p.reduction_cost = rd.bool_at(*it, at("reduction_cost"));
  const auto fraction = [&](const json& v, const std::string& where, std::optional<double>& into) {
    into = rd.fraction_at(v, where);
  };
  const auto latency = [&](const json& v, const std::string& where, std::optional<Time>& into) {
    into = rd.latency_at(v, where);
  };
  if (auto it = obj.find("link_efficiency"); it != obj.end())
    read_table(rd, *it, at("link_efficiency"), kLinkClassNames, p.link_efficiency, fraction);
  if (auto it = obj.find("protocol_efficiency"); it != obj.end())
    read_table(rd, *it, at("protocol_efficiency"), kProtocolNames, p.protocol_efficiency, fraction);
  if (auto it = obj.find("base_latency"); it != obj.end())
    read_table(rd, *it, at("base_latency"), kFamilyNames, p.base_latency,
               [&](const json& v, const std::string& where, PerProtocol<std::optional<Time>>& into) {
                 read_table(rd, v, where, kProtocolNames, into, latency);
               });
  if (auto it = obj.find("step_latency"); it != obj.end())
    read_table(rd, *it, at("step_latency"), kFamilyNames, p.step_latency,
               [&](const json& v, const std::string& where, PerClass<PerProtocol<std::optional<Time>>>& into) {
                 read_table(rd, v, where, kLinkClassNames, into,
                            [&](const json& w, const std::string& wh, PerProtocol<std::optional<Time>>& leaf) {
                              read_table(rd, w, wh, kProtocolNames, leaf, latency);
                            });
               });
  if (auto it = obj.find("host_launch"); it != obj.end()) latency(*it, at("host_launch"), p.host_launch);
  if (auto it = obj.find("host_empty_call"); it != obj.end()) latency(*it, at("host_empty_call"), p.host_empty_call);
  return p;
}

}  // namespace detail

ModelParams parse_model_params_file(std::string_view text, std::string_view where) {
  const detail::json doc = detail::parse_strict_json(text, where);
  return detail::read_model_params(detail::Reader(where), doc, "", true);
}

ModelParams load_model_params_file(const std::string& path) {
  std::string text;
  try {
    text = io::read_text_file(path, fmt::format("a parameter JSON file (\"format\": \"{}\")", kFormat));
  } catch (const io::FileReadError& e) {
    throw TopologyError(e.what());
  }
  return parse_model_params_file(text, path);
}

std::string write_model_params_json(const ModelParams& p) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  if (p.protocol) j["protocol"] = protocol_choice_name(*p.protocol);
  if (p.channels) j["channels"] = *p.channels;
  if (p.slice) j["slice"] = *p.slice;
  if (p.reduction_cost) j["reduction_cost"] = *p.reduction_cost;
  // Leaves that are set, under their names; empty tables are left out.
  const auto table = [](const auto& names, const auto& values, auto leaf) {
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    for (const auto& e : names.entries()) {
      nlohmann::ordered_json v = leaf(values[static_cast<std::size_t>(e.value)]);
      if (!v.is_null()) t[std::string(e.name)] = v;
    }
    return t.empty() ? nlohmann::ordered_json() : t;
  };
  const auto number = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  const auto lat = [](const std::optional<Time>& v) {
    return v ? nlohmann::ordered_json(latency_json(*v)) : nlohmann::ordered_json();
  };
  const auto per_protocol = [&](const PerProtocol<std::optional<Time>>& v) { return table(kProtocolNames, v, lat); };
  const auto per_class = [&](const PerClass<PerProtocol<std::optional<Time>>>& v) {
    return table(kLinkClassNames, v, per_protocol);
  };
  if (auto t = table(kLinkClassNames, p.link_efficiency, number); !t.is_null()) j["link_efficiency"] = t;
  if (auto t = table(kProtocolNames, p.protocol_efficiency, number); !t.is_null()) j["protocol_efficiency"] = t;
  if (auto t = table(kFamilyNames, p.base_latency, per_protocol); !t.is_null()) j["base_latency"] = t;
  if (auto t = table(kFamilyNames, p.step_latency, per_class); !t.is_null()) j["step_latency"] = t;
  if (p.host_launch) j["host_launch"] = latency_json(*p.host_launch);
  if (p.host_empty_call) j["host_empty_call"] = latency_json(*p.host_empty_call);
  return j.dump(2) + "\n";
}

}  // namespace collsim::topo
