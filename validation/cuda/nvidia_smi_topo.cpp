#include "validation/cuda/nvidia_smi_topo.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace collsim::cuda {
namespace {

// Drops ANSI escape sequences (ESC [ ... letter) that newer nvidia-smi puts around the header.
std::string strip_ansi(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z'))) ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Cells split on tabs; a line without tabs (a copy that turned tabs into spaces) splits on runs of
// two or more spaces, which keeps "CPU Affinity" one cell.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  const bool tabs = line.find('\t') != std::string::npos;
  std::size_t i = 0;
  while (i <= line.size()) {
    std::size_t j = tabs ? line.find('\t', i) : line.find("  ", i);
    if (j == std::string::npos) j = line.size();
    out.emplace_back(trim(std::string_view(line).substr(i, j - i)));
    i = j + (tabs ? 1 : 2);
    if (!tabs)
      while (i < line.size() && line[i] == ' ') ++i;
  }
  return out;
}

bool is_gpu_name(std::string_view s) {
  return s.size() > 3 && s.substr(0, 3) == "GPU" &&
         std::all_of(s.begin() + 3, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

SmiLink parse_cell(std::string_view cell, std::size_t line_no, std::string_view row, std::string_view column) {
  if (cell == "X") return {SmiPath::Self, 0};
  if (cell == "PIX") return {SmiPath::Pix, 0};
  if (cell == "PXB") return {SmiPath::Pxb, 0};
  if (cell == "PHB") return {SmiPath::Phb, 0};
  if (cell == "NODE") return {SmiPath::Node, 0};
  if (cell == "SYS") return {SmiPath::Sys, 0};
  std::uint32_t n = 0;
  if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    const auto* end = cell.data() + cell.size();
    const auto [p, ec] = std::from_chars(cell.data() + 2, end, n);
    if (ec == std::errc() && p == end && n > 0) return {SmiPath::NvLink, n};
  }
  throw SmiParseError(fmt::format("nvidia-smi topo -m, line {}: row {} column {}: found \"{}\", expected X, NV#, "
                                  "PIX, PXB, PHB, NODE or SYS",
                                  line_no, row, column, cell));
}

// Union-find over GPU indices.
struct Groups {
  std::vector<std::size_t> parent;
  explicit Groups(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t i) { return parent[i] == i ? i : parent[i] = find(parent[i]); }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

std::string rate(std::uint64_t bytes_per_s) { return fmt::format("{}B/s", bytes_per_s); }

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

struct Doc {
  std::vector<std::string> nodes, links;
  /// `extra`: more members, each `, "key": value` (JSON).
  void node(std::string_view id, std::string_view type, std::string_view extra = "") {
    nodes.push_back(fmt::format("    {{\"id\": {}, \"type\": \"{}\"{}}}", json_string(id), type, extra));
  }
  void link(std::string_view from, std::string_view to, std::string_view type, std::uint64_t bytes_per_s,
            std::string_view latency) {
    links.push_back(fmt::format("    {{\"from\": {}, \"to\": {}, \"type\": \"{}\", \"bandwidth\": \"{}\", \"latency\": \"{}\"}}",
                                json_string(from), json_string(to), type, rate(bytes_per_s), latency));
  }
  std::string text(std::string_view name, std::string_view description) const {
    // The loader refuses an empty description, so none is written then.
    const std::string about = description.empty() ? "" : fmt::format("  \"description\": {},\n", json_string(description));
    return fmt::format("{{\n  \"name\": {},\n{}  \"nodes\": [\n{}\n  ],\n  \"links\": [\n{}\n  ]\n}}\n",
                       json_string(name), about, fmt::join(nodes, ",\n"), fmt::join(links, ",\n"));
  }
};

}  // namespace

SmiTopology parse_nvidia_smi_topo(std::string_view text) {
  SmiTopology t;
  std::vector<std::string> header;
  std::size_t ngpu = 0, line_no = 0, numa_column = 0, cpu_column = 0;
  std::map<std::string, std::vector<SmiLink>> rows;
  std::map<std::string, std::string> numa;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = strip_ansi(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    const auto c = cells(line);
    if (header.empty()) {
      // The header: an empty first cell, then GPU0 ...
      if (c.size() >= 2 && c[0].empty() && c[1] == "GPU0") {
        header = c;
        while (ngpu + 1 < header.size() && is_gpu_name(header[ngpu + 1])) ++ngpu;
        for (std::size_t k = ngpu + 1; k < header.size(); ++k) {
          if (header[k] == "NUMA Affinity") numa_column = k;
          else if (header[k] == "CPU Affinity") cpu_column = k;
          else if (!header[k].empty() && header[k].find("Affinity") == std::string::npos &&
                   header[k] != "GPU NUMA ID")
            ++t.nics;
        }
      }
      continue;
    }
    if (c.empty() || !is_gpu_name(c[0])) {
      if (!rows.empty() && (c.empty() || c[0].empty() || c[0].starts_with("Legend"))) break;  // the matrix ended
      continue;  // NIC rows
    }
    if (c.size() < ngpu + 1)
      throw SmiParseError(fmt::format("nvidia-smi topo -m, line {}: row {} has {} cells, expected at least {} (one per GPU)",
                                      line_no, c[0], c.size() - 1, ngpu));
    auto& row = rows[c[0]];
    for (std::size_t k = 0; k < ngpu; ++k) row.push_back(parse_cell(c[k + 1], line_no, c[0], header[k + 1]));
    // The socket a GPU hangs off: its NUMA node, or its CPU set where the NUMA column is missing.
    const std::size_t place = numa_column != 0 ? numa_column : cpu_column;
    if (place != 0 && place < c.size() && c[place] != "N/A") numa[c[0]] = c[place];
  }
  if (header.empty()) throw SmiParseError("nvidia-smi topo -m: no header line with GPU0 found; expected its matrix");
  for (std::size_t i = 0; i < ngpu; ++i) {
    const std::string& name = header[i + 1];
    const auto it = rows.find(name);
    if (it == rows.end()) throw SmiParseError(fmt::format("nvidia-smi topo -m: no row for {}, expected one per GPU column", name));
    if (it->second[i].path != SmiPath::Self)
      throw SmiParseError(fmt::format("nvidia-smi topo -m: row {} does not have X in its own column", name));
    t.gpus.push_back(name);
    t.links.push_back(it->second);
    t.numa.push_back(numa.count(name) != 0 ? numa[name] : std::string());
  }
  for (std::size_t i = 0; i < ngpu; ++i)
    for (std::size_t j = 0; j < ngpu; ++j)
      if ((t.links[i][j].path == SmiPath::Self) != (i == j))
        throw SmiParseError(fmt::format("nvidia-smi topo -m: {} to {} is X, expected only on the diagonal", t.gpus[i], t.gpus[j]));
  return t;
}

std::string cpu_vendor_from_cpuinfo(std::string_view text) {
  if (text.find("GenuineIntel") != std::string_view::npos) return "intel";
  if (text.find("AuthenticAMD") != std::string_view::npos) return "amd";
  if (text.find("CPU implementer") != std::string_view::npos) return "arm";  // aarch64's /proc/cpuinfo
  return "";
}

std::uint64_t nvlink_bytes_per_s(int cc_major) noexcept { return cc_major <= 6 ? 20'000'000'000 : 25'000'000'000; }

std::string smi_topology_json(const SmiTopology& t, const LinkSpeeds& speeds, std::string_view name,
                              std::string_view description) {
  const std::size_t n = t.gpus.size();
  Doc doc;
  const auto gpu = [](std::size_t i) { return fmt::format("gpu{}", i); };
  for (std::size_t i = 0; i < n; ++i)
    doc.node(gpu(i), "gpu", i < t.p2p.size() && !t.p2p[i] ? ", \"p2p\": false" : "");
  const std::string vendor = t.cpu_vendor.empty() ? "" : fmt::format(", \"vendor\": {}", json_string(t.cpu_vendor));

  bool switched = n >= 3;
  const std::uint32_t links0 = n >= 2 ? t.links[0][1].nvlinks : 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && (t.links[i][j].path != SmiPath::NvLink || t.links[i][j].nvlinks != links0)) switched = false;
  if (switched) {
    doc.node("nvswitch", "switch");
    for (std::size_t i = 0; i < n; ++i)
      doc.link(gpu(i), "nvswitch", "nvswitch", links0 * speeds.nvlink_bytes_per_s, speeds.nvlink_latency);
    return doc.text(name, description);
  }

  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (t.links[i][j].path == SmiPath::NvLink)
        doc.link(gpu(i), gpu(j), "nvlink", t.links[i][j].nvlinks * speeds.nvlink_bytes_per_s, speeds.nvlink_latency);

  Groups pcie_switch(n), socket(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const SmiPath p = t.links[i][j].path;
      if (p == SmiPath::Pix || p == SmiPath::Pxb) pcie_switch.join(i, j);
      if (p == SmiPath::Pix || p == SmiPath::Pxb || p == SmiPath::Phb || p == SmiPath::Node) socket.join(i, j);
      // NVLink says nothing about PCIe; the NUMA column, where there is one, places the GPU.
      if (i != j && !t.numa[i].empty() && t.numa[i] == t.numa[j]) socket.join(i, j);
    }
  std::map<std::size_t, std::string> cpu_of, switch_of;  // group root -> node id, numbered in GPU order
  std::map<std::size_t, std::size_t> members;
  for (std::size_t i = 0; i < n; ++i) ++members[pcie_switch.find(i)];
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = socket.find(i);
    if (cpu_of.count(s) == 0) {
      cpu_of[s] = fmt::format("cpu{}", cpu_of.size());
      doc.node(cpu_of[s], "cpu", vendor);
    }
    const std::size_t sw = pcie_switch.find(i);
    if (members[sw] < 2) {  // a GPU alone below its root port
      doc.link(gpu(i), cpu_of[s], "pcie", speeds.pcie_bytes_per_s, speeds.pcie_latency);
      continue;
    }
    if (switch_of.count(sw) == 0) {
      switch_of[sw] = fmt::format("pcie-switch{}", switch_of.size());
      doc.node(switch_of[sw], "switch");
      doc.link(switch_of[sw], cpu_of[s], "pcie", speeds.pcie_bytes_per_s, speeds.pcie_latency);
    }
    doc.link(gpu(i), switch_of[sw], "pcie", speeds.pcie_bytes_per_s, speeds.pcie_latency);
  }
  std::vector<std::string> cpus;
  for (const auto& [root, id] : cpu_of) cpus.push_back(id);
  std::sort(cpus.begin(), cpus.end());
  for (std::size_t a = 0; a < cpus.size(); ++a)
    for (std::size_t b = a + 1; b < cpus.size(); ++b)
      doc.link(cpus[a], cpus[b], "upi", speeds.upi_bytes_per_s, speeds.upi_latency);
  return doc.text(name, description);
}

std::string virtual_gpu_topology_json(std::uint32_t ranks, std::uint64_t copy_bytes_per_s, std::uint64_t copy_latency_ps,
                                      std::string_view name, std::string_view description) {
  Doc doc;
  doc.node("memory", "switch");
  const std::string latency = fmt::format("{}ps", copy_latency_ps / 2);
  for (std::uint32_t i = 0; i < ranks; ++i) {
    const std::string id = fmt::format("gpu{}", i);
    doc.node(id, "gpu");
    doc.link(id, "memory", "nvswitch", copy_bytes_per_s, latency);
  }
  return doc.text(name, description);
}

}  // namespace collsim::cuda
