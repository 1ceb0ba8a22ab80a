// The README's commands, run as a user runs them, against the README's text (issue 14: the
// hierarchical example printed 75.20 ms for months while the README said 67.83 ms, and no test
// looked).
//
// Every fenced block of README.md is read. A line `$ COMMAND` is run, and the lines after it (up
// to the next `$` line or the end of the block) are the output it must print, stderr and stdout
// together in the order written. A line that is only `...` stands for any number of lines, as do
// the `...` of `{ ...` and `... }` (JSON cut short); every other line must be there, in order and
// consecutive, with trailing blanks ignored. A line `build/collsim ...` (no `$`, in a ```sh or a
// bare block; `\` continues it, ` # ` starts a comment) is run and must exit 0. The charts' data in
// docs/ is made by such lines, so each CSV they write must equal the committed docs/ file byte for
// byte.
//
// Commands run under bash (pipefail) in a scratch folder holding `build/collsim` (this build's
// binary), `tests` (the source tree's test data) and an empty `docs`. Files the README tells the
// reader to make by hand are made as it says (mine.json, broken.json). Left out, each for its reason:
// `bench` other than `--quick` (benchmarks take minutes; tests/cli/bench_cli_test.cpp runs their
// flags), and lines that are templates, not commands (the Slurm and GNU parallel scripts, which do
// not start with `build/`; tests/slurm/slurm_sweep_test.sh runs the Slurm one on a Slurm cluster). Where there is no GPU, `validate` and `topo --detect` must exit 3 with
// the README's first words of the message (the rest names the machine's CUDA state).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <sys/wait.h>

#include "tests/cli/cli_harness.hpp"

using collsim::testing::read_file;
using collsim::testing::scratch_dir;

namespace {

namespace fs = std::filesystem;

/// One command of the README and what it must print.
struct Example {
  std::size_t line = 0;            // in README.md, 1-based
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

// The README's examples, in order.
std::vector<Example> read_examples(const fs::path& readme) {
  std::ifstream in(readme);
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
      open = Example{number, line.substr(2), true, {}};
      continue;
    }
    if (open) {
      open->expected.push_back(rstrip(line));
      continue;
    }
    if (line.rfind("build/collsim ", 0) != 0) continue;
    Example e{number, "", false, {}};
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
      why = "the README's line \"" + seg.front() + "\" (and the " + std::to_string(seg.size() - 1) +
            " after it) is not in the output at or after output line " + std::to_string(at + 1);
      return false;
    }
    at = *found + seg.size();
  }
  if (!trailing && at != actual.size()) {
    why = "the output goes on after the README's last line, with \"" + actual[at] + "\"";
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

// The files the README asks the reader to make by editing another (README "Schedule files").
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

}  // namespace

TEST_CASE("README: every command shown runs and prints what the README shows", "[readme]") {
  const fs::path source = COLLSIM_SOURCE_DIR;
  const auto examples = read_examples(source / "README.md");
  // The README's examples as of this test: if parsing found far fewer, the test would pass on nothing.
  REQUIRE(examples.size() >= 30);

  const auto dir = scratch_dir("readme");
  fs::create_directories(dir / "build");
  fs::create_directory_symlink(source / "tests", dir / "tests");
  fs::create_symlink(COLLSIM_BINARY, dir / "build" / "collsim");
  fs::create_directories(dir / "docs");

  std::size_t ran = 0, with_output = 0;
  int last_code = 0;
  for (const auto& e : examples) {
    INFO("README.md line " << e.line << ": " << e.command);
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
      // No GPU here: the README's message up to its first colon after "validate"/"topo" is the part
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
  CHECK(ran >= 28);
  CHECK(with_output >= 20);
  // The charts' data, made again by the README's commands, is the committed data.
  std::size_t csvs = 0;
  for (const auto& f : fs::directory_iterator(dir / "docs")) {
    if (f.path().extension() != ".csv") continue;
    INFO("docs/" << f.path().filename().string() << " as the README's command writes it");
    CHECK(read_file(f.path()) == read_file(source / "docs" / f.path().filename()));
    ++csvs;
  }
  CHECK(csvs == 2);
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
