// The error of predictions against measurements, summarised by message-size band: the median and the
// largest |error| among sizes below 64 KiB (latency-bound), 64 KiB to 16 MiB, above 16 MiB
// (bandwidth-bound), and over all rows (issue 4's acceptance bands).
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::reports {

/// One predicted row: its size and error_pct = (predicted - measured) / measured · 100.
struct SizedError {
  Bytes size = 0;
  double error_pct = 0;
};

/// The bands, in report order: "<64KiB" (S < 65536), "64KiB-16MiB" (65536 <= S <= 16 MiB),
/// ">16MiB" (S > 16 MiB), "all".
inline constexpr std::string_view kErrorBands[] = {"<64KiB", "64KiB-16MiB", ">16MiB", "all"};

/// The summary of one band.
struct BandSummary {
  std::string_view band;                         ///< one of kErrorBands
  std::size_t rows = 0;                          ///< rows in the band
  std::optional<double> median_abs_error_pct;    ///< median of |error_pct| (mean of the two middle
                                                 ///< values for an even count); empty without rows
  std::optional<double> max_abs_error_pct;       ///< largest |error_pct|; empty without rows
};

/// The band a size falls in (0, 1 or 2: an index into kErrorBands).
std::size_t error_band(Bytes size) noexcept;

/// (predicted - measured) / measured · 100. Precondition: measured > 0.
double error_pct(double predicted, double measured) noexcept;

/// The four summaries of `rows`, in the order of kErrorBands.
std::vector<BandSummary> summarize_error_bands(std::span<const SizedError> rows);

}  // namespace collsim::reports
