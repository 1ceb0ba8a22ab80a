#include "tools/sweep_spec.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

std::vector<std::string> split_list(std::string_view flag, std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    const auto comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (items.back().empty()) throw UsageError(fmt::format("{}: found an empty item in \"{}\", expected a comma-separated list", flag, text));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::vector<std::uint32_t> parse_count_list(std::string_view flag, std::string_view text, std::uint32_t min,
                                            std::uint32_t max) {
  std::vector<std::uint32_t> out;
  const auto add = [&out](std::uint32_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& item : split_list(flag, text)) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      add(parse_count(flag, item, min, max));
      continue;
    }
    // The order first, so that "8..2" and "2..1" get the same message whatever the bounds.
    constexpr std::uint32_t kAny = std::numeric_limits<std::uint32_t>::max();
    if (parse_count(flag, item.substr(0, dots), 0, kAny) > parse_count(flag, item.substr(dots + 2), 0, kAny))
      throw UsageError(fmt::format("{}: found the range \"{}\", expected A..B with A <= B", flag, item));
    const std::uint32_t a = parse_count(flag, item.substr(0, dots), min, max);
    const std::uint32_t b = parse_count(flag, item.substr(dots + 2), min, max);
    std::uint64_t p = 1;
    while (p < a) p <<= 1;
    if (p > b) throw UsageError(fmt::format("{}: the range \"{}\" holds no power of two", flag, item));
    for (; p <= b; p <<= 1) add(static_cast<std::uint32_t>(p));
  }
  return out;
}

std::vector<Bytes> size_range(std::string_view min, std::string_view max, std::string_view factor,
                              std::string_view increment, std::size_t limit) {
  if (!factor.empty() && !increment.empty())
    throw UsageError("-i/--stepbytes: given with -f/--stepfactor; expected one or the other");
  const Bytes lo = parse_size_flag("-b/--minbytes", min);
  const Bytes hi = max.empty() ? lo : parse_size_flag("-e/--maxbytes", max);
  if (lo > hi) throw UsageError(fmt::format("-e/--maxbytes: found {} B, below -b/--minbytes {} B; expected MAX >= MIN", hi, lo));
  const std::uint32_t f = factor.empty() ? 2 : parse_count("-f/--stepfactor", factor, 2, 1u << 30);
  const Bytes inc = increment.empty() ? 0 : parse_size_flag("-i/--stepbytes", increment);
  if (!increment.empty() && inc == 0) throw UsageError("-i/--stepbytes: found 0, expected at least 1 byte");
  if (lo == 0 && increment.empty() && lo != hi)
    throw UsageError("-b/--minbytes: found 0, which a factor never grows; expected at least 1 byte, or -i");
  std::vector<Bytes> sizes;
  for (Bytes s = lo;;) {
    sizes.push_back(s);
    if (sizes.size() > limit)
      throw UsageError(fmt::format("-b/-e: more than {} sizes; expected a larger -f or -i", limit));
    // Stop at MAX (-b 0 -e 0: 0 times a factor stays 0), or before the next step would pass it
    // (or overflow 64 bits).
    if (s == hi || (inc > 0 ? hi - s < inc : s > hi / f)) break;
    s = inc > 0 ? s + inc : s * f;
    if (s > hi) break;
  }
  return sizes;
}

}  // namespace collsim::cli
