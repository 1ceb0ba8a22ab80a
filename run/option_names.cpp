#include "run/option_names.hpp"

#include <algorithm>

namespace collsim::run {

std::string flag_spelling(Field field) {
  switch (field) {
    case Field::Log: return "LOG";
    case Field::Shards: return "SHARDS";
    case Field::Output: return "-o";
    case Field::Jobs: return "-j/--jobs";
    case Field::MinBytes: return "-b/--minbytes";
    case Field::MaxBytes: return "-e/--maxbytes";
    case Field::StepFactor: return "-f/--stepfactor";
    case Field::StepBytes: return "-i/--stepbytes";
    default: break;
  }
  std::string flag = "--" + std::string(field_name(field));
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::optional<Field> field_of_keyword(std::string_view keyword) {
  for (std::size_t f = 0; f < kFields; ++f)
    if (field_name(static_cast<Field>(f)) == keyword) return static_cast<Field>(f);
  return std::nullopt;
}

}  // namespace collsim::run
