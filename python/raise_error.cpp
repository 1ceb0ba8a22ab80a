#include "python/raise_error.hpp"

#include "run/error_report.hpp"
#include "run/option_names.hpp"

namespace collsim::python {
namespace {

// The class of collsim/__init__.py that reports `kind`.
const char* class_name(run::ErrorKind kind) {
  switch (kind) {
    case run::ErrorKind::Request: return "RequestError";
    case run::ErrorKind::Overflow: return "OverflowError";
    case run::ErrorKind::Output: return "OutputError";
    case run::ErrorKind::Algorithm: return "AlgorithmError";
    case run::ErrorKind::Topology: return "TopologyError";
    case run::ErrorKind::Unit: return "UnitError";
    case run::ErrorKind::ScheduleFile: return "ScheduleFileError";
    case run::ErrorKind::Internal: return "InternalError";
    case run::ErrorKind::Csv:
    case run::ErrorKind::Limit:
    case run::ErrorKind::Memory: break;
  }
  return "Error";
}

}  // namespace

void raise_as_python(const std::exception_ptr& error) {
  // Fields are spelled as the command line's flags, so a message reads the same in both.
  const run::ErrorReport report = run::report_error(error, run::flag_spelling);
  const py::object cls = py::module_::import("collsim").attr(class_name(report.kind));
  py::object field = py::none();
  if (report.field) field = py::str(std::string(run::field_name(*report.field)));
  const bool request = report.kind == run::ErrorKind::Request || report.kind == run::ErrorKind::Overflow;
  const py::object exception = request ? cls(report.message, field, report.field ? py::object(py::str(report.value)) : py::none())
                                        : cls(report.message);
  PyErr_SetObject(cls.ptr(), exception.ptr());
  throw py::error_already_set();
}

}  // namespace collsim::python
