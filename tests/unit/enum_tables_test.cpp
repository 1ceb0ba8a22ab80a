// Every enum name table of collsim (the EnumNames tables next to their enums): each enumerator has
// one name, names are distinct, names read back, the lists are the exact strings the error
// messages print, and the parsing rules each enum has always had (case, separators, aliases).
#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/network/network_model.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/schedule/json_io.hpp"
#include "topologies/generate.hpp"
#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"
#include "validation/dtype.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace enum_tables_test {

using namespace collsim;
using sched::Collective;
using topo::Fabric;
using validation::DType;

namespace {

// Every entry's name reads back as its value and is what `name_of` gives.
template <class Table, class NameOf>
void check_round_trip(const Table& table, NameOf name_of) {
  CHECK(table.dense());
  CHECK(table.distinct());
  for (const auto& e : table.entries()) {
    CHECK(name_of(e.value) == e.name);
    CHECK(table.parse(e.name) == e.value);
  }
}

}  // namespace

TEST_CASE("enum tables: every enumerator has one name and the names are distinct") {
  // C++ cannot count an enum's enumerators: dense() says the values are 0 .. N-1, and N is the
  // number of enumerators declared (counted by hand here, or the PerProtocol/PerClass sizes).
  CHECK(sched::kCollectiveNames.size() == 7);
  CHECK(topo::kFabricNames.size() == 3);
  CHECK(topo::kProtocolNames.size() == topo::kProtocols);
  CHECK(topo::kProtocolChoiceNames.size() == topo::kProtocols + 1);
  CHECK(topo::kLinkClassNames.size() == topo::kLinkClasses);
  CHECK(topo::kFamilyNames.size() == topo::kFamilies);
  CHECK(topo::kNodeTypeNames.size() == 4);
  CHECK(topo::kLinkTypeNames.size() == 9);
  CHECK(topo::kDuplexNames.size() == 2);
  CHECK(validation::kDTypeNames.size() == 6);
  CHECK(validation::kReduceOpNames.size() == 4);
  CHECK(sched::kBufferNames.size() == 3);
  CHECK(sched::kCombineNames.size() == 2);

  check_round_trip(sched::kCollectiveNames, sched::collective_name);
  check_round_trip(topo::kFabricNames, topo::fabric_name);
  check_round_trip(topo::kProtocolNames, topo::protocol_name);
  check_round_trip(topo::kProtocolChoiceNames, topo::protocol_choice_name);
  check_round_trip(topo::kLinkClassNames, topo::link_class_name);
  check_round_trip(topo::kFamilyNames, topo::family_name);
  check_round_trip(topo::kNodeTypeNames, topo::node_type_name);
  check_round_trip(topo::kLinkTypeNames, topo::link_type_name);
  check_round_trip(topo::kDuplexNames, [](topo::Duplex d) { return topo::kDuplexNames.name(d); });
  check_round_trip(validation::kDTypeNames, validation::dtype_name);
  check_round_trip(validation::kReduceOpNames, validation::reduce_op_name);
  check_round_trip(sched::kBufferNames, sched::buffer_name);
  check_round_trip(sched::kCombineNames, sched::combine_name);
}

TEST_CASE("enum tables: the lists are the strings the messages print") {
  CHECK(sched::collective_names_list() == "allreduce, reducescatter, allgather, broadcast, reduce, alltoall, sendrecv");
  // run/parse.cpp's fabric and protocol messages.
  CHECK(topo::kFabricNames.list(ListStyle::Or) == "ring, switch or fully-connected");
  CHECK(topo::kProtocolChoiceNames.list(ListStyle::Or) == "ll, ll128, simple or auto");
  // A parameter file's "protocol".
  CHECK("\"auto\", " + topo::kProtocolNames.list(ListStyle::QuotedOr) == "\"auto\", \"ll\", \"ll128\" or \"simple\"");
  // A parameter file's table keys.
  CHECK(topo::kProtocolNames.list() == "ll, ll128, simple");
  CHECK(topo::kLinkClassNames.list() == "nvlink, pcie, network");
  CHECK(topo::kFamilyNames.list() == "ring, tree, nvls, nvlstree, pat, collnet");
  CHECK(topo::node_type_names() == "gpu, switch, cpu, nic");
  CHECK(topo::link_type_names() == "nvlink, nvswitch, pcie, infiniband, ethernet, roce, xgmi, upi, network");
  CHECK(topo::kDuplexNames.list(ListStyle::QuotedOr) == "\"full\" or \"half\"");
  CHECK(validation::dtype_names_list() == "float32, float64, float16, bfloat16, int32, uint8");
  CHECK(validation::reduce_op_names_list() == "sum, min, max, prod");
  CHECK(sched::kBufferNames.list(ListStyle::QuotedOr) == "\"data\", \"output\" or \"scratch\"");
  CHECK(sched::kCombineNames.list(ListStyle::QuotedOr) == "\"reduce\" or \"copy\"");
}

TEST_CASE("enum tables: collectives ignore case, hyphens and underscores") {
  CHECK(sched::parse_collective("allreduce") == Collective::AllReduce);
  CHECK(sched::parse_collective("all-reduce") == Collective::AllReduce);
  CHECK(sched::parse_collective("all_reduce") == Collective::AllReduce);
  CHECK(sched::parse_collective("AllReduce") == Collective::AllReduce);
  CHECK(sched::parse_collective("Reduce-Scatter") == Collective::ReduceScatter);
  CHECK(sched::parse_collective("ALL_TO_ALL") == Collective::AllToAll);
  CHECK_FALSE(sched::parse_collective("all reduce").has_value());
  CHECK_FALSE(sched::parse_collective("allreduce2").has_value());
  CHECK_FALSE(sched::parse_collective("").has_value());
  CHECK(sched::all_collectives().size() == 7);
  CHECK(sched::all_collectives()[5] == Collective::AllToAll);
  CHECK(sched::all_collectives()[6] == Collective::SendRecv);
  CHECK(sched::parse_collective("Send_Recv") == Collective::SendRecv);
}

TEST_CASE("enum tables: fabrics, node, link and duplex types, buffers and combines are exact") {
  CHECK(topo::parse_fabric("fully_connected") == Fabric::FullyConnected);
  CHECK_FALSE(topo::parse_fabric("Ring").has_value());
  CHECK_FALSE(topo::parse_fabric("fullyconnected").has_value());
  CHECK_FALSE(topo::parse_node_type("GPU").has_value());
  CHECK_FALSE(topo::parse_link_type("NVLink").has_value());
  CHECK_FALSE(topo::kDuplexNames.parse("Full").has_value());
  CHECK_FALSE(sched::kBufferNames.parse("Data").has_value());
  CHECK_FALSE(sched::kCombineNames.parse("REDUCE").has_value());
  CHECK(sched::kCombineNames.parse("copy") == sched::Combine::Copy);
}

TEST_CASE("enum tables: protocols, dtypes and reduction operators ignore case, dtypes take their aliases") {
  CHECK(topo::parse_protocol_choice("LL128") == topo::ProtocolChoice::LL128);
  CHECK(topo::parse_protocol_choice("Auto") == topo::ProtocolChoice::Auto);
  CHECK_FALSE(topo::parse_protocol_choice("ll-128").has_value());
  // A choice other than auto has the protocol's name.
  for (topo::Protocol p : topo::kProtocolNames.values())
    CHECK(topo::protocol_choice_name(static_cast<topo::ProtocolChoice>(p)) == topo::protocol_name(p));

  const std::vector<std::pair<std::string_view, DType>> aliases{
      {"float", DType::Float32}, {"FP32", DType::Float32},   {"double", DType::Float64}, {"fp64", DType::Float64},
      {"Half", DType::Float16},  {"fp16", DType::Float16},   {"bf16", DType::BFloat16},  {"BFloat16", DType::BFloat16},
      {"INT32", DType::Int32},   {"u8", DType::UInt8}};
  for (const auto& [text, dtype] : aliases) {
    INFO(text);
    CHECK(validation::parse_dtype(text) == dtype);
  }
  CHECK(validation::dtype_name(DType::Float32) == "float32");  // an alias never comes back out
  CHECK_FALSE(validation::parse_dtype("float-32").has_value());
  CHECK_FALSE(validation::parse_dtype("int8").has_value());
  CHECK(validation::parse_reduce_op("PROD") == validation::ReduceOp::Prod);
  CHECK_FALSE(validation::parse_reduce_op("product").has_value());
}

TEST_CASE("enum tables: network models are fifo and flow, and an unknown one names them") {
  const auto names = net::network_model_names();
  REQUIRE(names.size() == 2);
  CHECK(names[0] == "fifo");
  CHECK(names[1] == "flow");
  const topo::Topology t = topo::generate_fabric(Fabric::Ring, 4, parse_bandwidth("100GB/s"), parse_latency("1us"));
  for (std::string_view name : names) CHECK(net::make_network_model(name, t)->name() == name);
  CHECK_THROWS_WITH(net::make_network_model("Flow", t), "unknown network model \"Flow\", expected one of: fifo, flow");
}
}  // namespace enum_tables_test
