#include "sim/network/fifo_link_model.hpp"

#include <stdexcept>

namespace collsim::net {

FifoLinkModel::FifoLinkModel(const topo::Topology& topology)
    : topology_(topology), queues_(topology.resource_count()), busy_(topology.links().size(), Time{0}) {}

void FifoLinkModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, WakeQueue& queue) {
  if (id >= transfers_.size()) transfers_.resize(static_cast<std::size_t>(id) + 1);
  Transfer& t = transfers_[id];
  if (t.route != nullptr) throw std::logic_error("FifoLinkModel::start: transfer started twice");
  t.route = &route;
  t.bytes = bytes;
  for (topo::LinkId l : route.links) queues_[topology_.link(l).resource].push_back(id);
  try_start(now, id, queue);
}

void FifoLinkModel::try_start(Time now, TransferId id, WakeQueue& queue) {
  Transfer& t = transfers_[id];
  for (topo::LinkId l : t.route->links)
    if (queues_[topology_.link(l).resource].front() != id) return;
  t.active = true;
  const Time duration =
      t.route->links.empty() ? Time{0} : checked_add(t.route->latency, transfer_time(t.bytes, t.route->bottleneck));
  for (topo::LinkId l : t.route->links) busy_[l] = checked_add(busy_[l], duration);
  queue.wake_at(checked_add(now, duration), id);
}

void FifoLinkModel::wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) {
  const auto id = static_cast<TransferId>(token);
  const Transfer& t = transfers_.at(id);
  if (!t.active) throw std::logic_error("FifoLinkModel::wake: transfer was not active");
  for (topo::LinkId l : t.route->links) queues_[topology_.link(l).resource].pop_front();
  for (topo::LinkId l : t.route->links) {
    auto& q = queues_[topology_.link(l).resource];
    if (!q.empty() && !transfers_[q.front()].active) try_start(now, q.front(), queue);
  }
  finished.push_back(id);
}

}  // namespace collsim::net
