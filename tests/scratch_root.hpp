// Where a test process puts its scratch files: one folder per process under the temporary
// directory, removed by the test runner's main (catch_main.cpp) when the run ends, so test runs
// neither leave files behind nor delete each other's (two runs at once have two process ids).
#pragma once

#include <filesystem>
#include <string>

#include <unistd.h>

namespace collsim::testing {

/// The scratch folder of this process: TMPDIR/collsim_test_PID (not created here).
inline std::filesystem::path scratch_root() {
  return std::filesystem::temp_directory_path() / ("collsim_test_" + std::to_string(::getpid()));
}

}  // namespace collsim::testing
