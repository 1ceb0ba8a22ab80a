#include "algorithms/closed_form.hpp"

#include <bit>

#include "algorithms/chunk_tables.hpp"

namespace collsim::algo {
namespace {

using sched::Collective;

Bytes ceil_div(Bytes a, Bytes b) { return (a + b - 1) / b; }

// ceil(log2 n) for n >= 1.
std::int64_t ceil_log2(std::uint64_t n) { return n <= 1 ? 0 : static_cast<std::int64_t>(std::bit_width(n - 1)); }

struct Form {
  const Request& r;
  const AlphaBeta& f;
  [[nodiscard]] Time tau(Bytes n) const { return transfer_time(n, f.bandwidth); }
  [[nodiscard]] Time hop(Bytes n) const { return f.alpha + tau(n); }
  [[nodiscard]] std::int64_t n() const { return r.nranks; }
  [[nodiscard]] Bytes part() const { return ceil_div(r.size, r.nranks); }  // the largest of N parts

  // Ring reduce-scatter / all-gather: N-1 steps of one part (Patarasuk & Yuan 2009).
  [[nodiscard]] Time ring_half() const { return (n() - 1) * hop(part()); }

  // A pipeline of `depth` hops and C chunks of c bytes: the first chunk crosses every hop, each
  // later one follows a serialisation behind: depth·(α + τ(c)) + (C-1)·τ(c).
  [[nodiscard]] Time pipeline(std::int64_t depth) const {
    const Bytes c = std::min<Bytes>(r.chunk_size, std::max<Bytes>(r.size, 0));
    const auto chunks = static_cast<std::int64_t>(pipeline_chunk_count(r.size, r.chunk_size));
    return depth * hop(c) + (chunks - 1) * tau(c);
  }

  // Recursive halving over N = 2^k parts: step j sends N/2^j parts to one partner, back to back.
  [[nodiscard]] Time halving() const {
    Time t{0};
    for (std::int64_t m = n() / 2; m >= 1; m /= 2) t += f.alpha + m * tau(r.size / r.nranks);
    return t;
  }
};

bool power_of_two(std::uint32_t n) { return std::has_single_bit(n); }

}  // namespace

std::optional<Time> closed_form_time(std::string_view algorithm, const Request& r, const AlphaBeta& fabric) {
  if (r.nranks <= 1) return Time{0};
  if (fabric.bandwidth.bits_per_s == 0) return std::nullopt;
  const Form f{r, fabric};
  const Collective c = r.collective;
  if (algorithm == "ring") {
    switch (c) {
      case Collective::AllReduce: return 2 * f.ring_half();  // 2(N-1)(α + ⌈S/N⌉/B)
      case Collective::ReduceScatter:
      case Collective::AllGather: return f.ring_half();
      case Collective::Broadcast:
      case Collective::Reduce: return f.pipeline(f.n() - 1);  // chain of N-1 hops
      case Collective::AllToAll: return std::nullopt;
    }
  }
  if (algorithm == "tree") {
    // NCCL's binary tree has depth ceil(log2 N) (src/graph/trees.cc); all-reduce goes up then down.
    const std::int64_t depth = ceil_log2(r.nranks);
    if (c == Collective::AllReduce) return fabric.shared_port ? std::nullopt : std::optional<Time>(f.pipeline(2 * depth));
    if (c == Collective::Reduce || c == Collective::Broadcast)
      return fabric.shared_port ? std::nullopt : std::optional<Time>(f.pipeline(depth));
    return std::nullopt;
  }
  if (algorithm == "halving-doubling" && power_of_two(r.nranks) && r.size % r.nranks == 0 && !fabric.shared_port) {
    // Rabenseifner: log2 N halving steps then log2 N doubling steps, each step's parts back to back
    // to one partner: 2·log2 N·α + 2(N-1)/N·S/B (Thakur, Rabenseifner & Gropp 2005).
    if (c == Collective::AllReduce) return 2 * f.halving();
    if (c == Collective::ReduceScatter || c == Collective::AllGather) return f.halving();
    return std::nullopt;
  }
  if (algorithm == "recursive-doubling" && power_of_two(r.nranks) && !fabric.shared_port) {
    // log2 N exchanges of the whole buffer (all-reduce) or of 2^(k-1) parts (all-gather).
    if (c == Collective::AllReduce) return ceil_log2(r.nranks) * f.hop(r.size);
    if (c == Collective::AllGather && r.size % r.nranks == 0) return f.halving();
    return std::nullopt;
  }
  if (algorithm == "ps" && c == Collective::AllReduce && r.ps_shards == 1 && !r.ps_external_server) {
    // Every worker pushes S to the server and pulls S back. One link per pair: 2(α + S/B); one
    // port: the server's port carries (N-1)·S each way, 2(α + (N-1)·S/B).
    const std::int64_t through_port = fabric.shared_port ? f.n() - 1 : 1;
    return 2 * (fabric.alpha + through_port * f.tau(r.size));
  }
  return std::nullopt;
}

}  // namespace collsim::algo
