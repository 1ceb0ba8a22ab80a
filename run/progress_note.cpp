#include "run/progress_note.hpp"

#include <cmath>

#include <fmt/format.h>

namespace collsim::run {

void ProgressNote::progress(std::uint64_t done, std::uint64_t total) {
  if (said_ || total == 0) return;
  const auto elapsed = now_() - start_;
  if (elapsed < after_) return;
  said_ = true;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const double share = static_cast<double>(done) / static_cast<double>(total);
  // The rest at the rate so far; a run that has done nothing yet gives no estimate.
  const std::string rest =
      done == 0 ? "no estimate yet"
                : fmt::format("about {:.0f} minutes more at this rate",
                              std::ceil(seconds * static_cast<double>(total - done) / static_cast<double>(done) / 60.0));
  err_ << fmt::format("collsim: note: after {:.0f} s, {} of {} ops ({:.1f} %) are done; {} (Ctrl-C stops the run)\n",
                      seconds, done, total, 100.0 * share, rest);
  err_.flush();
}

}  // namespace collsim::run
