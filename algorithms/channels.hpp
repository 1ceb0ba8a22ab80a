// Channels: C copies of an algorithm run side by side, each on its share of the buffer (NCCL's
// channels: parallel rings or trees, each with its own connections; DESIGN.md "The schedule IR").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// True when `collective` can be split over channels: every one but all-to-all. All-reduce,
/// broadcast, reduce and sendrecv cut their buffer into plain byte ranges; all-gather and reduce-scatter cut
/// each rank's part into one piece per channel. All-to-all's blocks for every peer are left whole
/// (issue 16 item 4 brings NCCL's grouped send/recv for it).
bool splits_over_channels(sched::Collective collective) noexcept;

/// Builds `algorithm` for `request` on `channels` channels, each running the algorithm on its share
/// with every op's channel set to c (shares of 0 bytes are left out; S = 0 gives one channel):
///  * all-reduce, broadcast, reduce: the buffer is cut with split_even into one share per channel;
///  * all-gather, reduce-scatter: every rank's part (split_even(S, N)) is cut into one piece per
///    channel, and channel c runs on the buffer made of its pieces (NCCL's channels each move a
///    slice of every rank's part, src/enqueue.cc); the units that do not divide evenly go to channel
///    0, so the other channels' parts are all alike. The chunk table is in offset order.
/// Odd channels run on the ranks in reverse order, r -> (2·root - r) mod N (the root stays; not for
/// sendrecv, whose direction is its meaning), so
/// that on a ring of links they use the other direction, as NCCL builds rings both ways where links
/// allow. A collective without a root (all-reduce, all-gather, reduce-scatter) whose ranks sit on
/// several hosts in equal consecutive blocks of L ranks instead runs channel c with every host's
/// block rotated by c mod L (local rank l -> (l + c) mod L, hosts unchanged), so that channels
/// cross between hosts through different GPUs and their NICs, as NCCL spreads its rings over the
/// NICs; a rank placed elsewhere takes the data it owns with it. Other multi-host requests keep the
/// order (the host groups must stay). Dependencies stay within a channel: channels touch disjoint
/// bytes (and scratch). One channel is algorithm.build(request).
/// Throws AlgorithmError for a collective that does not split (splits_over_channels) when
/// channels > 1; std::invalid_argument for channels == 0.
sched::Schedule build_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels);

/// build_with_channels' schedule with each class of identical channels kept once: channels whose
/// shares have one size and whose ranks map alike (the same direction, the same rotation) run the
/// same ops between the same ranks, on other bytes of the buffer, so they differ in nothing a
/// run's times depend on. `schedule` holds the ops of each class's first channel, with its channel
/// id and chunk offsets, in build_with_channels' order; `copies[c]` is the size of the class that
/// channel c leads, 0 for the channels folded into another (sim::RunOptions::channel_copies).
/// E.g. 24 channels of a 16 MiB all-reduce of floats on one host fold into 4 (two share sizes, two
/// directions). Throws as build_with_channels does.
struct FoldedChannels {
  sched::Schedule schedule;
  std::vector<std::uint32_t> copies;
};
FoldedChannels build_folded_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels);

/// The schedule of build_with_channels (fold false) or build_folded_channels (fold true, with its
/// `copies`; empty for fold false or one channel) generated on demand: each channel is the
/// algorithm's stream of its share, its ranks placed and its ops put on its channel as those
/// builders do, so the header and every op's times are theirs (tests/unit/channel_stream_test.cpp).
/// With `slice` > 0 each channel's stream moves its chunks in slices of that many bytes
/// (sched::slice_stream), as sched::slice_schedule cuts the built schedule. `stream` is null, and
/// `copies` empty, when the algorithm has no stream for some channel's share, or slice_stream
/// cannot cut one. Throws as build_with_channels does.
struct StreamedChannels {
  std::unique_ptr<sched::OpStream> stream;
  std::vector<std::uint32_t> copies;
};
StreamedChannels stream_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels,
                                      bool fold, Bytes slice = 0);

}  // namespace collsim::algo
