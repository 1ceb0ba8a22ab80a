#include "reports/error_bands.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::reports {
namespace {

constexpr Bytes kSmall = Bytes{64} << 10;  // 64 KiB
constexpr Bytes kLarge = Bytes{16} << 20;  // 16 MiB

BandSummary summarize(std::string_view band, std::vector<double> abs_errors) {
  BandSummary s{band, abs_errors.size(), std::nullopt, std::nullopt};
  if (abs_errors.empty()) return s;
  std::sort(abs_errors.begin(), abs_errors.end());
  const std::size_t n = abs_errors.size();
  s.median_abs_error_pct = n % 2 == 1 ? abs_errors[n / 2] : (abs_errors[n / 2 - 1] + abs_errors[n / 2]) / 2;
  s.max_abs_error_pct = abs_errors.back();
  return s;
}

}  // namespace

std::size_t error_band(Bytes size) noexcept { return size < kSmall ? 0 : size <= kLarge ? 1 : 2; }

double error_pct(double predicted, double measured) noexcept { return (predicted - measured) / measured * 100; }

std::vector<BandSummary> summarize_error_bands(std::span<const SizedError> rows) {
  std::vector<std::vector<double>> by_band(4);
  for (const auto& r : rows) {
    by_band[error_band(r.size)].push_back(std::abs(r.error_pct));
    by_band[3].push_back(std::abs(r.error_pct));
  }
  std::vector<BandSummary> out;
  for (std::size_t b = 0; b < by_band.size(); ++b) out.push_back(summarize(kErrorBands[b], std::move(by_band[b])));
  return out;
}

}  // namespace collsim::reports
