#include "sim/network/fifo_link_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::net {

FifoLinkModel::FifoLinkModel(const topo::Topology& topology)
    : topology_(topology), resources_(topology.resource_count()), busy_(topology.links().size(), Time{0}) {}

void FifoLinkModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t /*channel*/,
                          std::uint32_t copies, Time after, WakeQueue& queue) {
  if (copies != 1) throw std::invalid_argument("FifoLinkModel::start: copies of a transfer, expected 1 (it does not fold copies)");
  if (after < Time{0}) throw std::invalid_argument("FifoLinkModel::start: a negative cost after arrival");
  if (id >= transfers_.size()) transfers_.resize(static_cast<std::size_t>(id) + 1);
  Transfer& t = transfers_[id];
  // An id comes back once its transfer has been reported finished (the engine reuses slots).
  if (t.state != State::Unused && t.state != State::Done)
    throw std::logic_error("FifoLinkModel::start: transfer started twice");
  t = Transfer{&route, bytes, next_seq_++, after, State::Waiting};
  if (try_start(now, id, queue)) return;
  for (topo::LinkId l : route.links) resources_[topology_.link(l).resource].waiting.push_back(id);
}

bool FifoLinkModel::try_start(Time now, TransferId id, WakeQueue& queue) {
  Transfer& t = transfers_[id];
  for (topo::LinkId l : t.route->links)
    if (resources_[topology_.link(l).resource].holder != kIdle) return false;
  t.state = State::Active;
  for (topo::LinkId l : t.route->links) resources_[topology_.link(l).resource].holder = id;
  const Time hold = t.route->links.empty() ? Time{0} : transfer_time(t.bytes, t.route->bottleneck);
  for (topo::LinkId l : t.route->links) busy_[l] = checked_add(busy_[l], hold);
  // Two wake-ups: the links free up after the serialisation, the data arrives a latency later.
  // With zero latency both come at once, release first (the queue keeps insertion order).
  const Time released = checked_add(now, hold);
  queue.wake_at(released, token(id, Wake::Release));
  if (observer_) observer_->transmit_begin(now, id);
  queue.wake_at(checked_add(checked_add(released, t.route->latency), t.after), token(id, Wake::Arrive));
  return true;
}

void FifoLinkModel::wake(Time now, std::uint64_t wake_token, WakeQueue& queue, std::vector<TransferId>& finished) {
  const auto id = static_cast<TransferId>(wake_token >> 1);
  Transfer& done = transfers_.at(id);
  if (static_cast<Wake>(wake_token & 1) == Wake::Arrive) {
    if (done.state != State::Released) throw std::logic_error("FifoLinkModel::wake: data arrived before release");
    done.state = State::Done;
    finished.push_back(id);
    return;
  }
  if (done.state != State::Active) throw std::logic_error("FifoLinkModel::wake: transfer was not active");
  done.state = State::Released;
  if (observer_) observer_->transmit_end(now, id);

  // Free the route, then offer the freed resources to their waiting transfers, oldest request first.
  candidates_.clear();
  for (topo::LinkId l : done.route->links) {
    Resource& r = resources_[topology_.link(l).resource];
    r.holder = kIdle;
    while (!r.waiting.empty() && transfers_[r.waiting.front()].state != State::Waiting) r.waiting.pop_front();
    for (TransferId w : r.waiting)
      if (transfers_[w].state == State::Waiting) candidates_.push_back(w);
  }
  std::sort(candidates_.begin(), candidates_.end(),
            [&](TransferId a, TransferId b) { return transfers_[a].seq < transfers_[b].seq; });
  candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  for (TransferId w : candidates_)
    if (transfers_[w].state == State::Waiting) try_start(now, w, queue);
}

}  // namespace collsim::net
