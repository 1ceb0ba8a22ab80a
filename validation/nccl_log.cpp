#include "validation/nccl_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "sim/io/text_file.hpp"

namespace collsim::validation {
namespace {

// The most ranks a log may say it ran on: as many as `--gpus` generates (2^20), far above any machine
// nccl-tests has run on, and within the 32 bits a rank count has.
constexpr std::uint64_t kMaxLogRanks = std::uint64_t{1} << 20;

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

std::string join(const std::vector<std::string_view>& words, std::size_t from = 0) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) out += fmt::format("{}{}", out.empty() ? "" : " ", words[i]);
  return out;
}

// What a message quotes of a field: short, so that an error stays one line.
std::string quote_field(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return s.size() <= kMax ? fmt::format("\"{}\"", s) : fmt::format("\"{}...\"", s.substr(0, kMax));
}

template <typename T>
std::optional<T> to_number(std::string_view s) {
  T v{};
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_number(std::string_view s) { return to_number<double>(s).has_value(); }

// Where the fields of a result row are; npos for a column the log does not have.
struct Layout {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t fields = 0;
  std::size_t size = npos, count = npos, type = npos, redop = npos, root = npos;
  std::size_t time = npos, algbw = npos, busbw = npos;
  /// Where the in-place group (a second time algbw busbw #wrong) begins; npos without one. A pasted
  /// log's last row may end there.
  std::size_t in_place = npos;
  std::string names;  // the columns, for messages
};

// From the column header ("size count type redop root time algbw busbw #wrong time ..."); nullopt
// when `words` is not one.
std::optional<Layout> layout_from_header(const std::vector<std::string_view>& words) {
  Layout l;
  l.fields = words.size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = words[i];
    if ((w == "size" || w == "bytes") && l.size == Layout::npos) l.size = i;
    else if ((w == "count" || w == "N") && l.count == Layout::npos) l.count = i;
    else if (w == "type" && l.type == Layout::npos) l.type = i;
    else if ((w == "redop" || w == "op") && l.redop == Layout::npos) l.redop = i;
    else if (w == "root" && l.root == Layout::npos) l.root = i;
    else if (w == "time" && l.time == Layout::npos) l.time = i;
    else if (w == "time" && l.in_place == Layout::npos) l.in_place = i;
    // The out-of-place group comes first: the first algbw/busbw after the first time.
    else if (w == "algbw" && l.time != Layout::npos && l.algbw == Layout::npos) l.algbw = i;
    else if (w == "busbw" && l.time != Layout::npos && l.busbw == Layout::npos) l.busbw = i;
  }
  if (l.size == Layout::npos || l.time == Layout::npos) return std::nullopt;
  // A row may end where the in-place group begins only if every column it needs comes before it
  // (a garbled header can put the out-of-place busbw, or count, after the second time).
  if (l.in_place != Layout::npos)
    for (std::size_t used : {l.size, l.count, l.type, l.redop, l.root, l.time, l.algbw, l.busbw})
      if (used != Layout::npos && used >= l.in_place) l.in_place = Layout::npos;
  l.names = join(words);
  return l;
}

// Without a column header: size count type [redop] [root], then one or two groups of
// time algbw busbw #wrong (out-of-place, in-place), as every version prints them.
std::optional<Layout> layout_from_row(const std::vector<std::string_view>& words) {
  if (words.size() < 7) return std::nullopt;
  Layout l;
  l.fields = words.size();
  l.size = 0;
  l.count = 1;
  l.type = 2;
  std::size_t i = 3;
  std::string names = "size count type";
  if (!is_number(words[i])) {
    l.redop = i++;
    names += " redop";
  }
  if ((words.size() - i) % 4 == 1) {
    l.root = i++;
    names += " root";
  }
  const std::size_t groups = (words.size() - i) / 4;
  if ((words.size() - i) % 4 != 0 || groups < 1 || groups > 2) return std::nullopt;
  l.time = i;
  l.algbw = i + 1;
  l.busbw = i + 2;
  if (groups == 2) l.in_place = i + 4;
  names += groups == 2 ? " time algbw busbw #wrong time algbw busbw #wrong" : " time algbw busbw #wrong";
  l.names = names;
  return l;
}

// The length of a rank label before a line: "0: " (srun --label) or "[1,0]<stdout>:" (Open MPI's
// mpirun --tag-output); 0 when the line has none. A result row begins with a number and a blank,
// never with a number and a colon.
std::size_t label_length(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  const std::size_t start = i;
  if (i < text.size() && text[i] == '[') {
    const std::size_t close = text.find("]<", i);
    if (close == std::string_view::npos) return 0;
    for (std::size_t k = i + 1; k < close; ++k)
      if (!((text[k] >= '0' && text[k] <= '9') || text[k] == ',')) return 0;
    const std::size_t end = text.find(">:", close);
    if (end == std::string_view::npos) return 0;
    const std::string_view stream = text.substr(close + 2, end - close - 2);
    return stream == "stdout" || stream == "stderr" ? end + 2 : 0;
  }
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  return i > start && i < text.size() && text[i] == ':' ? i + 1 : 0;
}

// Whether a line beginning with `word` is one of nccl-tests' header or footer lines printed
// without its '#' (src/common.cu: "nccl-tests version", "Collective test starting/concluded",
// "nThread", "Using devices", "Rank", the column header and its units line, "Out of bounds",
// "Avg bus bandwidth").
bool header_word(std::string_view word) {
  static constexpr std::string_view kWords[] = {"nccl-tests", "Collective", "nThread", "Using", "Rank",
                                                "out-of-place", "size", "bytes", "(B)", "Out", "Avg"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

// Reads line by line; keeps what the header said and the rows.
class Reader {
 public:
  explicit Reader(std::string file) { log_.file = std::move(file); }

  void line(std::size_t number, std::string_view text) {
    line_ = number;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (const std::size_t label = label_length(text); label > 0) {
      text.remove_prefix(label);
      met(kFormLabelPrefix);
    }
    const auto words = split_words(text);
    if (words.empty()) return;
    if (words.front().starts_with('#')) {
      text.remove_prefix(text.find('#') + 1);
      return comment(text);
    }
    // The header pasted without its '#' (Markdown, a copy from a web page): its lines begin with
    // words no result row begins with.
    if (header_word(words.front())) {
      met(kFormHeaderWithoutHash);
      return comment(text);
    }
    // NCCL's own prints between the rows (NCCL_DEBUG=INFO) and its version line are not results.
    if (words.size() > 1 && words[0] == "NCCL" && words[1] == "version") {
      if (words.size() > 2) log_.nccl_version = std::string(words[2]);
      return;
    }
    if (text.find("NCCL INFO") != std::string_view::npos || text.find("NCCL WARN") != std::string_view::npos) return;
    if (log_.rows.empty() && command_line(words)) return;
    // A comma-separated table: a header of column names (a first field that is no number) before
    // any row, and its rows after it.
    if (text.find(',') != std::string_view::npos &&
        (csv_ || (!layout_ && !is_number(text.substr(0, text.find(','))))))
      return csv_line(text);
    if (csv_) fail(line_, quote_field(join(words)), fmt::format("a comma-separated row ({})", layout_->names));
    row(words);
  }

  NcclLog finish(std::size_t last_line) {
    if (log_.rows.empty())
      fail(last_line, "the end of the log", "result rows (size count type ... time algbw busbw ...)");
    // A log that printed the run's header also prints its footer; without it the log was cut short.
    if (full_header_ && !footer_) met(kFormNoFooter);
    if (short_row_line_ != 0) met(kFormLastRowOutOfPlaceOnly);
    if (!rank_lines_.empty()) {
      // nccl-tests prints one "# Rank" line per rank of processes x nThread x nGpus.
      if (threads_gpus_ && rank_lines_.size() < *threads_gpus_)
        fail(rank_lines_.back(), fmt::format("{} \"# Rank\" lines", rank_lines_.size()),
             fmt::format("at least nThread x nGpus = {} (line {}), one per rank", *threads_gpus_, threads_line_));
      log_.ranks = static_cast<std::uint32_t>(rank_lines_.size());
      log_.ranks_line = rank_lines_.back();
    } else if (threads_gpus_) {
      log_.ranks = *threads_gpus_;
      log_.ranks_line = threads_line_;
    } else if (table_ranks_) {
      log_.ranks = *table_ranks_;
      log_.ranks_line = table_ranks_line_;
    }
    return std::move(log_);
  }

 private:
  [[noreturn]] void fail(std::size_t line, std::string_view found, std::string_view expected) const {
    throw NcclLogError(fmt::format("{}:{}: found {}, expected {}", log_.file, line, found, expected));
  }

  // Says that the log has the pasted form `form` (once per form, in the order met).
  void met(std::string_view form) {
    if (std::find(log_.forms.begin(), log_.forms.end(), form) == log_.forms.end()) log_.forms.emplace_back(form);
  }

  // A header or footer line, its '#' removed.
  void comment(std::string_view text) {
    const auto words = split_words(text);
    if (words.empty()) return;
    // The header's phrases as single-spaced words (a paste may have turned blanks into tabs).
    const std::string spaced = join(words);
    if (spaced.find("Collective test starting:") != std::string::npos) {
      if (test_started_) fail(line_, "a second \"# Collective test starting\" line", "one test per log");
      test_started_ = true;
      log_.test = std::string(words.back());
      log_.test_line = line_;
      full_header_ = true;
    } else if (words.front() == "nThread") {
      thread_line(words);
    } else if (words.front() == "Rank") {
      rank_line(words);
    } else if (words.front() == "Avg" || words.front() == "Out" || spaced.find("test concluded") != std::string::npos) {
      footer_ = true;
    } else if (key_value(words, "gpu_count:") || key_value(words, "collective:")) {
      table_note(words);
    } else if (auto l = (words.front() == "size" || words.front() == "bytes") ? layout_from_header(words) : std::nullopt) {
      if (!log_.rows.empty()) fail(line_, "a second column header after result rows", "one test per log");
      layout_ = std::move(*l);
      if (layout_->algbw == Layout::npos || layout_->busbw == Layout::npos)
        fail(line_, fmt::format("the column header \"{}\"", layout_->names), "algbw and busbw columns after time");
    }
  }

  static bool key_value(const std::vector<std::string_view>& words, std::string_view key) {
    return words.size() >= 2 && words.front() == key;
  }

  // A table's "# gpu_count: N" (the ranks) or "# collective: all_reduce (float, sum)" (the program,
  // where no "# Collective test starting" or command line names it).
  void table_note(const std::vector<std::string_view>& words) {
    if (words.front() == "gpu_count:") {
      const auto n = to_number<std::uint32_t>(words[1]);
      if (!n || *n == 0 || *n > kMaxLogRanks)
        fail(line_, quote_field(join(words)), fmt::format("\"gpu_count: N\" with a whole number N from 1 to {}", kMaxLogRanks));
      table_ranks_ = *n;
      table_ranks_line_ = line_;
    } else if (log_.test.empty()) {
      log_.test = std::string(words[1]);
      log_.test_line = line_;
    }
  }

  // A line of a comma-separated table: its column header (before any row), or a row.
  void csv_line(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      std::string_view f = text.substr(start, comma - start);
      while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
      while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
      fields.push_back(f);
      if (comma == text.size()) break;
      start = comma + 1;
    }
    if (!layout_) {
      met(kFormCsvTable);
      csv_ = true;
      // "size_bytes", "time_us", "algbw_GBps": the column's name, then its unit.
      std::vector<std::string> names;
      std::vector<std::string> lowered;  // SIZE_BYTES as size_bytes, algbw_GBps as algbw_gbps
      for (std::string_view f : fields) {
        std::string low(f);
        for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        lowered.push_back(std::move(low));
      }
      for (std::string_view f : lowered) {
        const std::string_view name = f.substr(0, f.find('_'));
        const std::string_view unit = f.size() > name.size() ? f.substr(name.size() + 1) : std::string_view{};
        const bool unit_ok = unit.empty() || (name == "size" && (unit == "bytes" || unit == "b")) ||
                             (name == "time" && unit == "us") ||
                             ((name == "algbw" || name == "busbw") && (unit == "gbps" || unit == "gb/s"));
        if (!unit_ok && (name == "size" || name == "time" || name == "algbw" || name == "busbw"))
          fail(line_, fmt::format("the column {}", quote_field(f)),
               "size or size_bytes, time or time_us (microseconds), algbw or algbw_GBps, busbw or busbw_GBps");
        names.emplace_back(name);
      }
      std::vector<std::string_view> words(names.begin(), names.end());
      auto l = layout_from_header(words);
      if (!l || l->algbw == Layout::npos || l->busbw == Layout::npos)
        fail(line_, fmt::format("the first line of a comma-separated table {}", quote_field(text)),
             "a header naming its columns: size_bytes,time_us,algbw_GBps,busbw_GBps (count, type, redop, root too)");
      l->in_place = Layout::npos;  // a table has one time per row
      layout_ = std::move(*l);
      return;
    }
    if (!csv_)
      fail(line_, fmt::format("a comma-separated line {}", quote_field(text)),
           fmt::format("a result row ({}), as the column header has them", layout_->names));
    row(fields);
  }

  // A command line pasted above the output ("mpirun -np 8 ./build/all_reduce_perf -b 8 -e 8G"): the
  // program's name says which collective ran. False when no word names an nccl-tests program.
  bool command_line(const std::vector<std::string_view>& words) {
    for (std::string_view w : words) {
      const std::string_view base = w.substr(w.find_last_of('/') + 1);  // npos + 1 = 0: the whole word
      if (!base.ends_with("_perf") || base.size() <= 5) continue;
      if (log_.test.empty()) {
        log_.test = std::string(base);
        log_.test_line = line_;
      }
      return true;
    }
    return false;
  }

  // "# nThread 1 nGpus 4 minBytes 8 maxBytes ...": ranks per process (one process unless "# Rank"
  // lines say more).
  void thread_line(const std::vector<std::string_view>& words) {
    const auto threads = words.size() > 1 ? to_number<std::uint32_t>(words[1]) : std::nullopt;
    const auto gpus = words.size() > 3 && words[2] == "nGpus" ? to_number<std::uint32_t>(words[3]) : std::nullopt;
    if (!threads || !gpus || *threads == 0 || *gpus == 0)
      fail(line_, quote_field(join(words)), "\"nThread T nGpus G ...\" with whole numbers T, G >= 1");
    // In 64 bits: two 32-bit factors cannot overflow it (in 32 they wrap, 65536 x 65536 to 0).
    const std::uint64_t ranks = std::uint64_t{*threads} * *gpus;
    if (ranks > kMaxLogRanks)
      fail(line_, fmt::format("nThread {} x nGpus {} = {} ranks per process", *threads, *gpus, ranks),
           fmt::format("at most {} ranks (nccl-tests runs a few threads of a few GPUs each)", kMaxLogRanks));
    threads_gpus_ = static_cast<std::uint32_t>(ranks);
    log_.gpus_per_thread = *gpus;
    log_.gpus_per_thread_line = line_;
    threads_line_ = line_;
    full_header_ = true;
  }

  // "#  Rank  0 Group  0 Pid 1149754 on     oat-04 device  0 [0000:4a:00] NVIDIA L40S" (older
  // versions lack "Group").
  void rank_line(const std::vector<std::string_view>& words) {
    const auto rank = words.size() > 1 ? to_number<std::uint32_t>(words[1]) : std::nullopt;
    if (!rank || *rank != rank_lines_.size())
      fail(line_, quote_field(join(words)), fmt::format("\"Rank {} ... on HOST device D [BUS] NAME\"", rank_lines_.size()));
    if (rank_lines_.size() >= kMaxLogRanks)
      fail(line_, fmt::format("rank {}", *rank), fmt::format("at most {} ranks", kMaxLogRanks));
    rank_lines_.push_back(line_);
    const auto on = std::find(words.begin(), words.end(), "on");
    if (on != words.end() && on + 1 != words.end()) {
      const std::string host(*(on + 1));
      if (std::find(log_.hosts.begin(), log_.hosts.end(), host) == log_.hosts.end()) log_.hosts.push_back(host);
    }
    std::size_t name_from = words.size();
    for (std::size_t i = 0; i < words.size(); ++i)
      if (words[i].starts_with('[') && words[i].ends_with(']')) name_from = i + 1;
    log_.devices.push_back(join(words, name_from));
    full_header_ = true;
  }

  void row(const std::vector<std::string_view>& words) {
    if (footer_) fail(line_, fmt::format("a result row ({})", quote_field(words.front())), "nothing after the footer");
    // A row without its in-place columns is a pasted log's last row; one followed by rows is garbled.
    if (short_row_line_ != 0)
      fail(short_row_line_, fmt::format("{} fields", layout_->in_place), fmt::format("{} ({})", layout_->fields, layout_->names));
    if (!layout_) {
      layout_ = layout_from_row(words);
      if (layout_) layout_->names += fmt::format(", as the first row, line {}, has them", line_);
      if (!layout_)
        fail(line_, fmt::format("{} fields ({})", words.size(), quote_field(join(words))),
             "a result row \"size count type [redop] [root] time algbw busbw #wrong [time algbw busbw #wrong]\" "
             "or a \"#\" header line");
    }
    const Layout& l = *layout_;
    if (l.in_place != Layout::npos && words.size() == l.in_place)
      short_row_line_ = line_;
    else if (words.size() != l.fields)
      fail(line_, fmt::format("{} fields", words.size()), fmt::format("{} ({})", l.fields, l.names));
    NcclRow r;
    r.line = line_;
    const auto size = to_number<Bytes>(words[l.size]);
    if (!size) fail(line_, fmt::format("{} in the size column", quote_field(words[l.size])), "a whole number of bytes");
    r.size = *size;
    if (l.count != Layout::npos) {
      const auto count = to_number<std::uint64_t>(words[l.count]);
      if (!count) fail(line_, fmt::format("{} in the count column", quote_field(words[l.count])), "a whole number of elements");
      r.count = *count;
    }
    if (l.type != Layout::npos) r.type = std::string(words[l.type]);
    if (l.redop != Layout::npos) r.redop = std::string(words[l.redop]);
    if (l.root != Layout::npos) {
      r.root = to_number<std::int64_t>(words[l.root]);
      if (!r.root) fail(line_, fmt::format("{} in the root column", quote_field(words[l.root])), "a rank or -1");
    }
    r.time_us = time_number(words[l.time]);
    r.algbw_GBps = number(words[l.algbw], "algbw", "a bandwidth in GB/s, 0 or more", false);
    r.busbw_GBps = number(words[l.busbw], "busbw", "a bandwidth in GB/s, 0 or more", false);
    // nccl-tests prints algbw = size / time (src/common.cu); where the two disagree beyond print
    // rounding (half a unit of the 2nd decimal, and 2 % for the time's own rounding), one of the three
    // numbers is garbled.
    const double algbw = static_cast<double>(r.size) / (r.time_us * 1e3);
    if (std::abs(algbw - r.algbw_GBps) > 0.0051 + 0.02 * algbw)
      fail(line_, fmt::format("algbw {} GB/s", words[l.algbw]),
           fmt::format("size / time = {:.2f} GB/s, as nccl-tests computes it (a garbled number?)", algbw));
    log_.rows.push_back(std::move(r));
  }

  // The time column: a positive finite time that the simulated clock can hold. A time under half a
  // picosecond (1e-310 us, a denormal) rounds to 0 ps and would make algbw infinite; one of 2^63 ps
  // or more passes the clock's end (sim/units/units.hpp).
  double time_number(std::string_view word) const {
    constexpr std::string_view expected =
        "a time in microseconds that rounds to at least 1 ps (0.0000005 us or more) and below 2^63 ps "
        "(9223372036854.775807 us, the simulated clock's end)";
    const double us = number(word, "time", expected, true);
    const double ps = us * 1e6;
    if (!(ps >= 0.5) || !(ps < 9223372036854775807.0))
      fail(line_, fmt::format("{} in the time column", quote_field(word)), expected);
    return us;
  }

  double number(std::string_view word, std::string_view column, std::string_view expected, bool positive) const {
    const auto v = to_number<double>(word);
    if (!v || !(*v >= 0) || (positive && !(*v > 0)) || *v > 1e300)
      fail(line_, fmt::format("{} in the {} column", quote_field(word), column), expected);
    return *v;
  }

  NcclLog log_;
  std::size_t line_ = 0;
  std::optional<Layout> layout_;
  std::vector<std::size_t> rank_lines_;
  std::optional<std::uint32_t> threads_gpus_;
  std::size_t threads_line_ = 0;
  bool test_started_ = false;  // a "# Collective test starting" line was read
  bool full_header_ = false;  // the run's header (test name, nThread, ranks) was printed
  bool footer_ = false;
  std::size_t short_row_line_ = 0;  // the row that ended after its out-of-place columns; 0: none
  bool csv_ = false;  // the rows are comma-separated (kFormCsvTable)
  std::optional<std::uint32_t> table_ranks_;  // "# gpu_count: N"
  std::size_t table_ranks_line_ = 0;
};

}  // namespace

NcclLog parse_nccl_log(std::string_view text, std::string file) {
  Reader reader(std::move(file));
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    reader.line(++number, text.substr(start, end - start));
    start = end + 1;
  }
  // A log cut inside a line still ends on that line; one that ends with "\n" ends on its last line.
  return reader.finish(std::max<std::size_t>(number, 1));
}

NcclLog read_nccl_log(const std::string& path) {
  std::string text;
  try {
    text = io::read_text_file(path, "an nccl-tests log file");
  } catch (const io::FileReadError& e) {
    throw NcclLogError(e.what());
  }
  return parse_nccl_log(text, path);
}

std::optional<sched::Collective> collective_of_test(std::string_view test) {
  if (test.ends_with("_perf")) test.remove_suffix(5);
  return sched::parse_collective(test);
}

}  // namespace collsim::validation
