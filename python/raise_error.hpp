// The library layer's errors raised as the module's exceptions (collsim.RequestError, ... defined
// in collsim/__init__.py), with the command line's one-line messages (run/error_report.hpp).
#pragma once

#include <exception>
#include <utility>

#include <pybind11/pybind11.h>

namespace collsim::python {

namespace py = pybind11;

/// Sets the Python exception of `error` (the collsim class of its kind, with the message and, for a
/// RequestError, its field's keyword and value) and throws py::error_already_set.
[[noreturn]] void raise_as_python(const std::exception_ptr& error);

/// Calls `call()` (with the GIL held), turning a C++ error into its collsim exception; Python's
/// own errors (TypeError, error_already_set) pass unchanged.
template <typename Call>
auto translating(Call&& call) -> decltype(call()) {
  try {
    return std::forward<Call>(call)();
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (...) {
    raise_as_python(std::current_exception());
  }
}

}  // namespace collsim::python
