// Catch2's runner, plus the removal of this process's scratch folder (scratch_root.hpp) at the end.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <system_error>

#include "scratch_root.hpp"

int main(int argc, char* argv[]) {
  const int result = Catch::Session().run(argc, argv);
  std::error_code ignored;  // a folder that was never made, or is already gone, is fine
  std::filesystem::remove_all(collsim::testing::scratch_root(), ignored);
  return result;
}
