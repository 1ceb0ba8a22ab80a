// The start of a schedule that transforms another (channels, slicing): its header, nothing else.
#pragma once

#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// A schedule with the header of `s` (algorithm, collective, ranks, helpers, root, size, element
/// size, steps, phases), no chunks and no ops; dep_offsets holds the leading 0.
inline Schedule header_of(const Schedule& s) {
  Schedule out;
  out.algorithm = s.algorithm;
  out.header = s.header;
  out.steps = s.steps;
  out.phases = s.phases;
  out.dep_offsets.push_back(0);
  return out;
}

}  // namespace collsim::sched
