// The two lines that frame a shard file of `collsim sweep --shard I/K`, so that `collsim merge`
// can check exactly that it joins every row of one sweep: which sweep the shard belongs to, which
// shard it is, how many rows the whole sweep has, and which of its rows were skipped.
//
// A shard file, CSV or JSON lines, is the unsharded file's header (CSV) and this shard's records in
// row order, between a head line and an end line:
//
//   # collsim sweep shard=I/K sweep=FINGERPRINT rows=N format=csv|json
//   row,topology,...            (CSV only)
//   ...                         (rows I, I+K, I+2K, ... below N, less the skipped ones)
//   # collsim sweep shard=I/K end skipped=LIST
//
// FINGERPRINT (16 hex digits) identifies the sweep: its topologies, sizes, algorithms, options and
// format, not the shard. LIST is the shard's rows that an algorithm could not run, "-" for none,
// else comma-separated row numbers and ranges A-B (this shard's rows from A to B: A, A+K, ..., B).
// The end line is written last, so a file cut short lacks it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::run {

/// What the head line of a shard file says.
struct ShardHead {
  std::uint32_t index = 0;  ///< I, 0 <= I < K
  std::uint32_t count = 1;  ///< K >= 1
  std::string sweep;        ///< the sweep's fingerprint, 16 hex digits
  std::uint64_t rows = 0;   ///< N, the rows of the whole sweep (skipped ones included)
  std::string format;       ///< "csv" or "json"
  friend bool operator==(const ShardHead&, const ShardHead&) = default;
};

/// The most rows a sweep may have (a typo such as -i 1 with -e 8G stops at this, not after days).
inline constexpr std::uint64_t kMaxSweepRows = 10'000'000;

/// How every shard line starts; no line of a sweep's CSV or JSON records does.
inline constexpr std::string_view kShardLinePrefix = "# collsim sweep shard=";

/// The head line of shard `head`, newline-terminated.
std::string shard_head_line(const ShardHead& head);

/// The end line of shard `head` whose rows `skipped` (ascending, each one of the shard's) were
/// skipped, newline-terminated.
std::string shard_end_line(const ShardHead& head, const std::vector<std::uint64_t>& skipped);

/// The head line `line` (without its line ending) read back; nullopt when it is not a well-formed
/// head line (0 <= I < K, 16 hex digits, at most kMaxSweepRows rows, csv or json).
std::optional<ShardHead> parse_shard_head(std::string_view line);

/// The skipped rows of the end line `line` of shard `head`, ascending; nullopt when `line` is not
/// a well-formed end line of that shard (or names a row that is not one of the shard's).
std::optional<std::vector<std::uint64_t>> parse_shard_end(std::string_view line, const ShardHead& head);

}  // namespace collsim::run
