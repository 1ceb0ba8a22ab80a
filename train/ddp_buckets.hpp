// PyTorch DDP's gradient buckets: which gradients are all-reduced together, and in what order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::train {

/// PyTorch's defaults (torch/csrc/distributed/c10d/reducer.hpp, v2.5: kDefaultFirstBucketBytes =
/// 1024 * 1024 and kDefaultBucketBytesCap = 25 * 1024 * 1024; DistributedDataParallel's bucket_cap_mb
/// = 25 in torch/nn/parallel/distributed.py).
inline constexpr Bytes kDdpFirstBucketBytes = Bytes{1} << 20;
inline constexpr Bytes kDdpBucketCapBytes = Bytes{25} << 20;

/// One bucket: the gradients it holds (indices into the sequence given to ddp_buckets(), in that
/// order) and their bytes.
struct Bucket {
  std::vector<std::size_t> tensors;
  Bytes bytes = 0;
};

/// The buckets of gradients of `tensor_bytes` bytes, given in the order backward makes them ready
/// (DDP rebuilds its buckets in that order after the first iteration: Reducer::rebuild_buckets,
/// reducer.cpp). A bucket takes gradients in order until its bytes reach its limit (>=, counting the
/// gradient that crosses it), then closes; the first bucket's limit is `first_cap`, every later one's
/// `cap`; the last bucket holds what is left (compute_bucket_assignment_by_size, reducer.cpp,
/// PyTorch v2.5, for one dtype on one device). Empty input gives no buckets. first_cap, cap >= 1.
[[nodiscard]] std::vector<Bucket> ddp_buckets(std::span<const Bytes> tensor_bytes, Bytes first_cap, Bytes cap);

}  // namespace collsim::train
