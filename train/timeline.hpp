// A training step's timeline: compute on one stream, collectives on one communication stream, each
// collective starting when the stream is free and its input is ready. Pure arithmetic on times the
// caller supplies (the collectives' simulated times), so every rule here is checked by hand.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/schedule/collective.hpp"
#include "sim/units/units.hpp"

namespace collsim::train {

/// A span of the timeline: a layer's forward or backward, or a collective.
struct Span {
  std::string name;  ///< "forward layer3", "allreduce bucket0", "allgather unit2 (backward)"
  Time start{0};
  Time end{0};
};

/// A collective of the step: what it moves, when its input was ready, and when it ran.
struct CollectiveSpan {
  sched::Collective collective = sched::Collective::AllReduce;
  std::size_t index = 0;  ///< bucket (DDP) or unit (FSDP) index
  std::string name;
  Bytes bytes = 0;        ///< S as nccl-tests counts it
  Time ready{0};          ///< when it could start (its input complete)
  Time start{0};
  Time end{0};
};

/// The step: compute spans, collective spans in stream order, and the totals. step = the later of
/// the last compute and the last collective; compute = the sum of compute spans; communication = the
/// sum of collective durations; exposed = step - compute (communication not hidden behind compute).
struct Timeline {
  std::vector<Span> compute;
  std::vector<CollectiveSpan> collectives;
  Time step{0};
  Time compute_time{0};
  Time communication{0};
  Time exposed{0};
};

/// DDP (PyTorch DistributedDataParallel): forward of every layer, then backward in reverse layer
/// order; bucket b's all-reduce is ready when the backward of `bucket_layer[b]` (the layer of its
/// last gradient) ends, and starts once ready and once bucket b-1's has ended (the Reducer launches
/// buckets in order on one stream: Reducer::mark_bucket_ready, reducer.cpp). `forward`/`backward`:
/// per layer in forward order; bucket_layer, bucket_bytes and bucket_time: per bucket in launch order.
/// Throws ClockOverflowError when a time passes the clock.
[[nodiscard]] Timeline ddp_timeline(std::span<const Time> forward, std::span<const Time> backward,
                                    std::span<const std::size_t> bucket_layer, std::span<const Bytes> bucket_bytes,
                                    std::span<const Time> bucket_time);

/// What one FSDP unit's collectives take: the all-gather of its parameters and the reduce-scatter of
/// its gradients (S = the unit's padded flat parameter, bytes).
struct UnitCollectives {
  Bytes bytes = 0;
  Time allgather{0};
  Time reducescatter{0};
};

/// FSDP FULL_SHARD (ZeRO-3), one unit per layer, one communication stream: each unit's parameters are
/// all-gathered before its forward and again before its backward (they are freed after each), and its
/// gradients reduce-scattered after its backward. The next unit's all-gather is issued when a unit's
/// compute starts, so at most two units are gathered at once (backward: BACKWARD_PRE, PyTorch's
/// default; forward: forward_prefetch is off by default, but the CPU issues the next all-gather while
/// the GPU runs the current unit, and limit_all_gathers lets two be in flight). Stream order therefore is AG(0), AG(1), ... AG(U-1) in
/// forward, then AG(U-1), AG(U-2), RS(U-1), AG(U-3), RS(U-2), ..., RS(0) in backward
/// (torch/distributed/fsdp, PyTorch v2.5: _runtime_utils.py _pre_forward_unshard, _prefetch_handle,
/// BackwardPrefetch.BACKWARD_PRE). `forward`, `backward`, `units`: per unit in forward order.
/// Throws ClockOverflowError when a time passes the clock.
[[nodiscard]] Timeline fsdp_timeline(std::span<const Time> forward, std::span<const Time> backward,
                                     std::span<const UnitCollectives> units);

}  // namespace collsim::train
