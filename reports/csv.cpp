#include "reports/csv.hpp"

#include <fmt/format.h>

namespace collsim::reports {

std::string csv_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<std::string> split_csv_records(std::string_view text) {
  std::vector<std::string> records;
  std::string current;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') quoted = !quoted;  // a doubled quote toggles twice: no net change
    if (!quoted && (c == '\n' || c == '\r')) {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      records.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (quoted) throw CsvError(fmt::format("record {}: a quoted field is not closed", records.size() + 1));
  if (!current.empty()) records.push_back(std::move(current));
  return records;
}

std::vector<std::string> parse_csv_record(std::string_view record) {
  std::vector<std::string> fields(1);
  std::size_t i = 0;
  while (i <= record.size()) {
    std::string& f = fields.back();
    if (i < record.size() && record[i] == '"') {
      for (++i;; ++i) {
        if (i >= record.size()) throw CsvError("a quoted field is not closed");
        if (record[i] != '"') {
          f += record[i];
        } else if (i + 1 < record.size() && record[i + 1] == '"') {
          f += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
      if (i < record.size() && record[i] != ',')
        throw CsvError(fmt::format("found \"{}\" after a closing quote, expected a comma", record[i]));
    } else {
      while (i < record.size() && record[i] != ',') {
        if (record[i] == '"') throw CsvError("found a quote inside an unquoted field, expected the field quoted");
        f += record[i++];
      }
    }
    if (i >= record.size()) break;
    ++i;  // the comma
    fields.emplace_back();
  }
  return fields;
}

}  // namespace collsim::reports
