#include "run/algorithm_list.hpp"

#include <nlohmann/json.hpp>

namespace collsim::run {

std::string algorithms_json(const algo::AlgorithmRegistry& registry) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& a : registry.all())
    list.push_back({{"algorithm", a.name},
                    {"collective", sched::collective_name(a.collective)},
                    {"steps", a.steps},
                    {"bytes_sent_per_rank_max", a.bytes_per_rank},
                    {"options", a.options},
                    {"closed_form", a.closed_form},
                    {"description", a.description}});
  return list.dump(2) + "\n";
}

}  // namespace collsim::run
