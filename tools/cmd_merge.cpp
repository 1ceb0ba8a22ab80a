// collsim merge: join the shard files of a sweep (--shard I/K) into the file one unsharded run
// writes: one header, the rows in their order (by the row column).
#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"
#include "tools/atomic_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {
namespace {

std::uint64_t row_number(const std::string& path, std::size_t record, std::string_view text) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw UsageError(fmt::format("merge: {} record {}: found row \"{}\", expected a row number (a file of collsim sweep)",
                                 path, record, text));
  return v;
}

// Refuses a merge that leaves out a shard. Shard I of K holds rows I, I+K, I+2K, ... less the rows
// an algorithm could not run (which no file holds), so the gaps between the rows of one file are
// multiples of K and their gcd over all files, g, is K or (only when whole rows are skipped in a
// pattern) a multiple of it. The files are complete when they are K = g shards that hold every
// residue mod g, or when the n files given are the n shards of a sweep with rows skipped (each file
// one residue mod n, all residues present; then g is a multiple of n). A shard whose rows were all
// skipped holds none and may stand for one missing residue. A single file, or files with at most
// one row each, cannot show a gap and pass.
void check_all_shards(const std::vector<std::vector<std::uint64_t>>& file_rows) {
  std::uint64_t g = 0;
  std::size_t empty = 0;
  for (const auto& rows : file_rows) {
    empty += rows.empty() ? 1 : 0;
    for (std::size_t i = 1; i < rows.size(); ++i) g = std::gcd(g, rows[i] - rows[i - 1]);
  }
  if (g < 2) return;
  const std::uint64_t n = file_rows.size();
  // The residues mod m that the files hold; false when one file holds two (so m is not the shard count).
  const auto residues = [&](std::uint64_t m, std::set<std::uint64_t>& out) {
    for (const auto& rows : file_rows)
      for (std::uint64_t r : rows) {
        if (r % m != rows.front() % m) return false;
        out.insert(r % m);
      }
    return true;
  };
  std::set<std::uint64_t> by_files;
  if (g % n == 0 && residues(n, by_files) && by_files.size() + empty == n) return;
  std::set<std::uint64_t> held;
  residues(g, held);
  if (held.size() + empty >= g) return;
  std::uint64_t first = 0;
  while (held.count(first) != 0) ++first;
  throw UsageError(fmt::format("merge: no file holds row {} (rows {}, {}, ... of shard {}/{}): {} of {} shard(s) are "
                               "missing; expected every shard's file of the sweep",
                               first, first, first + g, first, g, g - held.size() - empty, g));
}

}  // namespace

CLI::App* add_merge(CLI::App& app, MergeOptions& o) {
  auto* cmd = app.add_subcommand("merge", "Join the shard files of a sweep (--shard I/K) into the file one unsharded "
                                          "run writes");
  cmd->add_option("shards", o.shards, "The shard files (CSV or JSON lines of collsim sweep), in any order")->required();
  add_value(*cmd, "-o,--output", o.output, "Write here (atomically) instead of standard output");
  return cmd;
}

int run_merge(const MergeOptions& o, std::ostream& out) {
  if (!o.output.empty()) check_output_path("-o", o.output);  // before reading the shards
  std::optional<std::string> header;
  bool json = false;
  std::map<std::uint64_t, std::pair<std::string, std::string>> rows;  // row -> (record, file)
  std::vector<std::vector<std::uint64_t>> file_rows(o.shards.size());  // each file's rows, in file order
  for (std::size_t f = 0; f < o.shards.size(); ++f) {
    const std::string& path = o.shards[f];
    const std::string text = read_input_file("merge", path);
    const bool is_json = !text.empty() && text.front() == '{';
    if (f > 0 && is_json != json)
      throw UsageError(fmt::format("merge: {} is {}, but {} is {}; expected shards of one sweep", path,
                                   is_json ? "JSON lines" : "CSV", o.shards[0], json ? "JSON lines" : "CSV"));
    json = is_json;
    std::vector<std::string> records;
    try {
      records = json ? std::vector<std::string>{} : reports::split_csv_records(text);
    } catch (const reports::CsvError& e) {
      throw UsageError(fmt::format("merge: {}: {}", path, e.what()));
    }
    if (json) {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) records.push_back(line);
    } else {
      if (records.empty()) throw UsageError(fmt::format("merge: {}: found an empty file, expected a CSV header", path));
      if (header && *header != records.front())
        throw UsageError(fmt::format("merge: {}: its header differs from that of {}; expected shards of one sweep", path,
                                     o.shards[0]));
      header = records.front();
    }
    for (std::size_t r = json ? 0 : 1; r < records.size(); ++r) {
      std::uint64_t row = 0;
      if (json) {
        const auto j = nlohmann::json::parse(records[r], nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("row") || !j["row"].is_number_unsigned())
          throw UsageError(fmt::format("merge: {} line {}: expected a JSON object with a \"row\" number", path, r + 1));
        row = j["row"].get<std::uint64_t>();
      } else {
        std::vector<std::string> fields;
        try {
          fields = reports::parse_csv_record(records[r]);
        } catch (const reports::CsvError& e) {
          throw UsageError(fmt::format("merge: {} record {}: {}", path, r + 1, e.what()));
        }
        row = row_number(path, r + 1, fields.front());
      }
      file_rows[f].push_back(row);
      const auto [it, added] = rows.try_emplace(row, records[r], path);
      if (!added)
        throw UsageError(fmt::format("merge: row {} is in both {} and {}; expected each shard once", row, it->second.second,
                                     path));
    }
  }
  for (auto& r : file_rows) std::sort(r.begin(), r.end());
  check_all_shards(file_rows);
  const auto write = [&](std::ostream& s) {
    if (header) s << *header << "\n";
    for (const auto& [row, record] : rows) s << record.first << "\n";
  };
  if (o.output.empty()) {
    write(out);
  } else {
    write_file_atomically(o.output, write);
  }
  return kExitOk;
}

}  // namespace collsim::cli
