#include "validation/cuda/gpu_data.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/collective_spec.hpp"
#include "sim/schedule/json_io.hpp"
#include "validation/cuda/lower_schedule.hpp"
#include "validation/element_types.hpp"
#include "validation/input_pattern.hpp"

namespace collsim::cuda {
namespace {

// The exact sums of `content` at chunk positions first .. first + n - 1.
void exact_values(const sched::Schedule& s, const validation::InputPattern& input, const sched::Content& content,
                  std::uint64_t esize, std::uint64_t first, std::uint64_t n, std::vector<std::int64_t>& out) {
  out.assign(n, 0);
  for (const auto& from : content) {
    const std::uint64_t base = s.chunks[from.chunk].offset / esize + first;
    for (std::uint64_t i = 0; i < n; ++i) out[i] += input.value(from.rank, base + i);
  }
}

template <class E>
void upload_as(const sched::Schedule& s, validation::DType dtype, Replay& replay) {
  const sched::CollectiveSpec spec(s);
  const validation::InputPattern input(dtype, validation::ReduceOp::Sum, s.header.nranks);
  const std::uint64_t esize = validation::dtype_size(dtype);
  // Hashing the inputs of 8 ranks of 1 GiB takes seconds, so ranks are filled in parallel; every
  // rank's values depend only on (rank, element), so the result does not depend on the threads.
  const auto fill_rank = [&](sched::Rank r) {
    std::vector<std::int64_t> exact;
    std::vector<typename E::Storage> host;
    for (sched::ChunkId c = 0; c < s.chunks.size(); ++c) {
      const auto content = spec.initial(r, c);
      if (!content) continue;
      const std::uint64_t n = s.chunks[c].size / esize;
      exact_values(s, input, *content, esize, 0, n, exact);
      host.resize(n);
      for (std::uint64_t i = 0; i < n; ++i) host[i] = E::encode(exact[i]);
      replay.upload(r, area_of(s.chunks[c].buffer), s.chunks[c].offset, host.data(), n * esize);
    }
  };
  const sched::Rank ranks = s.total_ranks();
  const sched::Rank workers = std::clamp<sched::Rank>(std::thread::hardware_concurrency(), 1, ranks);
  std::vector<std::exception_ptr> failed(workers);
  std::vector<std::thread> threads;
  for (sched::Rank w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      try {
        for (sched::Rank r = w; r < ranks; r += workers) fill_rank(r);
      } catch (...) {
        failed[w] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

template <class E>
DataCheck check_as(const sched::Schedule& s, validation::DType dtype, const Replay& replay, std::uint64_t full_limit,
                   std::uint64_t sample) {
  const sched::CollectiveSpec spec(s);
  const validation::InputPattern input(dtype, validation::ReduceOp::Sum, s.header.nranks);
  const std::uint64_t esize = validation::dtype_size(dtype);
  const bool floating = validation::is_floating(dtype);
  DataCheck out;
  std::vector<std::int64_t> exact;
  std::vector<typename E::Storage> got;
  for (sched::Rank r = 0; r < s.header.nranks && !out.mismatch; ++r)
    for (sched::ChunkId c = 0; c < s.chunks.size() && !out.mismatch; ++c) {
      const auto want = spec.required(r, c);
      if (!want || want->empty()) continue;
      const auto& ch = s.chunks[c];
      const std::uint64_t n = ch.size / esize;
      const double factor = validation::sum_tolerance_factor(dtype, want->size(), input.range());
      // Ranges of positions to check: all, or the head and the tail.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{{0, n}};
      if (ch.size > full_limit && n > 2 * sample) {
        ranges = {{0, sample}, {n - sample, sample}};
        out.sampled = true;
      }
      for (const auto& [first, count] : ranges) {
        got.resize(count);
        replay.download(r, area_of(ch.buffer), ch.offset + first * esize, got.data(), count * esize);
        exact_values(s, input, *want, esize, first, count, exact);
        for (std::uint64_t i = 0; i < count; ++i) {
          ++out.values_checked;
          const auto want_v = static_cast<double>(exact[i]);
          const bool ok = floating ? std::abs(E::decode(got[i]) - want_v) <= factor * want_v
                                   : E::encode(exact[i]) == got[i];
          if (ok) continue;
          const double tol = factor * want_v;
          out.mismatch = validation::Mismatch{
              r, c, ch.buffer, ch.offset / esize + first + i,
              floating && tol > 0 ? fmt::format("{} +- {:.6g}", exact[i], tol) : E::text(E::encode(exact[i])),
              E::text(got[i])};
          break;
        }
        if (out.mismatch) break;
      }
    }
  return out;
}

}  // namespace

std::optional<Elem> elem_of(validation::DType dtype) noexcept {
  switch (dtype) {
    case validation::DType::Float32: return Elem::F32;
    case validation::DType::Float16: return Elem::F16;
    case validation::DType::BFloat16: return Elem::BF16;
    case validation::DType::Int32: return Elem::I32;
    default: return std::nullopt;
  }
}

void upload_inputs(const sched::Schedule& s, validation::DType dtype, Replay& replay) {
  switch (dtype) {
    case validation::DType::Float16: return upload_as<validation::Float16Element>(s, dtype, replay);
    case validation::DType::BFloat16: return upload_as<validation::BFloat16Element>(s, dtype, replay);
    case validation::DType::Int32: return upload_as<validation::Int32Element>(s, dtype, replay);
    default: return upload_as<validation::Float32Element>(s, dtype, replay);
  }
}

DataCheck check_outputs(const sched::Schedule& s, validation::DType dtype, const Replay& replay, std::uint64_t full_limit,
                        std::uint64_t sample) {
  switch (dtype) {
    case validation::DType::Float16: return check_as<validation::Float16Element>(s, dtype, replay, full_limit, sample);
    case validation::DType::BFloat16: return check_as<validation::BFloat16Element>(s, dtype, replay, full_limit, sample);
    case validation::DType::Int32: return check_as<validation::Int32Element>(s, dtype, replay, full_limit, sample);
    default: return check_as<validation::Float32Element>(s, dtype, replay, full_limit, sample);
  }
}

std::string mismatch_text(const validation::Mismatch& m) {
  return fmt::format("rank {} chunk {} ({}) element {}: expected {}, found {}", m.rank, m.chunk,
                     sched::buffer_name(m.buffer), m.element, m.expected, m.found);
}

}  // namespace collsim::cuda
