// Joining the shard files of a sweep (--shard I/K) into the file one unsharded run writes: one
// header, the rows in their order (by the row column). Each shard file says which sweep it belongs
// to, which shard it is and which of its rows were skipped (run/sweep_shard.hpp), so the merge checks
// exactly that every row of one sweep is there, once and whole.
#pragma once

#include <string>
#include <vector>

namespace collsim::run {

/// The file that one unsharded run of the sweep writes, joined from the shard files at `paths`
/// (any order; CSV or JSON lines, all of one sweep). Reads every file before it returns anything.
/// Throws RequestError (Field::Shards, the file at fault) naming the file, the line and what was
/// expected for a file that cannot be read, is no shard file, is cut short, lost or repeats a row,
/// belongs to another sweep, or when a shard is missing or given twice.
[[nodiscard]] std::string merge_shards(const std::vector<std::string>& paths);

}  // namespace collsim::run
