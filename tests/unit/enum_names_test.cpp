// EnumNames (sim/units/enum_names.hpp): names, parsing under each NameMatch, aliases, the three list
// styles, and the dense/distinct checks, on small tables made here.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/units/enum_names.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace enum_names_test {

using collsim::EnumName;
using collsim::ListStyle;
using collsim::make_enum_names;
using collsim::NameMatch;

namespace {

enum class Color : std::uint8_t { Red, Green, DarkBlue };

constexpr auto kExact = make_enum_names<Color>(
    {{Color::Red, "red"}, {Color::Green, "green", {"lime"}}, {Color::DarkBlue, "dark-blue", {"dark_blue", "navy"}}});
constexpr auto kCase = make_enum_names<Color>(
    {{Color::Red, "red"}, {Color::Green, "green", {"lime"}}, {Color::DarkBlue, "darkblue"}}, NameMatch::IgnoreCase);
constexpr auto kLoose = make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "green"}, {Color::DarkBlue, "darkblue"}},
                                               NameMatch::IgnoreCaseAndSeparators);

// Usable in constant expressions.
static_assert(kExact.name(Color::Green) == "green");
static_assert(kExact.parse("navy") == Color::DarkBlue);
static_assert(kExact.dense() && kExact.distinct());
static_assert(decltype(kExact)::size() == 3);

}  // namespace

TEST_CASE("enum names: name and parse round-trip for every entry, aliases read as their value") {
  for (const auto& table : {kExact, kCase, kLoose})
    for (const EnumName<Color>& e : table.entries()) {
      CHECK(table.name(e.value) == e.name);
      CHECK(table.parse(e.name) == e.value);
    }
  CHECK(kExact.parse("lime") == Color::Green);
  CHECK(kExact.parse("dark_blue") == Color::DarkBlue);
  CHECK(kExact.parse("navy") == Color::DarkBlue);
  CHECK(kCase.parse("LIME") == Color::Green);
  // The canonical name is what name() gives, never an alias.
  CHECK(kExact.name(Color::DarkBlue) == "dark-blue");
}

TEST_CASE("enum names: unknown text and values outside the table") {
  CHECK_FALSE(kExact.parse("").has_value());
  CHECK_FALSE(kExact.parse("blue").has_value());
  CHECK_FALSE(kExact.parse("red ").has_value());
  CHECK_FALSE(kExact.parse("re").has_value());
  CHECK_FALSE(kExact.parse("redd").has_value());
  CHECK(kExact.name(static_cast<Color>(7)) == "?");
  const auto partial = make_enum_names<Color>({{Color::Red, "red"}});
  CHECK(partial.name(Color::Green) == "?");
}

TEST_CASE("enum names: Exact compares bytes, IgnoreCase ASCII case, IgnoreCaseAndSeparators also drops - and _") {
  CHECK_FALSE(kExact.parse("Red").has_value());
  CHECK_FALSE(kExact.parse("darkblue").has_value());

  CHECK(kCase.parse("RED") == Color::Red);
  CHECK(kCase.parse("GrEeN") == Color::Green);
  CHECK_FALSE(kCase.parse("dark-blue").has_value());
  CHECK_FALSE(kCase.parse("r-ed").has_value());

  CHECK(kLoose.parse("Dark-Blue") == Color::DarkBlue);
  CHECK(kLoose.parse("dark_blue") == Color::DarkBlue);
  CHECK(kLoose.parse("-_d-a-r-k-b-l-u-e_-") == Color::DarkBlue);
  CHECK(kLoose.parse("RED") == Color::Red);
  CHECK_FALSE(kLoose.parse("dark blue").has_value());  // a space is not a separator
  CHECK_FALSE(kLoose.parse("--").has_value());
  CHECK_FALSE(kLoose.parse("").has_value());
  // Bytes outside ASCII are compared as they are.
  CHECK_FALSE(kLoose.parse("r\xC3\xA9" "d").has_value());
}

TEST_CASE("enum names: list joins the canonical names in table order") {
  CHECK(kExact.list() == "red, green, dark-blue");
  CHECK(kExact.list(ListStyle::Comma) == "red, green, dark-blue");
  CHECK(kExact.list(ListStyle::Or) == "red, green or dark-blue");
  CHECK(kExact.list(ListStyle::QuotedOr) == "\"red\", \"green\" or \"dark-blue\"");

  const auto two = make_enum_names<Color>({{Color::Green, "green"}, {Color::Red, "red"}});
  CHECK(two.list() == "green, red");
  CHECK(two.list(ListStyle::Or) == "green or red");
  CHECK(two.list(ListStyle::QuotedOr) == "\"green\" or \"red\"");

  const auto one = make_enum_names<Color>({{Color::Red, "red"}});
  CHECK(one.list() == "red");
  CHECK(one.list(ListStyle::Or) == "red");
  CHECK(one.list(ListStyle::QuotedOr) == "\"red\"");
}

TEST_CASE("enum names: values and names follow table order, not enum order") {
  const auto swapped = make_enum_names<Color>({{Color::DarkBlue, "blue"}, {Color::Red, "red"}, {Color::Green, "green"}});
  CHECK(swapped.values() == std::array{Color::DarkBlue, Color::Red, Color::Green});
  CHECK(swapped.names() == std::array<std::string_view, 3>{"blue", "red", "green"});
  CHECK(swapped.dense());
}

TEST_CASE("enum names: dense needs each of 0 .. N-1 once, distinct needs unambiguous names") {
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red"}, {Color::Red, "rouge"}}).dense());
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red"}, {Color::DarkBlue, "blue"}}).dense());
  CHECK(make_enum_names<Color>({{Color::Green, "green"}, {Color::Red, "red"}}).dense());

  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "red"}}).distinct());
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red", {"x"}}, {Color::Green, "green", {"x"}}}).distinct());
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "green", {"red"}}}).distinct());
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, ""}}).distinct());
  // Names that differ only as the table's match ignores are ambiguous.
  CHECK(make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "RED"}}).distinct());
  CHECK_FALSE(make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "RED"}}, NameMatch::IgnoreCase).distinct());
  CHECK_FALSE(
      make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "r-ed"}}, NameMatch::IgnoreCaseAndSeparators).distinct());
  CHECK(make_enum_names<Color>({{Color::Red, "red"}, {Color::Green, "r-ed"}}, NameMatch::IgnoreCase).distinct());
}
}  // namespace enum_names_test
