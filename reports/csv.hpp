// RFC 4180 CSV: quoting a field for writing, and splitting a document into records and fields for
// the commands that read CSV back (merge, plot).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::reports {

/// Thrown for text that is not RFC 4180 CSV; what() says where (record number, 1-based) and why.
class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `s` as a CSV field: unchanged, or in double quotes (inner quotes doubled) when it holds a comma,
/// a quote or a line break.
std::string csv_field(std::string_view s);

/// An optional number as a CSV field: its shortest form that reads back to the same double
/// (fmt's "{}"), or empty when absent (a bandwidth of a zero-byte row, say).
std::string csv_number(const std::optional<double>& v);

/// The records of `text` without their line endings (CRLF or LF; a quoted field may hold line
/// breaks). A final line ending is optional; an empty document has no records. Throws CsvError
/// for an unterminated quote.
std::vector<std::string> split_csv_records(std::string_view text);

/// The fields of one record (as split_csv_records returns it), unquoted. Throws CsvError for a
/// quote in the middle of an unquoted field or text after a closing quote.
std::vector<std::string> parse_csv_record(std::string_view record);

}  // namespace collsim::reports
