#include "tools/option_table.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "run/option_names.hpp"
#include "tools/options.hpp"

namespace collsim::cli {
namespace {

using run::Field;

// Defaults are the layer's (run/request.hpp, run/topology_spec.cpp).
constexpr std::array<std::pair<Field, std::string_view>, 31> kHelp{{
    {Field::Gpus, "Generate a fabric of this many GPUs instead of reading a topology (needs --fabric); for sweep a "
                  "list such as 2,4,8..1024 (A..B = the powers of two from A to B), one fabric each"},
    {Field::Fabric, "Generated fabric: ring | switch | fully-connected; with --node, the cluster's network: fat-tree | rail"},
    {Field::LinkBandwidth,
     "Generated links' bandwidth per direction, default 25GB/s (GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)"},
    {Field::LinkLatency, "Generated links' latency, default 1us (ps, ns, us, ms, s)"},
    {Field::Nodes, "Generate K hosts of N/K GPUs (with --gpus N --fabric switch; K must divide N): each host's GPUs on "
                   "its own switch, the host switches joined by one network switch; with --node, K copies of that machine (for "
                   "sweep with --node a list such as 16,32 or 16..128, one cluster each)"},
    {Field::NetBandwidth, "With --nodes: each host's link to the network switch, per direction, default 25GB/s (one "
                          "200 Gb/s HDR InfiniBand port); with --node, each NIC's, default 50GB/s (400 Gb/s NDR) "
                          "(GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)"},
    {Field::NetLatency, "With --nodes: latency of each host's network link, default 2us; with --node, each NIC's link "
                        "to its leaf, default 700ns"},
    {Field::Routing, "How flows take equal-cost paths (leaf/spine fabrics): ecmp (default: each flow hashed by source, "
                     "destination and channel onto one spine, as switches do; flows may collide), single (every flow "
                     "between two nodes on the same path), spray (each flow split evenly over every equal-cost path) or "
                     "dmodk or d-mod-k (InfiniBand's destination routing, D-Mod-K: every flow to one destination on the "
                     "same spine, a leaf's destinations spread evenly over the spines; channels between two GPUs share "
                     "a path)"},
    {Field::Node, "A cluster of this machine (bundled name or file): --nodes K copies joined by --fabric fat-tree "
                  "(a host's NICs share a leaf) or rail (NIC i of every host on rail i's leaves), leaves linked to "
                  "every spine; NICs at --net-bandwidth (default 50GB/s, 400 Gb/s NDR) and --net-latency (700ns)"},
    {Field::LeafNics, "With --node: NICs below each leaf switch, default 32 (half the ports of a 64-port NDR switch; on a fat tree, where that neither holds whole hosts nor equal parts of one, the largest part of a host below 32)"},
    {Field::Spines, "With --node: spine switches per plane, default one per leaf uplink (leaf NICs / oversubscription); "
                    "a leaf's uplink bandwidth (its NICs' / oversubscription) is shared evenly by its links to them"},
    {Field::Oversubscription, "With --node: a leaf's down to up bandwidth, e.g. 2:1 or 2; default 1:1 (non-blocking)"},
    {Field::Planes, "With --node: network planes; NIC i of a host joins plane i mod P, each with its own leaves and "
                    "spines; default 1"},
    {Field::SwitchLatency, "With --node: latency of each leaf-spine link, default 700ns"},
    {Field::P2pLevel, "Farthest GPU pair path that uses peer-to-peer, as NCCL_P2P_LEVEL: nvl, pix, pxb, phb or sys; off "
                      "is NCCL_P2P_DISABLE=1. Pairs farther apart move data through host memory (SHM) via the "
                      "receiver's CPU. Default: the topology's, else NCCL's (pxb; sys on AMD hosts of <= 2 GPUs)"},
    {Field::Collective, "allreduce (default), reducescatter, allgather, broadcast, reduce, alltoall, sendrecv (- and _ ignored)"},
    {Field::Algorithm, "Algorithm, default ring; nccl (or auto): NCCL's choice per size; `collsim algorithms` lists them"},
    {Field::Root, "Root rank of broadcast and reduce, default 0"},
    {Field::ChunkSize, "Pipeline chunk of the pipelined algorithms (tree, double-tree, nccl-tree, nvls, nvls-tree, collnet, ring broadcast and "
                       "reduce), default 512K, nvls and nvls-tree 128K (K/M/G = powers of 1024, KB/MB/GB of 1000)"},
    {Field::PsShards, "ps: spread the buffer over K servers, default 1 (K = N: colocated)"},
    {Field::PsNode, "ps: run the servers on these topology nodes (comma-separated ids, one per shard, e.g. cpu0) "
                    "instead of on ranks 0..K-1"},
    {Field::Network, "Network model: flow (default; links shared max-min fairly) or fifo (one transfer per link and "
                     "direction at a time)"},
    {Field::Params, "Model parameters from this JSON file (\"format\": \"collsim-params-1\", e.g. from collsim "
                    "calibrate; docs/network-model.md, Model parameters), over the topology's own"},
    {Field::Dtype, "Element type float32 (default, as nccl-tests' -d float), float64, float16, bfloat16, int32, uint8. "
                   "Algorithms cut S into parts and chunks of whole elements when S is a multiple of its size (as NCCL "
                   "counts in elements), else of bytes; a sweep prints it in its count and type columns; with "
                   "--verify, the replay uses it (uint8 when S or a chunk boundary is not a multiple of the element "
                   "size); validate takes float32, float16, bfloat16 or int32"},
    {Field::Protocol, "NCCL protocol: ll, ll128, simple, or auto (the fastest per size by NCCL's cost model). Adds its "
                      "base and per-step latency and bandwidth efficiency; default: the topology's (bundled machines: "
                      "auto), else none"},
    {Field::Channels, "Run C rings/trees in parallel, each on 1/C of the data (allreduce, broadcast, reduce); default: "
                      "the topology's, else 1"},
    {Field::Slice, "Move every chunk as a pipeline of slices of this size (K/M/G = powers of 1024, KB/MB/GB of 1000; 0: "
                   "whole chunks); default: the topology's, else NCCL's slice of the protocol, else none"},
    {Field::MaxOps, "Most ops a materialised run may have once pipeline chunks and slices are cut (default 262144): a "
                    "default chunk or slice is doubled until the run fits, one given by --chunk-size or --slice is "
                    "refused. Runs generated on demand (most, unless --verify, --trace or --save-schedule) have no "
                    "budget"},
    {Field::Model, "Also print a formula's time: analytical (the alpha-beta closed form) or nccl (NCCL's tuning model)"},
    {Field::GpusPerThread, "GPUs one host thread drives, as nccl-tests -g G (1..1024; default 1, one process per GPU; "
                           "compare: the log's nGpus): the host launches G collectives per iteration, so no size "
                           "takes less than G x 4.2 us (host_launch), and 0 bytes G x 0.13 us (host_empty_call)"},
    {Field::NcclAlgo, "With --algorithm nccl: the NCCL algorithms it may pick, as NCCL_ALGO lists them (ring, tree, nvls, nvlstree, pat; "
                      "^nvls: all but nvls); default every one"},
}};

}  // namespace

std::string_view shared_help(Field field) {
  for (const auto& [f, help] : kHelp)
    if (f == field) return help;
  throw std::logic_error("shared_help: " + std::string(run::field_name(field)) + " is not a shared option");
}

CLI::Option* add_shared(CLI::App& cmd, Field field, std::string& target) {
  return add_value(cmd, run::flag_spelling(field), target, std::string(shared_help(field)));
}

}  // namespace collsim::cli
