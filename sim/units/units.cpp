// Exact parsing and printing of sizes, bandwidths and latencies (rules in units.hpp).
#include "units.hpp"
#include "int128.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>

namespace collsim {
namespace {


// The parsed number, exactly: value = num / den, den a power of ten.
struct Decimal {
  u128 num = 0;
  u128 den = 1;
};

constexpr int kMaxSignificantDigits = 24;  // 1e24 * 8 * 2^40 still fits in 128 bits
constexpr int kMaxDenominatorDigits = 36;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool checked_mul(u128 a, u128 b, u128& out) {
  if (a != 0 && b > std::numeric_limits<u128>::max() / a) return false;
  out = a * b;
  return true;
}

u128 pow10(int k) {
  u128 r = 1;
  for (int i = 0; i < k; ++i) r *= 10;
  return r;
}

// Reads [digits][.digits][(e|E)[+|-]digits] from the front of `s`. Returns nullopt when there is no
// number there or it has too many digits; `rest` receives what follows the number.
std::optional<Decimal> parse_decimal(std::string_view s, std::string_view& rest) {
  Decimal d;
  std::size_t i = 0;
  int significant = 0;
  int frac_digits = 0;
  bool any_digit = false;
  auto take_digit = [&](char c) {
    any_digit = true;
    if (d.num == 0 && c == '0') return true;  // leading zeros carry no information
    if (++significant > kMaxSignificantDigits) return false;
    d.num = d.num * 10 + static_cast<unsigned>(c - '0');
    return true;
  };
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (!take_digit(s[i++])) return std::nullopt;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (!take_digit(s[i++])) return std::nullopt;
      ++frac_digits;
    }
  }
  if (!any_digit) return std::nullopt;
  int exponent = -frac_digits;
  // An exponent only when digits follow, so that a unit starting with 'e' could still be read.
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    bool neg = false;
    if (s[j] == '+' || s[j] == '-') neg = s[j++] == '-';
    if (j < s.size() && s[j] >= '0' && s[j] <= '9') {
      int e = 0;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
        e = e * 10 + (s[j++] - '0');
        if (e > 99) return std::nullopt;
      }
      exponent += neg ? -e : e;
      i = j;
    }
  }
  if (exponent > 0) {
    if (!checked_mul(d.num, pow10(exponent > 38 ? 39 : exponent), d.num) || exponent > 38)
      return std::nullopt;
  } else if (exponent < 0) {
    if (-exponent > kMaxDenominatorDigits) return std::nullopt;
    d.den = pow10(-exponent);
  }
  rest = s.substr(i);
  return d;
}

// Splits `text` into its number and unit, rejecting a sign. `what` names the kind of quantity for
// the error message, `example` shows a valid form.
std::pair<Decimal, std::string_view> split(std::string_view text, std::string_view what,
                                           std::string_view example) {
  const std::string_view t = trim(text);
  if (!t.empty() && t.front() == '-')
    // A bandwidth must also be above 0 (parse_bandwidth): one word for both of its errors.
    throw UnitError(fmt::format("expected a {} {} such as {}, found \"{}\"", what == "bandwidth" ? "positive" : "non-negative",
                                what, example, text));
  std::string_view rest;
  const std::string_view body = (!t.empty() && t.front() == '+') ? t.substr(1) : t;
  auto d = parse_decimal(body, rest);
  if (!d)
    throw UnitError(fmt::format("expected a {} such as {}, found \"{}\"", what, example, text));
  return {*d, trim(rest)};
}

// value * mult / div, where value = d.num / d.den; nullopt on overflow.
std::optional<std::pair<u128, u128>> scale(const Decimal& d, u128 mult) {
  u128 n = 0;
  if (!checked_mul(d.num, mult, n)) return std::nullopt;
  return std::pair{n / d.den, n % d.den};
}

struct UnitEntry {
  std::string_view name;
  u128 mult;
};

std::optional<u128> lookup(std::string_view unit, std::span<const UnitEntry> table) {
  for (const auto& e : table)
    if (e.name == unit) return e.mult;
  return std::nullopt;
}

// Exact decimal of num / 10^digits with trailing zeros (and a bare point) removed.
std::string exact_decimal(u128 num, int digits) {
  const u128 den = pow10(digits);
  const u128 whole = num / den;
  u128 frac = num % den;
  std::string out;
  {
    u128 w = whole;
    do {
      out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(w % 10)));
      w /= 10;
    } while (w != 0);
  }
  if (frac != 0) {
    std::string f(static_cast<std::size_t>(digits), '0');
    for (int i = digits - 1; i >= 0; --i) {
      f[static_cast<std::size_t>(i)] = static_cast<char>('0' + static_cast<int>(frac % 10));
      frac /= 10;
    }
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += '.';
    out += f;
  }
  return out;
}

std::string signed_exact_decimal(std::int64_t v, int digits) {
  if (v >= 0) return exact_decimal(static_cast<u128>(v), digits);
  std::string s = exact_decimal(static_cast<u128>(-static_cast<i128>(v)), digits);
  s.insert(s.begin(), '-');
  return s;
}

}  // namespace

Time transfer_time(Bytes bytes, Bandwidth bw) {
  if (bw.bits_per_s == 0) throw UnitError("transfer_time: bandwidth must be positive");
  const u128 num = static_cast<u128>(bytes) * 8u * 1'000'000'000'000u;
  const u128 ps = (num + bw.bits_per_s - 1) / bw.bits_per_s;
  if (ps > static_cast<u128>(std::numeric_limits<std::int64_t>::max()))
    throw ClockOverflowError(fmt::format("a transfer of {} bytes at {} takes longer than the simulated clock holds "
                                         "(2^63 ps, about 106 days); expected a smaller size or faster links",
                                         bytes, format_bandwidth(bw)));
  return Time{static_cast<std::int64_t>(ps)};
}

Time checked_add(Time a, Time b) {
  if (b > Time{0} && a > Time::max() - b)
    throw ClockOverflowError("the simulated time passes the clock's end (2^63 ps, about 106 days); expected a "
                             "smaller size, faster links or shorter latencies");
  return a + b;
}

Time checked_mul(Time a, std::uint64_t n) {
  const u128 product = static_cast<u128>(a.count()) * n;
  if (product > static_cast<u128>(Time::max().count()))
    throw ClockOverflowError("the simulated time passes the clock's end (2^63 ps, about 106 days); expected a "
                             "smaller size, faster links or shorter latencies");
  return Time{static_cast<std::int64_t>(product)};
}

Bytes parse_size(std::string_view text) {
  static constexpr u128 Ki = 1024;
  static constexpr std::array<UnitEntry, 19> kUnits{{
      {"", 1},         {"B", 1},
      {"K", Ki},       {"k", Ki},       {"KiB", Ki},
      {"M", Ki * Ki},  {"m", Ki * Ki},  {"MiB", Ki * Ki},
      {"G", Ki * Ki * Ki}, {"g", Ki * Ki * Ki}, {"GiB", Ki * Ki * Ki},
      {"T", Ki * Ki * Ki * Ki}, {"t", Ki * Ki * Ki * Ki}, {"TiB", Ki * Ki * Ki * Ki},
      {"KB", 1000},    {"kB", 1000},    {"MB", 1000000}, {"GB", 1000000000},
      {"TB", 1000000000000},
  }};
  constexpr std::string_view example = "\"1G\", \"512KiB\", \"4GB\" or \"6\"";
  auto [d, unit] = split(text, "size", example);
  const auto mult = lookup(unit, kUnits);
  if (!mult)
    throw UnitError(fmt::format("unknown size unit \"{}\" in \"{}\": expected B, K/KiB, M/MiB, G/GiB, T/TiB "
                                "(powers of 1024) or KB, MB, GB, TB (powers of 1000)", unit, text));
  const auto v = scale(d, *mult);
  if (!v || v->first > std::numeric_limits<Bytes>::max())
    throw UnitError(fmt::format("size \"{}\" is too large: expected at most 2^64-1 bytes", text));
  if (v->second != 0)
    throw UnitError(fmt::format("size \"{}\" is not a whole number of bytes", text));
  return static_cast<Bytes>(v->first);
}

Bandwidth parse_bandwidth(std::string_view text) {
  constexpr std::string_view example = "\"300GB/s\", \"200Gb/s\" or \"400Gbps\"";
  auto [d, unit] = split(text, "bandwidth", example);
  // unit = prefix + (B|b) + ("/s"|"ps")
  std::string_view u = unit;
  const bool per_s = u.ends_with("/s") || u.ends_with("ps");
  if (per_s) u.remove_suffix(2);
  u128 bits = 0;
  if (per_s && u.ends_with('B')) bits = 8;
  if (per_s && u.ends_with('b')) bits = 1;
  if (bits != 0) u.remove_suffix(1);
  static constexpr std::array<UnitEntry, 10> kPrefixes{{
      {"", 1},
      {"K", 1000}, {"k", 1000}, {"M", 1000000}, {"G", 1000000000}, {"T", 1000000000000},
      {"Ki", 1024}, {"Mi", 1024 * 1024}, {"Gi", 1024 * 1024 * 1024}, {"Ti", u128{1024} * 1024 * 1024 * 1024},
  }};
  const auto prefix = bits != 0 ? lookup(u, kPrefixes) : std::nullopt;
  if (unit.empty())
    throw UnitError(fmt::format("missing bandwidth unit in \"{}\": expected e.g. {}", text, example));
  if (!prefix)
    throw UnitError(fmt::format("unknown bandwidth unit \"{}\" in \"{}\": expected B/s or b/s with an "
                                "optional prefix K, M, G, T (decimal) or Ki, Mi, Gi, Ti, e.g. {}",
                                unit, text, example));
  const auto v = scale(d, *prefix * bits);
  // Round half up to the nearest bit per second, then check the range: checked before rounding,
  // "18446744073709551614.5b/s" read as 2^64-1 b/s, a rate this parser refuses as text.
  const u128 rounded = v ? v->first + (2 * v->second >= d.den ? 1 : 0) : 0;
  if (!v || rounded >= std::numeric_limits<std::uint64_t>::max())
    throw UnitError(fmt::format("bandwidth \"{}\" is too large", text));
  if (rounded == 0)
    throw UnitError(v->first == 0 && v->second == 0
                        ? fmt::format("expected a positive bandwidth such as {}, found \"{}\"", example, text)
                        : fmt::format("bandwidth \"{}\" rounds to 0 bits/s; expected at least 0.5 b/s", text));
  return Bandwidth{static_cast<std::uint64_t>(rounded)};
}

Time parse_latency(std::string_view text) {
  static constexpr std::array<UnitEntry, 7> kUnits{{
      {"ps", 1}, {"ns", 1000}, {"us", 1000000}, {"\xC2\xB5s", 1000000}, {"\xCE\xBCs", 1000000},
      {"ms", 1000000000}, {"s", 1000000000000},
  }};
  constexpr std::string_view example = "\"700ns\", \"1.5us\" or \"2ms\"";
  auto [d, unit] = split(text, "latency", example);
  const auto mult = lookup(unit, kUnits);
  if (!mult)
    throw UnitError(unit.empty() ? fmt::format("no time unit in \"{}\": expected one of ps, ns, us, ms, s (e.g. {}, or "
                                               "0s)",
                                               text, example)
                                 : fmt::format("unknown time unit \"{}\" in \"{}\": expected one of ps, ns, us, ms, s "
                                               "(e.g. {})",
                                               unit, text, example));
  const auto v = scale(d, *mult);
  // Round half up to the nearest picosecond; every value a Time holds, its maximum included, parses.
  const u128 rounded = v ? v->first + (2 * v->second >= d.den ? 1 : 0) : 0;
  if (!v || rounded > static_cast<u128>(std::numeric_limits<std::int64_t>::max()))
    throw UnitError(fmt::format("latency \"{}\" is too large", text));
  return Time{static_cast<std::int64_t>(rounded)};
}

Bandwidth bandwidth_from_bytes_per_s(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s) || bytes_per_s <= 0)
    throw UnitError(fmt::format("expected a positive, finite bandwidth in bytes/s, found {}", bytes_per_s));
  const double bits = std::round(bytes_per_s * 8.0);
  if (bits < 1.0) throw UnitError(fmt::format("bandwidth {} bytes/s rounds to zero bits/s", bytes_per_s));
  if (bits >= 1.8e19) throw UnitError(fmt::format("bandwidth {} bytes/s is too large", bytes_per_s));
  return Bandwidth{static_cast<std::uint64_t>(bits)};
}

Time latency_from_seconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw UnitError(fmt::format("expected a non-negative, finite latency in seconds, found {}", seconds));
  const double ps = std::round(seconds * 1e12);
  if (ps >= 9.2e18) throw UnitError(fmt::format("latency {} s is too large", seconds));
  return Time{static_cast<std::int64_t>(ps)};
}

std::string format_count(std::uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string format_size(Bytes bytes) {
  static constexpr std::array<std::pair<std::string_view, int>, 4> kUnits{
      {{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}}};
  for (const auto& [name, shift] : kUnits) {
    const u128 unit = u128{1} << shift;
    // Three decimals at most keep the text short; other sizes are printed in bytes.
    if (bytes >= unit && (static_cast<u128>(bytes) * 1000) % unit == 0)
      return exact_decimal(static_cast<u128>(bytes) * 1000 / unit, 3) + " " + std::string(name);
  }
  return fmt::format("{} B", bytes);
}

std::string format_bandwidth(Bandwidth bw) {
  if (bw.bits_per_s % 8 == 0) return exact_decimal(bw.bits_per_s / 8, 9) + " GB/s";
  return exact_decimal(bw.bits_per_s, 9) + " Gb/s";
}

std::string format_time(Time t) {
  static constexpr std::array<std::pair<std::string_view, int>, 4> kUnits{
      {{"s", 12}, {"ms", 9}, {"us", 6}, {"ns", 3}}};
  const std::int64_t ps = t.count();
  const u128 mag = ps < 0 ? static_cast<u128>(-static_cast<i128>(ps)) : static_cast<u128>(ps);
  for (const auto& [name, digits] : kUnits) {
    if (mag >= pow10(digits))
      return signed_exact_decimal(ps, digits) + " " + std::string(name);
  }
  return fmt::format("{} ps", ps);
}

std::string format_time_us_exact(Time t) { return signed_exact_decimal(t.count(), 6); }

double to_GBps(Bandwidth bw) { return static_cast<double>(bw.bits_per_s) / 8e9; }

double to_us(Time t) { return static_cast<double>(t.count()) / 1e6; }

}  // namespace collsim
