#include "algorithms/nvls_tree_stream.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "algorithms/host_grid.hpp"
#include "algorithms/nvls_tree_layout.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// An op's kind (nvls_tree_stream.hpp names them).
enum Kind : std::uint32_t { kG = 0, kR, kH, kA, kU, kD0, kD1, kM1, kM2 };
constexpr unsigned kKindBits = 4;

// Where a key keeps each field, low bits first: local rank w, host h, kind, half t, part k, then
// the pipeline chunk's index i in the rest.
struct KeyBits {
  unsigned w = 0, h = 0;
  [[nodiscard]] unsigned kind_at() const noexcept { return w + h; }
  [[nodiscard]] unsigned t_at() const noexcept { return kind_at() + kKindBits; }
  [[nodiscard]] unsigned k_at() const noexcept { return t_at() + 1; }
  [[nodiscard]] unsigned i_at() const noexcept { return k_at() + w; }
};

struct Parts {
  std::uint32_t i, k, t, kind;
  sched::Rank h, w;
};

class NvlsTreeStream final : public sched::OpStream {
 public:
  NvlsTreeStream(sched::Schedule header, HostGrid grid, NvlsTreeChunks table, std::array<HostLevels, 2> trees,
                 std::uint64_t ops, KeyBits bits, sched::OpKey limit)
      : header_(std::move(header)),
        grid_(grid),
        table_(std::move(table)),
        trees_(std::move(trees)),
        ops_(ops),
        bits_(bits),
        limit_(limit),
        switches_(grid.ranks_per_host > 1) {
    for (const auto& part : table_.pieces) rounds_ = std::max({rounds_, part[0].size(), part[1].size()});
  }
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return ops_; }
  [[nodiscard]] sched::OpKey key_limit() const override { return limit_; }

  // In the builder's order: chunk by chunk (part, then half), the sends to the switches of a
  // chunk that reuses no slot (with switches), else the leaves' sends up.
  void roots(std::vector<sched::OpKey>& out) const override {
    if (ops_ == 0) return;
    const sched::Rank locals = grid_.ranks_per_host;
    for (std::uint32_t i = 0; i < rounds_; ++i)
      for (std::uint32_t k = 0; k < locals; ++k)
        for (std::uint32_t t = 0; t < 2; ++t) {
          if (i >= count(k, t)) continue;
          if (switches_) {
            if (reuses_slot(k, t, i)) continue;
            for (sched::Rank h = 0; h < grid_.hosts; ++h)
              for (sched::Rank w = 0; w < locals; ++w) out.push_back(key({i, k, t, kG, h, w}));
            continue;
          }
          for (const sched::Rank h : trees_[t].up)
            if (trees_[t].tree.nodes[h].is_leaf() && trees_[t].tree.nodes[h].parent != kNoRank)
              out.push_back(key({i, k, t, kU, h, 0}));
        }
  }

  [[nodiscard]] sched::StreamOp op(sched::OpKey key) const override {
    const Parts p = parts(key);
    const TreeNode& node = trees_[p.t].tree.nodes[p.h];
    const Bytes bytes = table_.chunks[table_.pieces[p.k][p.t][p.i]].size;
    const sched::Rank head = grid_.rank(p.h, p.k), sw = header_.header.nranks + p.h;
    switch (p.kind) {
      case kG:
        return {grid_.rank(p.h, p.w), sw, bytes, 0, reuses_slot(p.k, p.t, p.i) ? 1U : 0U, false};
      case kR:
        return {sw, sw, bytes, 0, p.w == 0 ? 1U : 2U, p.w != 0};
      case kH:
        return {sw, head, bytes, 0, 1U, false};
      case kA:
        return {head, head, bytes, 0, 2U, true};
      case kU: {
        // The first child adds into its parent's chunk (after the switch wrote it), the second
        // copies into the parent's tree scratch chunk.
        const bool first = first_child(p.t, p.h);
        const std::uint32_t deps = (node.is_leaf() && !switches_ ? 0U : 1U) + (first && switches_ ? 1U : 0U);
        return {head, grid_.rank(node.parent, p.k), bytes, 0, deps, first};
      }
      case kD0:
      case kD1:
        return {head, grid_.rank(node.children[p.kind - kD0], p.k), bytes, 0, 1U, false};
      case kM1:
        return {head, sw, bytes, 0, 1U, false};
      default:
        return {sw, grid_.rank(p.h, p.w), bytes, 0, 1U + (p.w == p.k ? node.child_count() : 0U), false};
    }
  }

  void successors(sched::OpKey key, std::vector<sched::OpKey>& out) const override {
    const Parts p = parts(key);
    const Tree& tree = trees_[p.t].tree;
    const TreeNode& node = tree.nodes[p.h];
    const auto at = [&](std::uint32_t kind, sched::Rank h, sched::Rank w = 0) {
      out.push_back(this->key({p.i, p.k, p.t, kind, h, w}));
    };
    // What follows the last write of host h's head chunk: its sends down, then its send to the switch.
    const auto descend = [&](sched::Rank h) {
      for (std::uint32_t j = 0; j < 2; ++j)
        if (tree.nodes[h].children[j] != kNoRank) at(kD0 + j, h);
      if (switches_) at(kM1, h);
    };
    switch (p.kind) {
      case kG:
        at(kR, p.h, p.w);
        return;
      case kR:
        if (p.w + 1 < grid_.ranks_per_host) at(kR, p.h, p.w + 1);
        else at(kH, p.h);
        if (p.i + 1 < count(p.k, p.t) && reuses_slot(p.k, p.t, p.i + 1))
          out.push_back(this->key({p.i + 1, p.k, p.t, kG, p.h, p.w}));
        return;
      case kH:
        if (!node.is_leaf()) at(kU, node.children[0]);  // the first child adds into what the switch wrote
        else if (node.parent != kNoRank) at(kU, p.h);
        else descend(p.h);  // one host: no tree
        return;
      case kA:
        if (node.parent != kNoRank) at(kU, p.h);
        else descend(p.h);
        return;
      case kU: {
        const sched::Rank parent = node.parent;
        const TreeNode& up = tree.nodes[parent];
        if (up.child_count() == 2) at(kA, parent);
        else if (up.parent != kNoRank) at(kU, parent);
        else descend(parent);  // the root's one child: the root's chunk is final
        return;
      }
      case kD0:
      case kD1: {
        // The head's chunk is overwritten by the multicast once sent down; the child's head has
        // the sum now.
        if (switches_) at(kM2, p.h, p.k);
        descend(node.children[p.kind - kD0]);
        return;
      }
      case kM1:
        for (sched::Rank w = 0; w < grid_.ranks_per_host; ++w) at(kM2, p.h, w);
        return;
      default:
        return;
    }
  }

 private:
  [[nodiscard]] std::uint32_t count(std::uint32_t k, std::uint32_t t) const {
    return static_cast<std::uint32_t>(table_.pieces[k][t].size());
  }
  [[nodiscard]] Bytes size_of(std::uint32_t k, std::uint32_t t, std::uint32_t i) const {
    return table_.chunks[table_.pieces[k][t][i]].size;
  }
  // Whether chunk i of (k, t) uses the switch scratch slot of chunk i - 1 (the same size): only
  // the last chunk of a half may be shorter (pipeline_chunks).
  [[nodiscard]] bool reuses_slot(std::uint32_t k, std::uint32_t t, std::uint32_t i) const {
    return i > 0 && size_of(k, t, i) == size_of(k, t, i - 1);
  }
  [[nodiscard]] bool first_child(std::uint32_t t, sched::Rank h) const {
    return trees_[t].tree.nodes[trees_[t].tree.nodes[h].parent].children[0] == h;
  }
  [[nodiscard]] sched::OpKey key(const Parts& p) const {
    return (sched::OpKey{p.i} << bits_.i_at()) | (sched::OpKey{p.k} << bits_.k_at()) |
           (sched::OpKey{p.t} << bits_.t_at()) | (sched::OpKey{p.kind} << bits_.kind_at()) |
           (sched::OpKey{p.h} << bits_.w) | p.w;
  }
  [[nodiscard]] Parts parts(sched::OpKey key) const {
    const auto field = [&](unsigned at, unsigned width) {
      return static_cast<std::uint32_t>((key >> at) & ((sched::OpKey{1} << width) - 1));
    };
    return {static_cast<std::uint32_t>(key >> bits_.i_at()), field(bits_.k_at(), bits_.w), field(bits_.t_at(), 1),
            field(bits_.kind_at(), kKindBits), field(bits_.w, bits_.h), field(0, bits_.w)};
  }

  sched::Schedule header_;
  HostGrid grid_;
  NvlsTreeChunks table_;
  std::array<HostLevels, 2> trees_;
  std::uint64_t ops_;
  KeyBits bits_;
  sched::OpKey limit_;
  bool switches_;
  std::size_t rounds_ = 0;
};

}  // namespace

std::unique_ptr<sched::OpStream> stream_nvls_tree_allreduce(const Request& request) {
  const HostGrid grid = host_grid_or_one_host(request, "nvls-tree");
  const sched::Rank hosts = grid.hosts, locals = grid.ranks_per_host;
  const bool switches = locals > 1;
  auto [first, second] = nccl_dtree(hosts);
  std::array<HostLevels, 2> trees{host_levels(std::move(first)), host_levels(std::move(second))};
  const bool tree_scratch = needs_scratch(trees[0].tree) || needs_scratch(trees[1].tree);
  NvlsTreeChunks table = nvls_tree_chunks(request, locals, switches, tree_scratch);

  // The ops of one pipeline chunk of tree t: with switches each host's L sends to its switch, L
  // adds there, the send to the head, its send back and L multicast sends; a send up and a send
  // down per tree edge and an add per head with two child hosts. The last step of its chunk i:
  // i + 2 height + 4 (switches: 2 steps before the tree, 2 after) or i + 2 height.
  std::uint64_t ops = 0;
  std::uint32_t last = 0;
  std::size_t rounds = 0;
  if (request.nranks > 1)
    for (std::uint32_t t = 0; t < 2; ++t) {
      std::uint64_t adds = 0;
      for (const auto& node : trees[t].tree.nodes) adds += node.child_count() == 2 ? 1 : 0;
      const std::uint64_t per_chunk =
          (switches ? std::uint64_t{hosts} * (3 * std::uint64_t{locals} + 2) : 0) + 2 * (std::uint64_t{hosts} - 1) + adds;
      for (std::uint32_t k = 0; k < locals; ++k) {
        const auto count = static_cast<std::uint32_t>(table.pieces[k][t].size());
        rounds = std::max<std::size_t>(rounds, count);
        ops += per_chunk * count;
        last = std::max(last, count - 1 + 2 * trees[t].height + (switches ? 4U : 0U));
      }
    }
  // Keys: w and k in bit_width(L - 1) bits each, h in bit_width(K - 1), 4 for the kind, 1 for the
  // half, and the chunk index above them.
  KeyBits bits{static_cast<unsigned>(std::bit_width(locals - 1)), static_cast<unsigned>(std::bit_width(hosts - 1))};
  const unsigned total = bits.i_at() + static_cast<unsigned>(std::bit_width(rounds > 0 ? rounds - 1 : 0));
  if (total > sched::kChannelKeyBits)
    throw std::invalid_argument(fmt::format("nvls-tree: {} hosts of {} ranks with {} pipeline chunks a part take "
                                            "{}-bit op keys; a stream names its ops in {} bits",
                                            hosts, locals, rounds, total, sched::kChannelKeyBits));
  const std::vector<sched::Phase> phases =
      request.nranks > 1 ? nvls_tree_phases(switches, std::max(trees[0].height, trees[1].height), last)
                         : std::vector<sched::Phase>{};
  auto header = sched::schedule_without_ops(schedule_header(request, sched::Collective::AllReduce, switches ? hosts : 0),
                                            table.chunks, "nvls-tree", request.nranks > 1 ? last : 0, phases);
  return std::make_unique<NvlsTreeStream>(std::move(header), grid, std::move(table), std::move(trees), ops, bits,
                                          sched::OpKey{1} << total);
}

}  // namespace collsim::algo
