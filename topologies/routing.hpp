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
/// ideal of adaptive routing), so it uses 1/k of each of k parallel paths; dmodk: destination
/// routing as InfiniBand's subnet manager programs a fat tree's forwarding tables (OpenSM's ftree
/// engine; D-Mod-K, Zahavi, Johnson, Kerbyson and Lang, "Optimized InfiniBand fat-tree routing for
/// shift all-to-all communication patterns", Concurrency and Computation 22(2), 2010): every flow
/// to one destination leaves a switch by the same next hop, the c-th choice along a route being
/// floor(d / (m_0 x ... x m_{c-1})) mod m_c of its m_c equal-cost hops, where d numbers the
/// destination's port on its leaf switch leaf by leaf (RouteCache::get). Channels between two nodes
/// then share one path, and the destinations of one leaf spread evenly over its spines (one per
/// spine where it has as many spines as ports down).
enum class Routing : std::uint8_t { Ecmp, Single, Spray, DModK };

inline constexpr auto kRoutingNames = make_enum_names<Routing>({{Routing::Ecmp, "ecmp"},
                                                                {Routing::Single, "single"},
                                                                {Routing::Spray, "spray"},
                                                                {Routing::DModK, "dmodk", {"d-mod-k"}}},
                                                               NameMatch::IgnoreCase);

}  // namespace collsim::topo
