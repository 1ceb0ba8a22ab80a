#include "run/error_report.hpp"

#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/registry.hpp"
#include "reports/csv.hpp"
#include "run/simulate.hpp"
#include "sim/schedule/json_io.hpp"
#include "sim/units/units.hpp"
#include "topologies/topology.hpp"

namespace collsim::run {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

ErrorReport of(ErrorKind kind, std::string_view message) { return {kind, one_line(message), std::nullopt, ""}; }

}  // namespace

std::string one_line(std::string_view msg) {
  std::string out;
  for (std::size_t i = 0; i < msg.size();) {
    const auto b = static_cast<unsigned char>(msg[i]);
    const std::size_t n = utf8_length(msg, i);
    if (n == 0 || b < 0x20 || b == 0x7f) {
      out += b == '\n' ? std::string("\\n") : b == '\t' ? std::string("\\t") : fmt::format("\\x{:02x}", b);
      ++i;
    } else {
      out.append(msg.substr(i, n));
      i += n;
    }
  }
  return out;
}

ErrorReport report_error(const std::exception_ptr& error, FieldSpelling spell) {
  try {
    std::rethrow_exception(error);
  } catch (const RequestError& e) {
    const bool overflow = dynamic_cast<const OverflowError*>(&e) != nullptr;
    return {overflow ? ErrorKind::Overflow : ErrorKind::Request, one_line(e.rendered(spell)), e.field(), e.value()};
  } catch (const OutputError& e) {
    return of(ErrorKind::Output, e.rendered(spell));
  } catch (const sched::ScheduleFileError& e) {
    return of(ErrorKind::ScheduleFile, e.what());
  } catch (const reports::CsvError& e) {
    return of(ErrorKind::Csv, e.what());
  } catch (const ClockOverflowError& e) {
    return of(ErrorKind::Overflow, e.what());
  } catch (const UnitError& e) {
    return of(ErrorKind::Unit, e.what());
  } catch (const topo::TopologyError& e) {
    return of(ErrorKind::Topology, e.what());
  } catch (const algo::AlgorithmError& e) {
    const std::string field = spell ? spell(Field::Algorithm) : std::string(field_name(Field::Algorithm));
    return of(ErrorKind::Algorithm, fmt::format("{}: {}", field, e.what()));
  } catch (const std::length_error& e) {
    return of(ErrorKind::Limit, e.what());
  } catch (const std::bad_alloc&) {
    return of(ErrorKind::Memory, "out of memory: the schedule is too large for this machine; use fewer ranks");
  } catch (const std::exception& e) {
    return of(ErrorKind::Internal, fmt::format("internal error (a bug in collsim, please report it): {}", e.what()));
  } catch (...) {
    return of(ErrorKind::Internal, "internal error (a bug in collsim, please report it): an unknown exception");
  }
}

}  // namespace collsim::run
