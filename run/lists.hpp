// The lists a sweep runs over, read from text (a CLI flag, a Python string): counts such as "2,4,8..1024", sizes in the
// manner of nccl-tests (-b/-e/-f/-i) or as a list, and comma-separated names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "run/errors.hpp"
#include "sim/units/units.hpp"

namespace collsim::run {

/// Comma-separated items of `text`, in order; throws RequestError naming `field` for an empty item.
std::vector<std::string> split_list(Field field, std::string_view text);

/// "2,4,8..1024": whole numbers in [min, max] and ranges A..B meaning the powers of two p with
/// A <= p <= B (A <= B). In the order given, duplicates removed. Throws RequestError naming `field`.
std::vector<std::uint32_t> parse_count_list(Field field, std::string_view text, std::uint32_t min, std::uint32_t max);

/// The sizes of nccl-tests' -b MIN -e MAX with -f FACTOR (multiply; default 2) or -i INCREMENT
/// (add): MIN, then each step while it stays <= MAX. Throws RequestError naming the field at fault
/// (MIN > MAX, a factor below 2, an increment of 0, more than `limit` sizes).
std::vector<Bytes> size_range(std::string_view min, std::string_view max, std::string_view factor,
                              std::string_view increment, std::size_t limit);

}  // namespace collsim::run
