// The collectives collsim knows, their command-line names, and the nccl-tests bandwidth factors.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/units/enum_names.hpp"

namespace collsim::sched {

/// A collective operation. The size S of a request is what nccl-tests calls the size: the
/// all-reduce buffer, the all-gather output, the reduce-scatter input, the all-to-all per-rank
/// buffer, the broadcast/reduce buffer (nccl-tests doc/PERFORMANCE.md), and the buffer each rank
/// sends its ring neighbour (sendrecv_perf).
enum class Collective : std::uint8_t { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll, SendRecv };

/// The command-line names, in the order above; read back ignoring case, '-' and '_'.
inline constexpr auto kCollectiveNames = make_enum_names<Collective>(
    {{Collective::AllReduce, "allreduce"},
     {Collective::ReduceScatter, "reducescatter"},
     {Collective::AllGather, "allgather"},
     {Collective::Broadcast, "broadcast"},
     {Collective::Reduce, "reduce"},
     {Collective::AllToAll, "alltoall"},
     {Collective::SendRecv, "sendrecv"}},
    NameMatch::IgnoreCaseAndSeparators);

/// Every collective, in the order above.
std::span<const Collective> all_collectives() noexcept;

/// The command-line name: "allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall",
/// "sendrecv".
std::string_view collective_name(Collective c) noexcept;

/// Reads a command-line name; hyphens and underscores are ignored and case does not matter
/// ("all-reduce", "all_reduce", "AllReduce"). nullopt for anything else.
std::optional<Collective> parse_collective(std::string_view text);

/// "allreduce, reducescatter, ...": the valid names, for error messages.
std::string collective_names_list();

/// True for the collectives that combine values with a reduction op (all-reduce, reduce-scatter,
/// reduce); the others only move them (nccl-tests prints redop "none" for them, src/common.cu).
[[nodiscard]] constexpr bool reduces(Collective c) noexcept {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce;
}

/// True for the collectives with a root (broadcast, reduce: ScheduleHeader::root).
[[nodiscard]] constexpr bool has_root(Collective c) noexcept {
  return c == Collective::Broadcast || c == Collective::Reduce;
}

/// An exact ratio num/den.
struct Ratio {
  std::uint64_t num = 0;
  std::uint64_t den = 1;
};

/// The nccl-tests bus-bandwidth factor (doc/PERFORMANCE.md): all-reduce 2(N-1)/N;
/// reduce-scatter, all-gather, all-to-all (N-1)/N; broadcast, reduce, sendrecv 1. It is also the
/// fraction of S that the busiest rank must send at least, so lower bound = factor * S / B
/// (Patarasuk & Yuan 2009 for all-reduce). For N = 1 the factor is 0 for the first four and for
/// sendrecv (nothing has to leave the GPU: its one rank sends to itself).
/// Precondition: nranks >= 1.
Ratio bandwidth_factor(Collective c, std::uint32_t nranks) noexcept;

}  // namespace collsim::sched
