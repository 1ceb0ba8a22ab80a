// The documentation's commands, run as a user runs them, against its text (issue 14: the README's
// hierarchical example printed 75.20 ms for months while the README said 67.83 ms, and no test
// looked), and its links, which must lead somewhere (issue 19: the README became docs/ pages).
//
// README.md and every docs/*.md are read, in that order (docs/ by name), and every fenced block of
// each. A line `$ COMMAND` is run, and the lines after it (up to the next `$` line or the end of the
// block) are the output it must print, stderr and stdout together in the order written. A line that
// is only `...` stands for any number of lines, as do the `...` of `{ ...` and `... }` (JSON cut
// short); every other line must be there, in order and consecutive, with trailing blanks ignored. A
// line `build/collsim ...` (no `$`, in a ```sh or a bare block; `\` continues it, ` # ` starts a
// comment) is run and must exit 0. The charts' data in docs/ is made by such lines, so each CSV they
// write must equal the committed docs/ file byte for byte, and every committed docs/*.csv must be
// made by one.
//
// Commands run under bash (pipefail), one after the other, in one scratch folder laid out like the
// repository root, where the pages say to run them: `build/collsim` (this build's binary), `tests`
// (the source tree's test data) and an empty `docs`; a later command may use a file an earlier one
// of its page wrote. Files a page tells the reader to make by hand are made as it says (mine.json,
// broken.json). Left out, each for its reason: `bench` other than `--quick` (benchmarks take
// minutes; tests/cli/bench_cli_test.cpp runs their flags), and lines that are templates, not
// commands (the Slurm and GNU parallel scripts, which do not start with `build/`;
// tests/slurm/slurm_sweep_test.sh runs the Slurm one on a Slurm cluster). Where there is no
// GPU, `validate` and `topo --detect` must exit 3 with the page's first words of the message (the
// rest names the machine's CUDA state). A failure names the page and line (`docs/sweeps.md:42`).
//
// Links: every `[text](target)` and `![alt](target)` outside code in those files whose target is
// not a URL must name a file or folder that exists, relative to the page, and a `#anchor` must be
// one of the headings of that Markdown file as GitHub spells its anchors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <sys/wait.h>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace readme_test {

using collsim::testing::read_file;
using collsim::testing::scratch_dir;

namespace {

namespace fs = std::filesystem;

/// One command of a page and what it must print.
struct Example {
  std::string page;                // as the repository names it: README.md, docs/sweeps.md
  std::size_t line = 0;            // in that page, 1-based
  std::string command;
  bool shown_output = false;       // a `$` line: `expected` is its output
  std::vector<std::string> expected;
};

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : rstrip(s.substr(a));
}

/// The documentation, as the repository names its files: README.md, then docs/*.md by name (so the
/// order, and the scratch folder's state at each command, is the same on every machine).
std::vector<std::string> documentation(const fs::path& source) {
  std::vector<std::string> pages;
  for (const auto& f : fs::directory_iterator(source / "docs"))
    if (f.is_regular_file() && f.path().extension() == ".md") pages.push_back("docs/" + f.path().filename().string());
  std::sort(pages.begin(), pages.end());
  pages.insert(pages.begin(), "README.md");
  return pages;
}

// A page's examples, in order.
std::vector<Example> read_examples(const fs::path& source, const std::string& page) {
  std::ifstream in(source / page);
  REQUIRE(in);
  std::vector<Example> out;
  std::string line;
  std::size_t number = 0;
  bool in_block = false;
  std::string lang;
  std::optional<Example> open;  // a `$` example collecting its output
  const auto close = [&] {
    if (open) out.push_back(*open);
    open.reset();
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      if (in_block) close();
      in_block = !in_block;
      lang = line.substr(3);
      continue;
    }
    if (!in_block || (lang != "" && lang != "sh")) continue;
    if (line.rfind("$ ", 0) == 0) {
      close();
      open = Example{page, number, line.substr(2), true, {}};
      continue;
    }
    if (open) {
      open->expected.push_back(rstrip(line));
      continue;
    }
    if (line.rfind("build/collsim ", 0) != 0) continue;
    Example e{page, number, "", false, {}};
    std::string text = line;
    while (!text.empty() && text.back() == '\\' && std::getline(in, line)) {
      ++number;
      text.pop_back();
      text += " " + trim(line);
    }
    if (const auto hash = text.find(" # "); hash != std::string::npos) text = text.substr(0, hash);
    e.command = trim(text);
    out.push_back(e);
  }
  return out;
}

// Whether `actual` is what `expected` shows (see the top for `...`); on failure `why` says where.
bool matches(const std::vector<std::string>& expected, const std::vector<std::string>& actual, std::string& why) {
  // Segments of literal lines between wildcards.
  std::vector<std::vector<std::string>> segments(1);
  bool leading = false, trailing = false;
  for (const auto& raw : expected) {
    const std::string t = trim(raw);
    const bool wild = t == "...";
    if (t == "{ ...") segments.back().push_back("{");
    if (wild || t == "{ ..." || t == "... }") {
      if (segments.size() == 1 && segments.back().empty()) leading = true;
      segments.emplace_back();
      trailing = true;
      if (t == "... }") {
        segments.back().push_back("}");
        trailing = false;
      }
      continue;
    }
    segments.back().push_back(raw);
    trailing = false;
  }
  std::size_t at = 0;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const auto& seg = segments[s];
    if (seg.empty()) continue;
    const bool anchored = s == 0 && !leading;
    std::optional<std::size_t> found;
    for (std::size_t start = at; start + seg.size() <= actual.size(); ++start) {
      if (std::equal(seg.begin(), seg.end(), actual.begin() + static_cast<std::ptrdiff_t>(start))) {
        found = start;
        break;
      }
      if (anchored) break;
    }
    if (!found) {
      why = "the page's line \"" + seg.front() + "\" (and the " + std::to_string(seg.size() - 1) +
            " after it) is not in the output at or after output line " + std::to_string(at + 1);
      return false;
    }
    at = *found + seg.size();
  }
  if (!trailing && at != actual.size()) {
    why = "the output goes on after the page's last line, with \"" + actual[at] + "\"";
    return false;
  }
  return true;
}

struct Ran {
  int code = 0;
  std::vector<std::string> lines;
  std::string text;
};

// Runs `command` under bash in `dir`, stderr into stdout.
Ran run_shell(const fs::path& dir, const std::string& command) {
  const auto script = dir / ".example.sh";
  {
    std::ofstream s(script);
    s << "set -o pipefail\nexec 2>&1\n" << command << "\n";
  }
  const std::string shell = "cd '" + dir.string() + "' && bash .example.sh";
  FILE* p = popen(shell.c_str(), "r");
  REQUIRE(p != nullptr);
  Ran r;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.text.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::istringstream lines(r.text);
  for (std::string l; std::getline(lines, l);) r.lines.push_back(rstrip(l));
  return r;
}

// The files docs/algorithms.md asks the reader to make by editing another ("Schedule files").
void make_hand_edited_files(const fs::path& dir, const std::string& command) {
  if (command.find("--schedule mine.json") == std::string::npos && command.find("--schedule broken.json") == std::string::npos)
    return;
  std::string ring3 = read_file(dir / "ring3.json");
  REQUIRE_FALSE(ring3.empty());
  // "Edit it (here: "algorithm": "my-ring", "size_bytes": 3000000)".
  const auto replace = [](std::string& s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
  };
  replace(ring3, "\"algorithm\": \"ring\"", "\"algorithm\": \"my-ring\"");
  replace(ring3, "\"size_bytes\": 6", "\"size_bytes\": 3000000");
  std::ofstream(dir / "mine.json") << ring3;
  // "Delete the op in which rank 2 adds its chunk 0 into rank 0's" (and the comma it leaves).
  std::regex op(R"(\n *\{"src": 2, "dst": 0, "chunk": 0, "combine": "reduce", "step": \d+\},?)");
  std::string broken = std::regex_replace(ring3, op, "", std::regex_constants::format_first_only);
  REQUIRE(broken != ring3);
  std::ofstream(dir / "broken.json") << broken;
}

bool needs_gpu(const std::string& command) {
  return command.find("collsim validate") != std::string::npos || command.find("topo --detect") != std::string::npos;
}

// --- Links ---------------------------------------------------------------------------------------

/// The anchor GitHub gives a heading: its text lower-cased, a link reduced to its text, every
/// character but letters, digits, `-`, `_` and spaces dropped (backticks, dots, colons, brackets,
/// apostrophes), each space made a `-`. Bytes above ASCII are kept: GitHub keeps letters there and
/// drops symbols, which no heading of this documentation has.
std::string github_anchor(const std::string& heading) {
  const std::string text = std::regex_replace(heading, std::regex(R"(\[([^\]]*)\]\([^)]*\))"), "$1");
  std::string anchor;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || c == '-' || c == '_')
      anchor += c;
    else if (std::isalnum(u))
      anchor += static_cast<char>(std::tolower(u));
    else if (c == ' ')
      anchor += '-';
  }
  return anchor;
}

/// The anchors of a Markdown file's headings (`#` to `######` outside fenced blocks); a heading
/// whose anchor an earlier one already has gets `-1`, `-2`, ..., as on GitHub.
std::set<std::string> anchors(const fs::path& page) {
  std::ifstream in(page);
  std::set<std::string> out;
  std::map<std::string, int> seen;
  bool in_block = false;
  static const std::regex heading(R"(^#{1,6} +(.*?)(?: +#+)? *$)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) in_block = !in_block;
    std::smatch m;
    if (in_block || !std::regex_match(line, m, heading)) continue;
    const std::string base = github_anchor(m[1].str());
    const int n = seen[base]++;
    out.insert(n == 0 ? base : base + "-" + std::to_string(n));
  }
  return out;
}

/// The relative links of a Markdown file that lead nowhere, each as "PAGE:LINE: why". `page` is
/// the file's path, `name` how messages call it. Links in fenced blocks and code spans are not
/// links; a link's text may run over several lines of its paragraph.
std::vector<std::string> broken_links(const fs::path& page, const std::string& name) {
  std::ifstream in(page);
  REQUIRE(in);
  std::vector<std::string> broken;
  std::map<fs::path, std::set<std::string>> anchors_of;
  const auto check = [&](const std::string& target, std::size_t line) {
    if (std::regex_search(target, std::regex("^[a-zA-Z][a-zA-Z0-9+.-]*:"))) return;  // a URL
    const auto hash = target.find('#');
    const std::string file = target.substr(0, hash);
    const fs::path to = file.empty() ? page : page.parent_path() / file;
    const std::string where = name + ":" + std::to_string(line) + ": link " + target + ": ";
    if (!fs::exists(to)) {
      broken.push_back(where + "no file " + file);
      return;
    }
    if (hash == std::string::npos) return;
    if (to.extension() != ".md") {
      broken.push_back(where + "an anchor in a file that is not Markdown");
      return;
    }
    if (!anchors_of.count(to)) anchors_of[to] = anchors(to);
    if (!anchors_of[to].count(target.substr(hash + 1)))
      broken.push_back(where + "no heading of " + (file.empty() ? name : file) + " has the anchor " + target.substr(hash));
  };
  // Paragraphs outside fenced blocks, with their first line; code spans blanked out (line breaks
  // kept, so a link's line is still counted right).
  static const std::regex code_span("`[^`]*`");
  static const std::regex link(R"(!?\[[^\]]*\]\(([^()\s]*)\))");
  const auto scan = [&](const std::string& paragraph, std::size_t first) {
    std::string text;
    std::size_t from = 0;
    for (std::sregex_iterator it(paragraph.begin(), paragraph.end(), code_span), end; it != end; ++it) {
      text += paragraph.substr(from, static_cast<std::size_t>(it->position()) - from);
      const std::string span = it->str();
      text += std::string(static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n')), '\n');
      from = static_cast<std::size_t>(it->position() + it->length());
    }
    text += paragraph.substr(from);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const auto before = text.begin() + it->position();
      check((*it)[1].str(), first + static_cast<std::size_t>(std::count(text.begin(), before, '\n')));
    }
  };
  std::string paragraph;
  std::size_t number = 0, first = 0;
  bool in_block = false;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("```", 0) == 0) in_block = !in_block;
    if (in_block || line.rfind("```", 0) == 0 || trim(line).empty()) {
      if (!paragraph.empty()) scan(paragraph, first);
      paragraph.clear();
      continue;
    }
    if (paragraph.empty()) first = number;
    paragraph += line + "\n";
  }
  if (!paragraph.empty()) scan(paragraph, first);
  return broken;
}

}  // namespace

// Hidden from Catch's default run ("[.]"): its own CTest entry, README_commands (tests/CMakeLists.txt).
TEST_CASE("README and docs/: every command shown runs and prints what the page shows", "[.][readme][readme-commands]") {
  const fs::path source = COLLSIM_SOURCE_DIR;
  const auto pages = documentation(source);
  // README.md and docs/'s pages as of this test: if far fewer were found, the test would pass on nothing.
  REQUIRE(pages.size() >= 11);
  std::vector<Example> examples;
  std::map<std::string, std::size_t> per_page;
  for (const auto& page : pages) {
    const auto found = read_examples(source, page);
    per_page[page] = found.size();
    examples.insert(examples.end(), found.begin(), found.end());
  }
  // The commands as of this test (60 when the README held them all): none may be lost on the way.
  REQUIRE(examples.size() >= 60);

  const auto dir = scratch_dir("readme");
  fs::create_directories(dir / "build");
  fs::create_directory_symlink(source / "tests", dir / "tests");
  fs::create_symlink(COLLSIM_BINARY, dir / "build" / "collsim");
  fs::create_directories(dir / "docs");

  std::size_t ran = 0, with_output = 0;
  int last_code = 0;
  for (const auto& e : examples) {
    INFO(e.page << ":" << e.line << ": " << e.command);
    if (e.command.rfind("build/collsim bench", 0) == 0 && e.command.find("--quick") == std::string::npos) continue;
    if (e.command.find("| dot ") != std::string::npos && std::system("command -v dot >/dev/null 2>&1") != 0) continue;
    if (e.command == "echo $?") {
      // The exit status of the example before.
      REQUIRE(e.expected.size() == 1);
      CHECK(std::to_string(last_code) == e.expected.front());
      continue;
    }
    make_hand_edited_files(dir, e.command);
    const auto r = run_shell(dir, e.command);
    INFO("exit " << r.code << ", output:\n" << r.text);
    ++ran;
    last_code = r.code;
    if (needs_gpu(e.command) && r.code == 3) {
      // No GPU here: the page's message up to its first colon after "validate"/"topo" is the part
      // every machine prints; the rest says why (no driver, no CUDA in this build).
      if (e.shown_output) {
        REQUIRE_FALSE(e.expected.empty());
        const auto cut = e.expected.front().find(": ", std::string("collsim: error: ").size());
        REQUIRE(cut != std::string::npos);
        REQUIRE(r.lines.size() == 1);
        CHECK(r.lines.front().substr(0, cut) == e.expected.front().substr(0, cut));
      }
      continue;
    }
    if (!e.shown_output) {
      CHECK(r.code == 0);
      continue;
    }
    ++with_output;
    std::string why;
    const bool ok = matches(e.expected, r.lines, why);
    INFO(why);
    CHECK(ok);
  }
  CHECK(ran >= 52);
  CHECK(with_output >= 33);
  // The charts' data, made again by the pages' commands, is the committed data, and every
  // committed CSV is made again.
  std::size_t csvs = 0;
  for (const auto& f : fs::directory_iterator(dir / "docs")) {
    if (f.path().extension() != ".csv") continue;
    INFO("docs/" << f.path().filename().string() << " as the documentation's command writes it");
    CHECK(read_file(f.path()) == read_file(source / "docs" / f.path().filename()));
    ++csvs;
  }
  for (const auto& f : fs::directory_iterator(source / "docs")) {
    if (f.path().extension() != ".csv") continue;
    INFO("docs/" << f.path().filename().string() << " is committed, so a command of the documentation must write it");
    CHECK(fs::exists(dir / "docs" / f.path().filename()));
  }
  CHECK(csvs >= 2);

  std::cout << "documentation: " << examples.size() << " commands in " << pages.size() << " files (";
  for (std::size_t i = 0; i < pages.size(); ++i) std::cout << (i ? ", " : "") << pages[i] << " " << per_page[pages[i]];
  std::cout << "); " << ran << " run, " << with_output << " with their output checked, " << csvs << " CSV files compared\n";
}

TEST_CASE("README and docs/: every relative link leads to a file and heading that exist", "[readme]") {
  const fs::path source = COLLSIM_SOURCE_DIR;
  std::size_t pages = 0;
  for (const auto& page : documentation(source)) {
    for (const auto& problem : broken_links(source / page, page)) FAIL_CHECK(problem);
    ++pages;
  }
  CHECK(pages >= 11);
}

TEST_CASE("README test: its link check finds what leads nowhere and nothing else", "[readme]") {
  // GitHub's anchors of this documentation's kinds of heading.
  CHECK(github_anchor("NCCL's choice per size (`--algorithm nccl`)") == "nccls-choice-per-size---algorithm-nccl");
  CHECK(github_anchor("Transports: P2P, SHM, NET") == "transports-p2p-shm-net");
  CHECK(github_anchor("Schedule files: your own algorithm without C++") == "schedule-files-your-own-algorithm-without-c");
  CHECK(github_anchor("Hierarchical all-reduce (`hierarchical`)") == "hierarchical-all-reduce-hierarchical");
  CHECK(github_anchor("See [the host](x.md#host)") == "see-the-host");

  const auto dir = scratch_dir("readme-links");
  fs::create_directories(dir / "docs");
  std::ofstream(dir / "docs" / "chart.svg") << "<svg/>";
  std::ofstream(dir / "docs" / "other.md") << "# Other page\n\n## Part one\n\n## Part one\n\n```\n# Not a heading\n```\n";
  std::ofstream(dir / "docs" / "page.md")
      << "# Page\n\n"
         "Fine: [other](other.md), [its part](other.md#part-one), [again](other.md#part-one-1), [here](#page),\n"
         "![chart](chart.svg), [a URL](https://example.org/x#y), a link over [two\n"
         "lines](other.md#part-one), `[code](nowhere.md)`.\n\n"
         "```\n[in a block](nowhere.md)\n```\n\n"
         "Broken: [gone](gone.md), [no part](other.md#part-two),\n"
         "[not a heading](other.md#not-a-heading), [no anchor here](#part-one), ![no image](docs/chart.svg).\n";
  const auto broken = broken_links(dir / "docs" / "page.md", "docs/page.md");
  const std::vector<std::string> expected = {
      "docs/page.md:11: link gone.md: no file gone.md",
      "docs/page.md:11: link other.md#part-two: no heading of other.md has the anchor #part-two",
      "docs/page.md:12: link other.md#not-a-heading: no heading of other.md has the anchor #not-a-heading",
      "docs/page.md:12: link #part-one: no heading of docs/page.md has the anchor #part-one",
      "docs/page.md:12: link docs/chart.svg: no file docs/chart.svg",
  };
  CHECK(broken == expected);
}

TEST_CASE("README test: its matcher takes `...` for any lines and nothing else", "[readme]") {
  // Hand-made cases: the rules at the top of this file.
  std::string why;
  CHECK(matches({"a", "b"}, {"a", "b"}, why));
  CHECK_FALSE(matches({"a", "b"}, {"a", "x", "b"}, why));
  CHECK_FALSE(matches({"a"}, {"a", "b"}, why));
  CHECK(matches({"a", "  ...", "c"}, {"a", "b1", "b2", "c"}, why));
  CHECK_FALSE(matches({"a", "...", "c"}, {"a", "b"}, why));
  CHECK(matches({"a", "..."}, {"a", "b"}, why));
  CHECK_FALSE(matches({"b", "..."}, {"a", "b"}, why));
  CHECK(matches({"...", "b"}, {"a", "b"}, why));
  CHECK(matches({"{ ...", "  \"k\": 1,", "... }"}, {"{", "  \"j\": 0,", "  \"k\": 1,", "  \"l\": 2", "}"}, why));
  CHECK_FALSE(matches({"{ ...", "  \"k\": 1,", "... }"}, {"{", "  \"k\": 2,", "}"}, why));
  // A line that only starts with "..." is a literal line of the output (the table's "... (4 more ranks").
  CHECK_FALSE(matches({"a", "  ...  (4 more)", "c"}, {"a", "b", "c"}, why));
  CHECK(matches({"a", "  ...  (4 more)", "c"}, {"a", "  ...  (4 more)", "c"}, why));
}
}  // namespace readme_test
