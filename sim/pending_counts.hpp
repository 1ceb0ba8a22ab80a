// The engine's count of dependencies still missing, for ops of a stream that have seen some of
// theirs finish: an open-addressing hash table (linear probing, deletion by backward shift; Knuth,
// TAOCP vol. 3, 6.4 Algorithm R) instead of std::unordered_map, which allocated a node per op and
// missed the cache on every lookup (halving-doubling on 4096 GPUs holds millions at once).
#pragma once

#include <cstdint>
#include <vector>

namespace collsim::sim {

class PendingCounts {
 public:
  /// One dependency of op `key` finished; `deps` (>= 2) is how many it has in all. Returns true when
  /// it was the last (the op is then forgotten), false while more are missing.
  bool arrive(std::uint64_t key, std::uint32_t deps) {
    if (slots_.empty()) slots_.resize(16);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.missing == 0) {  // absent: the first of its dependencies to finish
        s = Slot{key, deps - 1};
        if (2 * ++size_ > slots_.size()) grow();
        return false;
      }
      if (s.key != key) continue;
      if (--s.missing != 0) return false;
      erase(i);
      return true;
    }
  }
  /// Ops held: seen some of their dependencies finish, not all.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t missing = 0;  // 0: an empty slot
  };
  // splitmix64's finalizer (Steele, Lea & Flood 2014): keys are packed fields (step, rank, chunk).
  static std::uint64_t hash(std::uint64_t x) noexcept {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  void erase(std::size_t i) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t j = (i + 1) & mask; slots_[j].missing != 0; j = (j + 1) & mask) {
      // Move j back into the hole at i unless its home lies cyclically in (i, j].
      const std::size_t home = hash(slots_[j].key) & mask;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].missing = 0;
    --size_;
  }
  void grow() {
    std::vector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.missing == 0) continue;
      std::size_t i = hash(s.key) & mask;
      while (slots_[i].missing != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace collsim::sim
