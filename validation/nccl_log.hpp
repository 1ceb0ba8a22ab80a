// Reading nccl-tests output as it is printed (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// broadcast_perf, reduce_perf, alltoall_perf, sendrecv_perf, any version).
//
// A log is a `#` header (version, "# Collective test starting: NAME", "# nThread T nGpus G ...", one
// "#  Rank r ... on HOST device d [BUS] NAME" line per rank, the column header), result rows, and a
// `#` footer ("# Avg bus bandwidth : X"). People often paste the result rows alone; then the rank count
// and the collective are unknown and the caller must supply them. The columns are located by the
// column header line when there is one (nccl-tests src/common.cu prints "size count type [redop]
// [root] time algbw busbw #wrong time algbw busbw #wrong"; older versions "bytes N type [op|root] time
// algbw busbw res ..." or "error" instead of "#wrong", some without the in-place group); without it
// they are inferred from the first row. Only the out-of-place group (the first time/algbw/busbw) is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/collective.hpp"
#include "sim/units/units.hpp"

namespace collsim::validation {

/// A log that cannot be read; what() is "FILE:LINE: found ..., expected ...".
class NcclLogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One result row: the out-of-place columns as printed.
struct NcclRow {
  std::size_t line = 0;      ///< 1-based line of the row in the log
  Bytes size = 0;            ///< the size column (B), as nccl-tests counts it (total over ranks for
                             ///< all-gather, reduce-scatter, all-to-all)
  std::uint64_t count = 0;   ///< elements
  std::string type;          ///< element type, e.g. "float"
  std::string redop;         ///< "sum", "none", ...; empty when the log has no such column
  std::optional<std::int64_t> root;  ///< root column (-1 when it does not apply); empty without one
  double time_us = 0;        ///< out-of-place time, microseconds (an average over iterations)
  double algbw_GBps = 0;     ///< out-of-place algbw, GB/s = 1e9 B/s
  double busbw_GBps = 0;     ///< out-of-place busbw, GB/s
};

/// The forms of a pasted log the reader accepts and reports (NcclLog::forms).
inline constexpr std::string_view kFormLabelPrefix = "label_prefix";  ///< "0: " (srun --label) or "[1,0]<stdout>:" before lines
inline constexpr std::string_view kFormHeaderWithoutHash = "header_without_hash";  ///< header lines without their '#'
inline constexpr std::string_view kFormNoFooter = "no_footer";  ///< a header but no closing "# Avg bus bandwidth" line
inline constexpr std::string_view kFormLastRowOutOfPlaceOnly = "last_row_without_in_place";  ///< the last row ends after its out-of-place columns
/// A table of comma-separated values: a header line naming the columns ("size_bytes,time_us,
/// algbw_GBps,busbw_GBps"), then one row per line, as spreadsheets and notebooks save a log's rows.
inline constexpr std::string_view kFormCsvTable = "csv_table";

/// What the header says, where it says it (0 = not said), and the rows.
struct NcclLog {
  std::string file;                 ///< the name used in messages
  std::string test;                 ///< e.g. "all_reduce_perf"; empty when the log does not say
  std::size_t test_line = 0;        ///< line of "# Collective test starting" (or of a pasted command line)
  std::optional<std::uint32_t> ranks;  ///< "# Rank" lines counted, else nThread × nGpus; empty if unknown
  std::size_t ranks_line = 0;       ///< line that gave the rank count (the last "# Rank" line or nThread)
  /// nGpus of "# nThread T nGpus G": GPUs each thread drove (nccl-tests -g G); empty if unsaid.
  std::optional<std::uint32_t> gpus_per_thread;
  std::size_t gpus_per_thread_line = 0;  ///< the nThread line (0 when none)
  std::vector<std::string> devices;  ///< device name of each rank, from the "# Rank" lines
  std::vector<std::string> hosts;    ///< distinct host names of the "# Rank" lines, in order of appearance
  std::string nccl_version;         ///< e.g. "2.29.2+cuda13.1"; empty when the log does not say
  std::vector<NcclRow> rows;        ///< in file order; never empty
  /// The pasted forms met (kForm*), in the order met; empty for a log as nccl-tests printed it (or
  /// its result rows alone).
  std::vector<std::string> forms;
};

/// Reads a log from `text`; `file` names it in messages. Throws NcclLogError
/// ("FILE:LINE: found ..., expected ...") for a garbled line, a row whose fields do not match the
/// column header (or the first row), a row whose algbw is not size / time within print rounding (one of
/// its numbers is garbled), a time that does not round to 1 ps .. 2^63 ps (the simulated clock's
/// resolution and end; 1e-310 us, 0, inf), a header whose nThread × nGpus or "# Rank" lines pass 2^20
/// ranks, and a log with no rows. It accepts, and lists in NcclLog::forms, the forms logs are pasted
/// in: a rank label before every line (srun --label "0: ", mpirun --tag-output "[1,0]<stdout>:"),
/// header lines without their '#', no closing footer, and a last row without its in-place columns
/// (a row so short that is followed by rows is refused). Lines "NCCL version ...", and NCCL's own
/// "NCCL INFO"/"NCCL WARN" diagnostics, are skipped; a command line above the rows that runs an nccl-tests program ("... all_reduce_perf -b 8")
/// names the program when no "# Collective test starting" line does. A comma-separated table
/// (kFormCsvTable) is read by its header's column names (size or size_bytes, time or time_us in
/// microseconds, algbw or algbw_GBps, busbw or busbw_GBps; count, type, redop and root when present),
/// with "# gpu_count: N" and "# collective: NAME" comment lines giving the ranks and the program
/// where nothing else does. A column header is a line whose first word is "size" or "bytes" (a
/// comment that merely names the columns is not one).
NcclLog parse_nccl_log(std::string_view text, std::string file);

/// Reads the log file at `path`; throws NcclLogError naming it when it cannot be read.
NcclLog read_nccl_log(const std::string& path);

/// The collsim collective an nccl-tests program measures ("all_reduce_perf", also without "_perf" or
/// written as collsim spells it, e.g. "allreduce"); nullopt for programs collsim does not simulate
/// (sendrecv_perf, gather_perf, ...) or unknown names.
std::optional<sched::Collective> collective_of_test(std::string_view test);

}  // namespace collsim::validation
