#include "sim/schedule/slicing.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/schedule/header_of.hpp"

namespace collsim::sched {
namespace {

std::uint32_t checked32(std::uint64_t n, const char* what) {
  if (n >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(std::string("slicing: too many ") + what + " (2^32 or more)");
  return static_cast<std::uint32_t>(n);
}

}  // namespace

Schedule slice_schedule(const Schedule& s, Bytes slice) {
  Schedule out = header_of(s);
  if (slice % out.header.element_size != 0) out.header.element_size = 1;  // slices would split elements

  // Chunk c becomes chunks first_chunk[c] .. first_chunk[c] + pieces[c] - 1.
  std::vector<std::uint32_t> first_chunk(s.chunks.size()), pieces(s.chunks.size());
  for (ChunkId c = 0; c < s.chunks.size(); ++c) {
    const Chunk& ch = s.chunks[c];
    first_chunk[c] = checked32(out.chunks.size(), "chunks");
    pieces[c] = checked32(std::max<Bytes>(1, (ch.size + slice - 1) / slice), "chunks");
    for (std::uint32_t j = 0; j < pieces[c]; ++j) {
      Chunk piece = ch;
      piece.offset = ch.offset + j * slice;
      piece.size = std::min<Bytes>(slice, ch.size - std::min<Bytes>(ch.size, j * slice));
      out.chunks.push_back(piece);
    }
  }

  // Op i becomes ops first_op[i] .. first_op[i] + pieces of its chunk - 1, in that order, so every
  // dependency still points to an earlier op.
  std::vector<std::uint32_t> first_op(s.ops.size() + 1, 0);
  for (OpId i = 0; i < s.ops.size(); ++i)
    first_op[i + 1] = checked32(std::uint64_t{first_op[i]} + pieces[s.ops[i].src_chunk], "ops");
  out.ops.reserve(first_op.back());
  out.dep_offsets.reserve(std::size_t{first_op.back()} + 1);
  for (OpId i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    const std::uint32_t k = pieces[op.src_chunk];
    for (std::uint32_t j = 0; j < k; ++j) {
      Op piece = op;
      piece.src_chunk = first_chunk[op.src_chunk] + j;
      piece.dst_chunk = first_chunk[op.dst_chunk] + j;
      out.ops.push_back(piece);
      for (OpId d : s.deps_of(i)) {
        const std::uint32_t kd = first_op[d + 1] - first_op[d];
        if (kd == k) {
          out.deps.push_back(first_op[d] + j);
        } else {
          for (std::uint32_t q = 0; q < kd; ++q) out.deps.push_back(first_op[d] + q);
        }
      }
      std::sort(out.deps.begin() + out.dep_offsets.back(), out.deps.end());
      out.dep_offsets.push_back(checked32(out.deps.size(), "dependencies"));
    }
  }
  return out;
}

}  // namespace collsim::sched
