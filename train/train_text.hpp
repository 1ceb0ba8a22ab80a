// collsim train's request as a front end gives it (text, as typed), parsed into a TrainRequest.
#pragma once

#include <string>

#include "run/text_request.hpp"
#include "train/train.hpp"

namespace collsim::train {

/// The text of a training request; an empty field takes its default.
struct TrainText {
  std::string mode = "ddp";     ///< ddp or fsdp
  std::string preset;           ///< a preset's name (presets())
  std::string tensors;          ///< a model file (model_of_json)
  std::string parameters;       ///< with layers: a parameter count spread over layers
  std::string layers;           ///< default 1
  std::string dtype;            ///< default float32
  std::string forward_time;     ///< the whole forward, spread over layers by parameters
  std::string backward_time;    ///< the whole backward, likewise
  std::string bucket_cap;       ///< DDP: a list of sizes, default 25M
  std::string first_bucket;     ///< DDP: default 1M
  std::string ranks;            ///< a count list ("8,16..64"); default every GPU
  std::string algorithm = "nccl";
  run::TopologyText topology;
  run::AlgorithmText options;
  run::ModelText model;
  std::string network = "flow";
};

/// The request of `t`. Throws run::RequestError naming the field: not exactly one model source
/// (preset, tensors, parameters), a value that does not parse, --layers without --parameters, a
/// bucket flag with fsdp, a model file that cannot be read or is malformed (file and JSON path in
/// the message), a total time beside per-layer times.
[[nodiscard]] TrainRequest train_request(const TrainText& t);

}  // namespace collsim::train
