// Text to typed request fields, for every front end (the CLI's flags, the Python module's string
// arguments): one parser per kind of value, each throwing RequestError naming the field, with the
// text found and what was expected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/errors.hpp"
#include "run/request.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/units/units.hpp"
#include "topologies/generate.hpp"
#include "topologies/model_params.hpp"
#include "validation/dtype.hpp"

namespace collsim::run {

/// -j/--jobs: threads from 1 to 1024, or the number of cores for an empty text.
[[nodiscard]] unsigned parse_jobs(std::string_view text);
/// A whole number in [min, max]: "found \"TEXT\", expected a whole number from MIN to MAX".
[[nodiscard]] std::uint32_t parse_count(Field field, std::string_view text, std::uint32_t min, std::uint32_t max);
/// The whole of `text` as a decimal number; nullopt for an empty text, another character or a value
/// past 2^64 - 1.
[[nodiscard]] std::optional<std::uint64_t> whole_number(std::string_view text) noexcept;
/// Throws the error parse_count gives for `value` outside [min, max] (a typed value, e.g. from Python).
void check_count(Field field, std::uint64_t value, std::uint64_t min, std::uint64_t max);
/// A size (units.hpp parse_size: 1G, 512K, 1GB); the UnitError's message after "FIELD: ".
[[nodiscard]] Bytes parse_size(Field field, std::string_view text);
/// A bandwidth (parse_bandwidth: 25GB/s, 200Gb/s).
[[nodiscard]] Bandwidth parse_bandwidth(Field field, std::string_view text);
/// A latency (parse_latency: 1us, 500ns).
[[nodiscard]] Time parse_latency(Field field, std::string_view text);
/// A collective name (sched::parse_collective: - and _ ignored).
[[nodiscard]] sched::Collective parse_collective(Field field, std::string_view text);
/// ring, switch or fully-connected.
[[nodiscard]] topo::Fabric parse_fabric(std::string_view text);
/// fat-tree or rail (any case).
[[nodiscard]] topo::ClusterFabric parse_cluster_fabric(std::string_view text);
/// "2:1", "2" or "1.5": a leaf's down to up bandwidth, >= 1.
[[nodiscard]] double parse_oversubscription(std::string_view text);
/// ecmp, single, spray or dmodk (any case; d-mod-k too).
[[nodiscard]] topo::Routing parse_routing(std::string_view text);
/// NCCL_P2P_LEVEL's names (off, nvl, pix, pxb, phb, sys; any case; loc/disable for off).
[[nodiscard]] topo::P2pLevel parse_p2p_level(std::string_view text);
/// ll, ll128, simple or auto.
[[nodiscard]] topo::ProtocolChoice parse_protocol(std::string_view text);
/// analytical or nccl.
[[nodiscard]] Formula parse_formula(std::string_view text);
/// NCCL_ALGO's form (NVIDIA/nccl 2.30.7 src/graph/tuning.cc parseList): comma-separated NCCL
/// algorithm names, case ignored, of which collsim has ring, tree, nvls, nvlstree and pat; a leading
/// ^ keeps all but those. Returns the families allowed, in that order. Throws RequestError
/// (Field::NcclAlgo) for an empty list, a name NCCL does not have, or one of NCCL's CollNet
/// algorithms (collnetdirect, collnetchain), which NCCL's default choice never weighs.
[[nodiscard]] std::vector<algo::NcclFamily> parse_nccl_algorithms(std::string_view text);
/// An element type (validation::parse_dtype).
[[nodiscard]] validation::DType parse_dtype(std::string_view text);
/// A reduction operator: sum, min, max or prod.
[[nodiscard]] validation::ReduceOp parse_reduce_op(std::string_view text);
/// Comma-separated node ids (ps_node), none empty.
[[nodiscard]] std::vector<std::string> parse_node_list(Field field, std::string_view text);

}  // namespace collsim::run
