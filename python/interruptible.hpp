// Long simulations that Ctrl-C stops: Python runs signal handlers only on its main thread, between
// bytecodes, so a simulation that holds that thread (even with the GIL released) would let a
// KeyboardInterrupt wait for its end, minutes or hours. The work runs on a thread of its own while
// the calling thread waits without the GIL and checks Python's signals every 50 ms.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include <pybind11/pybind11.h>

namespace collsim::python {

namespace py = pybind11;

/// Calls `work(stop)` on a thread of its own and waits for it with the GIL released; `stop` is the
/// flag the work passes to the engine (sim::RunOptions::stop). When a signal handler raises while
/// it waits (KeyboardInterrupt on Ctrl-C), sets `stop`, waits for the work to end (within 4,096
/// events) and raises that exception (py::error_already_set); otherwise returns the work's result
/// or rethrows its exception. Must be called with the GIL held.
template <typename Work>
auto interruptible(Work&& work) -> decltype(work(static_cast<const std::atomic<bool>*>(nullptr))) {
  using Result = decltype(work(static_cast<const std::atomic<bool>*>(nullptr)));
  std::atomic<bool> stop{false};
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::optional<Result> result;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      result.emplace(work(&stop));
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard lock(m);
    done = true;
    cv.notify_one();
  });
  for (;;) {
    bool finished = false;
    {
      py::gil_scoped_release release;
      std::unique_lock lock(m);
      finished = cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
    }
    if (finished) break;
    if (PyErr_CheckSignals() != 0) {
      // The handler's exception is set; the work is told to stop and joined before it is raised.
      stop.store(true, std::memory_order_relaxed);
      {
        py::gil_scoped_release release;
        worker.join();
      }
      throw py::error_already_set();
    }
  }
  worker.join();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace collsim::python
