// The names of an enum's values as one constexpr table: the name written for each value, the
// spellings read back, and the "a, b or c" lists of error messages, all from the same entries.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace collsim {

/// How parse() compares text with the names: exactly; ignoring ASCII case; or ignoring ASCII case
/// and every '-' and '_' ("all-reduce", "All_Reduce" and "allreduce" read the same).
enum class NameMatch : unsigned char { Exact, IgnoreCase, IgnoreCaseAndSeparators };

/// How list() joins the canonical names: "a, b, c"; "a, b or c"; "\"a\", \"b\" or \"c\"".
enum class ListStyle : unsigned char { Comma, Or, QuotedOr };

/// One value's names: `name` is the one written and listed; `aliases` are other spellings parse()
/// also accepts (unused slots stay null). The aliases are C strings because GCC 12 cannot read a
/// std::string_view array element left out of a braced initializer in a constant expression.
template <class E>
struct EnumName {
  /// The most aliases one value can have.
  static constexpr std::size_t kMaxAliases = 3;
  E value;
  std::string_view name;
  std::array<const char*, kMaxAliases> aliases{};
};

/// The names of every value of enum E, in listing order.
template <class E, std::size_t N>
class EnumNames {
  static_assert(std::is_enum_v<E>);

 public:
  /// A table of `entries` read back with `match`.
  constexpr EnumNames(const std::array<EnumName<E>, N>& entries, NameMatch match) : entries_(entries), match_(match) {}

  /// The canonical name of `value`; "?" for a value the table does not hold.
  [[nodiscard]] constexpr std::string_view name(E value) const noexcept {
    for (const EnumName<E>& e : entries_)
      if (e.value == value) return e.name;
    return "?";
  }

  /// The value whose name or alias matches `text` (see NameMatch); nullopt for anything else.
  [[nodiscard]] constexpr std::optional<E> parse(std::string_view text) const noexcept {
    for (const EnumName<E>& e : entries_) {
      if (same(text, e.name)) return e.value;
      for (const char* alias : e.aliases)
        if (alias != nullptr && same(text, alias)) return e.value;
    }
    return std::nullopt;
  }

  /// The canonical names in table order, joined as `style` says.
  [[nodiscard]] std::string list(ListStyle style = ListStyle::Comma) const {
    const bool quoted = style == ListStyle::QuotedOr;
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) out += (style != ListStyle::Comma && i + 1 == N) ? " or " : ", ";
      if (quoted) out += '"';
      out += entries_[i].name;
      if (quoted) out += '"';
    }
    return out;
  }

  /// The values in table order.
  [[nodiscard]] constexpr std::array<E, N> values() const noexcept {
    std::array<E, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = entries_[i].value;
    return out;
  }

  /// The canonical names in table order.
  [[nodiscard]] constexpr std::array<std::string_view, N> names() const noexcept {
    std::array<std::string_view, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = entries_[i].name;
    return out;
  }

  /// The entries in table order.
  [[nodiscard]] constexpr std::span<const EnumName<E>, N> entries() const noexcept { return entries_; }

  /// The number of values.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }

  /// True when the values are exactly 0 .. N-1 in some order, so an enum whose enumerators are
  /// 0 .. N-1 (the default numbering) has a name for every enumerator.
  [[nodiscard]] constexpr bool dense() const noexcept {
    std::array<bool, N> seen{};
    for (const EnumName<E>& e : entries_) {
      const auto v = static_cast<std::size_t>(e.value);
      if (v >= N || seen[v]) return false;
      seen[v] = true;
    }
    return true;
  }

  /// True when every name and alias is non-empty and no two of them (over all entries) match each
  /// other under the table's NameMatch, so parse() is unambiguous.
  [[nodiscard]] constexpr bool distinct() const noexcept {
    constexpr std::size_t kSlots = 1 + EnumName<E>::kMaxAliases;
    for (const EnumName<E>& e : entries_) {
      if (e.name.empty()) return false;
      for (const char* alias : e.aliases)
        if (alias != nullptr && *alias == '\0') return false;
    }
    for (std::size_t i = 0; i < N * kSlots; ++i) {
      const std::string_view a = spelling(i, kSlots);
      if (a.empty()) continue;
      for (std::size_t j = i + 1; j < N * kSlots; ++j) {
        const std::string_view b = spelling(j, kSlots);
        if (!b.empty() && same(a, b)) return false;
      }
    }
    return true;
  }

 private:
  static constexpr char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
  static constexpr bool separator(char c) noexcept { return c == '-' || c == '_'; }

  // Spelling k of all: entry k / slots, its name for slot 0, else alias slot - 1 ("" when unused).
  [[nodiscard]] constexpr std::string_view spelling(std::size_t k, std::size_t slots) const noexcept {
    const EnumName<E>& e = entries_[k / slots];
    if (k % slots == 0) return e.name;
    const char* alias = e.aliases[k % slots - 1];
    return alias == nullptr ? std::string_view() : std::string_view(alias);
  }

  // True when `a` and `b` read the same under match_.
  [[nodiscard]] constexpr bool same(std::string_view a, std::string_view b) const noexcept {
    if (match_ == NameMatch::Exact) return a == b;
    const bool skip = match_ == NameMatch::IgnoreCaseAndSeparators;
    std::size_t i = 0, j = 0;
    for (;;) {
      while (skip && i < a.size() && separator(a[i])) ++i;
      while (skip && j < b.size() && separator(b[j])) ++j;
      if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
      if (lower(a[i]) != lower(b[j])) return false;
      ++i;
      ++j;
    }
  }

  std::array<EnumName<E>, N> entries_;
  NameMatch match_;
};

/// Builds an EnumNames for E from a braced list, its size deduced:
/// `make_enum_names<Color>({{Color::Red, "red"}, {Color::Blue, "blue", {"navy"}}}, NameMatch::IgnoreCase)`.
template <class E, std::size_t N>
constexpr EnumNames<E, N> make_enum_names(const EnumName<E> (&entries)[N], NameMatch match = NameMatch::Exact) {
  return EnumNames<E, N>(std::to_array(entries), match);
}

}  // namespace collsim
