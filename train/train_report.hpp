// collsim train's outputs: a table for people, JSON and CSV for programs, and a Chrome trace event
// timeline (Perfetto) of one case's compute and collectives.
#pragma once

#include <ostream>
#include <string>

#include "train/train.hpp"

namespace collsim::train {

/// The table: the model and setup, then per case its step, compute, communication (total, exposed,
/// hidden) and bytes sent per rank; with one case, its collectives one per line as well, with
/// several, one line per case (ranks, bucket cap) to compare them.
[[nodiscard]] std::string render_table(const TrainResult& r);

/// The whole result as JSON: the setup, and per case its totals and every collective (times as
/// exact microseconds, bytes as integers).
[[nodiscard]] std::string render_json(const TrainResult& r);

/// One CSV row per case (header first): mode, model, parameters, dtype, topology, algorithm, ranks,
/// bucket cap, collectives, step / compute / communication / exposed in us, bytes sent per rank per
/// collective kind. What a sweep over --bucket-cap or --ranks is plotted from.
[[nodiscard]] std::string render_csv(const TrainResult& r);

/// The timeline of `c` in the Chrome trace event format (open in ui.perfetto.dev): one track for
/// compute, one for the communication stream, a slice per layer pass and per collective (args: bytes,
/// algorithm, ready time). Times in microseconds as the format asks.
void write_trace(std::ostream& out, const TrainResult& r, const TrainCase& c);

}  // namespace collsim::train
