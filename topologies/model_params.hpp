// The fidelity parameters of a simulation: protocol, channels, slices, bandwidth efficiencies,
// latencies and whether reductions cost time, as one plain struct with a JSON form.
//
// Every field is optional: a value that is set replaces the one below it, in the order
//   built-in defaults  <  the topology's "params" object  <  a parameter file (--params)  <  flags.
// With nothing set anywhere, a run is the ideal α-β model: one channel, no slicing, no base or
// per-step latency, efficiency 1 and no reduction cost. Once a protocol is set, NCCL's tuning
// constants (topologies/nccl_tuning.hpp) fill every latency the layers leave unset.
//
// JSON form (a topology's "params" object, or a parameter file with "format": "collsim-params-1"):
//   {"protocol": "auto"|"ll"|"ll128"|"simple", "channels": 24, "slice": "1MiB" (0: no slicing),
//    "reduction_cost": true,
//    "link_efficiency": {"nvlink": 0.8, "pcie": 0.8, "network": 0.9},
//    "protocol_efficiency": {"ll": 0.5, "ll128": 0.9375, "simple": 1},
//    "base_latency": {"ring": {"ll": "6.6us", "ll128": "14us", "simple": "8.4us"}, "tree": {...}},
//    "step_latency": {"ring": {"nvlink": {"ll": "0.6us", ...}, "pcie": {...}, "network": {...}},
//                     "tree": {...}}}
// Any key and any leaf may be left out. A calibration writes the same form (write_model_params_json).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/units/enum_names.hpp"
#include "sim/units/units.hpp"

namespace collsim::topo {

enum class LinkType : std::uint8_t;  // topology.hpp

/// NCCL's protocols, in NCCL's order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
enum class Protocol : std::uint8_t { LL, LL128, Simple };
/// A protocol, or "let the cost model pick the fastest per size" (NCCL's default).
enum class ProtocolChoice : std::uint8_t { LL, LL128, Simple, Auto };
/// NCCL's link classes for latencies (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class LinkClass : std::uint8_t { NvLink, Pcie, Network };
/// NCCL's latency tables have a ring row, a tree row and an NVLS row; every other algorithm uses
/// the ring's.
enum class AlgoFamily : std::uint8_t { Ring, Tree, Nvls, NvlsTree, Pat, CollNet };

inline constexpr std::size_t kProtocols = 3;
inline constexpr std::size_t kLinkClasses = 3;
inline constexpr std::size_t kFamilies = 6;

template <class T>
using PerProtocol = std::array<T, kProtocols>;
template <class T>
using PerClass = std::array<T, kLinkClasses>;
template <class T>
using PerFamily = std::array<T, kFamilies>;

/// The protocols' names in enum order: the --protocol names and the parameter files' keys (exact).
inline constexpr auto kProtocolNames =
    make_enum_names<Protocol>({{Protocol::LL, "ll"}, {Protocol::LL128, "ll128"}, {Protocol::Simple, "simple"}});
/// The --protocol and "protocol" values in enum order, read back ignoring case.
inline constexpr auto kProtocolChoiceNames = make_enum_names<ProtocolChoice>(
    {{ProtocolChoice::LL, "ll"}, {ProtocolChoice::LL128, "ll128"}, {ProtocolChoice::Simple, "simple"},
     {ProtocolChoice::Auto, "auto"}},
    NameMatch::IgnoreCase);
/// The link classes' names in enum order: the parameter files' keys (exact).
inline constexpr auto kLinkClassNames =
    make_enum_names<LinkClass>({{LinkClass::NvLink, "nvlink"}, {LinkClass::Pcie, "pcie"}, {LinkClass::Network, "network"}});
/// The algorithm families' names in enum order: the parameter files' keys (exact).
inline constexpr auto kFamilyNames = make_enum_names<AlgoFamily>(
    {{AlgoFamily::Ring, "ring"}, {AlgoFamily::Tree, "tree"}, {AlgoFamily::Nvls, "nvls"},
     {AlgoFamily::NvlsTree, "nvlstree"},
     {AlgoFamily::Pat, "pat"},
     {AlgoFamily::CollNet, "collnet"}});

/// "ll", "ll128", "simple".
std::string_view protocol_name(Protocol p) noexcept;
/// "ll", "ll128", "simple", "auto".
std::string_view protocol_choice_name(ProtocolChoice p) noexcept;
/// Parses "ll", "ll128", "simple" or "auto" (case-insensitive); nullopt otherwise.
std::optional<ProtocolChoice> parse_protocol_choice(std::string_view s) noexcept;
/// "nvlink", "pcie", "network".
std::string_view link_class_name(LinkClass c) noexcept;
/// "ring", "tree", "nvls", "nvlstree", "pat", "collnet".
std::string_view family_name(AlgoFamily f) noexcept;
/// The class of a link type: nvlink, nvswitch and xgmi are NVLink-class; pcie and upi PCIe-class;
/// infiniband, ethernet, roce and network are network-class.
LinkClass link_class(LinkType t) noexcept;

/// The parameters, each unset unless a layer set it (see the header comment).
struct ModelParams {
  std::optional<ProtocolChoice> protocol;
  std::optional<std::uint32_t> channels;  ///< >= 1
  std::optional<Bytes> slice;             ///< 0: no slicing
  std::optional<bool> reduction_cost;
  PerClass<std::optional<double>> link_efficiency;        ///< in (0, 1]
  PerProtocol<std::optional<double>> protocol_efficiency; ///< in (0, 1]
  PerFamily<PerProtocol<std::optional<Time>>> base_latency;
  PerFamily<PerClass<PerProtocol<std::optional<Time>>>> step_latency;
  /// The host's launch cost per collective and per GPU its thread drives (topologies/host_costs.hpp).
  std::optional<Time> host_launch;
  /// The host's cost of a collective of 0 elements, which launches nothing (host_costs.hpp).
  std::optional<Time> host_empty_call;

  /// The value in effect: the one set here, else NCCL's (nccl_tuning.hpp), else 1 for link
  /// efficiencies (an ideal link).
  [[nodiscard]] double link_efficiency_or_default(LinkClass c) const;
  [[nodiscard]] double protocol_efficiency_or_default(Protocol p) const;
  [[nodiscard]] Time base_latency_or_default(AlgoFamily f, Protocol p) const;
  [[nodiscard]] Time step_latency_or_default(AlgoFamily f, LinkClass c, Protocol p) const;
  /// The slice in effect under protocol `p`: the one set here, else NCCL's slice for `p`.
  [[nodiscard]] Bytes slice_or_default(Protocol p) const;
  /// The host costs in effect: the ones set here, else the measured defaults (host_costs.hpp).
  [[nodiscard]] Time host_launch_or_default() const;
  [[nodiscard]] Time host_empty_call_or_default() const;

  /// Every field that `over` sets replaces this one's.
  void merge(const ModelParams& over);
  /// True when no field is set.
  [[nodiscard]] bool empty() const;
  friend bool operator==(const ModelParams&, const ModelParams&) = default;
};

/// Parses a parameter file's text (`where` names it in messages). Throws TopologyError (topology.hpp) naming the
/// file, the JSON path, what was found and what was expected.
ModelParams parse_model_params_file(std::string_view text, std::string_view where);
/// Reads a parameter file from disk. Throws TopologyError.
ModelParams load_model_params_file(const std::string& path);
/// The parameter-file form of `params` (only the fields that are set), with "format", as pretty JSON
/// ending in a newline; parse_model_params_file reads it back equal.
std::string write_model_params_json(const ModelParams& params);

}  // namespace collsim::topo
