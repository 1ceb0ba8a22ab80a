#include "run/sweep_merge.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"
#include "reports/sweep_row.hpp"
#include "run/errors.hpp"
#include "run/parse.hpp"
#include "run/sweep_shard.hpp"
#include "sim/io/text_file.hpp"

namespace collsim::run {
namespace {

// An error about the shard file `path` ("" when it is about the set of files).
RequestError shard_error(const std::string& path, std::string message) {
  return RequestError(Field::Shards, path, std::move(message));
}


// One record of a shard file, without its line ending, and the line it starts on (1-based).
struct Record {
  std::string text;
  std::size_t line = 0;
};

// The records of `text` after its first line: CSV records (a quoted field may hold line breaks) or
// JSON lines. The caller has checked that `text` ends with a line break.
std::vector<Record> records_after_head(std::string_view text, bool csv) {
  std::vector<Record> out;
  std::size_t line = 2;
  std::size_t pos = text.find('\n') + 1;
  while (pos < text.size()) {
    std::size_t end = pos;
    std::size_t breaks = 0;
    for (bool quoted = false; end < text.size() && (quoted || text[end] != '\n'); ++end) {
      if (csv && text[end] == '"') quoted = !quoted;
      if (text[end] == '\n') ++breaks;
    }
    std::string_view r = text.substr(pos, end - pos);
    if (r.ends_with('\r')) r.remove_suffix(1);
    out.push_back({std::string(r), line});
    line += breaks + 1;
    pos = end + 1;
  }
  return out;
}


// "shard 1/3 of sweep 0123456789abcdef (36 rows, csv)"
std::string describe(const ShardHead& h) {
  return fmt::format("shard {}/{} of sweep {} ({} rows, {})", h.index, h.count, h.sweep, h.rows, h.format);
}

// What every error about one shard's content tells the user to do.
std::string rerun(const ShardHead& h) {
  return fmt::format("expected the whole file of shard {}/{}: run that shard again", h.index, h.count);
}

// One shard file, read and checked against its own head and end lines.
struct Shard {
  ShardHead head;
  std::string path;
  std::vector<std::pair<std::uint64_t, std::string>> rows;  // (row, record), ascending
  std::string header;  // CSV: its header record
};

// The number in the row field of `r` (a CSV record or JSON line of `path`), checked to be a whole
// record of `columns` fields.
std::uint64_t record_row(const std::string& path, const ShardHead& head, const Record& r, std::size_t columns) {
  if (head.format == "json") {
    const auto j = nlohmann::json::parse(r.text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("row") || !j["row"].is_number_unsigned())
      throw shard_error(path, fmt::format("merge: {} line {}: found no JSON object with a \"row\" number; {}", path, r.line,
                                   rerun(head)));
    if (j.size() != columns)
      throw shard_error(path, fmt::format("merge: {} line {}: row {} has {} of {} keys (cut short?); {}", path, r.line,
                                   j["row"].get<std::uint64_t>(), j.size(), columns, rerun(head)));
    return j["row"].get<std::uint64_t>();
  }
  std::vector<std::string> fields;
  try {
    fields = reports::parse_csv_record(r.text);
  } catch (const reports::CsvError& e) {
    throw shard_error(path, fmt::format("merge: {} line {}: {}; {}", path, r.line, e.what(), rerun(head)));
  }
  const auto row = whole_number(fields.front());
  if (!row)
    throw shard_error(path, fmt::format("merge: {} line {}: found row \"{}\", expected a row number; {}", path, r.line,
                                 fields.front(), rerun(head)));
  if (fields.size() != columns)
    throw shard_error(path, fmt::format("merge: {} line {}: row {} has {} of {} fields (cut short?); {}", path, r.line, *row,
                                 fields.size(), columns, rerun(head)));
  return *row;
}

Shard read_shard(const std::string& path) {
  std::string text;
  try {
    text = io::read_text_file(path, "a shard file");
  } catch (const io::FileReadError& e) {
    throw shard_error(path, fmt::format("merge: {}", e.what()));
  }
  const std::string_view first(text.data(), std::min(text.find('\n'), text.size()));
  const auto head = parse_shard_head(first);
  if (!head) {
    if (first.starts_with(kShardLinePrefix))
      throw shard_error(path, fmt::format("merge: {} line 1: found a malformed shard line \"{}\"; expected \"{}I/K sweep=HEX "
                                   "rows=N format=csv|json\"",
                                   path, first, kShardLinePrefix));
    if (first.starts_with("row,") || first.starts_with("{\"row\""))
      throw shard_error(path, fmt::format("merge: {}: has no \"{}I/K ...\" first line: it is the output of a sweep without "
                                   "{}, or a shard written by an older collsim that did not say its sweep; "
                                   "expected shard files of this collsim: run the shards again with it",
                                   path, kShardLinePrefix, ref(Field::Shard)));
    throw shard_error(path, fmt::format("merge: {}: found {}, expected a shard file of collsim sweep {} I/K (its first "
                                 "line \"{}I/K ...\")",
                                 path, text.empty() ? "an empty file" : "no shard line", ref(Field::Shard), kShardLinePrefix));
  }
  if (first.size() == text.size())
    throw shard_error(path, fmt::format("merge: {} line 1: the last line is cut short (no line break at its end); {}", path,
                                 rerun(*head)));
  Shard s{*head, path, {}, {}};
  const bool csv = head->format == "csv";
  const auto header_fields = reports::parse_csv_record(std::string_view(reports::sweep_csv_header()).substr(
      0, reports::sweep_csv_header().size() - 1));
  const std::size_t columns = header_fields.size();
  std::vector<Record> records = records_after_head(text, csv);
  if (!text.ends_with('\n')) {
    // Cut mid-line: say how much of the last row is there.
    const Record& last = records.back();
    std::string held;
    if (csv && !last.text.starts_with('#')) {
      try {
        held = fmt::format(": it holds {} of {} fields", reports::parse_csv_record(last.text).size(), columns);
      } catch (const reports::CsvError&) {
        held = ": it ends inside a quoted field";
      }
    }
    throw shard_error(path, fmt::format("merge: {} line {}: the last line is cut short (no line break at its end){}; {}", path,
                                 last.line, held, rerun(*head)));
  }
  const std::size_t lines = records.empty() ? 1 : records.back().line;
  std::optional<std::vector<std::uint64_t>> skipped;
  if (!records.empty()) skipped = parse_shard_end(records.back().text, *head);
  if (!skipped) {
    if (!records.empty() && records.back().text.starts_with(kShardLinePrefix))
      throw shard_error(path, fmt::format("merge: {} line {}: found a malformed end line \"{}\"; expected \"{}{}/{} end "
                                   "skipped=LIST\"",
                                   path, lines, records.back().text, kShardLinePrefix, head->index, head->count));
    throw shard_error(path, fmt::format("merge: {}: ends at line {} without its end line (\"{}{}/{} end ...\"): the file is cut "
                                 "short; {}",
                                 path, lines, kShardLinePrefix, head->index, head->count, rerun(*head)));
  }
  records.pop_back();
  std::size_t r = 0;
  if (csv) {
    if (records.empty() || records.front().text + "\n" != reports::sweep_csv_header())
      throw shard_error(path, fmt::format("merge: {} line 2: found {}, expected the CSV header of this collsim's sweep "
                                   "(\"row,topology,...\")",
                                   path, records.empty() ? "no header" : "another header"));
    s.header = records.front().text;
    r = 1;
  }
  // The rows the shard holds, in order: I, I+K, ... below N, less the skipped ones.
  std::uint64_t expected = head->index;
  std::size_t next_skipped = 0;
  const auto advance = [&] {
    for (; expected < head->rows; expected += head->count) {
      if (next_skipped < skipped->size() && (*skipped)[next_skipped] == expected) {
        ++next_skipped;
        continue;
      }
      return;
    }
  };
  advance();
  for (; r < records.size(); ++r) {
    const std::uint64_t row = record_row(path, *head, records[r], columns);
    if (row != expected) {
      const bool lost = expected < head->rows && row > expected && row < head->rows && row % head->count == head->index;
      if (lost)
        throw shard_error(path, fmt::format("merge: {} line {}: found row {}, expected row {}: the file has lost row {} of "
                                     "shard {}/{}; {}",
                                     path, records[r].line, row, expected, expected, head->index, head->count,
                                     rerun(*head)));
      throw shard_error(path, fmt::format("merge: {} line {}: found row {}, expected {} (shard {}/{} holds rows {}, {}, ... "
                                   "below {}, in order, less those its end line says were skipped)",
                                   path, records[r].line, row,
                                   expected < head->rows ? fmt::format("row {}", expected) : std::string("its end line"),
                                   head->index, head->count, head->index, head->index + head->count, head->rows));
    }
    s.rows.emplace_back(row, std::move(records[r].text));
    expected += head->count;
    advance();
  }
  if (expected < head->rows)
    throw shard_error(path, fmt::format("merge: {} line {}: found its end line, expected row {}: the file has lost row {} of "
                                 "shard {}/{}; {}",
                                 path, lines, expected, expected, head->index, head->count, rerun(*head)));
  return s;
}

}  // namespace

std::string merge_shards(const std::vector<std::string>& paths) {
  std::vector<Shard> shards;
  std::map<std::uint32_t, std::string> by_index;  // shard I -> its file
  for (const auto& path : paths) {
    Shard s = read_shard(path);
    if (!shards.empty()) {
      const ShardHead& a = shards.front().head;
      const ShardHead& b = s.head;
      if (a.sweep != b.sweep || a.count != b.count || a.rows != b.rows || a.format != b.format)
        throw shard_error(path, fmt::format("merge: {} is {}, but {} is {}; expected shards of one sweep (the same command "
                                     "with {} 0/K .. K-1/K)",
                                     path, describe(b), shards.front().path, describe(a), ref(Field::Shard)));
    }
    const auto [it, added] = by_index.try_emplace(s.head.index, path);
    if (!added)
      throw shard_error(path, fmt::format("merge: shard {}/{} is in both {} and {}; expected each shard once", s.head.index,
                                   s.head.count, it->second, path));
    shards.push_back(std::move(s));
  }
  const ShardHead& head = shards.front().head;
  for (std::uint32_t i = 0; i < head.count; ++i) {
    if (by_index.count(i) != 0) continue;
    const std::size_t missing = head.count - by_index.size();
    if (i < head.rows)
      throw shard_error("", fmt::format("merge: no file holds row {} (rows {}, {}, ... of shard {}/{}): {} of {} shard(s) "
                                   "are missing; expected every shard's file of sweep {}",
                                   i, i, i + head.count, i, head.count, missing, head.count, head.sweep));
    throw shard_error("", fmt::format("merge: no file is shard {}/{} (which holds no row): {} of {} shard(s) are missing; "
                                 "expected every shard's file of sweep {}",
                                 i, head.count, missing, head.count, head.sweep));
  }
  // Every row of the sweep is now in exactly one shard (each held its own rows, all of them).
  std::vector<std::pair<std::uint64_t, const std::string*>> rows;
  for (const auto& s : shards)
    for (const auto& [row, record] : s.rows) rows.emplace_back(row, &record);
  std::sort(rows.begin(), rows.end());
  std::string merged;
  if (head.format == "csv") merged += shards.front().header + "\n";
  for (const auto& [row, record] : rows) {
    merged += *record;
    merged += '\n';
  }
  return merged;
}

}  // namespace collsim::run
