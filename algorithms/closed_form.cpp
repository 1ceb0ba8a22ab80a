#include "algorithms/closed_form.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/nccl_trees.hpp"
#include "algorithms/node_trees.hpp"
#include "sim/schedule/collective_spec.hpp"

namespace collsim::algo {
namespace {

using sched::Collective;

struct Form {
  const Request& r;
  const AlphaBeta& f;
  [[nodiscard]] Time tau(Bytes n) const { return transfer_time(n, f.bandwidth); }
  [[nodiscard]] Time hop(Bytes n) const { return f.alpha + tau(n); }
  [[nodiscard]] std::int64_t n() const { return r.nranks; }
  // The largest of the N parts the algorithms cut S into (split_parts: whole elements when S is a
  // multiple of the element size, else bytes), i.e. ceil(S/N) counted in that unit.
  [[nodiscard]] Bytes part() const { return split_parts(r, r.nranks).front().size; }
  // The all-to-all block each rank sends each peer: floor(S/N) in the same unit.
  [[nodiscard]] Bytes block() const { return sched::alltoall_block(r.nranks, r.size, r.element_size); }

  // The unit S is cut in (sched::cut_unit): pieces of part of S (a double tree's halves) are
  // cut in it too, whatever their own size.
  [[nodiscard]] Bytes unit() const { return sched::cut_unit(r.size, r.element_size); }

  // Ring reduce-scatter / all-gather: N-1 steps of one part (Patarasuk & Yuan 2009).
  [[nodiscard]] Time ring_half() const { return (n() - 1) * hop(part()); }

  // A pipeline of `depth` hops carrying `bytes` in chunks of c bytes: the first chunk crosses every
  // hop, each later one follows a serialisation behind: depth·(α + τ(c)) + (C-1)·τ(c).
  [[nodiscard]] Time pipeline(std::int64_t depth, Bytes bytes) const {
    const Bytes c = std::min(pipeline_chunk_bytes(bytes, r.chunk_size, unit()), bytes);
    const auto chunks = static_cast<std::int64_t>(pipeline_chunk_count(bytes, r.chunk_size, unit()));
    return depth * hop(c) + (chunks - 1) * tau(c);
  }

  // Recursive halving over N = 2^k parts: step j sends N/2^j parts to one partner, back to back.
  [[nodiscard]] Time halving() const {
    Time t{0};
    for (std::int64_t m = n() / 2; m >= 1; m /= 2) t += f.alpha + m * tau(part());
    return t;
  }

  // Ring all-to-all, store and forward (ring_alltoall.hpp): step s sends N-s blocks of b bytes
  // back to back to the successor, and a block leaves a rank as soon as it has arrived. Each link
  // carries the same sequence, so the time is α plus the heaviest chain of transfers: one that
  // stays on a link for the first m steps (N-1 + N-2 + .. + N-m blocks) and then follows one block
  // hop by hop (N-1-m more transfers, each α behind the last):
  //   α + max over m = 1..N-1 of [(Σ_{s<=m} (N-s) + N-1-m)·τ(b) + (N-1-m)·α].
  // m = N-1 is Grama et al.'s bandwidth term N(N-1)/2·τ(b) (Introduction to Parallel Computing,
  // 2003, 4.5), m = 1 the latency-bound chain (2N-3)·τ(b) + (N-2)·α.
  [[nodiscard]] Time ring_alltoall() const {
    const Time t = tau(block());
    Time best{0};
    std::int64_t link_blocks = 0;
    for (std::int64_t m = 1; m < n(); ++m) {
      link_blocks += n() - m;
      best = std::max(best, (link_blocks + n() - 1 - m) * t + (n() - 1 - m) * f.alpha);
    }
    return f.alpha + best;
  }

  // One-shot exchange of `bytes` with each of the N-1 peers at once (Thakur, Rabenseifner & Gropp
  // 2005's pairwise exchange with all rounds posted together): one link per peer, so they overlap
  // (α + τ, exact); one port, so the N-1 sends leave one after the other (α + (N-1)·τ, a lower
  // bound: it assumes the rounds pack perfectly through every port, which a greedy first-come
  // order of transfers does not always achieve).
  [[nodiscard]] Time direct(Bytes bytes) const {
    return f.alpha + (f.shared_port ? n() - 1 : 1) * tau(bytes);
  }
};

bool power_of_two(std::uint32_t n) { return std::has_single_bit(n); }

// Equal parts: every part has the same size, so one-port rounds stay in step.
bool equal_parts(const Request& r) {
  const auto parts = split_parts(r, r.nranks);
  return parts.front().size == parts.back().size;
}

// The guards every single-fabric form shares. N <= 1: nothing to do. A fabric without a bandwidth,
// or ranks on several hosts (two α and two B), have no single-fabric form; nor, unless `form`
// keeps to neighbours in ring order, does a fabric where only neighbours have a link of their own.
enum class Peers { Neighbours, Any };

std::optional<Time> on_one_fabric(const Request& r, const AlphaBeta& fabric, Peers peers,
                                  std::optional<Time> (*form)(const Form&)) {
  if (r.nranks <= 1) return Time{0};
  if (fabric.bandwidth.bits_per_s == 0 || fabric.inter_host) return std::nullopt;
  if (peers == Peers::Any && fabric.neighbours_only) return std::nullopt;
  return form(Form{r, fabric});
}

std::optional<Time> ring(const Form& f) {
  switch (f.r.collective) {
    case Collective::AllReduce: return 2 * f.ring_half();  // 2(N-1)(α + ⌈S/N⌉/B)
    case Collective::ReduceScatter:
    case Collective::AllGather: return f.ring_half();
    case Collective::Broadcast:
    case Collective::Reduce: return f.pipeline(f.n() - 1, f.r.size);  // chain of N-1 hops
    case Collective::AllToAll: return f.ring_alltoall();
    case Collective::SendRecv: return f.f.alpha + f.tau(f.r.size);  // one message to one peer
  }
  return std::nullopt;
}

std::optional<Time> direct(const Form& f) {
  const Collective c = f.r.collective;
  // One port: the rounds of distance d stay in step only when every part has one size.
  if (f.f.shared_port && c != Collective::AllToAll && !equal_parts(f.r)) return std::nullopt;
  switch (c) {
    case Collective::AllToAll: return f.direct(f.block());
    case Collective::ReduceScatter:  // the local additions cost no network time
    case Collective::AllGather: return f.direct(f.part());
    case Collective::AllReduce: return 2 * f.direct(f.part());  // reduce-scatter, then all-gather
    default: return std::nullopt;
  }
}

std::optional<Time> tree(const Form& f) {
  const Collective c = f.r.collective;
  // One port: a parent's two children share its port, so their chunks interleave; no form.
  if (f.f.shared_port) return std::nullopt;
  // NCCL's binary tree has depth ceil(log2 N) (src/graph/trees.cc); all-reduce goes up then down.
  const std::int64_t depth = ceil_log2(f.r.nranks);
  if (c == Collective::AllReduce) return f.pipeline(2 * depth, f.r.size);
  if (c == Collective::Reduce || c == Collective::Broadcast) return f.pipeline(depth, f.r.size);
  return std::nullopt;
}

// Two trees side by side, each carrying its half (build_tree_pair): see double_tree below.
Time tree_pair(const Form& f, const Tree& first, const Tree& second) {
  const auto halves = split_parts(f.r, 2);
  Time t{0};
  std::map<std::pair<sched::Rank, sched::Rank>, Time> on_link;
  for (const auto& [tree, half] : {std::pair{&first, halves[0].size}, std::pair{&second, halves[1].size}}) {
    t = std::max(t, f.pipeline(2 * std::int64_t{tree_height(*tree)}, half));
    Time chunks{0};  // serialisation time of the half's chunks on one link
    for (const auto& piece : pipeline_chunks(0, half, f.r.chunk_size, f.unit())) chunks += f.tau(piece.size);
    for (sched::Rank r = 0; r < tree->nodes.size(); ++r)
      if (const sched::Rank p = tree->nodes[r].parent; p != kNoRank) {
        on_link[{r, p}] += chunks;  // up
        on_link[{p, r}] += chunks;  // down
      }
  }
  Time busiest{0};
  for (const auto& [link, time] : on_link) busiest = std::max(busiest, time);
  return std::max(t, busiest + f.f.alpha);
}

std::optional<Time> double_tree(const Form& f) {
  if (f.f.shared_port || f.r.collective != Collective::AllReduce) return std::nullopt;
  // Each tree pipelines its half up and down its own height (NCCL's double binary tree; Sanders,
  // Speck & Träff 2009): max over the trees of 2D(α + τ(c)) + (C_t - 1)·τ(c). ncclGetDtree's two
  // trees do share some rank pairs (for N = 8 ranks 1 and 2: 1 is 2's child in the first tree and
  // its parent in the second), and a shared directed link serialises the chunks of both trees:
  // M + α, M the most serialisation time (Σ τ over its chunks) of any one directed link. The form
  // is the larger of the two terms; where a link is shared it is an estimate within 2D(α + τ(c))
  // of the simulation either way (the hops before and after that link), and a lower one when the
  // link bounds the time.
  const auto [first, second] = nccl_dtree(f.r.nranks);
  return tree_pair(f, first, second);
}

std::optional<Time> nccl_tree(const Form& f) {
  if (f.f.shared_port || f.r.collective != Collective::AllReduce) return std::nullopt;
  // The double tree's form on NCCL's node-aware trees. On one host both trees are the chain
  // 0 -> .. -> N-1, so every link carries both halves: the busiest-link term, an estimate within
  // 2(N-1)(α + τ(c)) of the simulation (the hops before and after the link).
  const auto [first, second] = nccl_node_dtree(f.r.nranks, f.r.hosts);
  return tree_pair(f, first, second);
}

std::optional<Time> halving_doubling(const Form& f) {
  if (!power_of_two(f.r.nranks) || !equal_parts(f.r)) return std::nullopt;
  // Rabenseifner: log2 N halving steps then log2 N doubling steps, each step's parts back to back
  // to one partner: 2·log2 N·α + 2(N-1)/N·S/B (Thakur, Rabenseifner & Gropp 2005). A rank sends
  // to one peer a step and receives from that peer only, so one port (a switch) is no different.
  const Collective c = f.r.collective;
  if (c == Collective::AllReduce) return 2 * f.halving();
  if (c == Collective::ReduceScatter || c == Collective::AllGather) return f.halving();
  return std::nullopt;
}

std::optional<Time> pat(const Form& f) {
  if (!equal_parts(f.r)) return std::nullopt;
  // ceil(log2 N) steps, each to one peer, of min(d, N-d) parts at distance d: K·α + (N-1)·P/B. A
  // rank's sends go to one peer per step, so one port is no different.
  const Collective c = f.r.collective;
  if (c != Collective::ReduceScatter && c != Collective::AllGather) return std::nullopt;
  return static_cast<std::int64_t>(ceil_log2(f.r.nranks)) * f.f.alpha + (f.n() - 1) * f.tau(f.part());
}

std::optional<Time> recursive_doubling(const Form& f) {
  if (!power_of_two(f.r.nranks)) return std::nullopt;
  // log2 N exchanges of the whole buffer (all-reduce) or of 2^(k-1) parts (all-gather), each with
  // one partner, so one port is no different.
  const Collective c = f.r.collective;
  if (c == Collective::AllReduce) return ceil_log2(f.r.nranks) * f.hop(f.r.size);
  if (c == Collective::AllGather && equal_parts(f.r)) return f.halving();
  return std::nullopt;
}

std::optional<Time> ps(const Form& f) {
  const Request& r = f.r;
  if (r.collective != Collective::AllReduce || r.ps_shards != 1 || r.ps_external_server) return std::nullopt;
  // Every worker pushes S to the server and pulls S back. One link per pair: 2(α + S/B); one
  // port: the server's port carries (N-1)·S each way, 2(α + (N-1)·S/B).
  const std::int64_t through_port = f.f.shared_port ? f.n() - 1 : 1;
  return 2 * (f.f.alpha + through_port * f.tau(r.size));
}

std::optional<Time> hierarchical(const Request& r, const AlphaBeta& fabric) {
  if (!fabric.inter_host || r.collective != Collective::AllReduce) return std::nullopt;
  HostGrid grid;
  try {
    grid = host_grid(r, "hierarchical");
  } catch (const AlgorithmError&) {
    return std::nullopt;
  }
  // The flat hierarchical form, step by step (Thakur, Rabenseifner & Gropp 2005's ring terms per
  // level): 2(L-1) intra-host ring steps, each sending the K sub-parts of one local part back to
  // back over the host fabric, and 2(K-1) inter-host ring steps, in which the L rings of a host
  // share its network port when it has one (--nodes K: one uplink per host, port_sharing = L), so
  // each step moves port_sharing sub-parts through it. With c = ceil(S/N) (in elements when S is a
  // whole number of them) and M = port_sharing:
  //   2(L-1)·(α_host + K·τ_host(c)) + 2(K-1)·(α_net + M·τ_net(c)).
  // It assumes every rank finishes a step before the next begins; the schedule lets ranks run
  // ahead, so the simulated time is at most this (a bound, not an equality).
  const Bytes c = split_parts(r, r.nranks).front().size;
  const std::int64_t k = grid.hosts;
  const std::int64_t l = grid.ranks_per_host;
  const Time intra = fabric.alpha + k * transfer_time(c, fabric.bandwidth);
  const std::int64_t m = fabric.inter_host->port_sharing;
  const Time inter = fabric.inter_host->alpha + m * transfer_time(c, fabric.inter_host->bandwidth);
  return 2 * (l - 1) * intra + 2 * (k - 1) * inter;
}

}  // namespace

std::optional<Time> ring_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Neighbours, &ring);
}

std::optional<Time> direct_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &direct);
}

std::optional<Time> tree_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &tree);
}

std::optional<Time> double_tree_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &double_tree);
}

std::optional<Time> nccl_tree_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &nccl_tree);
}

std::optional<Time> halving_doubling_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &halving_doubling);
}

std::optional<Time> pat_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &pat);
}

std::optional<Time> recursive_doubling_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &recursive_doubling);
}

std::optional<Time> ps_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  return on_one_fabric(r, fabric, Peers::Any, &ps);
}

std::optional<Time> hierarchical_closed_form_time(const Request& r, const AlphaBeta& fabric) {
  if (r.nranks <= 1) return Time{0};
  return hierarchical(r, fabric);
}

std::optional<Time> closed_form_time(std::string_view algorithm, const Request& r, const AlphaBeta& fabric) {
  const AlgorithmRegistry registry = builtin_registry();
  const AlgorithmInfo* entry = registry.lookup(r.collective, algorithm);
  if (entry == nullptr || entry->closed_form_time == nullptr) return std::nullopt;
  return entry->closed_form_time(r, fabric);
}

}  // namespace collsim::algo
