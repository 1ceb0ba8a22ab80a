// How switches place a flow on one of the equal-cost paths between two nodes.
#pragma once

#include <cstdint>

#include "sim/units/enum_names.hpp"

namespace collsim::topo {

/// ecmp: each flow takes one of the equal-cost next hops, picked by a deterministic hash of
/// (source, destination, channel, switch), as switches' ECMP hashes a flow's header (RFC 2992's
/// hash-threshold: flows spread, and two flows may collide on one link); single: every flow between
/// two nodes takes the same shortest path (ties broken by link order in the file), as a static
/// route does; spray: each flow is split evenly over every equal-cost next hop (packet spraying, the
/// ideal of adaptive routing), so it uses 1/k of each of k parallel paths.
enum class Routing : std::uint8_t { Ecmp, Single, Spray };

inline constexpr auto kRoutingNames = make_enum_names<Routing>(
    {{Routing::Ecmp, "ecmp"}, {Routing::Single, "single"}, {Routing::Spray, "spray"}}, NameMatch::IgnoreCase);

}  // namespace collsim::topo
