#include "run/lists.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/parse.hpp"

namespace collsim::run {

std::vector<std::string> split_list(Field field, std::string_view text) {
  std::vector<std::string> items;
  const std::string whole(text);
  while (true) {
    const auto comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (items.back().empty())
      throw RequestError(field, whole,
                         fmt::format("{}: found an empty item in \"{}\", expected a comma-separated list", ref(field),
                                     whole));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::vector<std::uint32_t> parse_count_list(Field field, std::string_view text, std::uint32_t min, std::uint32_t max) {
  std::vector<std::uint32_t> out;
  const auto add = [&out](std::uint32_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& item : split_list(field, text)) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      add(parse_count(field, item, min, max));
      continue;
    }
    // The order first, so that "8..2" and "2..1" get the same message whatever the bounds; an end
    // that is no whole number, or a huge one, is told the field's bounds below.
    const auto first = whole_number(item.substr(0, dots)), last = whole_number(item.substr(dots + 2));
    if (first && last && *first > *last)
      throw RequestError(field, item,
                         fmt::format("{}: found the range \"{}\", expected A..B with A <= B", ref(field), item));
    const std::uint32_t a = parse_count(field, item.substr(0, dots), min, max);
    const std::uint32_t b = parse_count(field, item.substr(dots + 2), min, max);
    std::uint64_t p = 1;
    while (p < a) p <<= 1;
    if (p > b)
      throw RequestError(field, item, fmt::format("{}: the range \"{}\" holds no power of two", ref(field), item));
    for (; p <= b; p <<= 1) add(static_cast<std::uint32_t>(p));
  }
  return out;
}

std::vector<Bytes> size_range(std::string_view min, std::string_view max, std::string_view factor,
                              std::string_view increment, std::size_t limit) {
  if (!factor.empty() && !increment.empty())
    throw RequestError(Field::StepBytes, std::string(increment),
                       fmt::format("{}: given with {}; expected one or the other", ref(Field::StepBytes),
                                   ref(Field::StepFactor)));
  const Bytes lo = parse_size(Field::MinBytes, min);
  const Bytes hi = max.empty() ? lo : parse_size(Field::MaxBytes, max);
  if (lo > hi)
    throw RequestError(Field::MaxBytes, std::string(max),
                       fmt::format("{}: found {} B, below {} {} B; expected MAX >= MIN", ref(Field::MaxBytes), hi,
                                   ref(Field::MinBytes), lo));
  const std::uint32_t f = factor.empty() ? 2 : parse_count(Field::StepFactor, factor, 2, 1u << 30);
  const Bytes inc = increment.empty() ? 0 : parse_size(Field::StepBytes, increment);
  if (!increment.empty() && inc == 0)
    throw RequestError(Field::StepBytes, "0", fmt::format("{}: found 0, expected at least 1 byte", ref(Field::StepBytes)));
  if (lo == 0 && increment.empty() && lo != hi)
    throw RequestError(Field::MinBytes, "0",
                       fmt::format("{}: found 0, which a factor never grows; expected at least 1 byte, or {}",
                                   ref(Field::MinBytes), ref(Field::StepBytes)));
  std::vector<Bytes> sizes;
  for (Bytes s = lo;;) {
    sizes.push_back(s);
    if (sizes.size() > limit)
      throw RequestError(Field::MaxBytes, std::string(max),
                         fmt::format("{}: more than {} sizes; expected a larger {} or {}", ref(Field::MaxBytes), limit,
                                     ref(Field::StepFactor), ref(Field::StepBytes)));
    // Stop at MAX (-b 0 -e 0: 0 times a factor stays 0), or before the next step would pass it
    // (or overflow 64 bits).
    if (s == hi || (inc > 0 ? hi - s < inc : s > hi / f)) break;
    s = inc > 0 ? s + inc : s * f;
    if (s > hi) break;
  }
  return sizes;
}

}  // namespace collsim::run
