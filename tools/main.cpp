// The collsim program: see tools/cli.hpp.
#include <iostream>
#include <string>
#include <vector>

#include "tools/cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int code = collsim::cli::run(args, std::cout, std::cerr);
  std::cout.flush();
  if (!std::cout) {
    // A full disk or a closed pipe must not pass for success (a command that stopped for it has
    // said so: one line).
    if (code != collsim::cli::kExitOutput) std::cerr << "collsim: error: could not write the output to standard output\n";
    return collsim::cli::kExitOutput;
  }
  return code;
}
