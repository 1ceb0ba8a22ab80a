#include "run/sweep_shard.hpp"


#include <fmt/format.h>

#include "run/parse.hpp"

namespace collsim::run {
namespace {


// `text` split at single spaces.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0;;) {
    const auto sp = text.find(' ', pos);
    out.push_back(text.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos));
    if (sp == std::string_view::npos) return out;
    pos = sp + 1;
  }
}

// "shard=I/K" read back, with 0 <= I < K.
std::optional<std::pair<std::uint32_t, std::uint32_t>> shard_word(std::string_view w) {
  if (!w.starts_with("shard=")) return std::nullopt;
  w.remove_prefix(6);
  const auto slash = w.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto i = whole_number(w.substr(0, slash));
  const auto k = whole_number(w.substr(slash + 1));
  if (!i || !k || *k == 0 || *k > UINT32_MAX || *i >= *k) return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(*i), static_cast<std::uint32_t>(*k)};
}

}  // namespace

std::string shard_head_line(const ShardHead& h) {
  return fmt::format("# collsim sweep shard={}/{} sweep={} rows={} format={}\n", h.index, h.count, h.sweep, h.rows,
                     h.format);
}

std::string shard_end_line(const ShardHead& h, const std::vector<std::uint64_t>& skipped) {
  std::string list;
  for (std::size_t a = 0; a < skipped.size();) {
    std::size_t b = a;  // the run of the shard's consecutive rows from skipped[a]
    while (b + 1 < skipped.size() && skipped[b + 1] == skipped[b] + h.count) ++b;
    list += (list.empty() ? "" : ",") + (b == a ? fmt::format("{}", skipped[a]) : fmt::format("{}-{}", skipped[a], skipped[b]));
    a = b + 1;
  }
  return fmt::format("# collsim sweep shard={}/{} end skipped={}\n", h.index, h.count, list.empty() ? "-" : list);
}

std::optional<ShardHead> parse_shard_head(std::string_view line) {
  if (!line.starts_with("# collsim sweep ")) return std::nullopt;
  const auto w = words(line.substr(16));
  if (w.size() != 4 || !w[1].starts_with("sweep=") || !w[2].starts_with("rows=") || !w[3].starts_with("format="))
    return std::nullopt;
  const auto shard = shard_word(w[0]);
  const auto rows = whole_number(w[2].substr(5));
  ShardHead h;
  h.sweep = std::string(w[1].substr(6));
  h.format = std::string(w[3].substr(7));
  const bool hex = h.sweep.size() == 16 && h.sweep.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!shard || !rows || *rows > kMaxSweepRows || !hex || (h.format != "csv" && h.format != "json"))
    return std::nullopt;
  h.index = shard->first;
  h.count = shard->second;
  h.rows = *rows;
  return h;
}

std::optional<std::vector<std::uint64_t>> parse_shard_end(std::string_view line, const ShardHead& h) {
  if (!line.starts_with("# collsim sweep ")) return std::nullopt;
  const auto w = words(line.substr(16));
  const auto shard = shard_word(w[0]);
  if (w.size() != 3 || !shard || shard->first != h.index || shard->second != h.count || w[1] != "end" ||
      !w[2].starts_with("skipped="))
    return std::nullopt;
  std::vector<std::uint64_t> skipped;
  const std::string_view list = w[2].substr(8);
  if (list == "-") return skipped;
  // One of the shard's rows, after every row listed so far.
  const auto shard_row = [&](std::string_view text) -> std::optional<std::uint64_t> {
    const auto r = whole_number(text);
    if (!r || *r >= h.rows || *r % h.count != h.index || (!skipped.empty() && *r <= skipped.back())) return std::nullopt;
    return r;
  };
  for (std::size_t pos = 0; pos <= list.size();) {
    const auto comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    const auto dash = item.find('-');
    const auto first = shard_row(item.substr(0, dash));
    if (!first) return std::nullopt;
    skipped.push_back(*first);
    if (dash != std::string_view::npos) {
      const auto last = shard_row(item.substr(dash + 1));
      if (!last) return std::nullopt;
      for (std::uint64_t r = *first + h.count; r <= *last; r += h.count) skipped.push_back(r);
    }
    pos = comma + 1;
  }
  return skipped;
}

}  // namespace collsim::run
