// A vector that keeps its first element in place: where most holders have one element (a route
// class of one flow on dedicated links), reading or changing it follows no pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collsim::net {

/// The subset of std::vector that FlowModel's classes use (size, indexing, iteration, insert and
/// erase at a position), in the same order of elements; one element lives inline, two or more in a
/// std::vector. Pointers into it are invalidated by insert and erase, as a vector's may be.
template <class T>
class OneInline {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] T* begin() noexcept { return size_ <= 1 ? &one_ : many_.data(); }
  [[nodiscard]] T* end() noexcept { return begin() + size_; }
  [[nodiscard]] const T* begin() const noexcept { return size_ <= 1 ? &one_ : many_.data(); }
  [[nodiscard]] const T* end() const noexcept { return begin() + size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return begin()[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return begin()[i]; }
  /// Inserts `value` before `at` (begin() .. end()).
  void insert(const T* at, const T& value) {
    const auto i = static_cast<std::size_t>(at - begin());
    if (size_ == 0) {
      one_ = value;
    } else {
      if (size_ == 1) {
        many_.clear();
        many_.push_back(one_);
      }
      many_.insert(many_.begin() + static_cast<std::ptrdiff_t>(i), value);
    }
    ++size_;
  }
  /// Removes the element at `at`.
  void erase(const T* at) {
    const auto i = static_cast<std::size_t>(at - begin());
    if (size_ > 1) {
      many_.erase(many_.begin() + static_cast<std::ptrdiff_t>(i));
      if (size_ == 2) one_ = many_.front();
    }
    --size_;
  }

 private:
  std::uint32_t size_ = 0;
  T one_{};              // the element, while there is one
  std::vector<T> many_;  // all of them, while there are two or more
};

}  // namespace collsim::net
