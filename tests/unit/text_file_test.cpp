// io::read_text_file: whole files, and the bound that stops an endless input (a device such as
// /dev/zero given as a model file once filled 2 GB before the JSON parser refused it).
#include <catch2/catch.hpp>

#include "sim/io/text_file.hpp"
#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace text_file_test {

using namespace collsim;

TEST_CASE("read_text_file reads up to its bound and refuses a file past it", "[io]") {
  const std::filesystem::path path = testing::temp_file("text_file_bound.txt", std::string(3u << 20, 'x'));  // 3 MiB: three blocks
  CHECK(io::read_text_file(path, "a test file").size() == (3u << 20));
  CHECK(io::read_text_file(path, "a test file", 3u << 20).size() == (3u << 20));
  CHECK_THROWS_WITH(io::read_text_file(path, "a test file", (3u << 20) - 1),
                    path.string() + " holds more than 3145727 bytes; expected a test file");
  // A device that never ends: the bound stops it after the first block.
  CHECK_THROWS_WITH(io::read_text_file("/dev/zero", "a model file", 1000),
                    "/dev/zero holds more than 1000 bytes; expected a model file");
}

}  // namespace text_file_test
