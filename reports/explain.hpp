// Step-by-step explanation of a schedule in the seed's notation: rank letters A, B, C, ... and
// chunk indices, "A1+C1" for the sum of rank A's and rank C's chunk 1 (seed: ring all-reduce of
// 6 elements on 3 GPUs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::reports {

struct ExplainedStep {
  std::uint32_t step = 0;        ///< 1-based, over the whole schedule
  std::string phase;             ///< e.g. "reduce-scatter", or "" when the schedule names none
  std::uint32_t phase_step = 0;  ///< 1-based within the phase
  std::vector<std::string> sends;    ///< "GPU0 -> GPU1: A2 (add into chunk 2)"
  std::vector<std::string> buffers;  ///< one per rank after the step: "GPU0: [A0, A1+C1, A2]"
};

struct Explanation {
  std::vector<std::string> chunks;  ///< "chunk 0 = elements 0..1"
  std::vector<std::string> inputs;  ///< "GPU0: [a0, a1 | a2, a3 | a4, a5] = [A0 | A1 | A2]"
  std::vector<ExplainedStep> steps;
  std::vector<Bytes> elements_sent;  ///< per rank
  std::vector<std::string> names;    ///< per rank: "GPU0" .., then the helpers ("switch", "server0" ..)
};

/// Replays `schedule` symbolically, one element per byte of its size. Participants are named GPU0,
/// GPU1, ..; helper ranks `helper` when there is one, else helper0, helper1, .. (e.g. "switch" for
/// NVLS's, "server" for a parameter server's). Throws std::invalid_argument for more than 26 ranks
/// (there are 26 letters).
Explanation explain(const sched::Schedule& schedule, const std::string& helper = "helper");

/// The explanation as text for people, ending with the result and the traffic per GPU.
std::string render_explanation(const sched::Schedule& schedule, const Explanation& explanation);

}  // namespace collsim::reports
