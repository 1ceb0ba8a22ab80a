#include "sim/json/strict_json.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace collsim::strictjson {
namespace {

using nlohmann::json;

// 1-based line and column of byte offset `pos` in `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// A first, DOM-free pass that rejects what nlohmann accepts silently: a key given twice in one
// object (the last would win) and absurd nesting; syntax errors surface here with their position.
// (nlohmann's parser callback would do the same in one pass, but its end_object scans the whole
// parent array for discarded values, which is quadratic in the size of an array of objects.)
class Strictness : public nlohmann::json_sax<json> {
 public:
  explicit Strictness(std::string_view where) : where_(where) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return enter();
  }
  bool key(string_t& key) override {
    if (!keys_.back().insert(key).second)
      throw JsonSyntaxError(
          fmt::format("{}: invalid JSON: key \"{}\" appears twice in one object, expected it once", where_, key));
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // Rethrown as the concrete type, so that parse_strict() reports the position.
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) throw *pe;
    if (const auto* oe = dynamic_cast<const json::out_of_range*>(&e)) throw *oe;
    throw JsonSyntaxError(fmt::format("{}: invalid JSON: {}", where_, e.what()));
  }

 private:
  bool enter() {
    if (++depth_ > kMaxDepth)
      throw JsonSyntaxError(fmt::format("{}: invalid JSON: nested deeper than {} levels", where_, kMaxDepth));
    return true;
  }
  std::string where_;
  int depth_ = 0;
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

json parse_strict(std::string_view text, std::string_view where) {
  try {
    Strictness strict(where);
    (void)json::sax_parse(text, &strict);
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the offending character.
    const auto [line, col] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string detail = e.what();
    if (auto p = detail.find("column"); p != std::string::npos) {
      if (auto q = detail.find(": ", p); q != std::string::npos) detail = detail.substr(q + 2);
    }
    throw JsonSyntaxError(fmt::format("{}:{}:{}: invalid JSON: {}", where, line, col, detail));
  } catch (const json::exception& e) {
    // e.g. out_of_range 406, a number too large for a double: no position is given.
    std::string detail = e.what();
    if (auto p = detail.find("] "); p != std::string::npos) detail = detail.substr(p + 2);
    throw JsonSyntaxError(fmt::format("{}: invalid JSON: {}", where, detail));
  }
}

std::string brief(const json& value) {
  std::string s = value.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace collsim::strictjson
