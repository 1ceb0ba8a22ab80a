#include "train/ddp_buckets.hpp"

namespace collsim::train {

std::vector<Bucket> ddp_buckets(std::span<const Bytes> tensor_bytes, Bytes first_cap, Bytes cap) {
  std::vector<Bucket> buckets;
  Bucket open;
  for (std::size_t i = 0; i < tensor_bytes.size(); ++i) {
    open.tensors.push_back(i);
    open.bytes += tensor_bytes[i];
    if (open.bytes >= (buckets.empty() ? first_cap : cap)) {
      buckets.push_back(std::move(open));
      open = Bucket{};
    }
  }
  if (!open.tensors.empty()) buckets.push_back(std::move(open));
  return buckets;
}

}  // namespace collsim::train
