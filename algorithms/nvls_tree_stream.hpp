// NCCL's NVLSTree all-reduce on demand (sched::OpStream): the ops of build_nvls_tree_allreduce
// (nvls_tree_allreduce.hpp), generated as the engine asks for them, so a run holds O(N + ops in
// flight) and keeps NCCL's 128 KiB pipeline chunk at any N (issue 18 item 3: a materialised run
// raised it to fit its op budget from 256 GPUs on).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"
#include "sim/schedule/op_stream.hpp"

namespace collsim::algo {

/// The stream of build_nvls_tree_allreduce(request): the same header (helpers: one switch per host
/// when L > 1), chunks and ops, whose dependencies are the builder's data-flow edges, transitively
/// reduced. For pipeline chunk i of part k, half t (tree t), with G(h,w) GPU w of host h's send to
/// its switch, R(h,w) the switch's add of it, H(h) the switch's send to the head, A(h) a head's add
/// of its second child host's sum, U(h) the head's send up, D(h,x) its send down to child host x,
/// M1(h) the head's send to its switch and M2(h,w) the switch's to GPU w (head k):
///   G(h,w)   <- R(h,w) of the part's chunk before, when that one has the same size (the switch's
///               scratch slot is reused: write after read)
///   R(h,w)   <- G(h,w), R(h,w-1)
///   H(h)     <- R(h,L-1)
///   A(h)     <- U(child 0), U(child 1)
///   U(h)     <- A(h) (two children), U(child 0) (one), H(h) (a leaf); and H(parent) when h is its
///               parent's first child, which adds into the head's chunk the switch wrote (write after write)
///   D(h,x)   <- what last wrote h's head chunk: D(parent, h), or at the root A(root) or U(its one child)
///   M1(h)    <- the same as D(h,x)
///   M2(h,w)  <- M1(h); for the head (w = k) D(h,x) for every child x too (its chunk is overwritten
///               only once it has been sent down: write after read)
/// Every other edge of the builder is implied by these (the root's sum waits for every send up, and
/// each switch's sum for every GPU's send). Successors come in the builder's op order, so the
/// engine launches ops in the order it launches the materialised schedule's
/// (tests/unit/nvls_tree_stream_test.cpp compares every op's times). With L = 1 there is no switch:
/// only A, U and D, and every leaf's sends up are roots.
/// Throws AlgorithmError as the builder does (hosts that are not a grid), std::invalid_argument for
/// a chunk size of 0 or keys past 58 bits (hosts x L x chunks too many to name).
std::unique_ptr<sched::OpStream> stream_nvls_tree_allreduce(const Request& request);

}  // namespace collsim::algo
