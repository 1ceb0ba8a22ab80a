// The flow-level network model: concurrent transfers share links max-min fairly (SimGrid's and
// ASTRA-sim's analytical family; STYLE.md pattern 10 (b)).
//
// Every transmitting transfer has a rate. Rates are solved once per instant: the starts and ends
// of transfers at one picosecond only record which classes changed, and when the engine flushes
// (before the clock moves on, or before it queues an event of its own) the rates of the flows
// connected to them through shared links are re-solved at once (MaxMinSolver), and only theirs:
// a contention-free transfer costs a constant amount of work. Within a picosecond nothing is
// transmitted, so only the rates after its last change matter (bench/PROFILE.md section 3.10); a
// flow whose projected end comes at `now` ends then, whatever else changes at `now`. A
// full-duplex link is two resources (one per direction), a half-duplex link one. A transfer
// transmits its bytes at its rate, then arrives its route's summed latency later, as in the FIFO
// model. Transfers between the same two nodes and of the same channel form one connection and
// transmit one after the other in request order, as NCCL moves a channel's slices in order
// (different channels are different connections and share the links) (sharing a link among a
// thousand pipeline chunks of one connection would finish none early and stall every pipeline).
// A transfer whose rate, as solved at each flush of its life, stays at its route's bottleneck
// ends exactly at start + ceil(8n·1e12 / B) ps, so contention-free runs equal the closed forms; a
// slowed one is tracked in floating point and its end rounded up to the picosecond.
//
// Cost (bench/PROFILE.md, issue 7 point 3): transmitting flows live in a slab with a free list
// (memory O(flows in flight), not O(transfers)); waiting transfers in per-connection intrusive
// queues; a flow that shares no resource with another (the common case on dedicated links) gets
// its bottleneck rate without the solver, which gives the same rate bit for bit; a flush solves
// each connected component that a change reached on its own, with buffers kept between calls.
// Nothing allocates per transfer once the slabs are warm.
//
// Dedicated links (issue 18, item 4; PROFILE section 3.3 item 6): a flow that begins as the only
// flow on resources nothing else uses, and that no change of its instant reached, takes its
// bottleneck without touching the solver's bookkeeping (begin()); and a flow alone on its
// resources with nothing queued behind it is quiet: its end is not an event, only its arrival is.
// Whoever comes onto its resources or its connection settles it first: ended at its end if that
// has passed, else an ordinary flow with its end event. Ring all-reduce thus takes one event per
// transfer instead of two, with every time unchanged (flow_quiet_test.cpp compares op by op with
// set_quiet(false), and the sweeps of docs/performance.md row by row).
//
// Contended fabrics (24 channels between every pair of GPUs of an NVSwitch box: a thousand flows
// on 16 resources) are solved per route, not per flow (bench/PROFILE.md section 3.7): the flows of
// one route cross the same resources, so max-min gives them one rate, and the solver works on
// route classes with a multiplicity (MaxMinSolver::add_flow_over), in O(resources + routes) per
// round. Only the flows of classes whose rate changed are touched. A component whose classes all
// have the sizes they had at the last flush (a transfer ended while the next one of its
// connection started) keeps every rate, and is neither solved nor walked: only the components of
// classes that changed size are found (issue 18 item 4, SimGrid's lazy update). A slowed flow's
// bits left are brought up to date when its class's rate moves (or a flow of its class is first
// slowed), in one subtraction per stretch at one rate; until session 21 they were brought to every
// flush that reached their component, whose extra roundings moved some times by 1-2 ps (docs'
// sweeps: 5 of 102 rows, at most 6e-8 relative) and made 32 DGX H100 of all-to-all walk 14,000
// classes at each of 2,681 flushes instead of 350 (bench/PROFILE.md section 8). Within a component
// that a size change reaches, only the classes the change can move are re-solved (session 22,
// sim/network/flow_levels.cpp): the solver's rounds are recorded per resource as levels, and the
// solve resumes from the lowest level the change can move, with the state the rounds below it left,
// so a class ending at a high rate re-solves the few classes above it, not the 14,000 of the
// component (the same doubles as the whole solve). Every simulated time is the one
// the plain model gives, to the picosecond: set_always_solve (the solver at every flush, no
// shortcut) and set_eager (one wake-up per end, every arrival through the log) are that model,
// and tests/unit/flow_reference_test.cpp and flow_lazy_test.cpp compare with them op for op.
//
// A transfer may stand for copies: the same transfer of identical channels, started together
// (algo::build_folded_channels). Max-min gives the flows of one class one rate, so copies stay in
// step; one flow that counts `copies` times in its class's multiplicity has every time the copies
// would have (tests/unit/folded_channels_test.cpp, op by op), in 1/copies of the events.
//
// Ends are projected once per flush: each new flow, and each flow of a class whose rate moved that
// is (or becomes) slower than its bottleneck. The queue receives them sorted by (key, time,
// transfer id) after the arrivals logged before them: the key of a flow at full speed is the
// change that began it (its end is known from its start), of any other the flush, so a
// contention-free run queues every wake-up in the order its events happened. Ends of one key due
// at one time share one wake-up, which ends them in that order.
//
// Until issue 14 every start and end re-solved its component at once (PROFILE 3.7, 3.9): a burst
// of n starts at one picosecond cost n solves of the whole component, O(n x classes x rounds), and
// 24-channel direct all-reduce on 58 GPUs ran for minutes. Solving once per flush gives the same
// final rates bit for bit (the solver is a function of the class sizes); it differs where a
// solve inside the burst left a flow below its bottleneck that the last one does not (it now keeps
// its exact end), where a wake-up due at `now` was re-projected a picosecond later by a solve at
// `now`, and in the order of ends due at one picosecond (PROFILE 3.10 lists what moved).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/network/maxmin.hpp"
#include "sim/network/network_model.hpp"
#include "sim/network/one_inline.hpp"

namespace collsim::net {

class FlowModel final : public NetworkModel {
 public:
  explicit FlowModel(const topo::Topology& topology);
  [[nodiscard]] std::string_view name() const noexcept override { return "flow"; }
  /// A transfer of `copies` copies is one flow that counts `copies` times in its route's class:
  /// max-min gives the copies of identical channels one rate, so the folded run has their times.
  void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
             std::uint32_t copies, Time after, WakeQueue& queue) override;
  [[nodiscard]] bool folds_copies() const noexcept override { return true; }
  [[nodiscard]] bool chains() const noexcept override { return true; }
  void start_followed(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                      std::uint32_t copies, Time after, WakeQueue& queue) override;
  void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) override;
  /// Solves the rates of every class a start or end reached since the last flush, projects the
  /// ends that moved and gives the queue their wake-ups, merged with the arrivals logged since.
  void flush(WakeQueue& queue) override;
  /// Time the link carried at least one transmitting transfer.
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return resource_.at(id).busy; }
  /// Solves every flush's changes with the max-min solver even when a changed flow shares no
  /// resource or no class changed its size, and treats an end alone on its links like any other
  /// (the shortcuts off): for the tests that both give identical times.
  void set_always_solve(bool on) noexcept {
    always_solve_ = on;
    by_levels_ = by_levels_ && !on;
  }
  /// Queues every projected end as a wake-up of its own, sorted by std::sort, and every arrival
  /// not due at once through the log (no shared wake-ups, no run merge, no early queuing): the
  /// plain order of work, for the tests that both give identical times and order.
  void set_eager(bool on) noexcept { eager_ = on; }
  /// Quiet flows (on by default, in every mode above): a flow alone on its resources (its class's
  /// only flow, of any copies), with nothing queued behind it, gets no end event, only its
  /// arrival; off, every
  /// flow's end is an event. Both give the same times, except where events tie to the picosecond:
  /// a quiet flow's arrival is queued when its end is projected, not when its end would have
  /// come, so it may run before other events of its picosecond (flow_quiet_test.cpp compares).
  void set_quiet(bool on) noexcept { quiet_ = on; }
  /// Re-solves by propagation (on by default; sim/network/flow_propagate.cpp); off, every re-solve
  /// by levels takes the regions of sim/network/flow_levels.cpp, its fallback: for the tests that
  /// check both against the plain model.
  void set_propagate(bool on) noexcept { propagate_ = on; }
  /// What solving by levels did so far (solve_levels): flushes that re-solved, how many of them
  /// resumed from a level above nothing, how many of those were done by propagation
  /// (solve_propagate), the classes they solved (or, propagating, followed) in all, and the
  /// resized classes the propagations started from.
  struct LevelStats {
    std::uint64_t solves = 0;
    std::uint64_t resumed = 0;
    std::uint64_t propagated = 0;
    std::uint64_t classes = 0;
    std::uint64_t resized = 0;
  };
  [[nodiscard]] const LevelStats& level_stats() const noexcept { return level_stats_; }

 private:
  using Slot = std::uint32_t;  // index into flows_
  static constexpr Slot kNone = 0xFFFFFFFFu;
  /// A transmitting transfer.
  struct Flow {
    const topo::Route* route = nullptr;
    TransferId id = 0;
    std::uint32_t connection = 0;
    std::uint32_t group = 0;  // its route's class (groups_)
    std::uint32_t pos = 0;    // its index in groups_[group].flows
    Bytes bytes = 0;
    std::uint32_t copies = 1;  // the identical transfers it stands for (start())
    Time after{0};             // its op's own cost, added to its arrival (start())
    Time started{0};
    std::uint64_t joined = 0;  // the change (epoch_) that began it
    bool exact = true;      // never slowed below its bottleneck (as of the last flush): ends at started + transfer_time
    /// Quiet: alone on its resources with nothing queued behind it, it has no end event, only its arrival
    /// (queued at the flush, at end_at + latency + after); whoever comes onto its resources or
    /// its connection first ends it (at end_at, when that has passed) or makes it ordinary.
    bool quiet = false;
    /// Followed on its connection by a transfer the engine starts when this one begins
    /// (start_followed): never quiet, as with a transfer queued behind it.
    bool followed = false;
    Time end_at{0};             // while quiet: when its last bit leaves
    std::uint32_t version = 0;  // wake-ups of older projections (or older users of the slot) are ignored
    Slot next_free = kNone;
  };
  /// A transfer waiting behind its connection's transmitting one.
  struct Pending {
    TransferId id;
    Bytes bytes;
    std::uint32_t copies;
    Time after;
    std::uint32_t next;  // index into pending_, or kNone
    bool followed;       // started by start_followed
  };
  /// A route and a channel: its transfers transmit one at a time, in request order.
  struct Connection {
    bool busy = false;
    std::uint32_t group = 0;                   // its route's class
    std::uint32_t head = kNone, tail = kNone;  // into pending_
  };
  /// The transmitting flows of one route (of any channel): one max-min class, one rate. Its
  /// slowed (inexact) flows all run at `rate` since `updated`, the last flush that reached it.
  /// Two cache lines, aligned: the first holds most of what a flow's start and end and a solve
  /// read (a rate that changes also reads `updated` and `bits_left` and writes `changed_at`, in
  /// the second); session 28: classes are visited in random order at 16,384 GPUs.
  struct alignas(64) Group {
    const topo::Route* route = nullptr;
    std::uint32_t size = 0;          // the class's multiplicity: its flows' copies, summed
    std::uint32_t solved_size = 0;   // size at the last flush that saw it change
    double rate = -1;                // bits/s, given by the last solve that saw it (-1: none yet)
    OneInline<Slot> flows;           // by transfer id
    Slot quiet = kNone;              // its one flow, while that flow is quiet (Flow::quiet)
    bool dirty = false;              // in dirty_: changed or joined since the last flush
    bool touched = false;            // in touched_: a flow began or ended since the last flush
    /// A newcomer met one of its quiet flows before that flow's end: its flows are not made quiet
    /// again, since on contended links each such meeting costs an event (the stale arrival).
    bool contended = false;
    OneInline<double> bits_left;     // by position in flows: bits still to send at `updated` (slowed flows only)
    Time updated{0};
    std::uint64_t changed_at = 0;    // the flush (epoch_) whose solve last changed `rate`
  };
  static_assert(sizeof(Group) == 128, "two cache lines per class");
  std::uint32_t connection_of(const topo::Route& route, std::uint16_t channel);
  Slot begin(Time now, TransferId id, const topo::Route& route, std::uint32_t connection, Bytes bytes,
             std::uint32_t copies, Time after, bool followed);
  void start_flow(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                  std::uint32_t copies, Time after, bool followed, WakeQueue& queue);
  void end(Time now, Slot slot);
  /// Takes the flow in `slot` off its class, resources and links as of `at` (its transmission's
  /// end); the slot stays the flow's.
  void leave(Time at, Slot slot);
  /// Whether a flow of `group`, just projected, may skip its end event: quiet flows on,
  /// no observer, a class never contended so, the only flow of its class, alone on its resources,
  /// nothing queued behind it.
  bool may_skip_end(const Group& group, const Flow& f) const;
  /// A quiet flow meets a newcomer at `now` (on its resources or its connection): ended at its
  /// end_at when that has passed (retire()), else an ordinary flow again, with its end event at
  /// end_at (its queued arrival goes stale; the flush projects it again if its rate moves).
  void settle_quiet(Time now, Slot slot);
  /// Ends the quiet flow in `slot` as of its end_at: as its end event would have, alone.
  void retire(Slot slot);
  /// Queues (into wakes_, ordered by `key`) the projected end `at` of the flow in `slot` of class
  /// `g`, or only its arrival when it may be quiet (may_skip_end).
  void project(Slot slot, Flow& f, Group& g, Time at, std::uint64_t key);
  /// Collects in component_ the classes connected to the resources `seeds` (breadth-first, one
  /// component after the other, their ends in component_ends_).
  void collect(std::span<const std::uint32_t> seeds);
  /// The flush's one solve: re-solves the rates of every component holding a class whose size
  /// changed since the last flush (every component a change reached, with set_always_solve); the
  /// ends it moves are projected by flush().
  void solve();
  /// solve() by levels (sim/network/flow_levels.cpp): re-solves from the lowest level a change of
  /// size can move, only the classes not fixed below it and connected to the change.
  void solve_levels();
  /// solve() by propagation (sim/network/flow_propagate.cpp): the last solve's rounds replayed
  /// level by level, re-doing only the resources whose own rounds a change moves; true when done,
  /// false (having changed nothing) where it met levels not to be trusted or rounds whose shares
  /// fell, for solve_levels to do the flush.
  bool solve_propagate();
  /// Resource `r`'s state before the round at share `s` by its recorded levels, its flow count
  /// changed by `delta`: what is left, flows not fixed, and how many levels lie below `s`; false
  /// where the levels fix more flows than it has.
  bool state_before(std::uint32_t r, double s, std::int64_t delta, double& left, std::int64_t& open,
                    std::uint32_t& keep) const;
  /// Turns `r` dirty at share `s` (its state from then on kept by solve_propagate, starting from
  /// its levels below `s`); false where its levels are not to be trusted.
  bool prop_dirty(std::uint32_t r, double s);
  /// Whether `r` (dirty or clean) is a bottleneck of the round at share `s`.
  bool prop_bottleneck(std::uint32_t r, double s) const;
  /// Pushes a PropEntry onto solve_propagate's heap.
  void prop_push(double share, std::uint32_t kind, std::uint32_t id);
  /// Lowers `cut` to the smallest share, old or new, that changed resource `r` had in a state its
  /// recorded levels below `cut` left it in; false where its levels are not to be trusted (then
  /// the change's whole component is re-solved).
  bool lowest_cut(std::uint32_t r, double& cut) const;
  /// The region a union-find of regions_ puts `region` in.
  std::uint32_t region_root(std::uint32_t region);
  /// Joins the regions of `a` and `b` at the lower of their levels, with both's changes.
  void join_regions(std::uint32_t a, std::uint32_t b);
  /// Walks `region` (a root) from its changed resources through the classes not fixed below its
  /// level (or changed) into its resources and classes; false where it met another region (the
  /// pair is put in join_) or a resource whose levels are not to be trusted (its level dropped).
  bool walk_region(std::uint32_t region);
  /// Marks the levels of `route`'s resources untrusted: a class on them took a rate that no
  /// recorded solve gave and record_alone could not vouch for.
  void forget_levels(const topo::Route& route);
  /// Records on `route`'s resources the one round a solve of a class of one flow alone on them
  /// gives (begin()'s alone flows).
  void record_alone(const topo::Route& route);
  /// Records no rounds on `route`'s resources that no class is on any more (a flow that ended
  /// alone); marks the others untrusted.
  void record_emptied(const topo::Route& route);
  /// The end of every solve: touched classes' sizes recorded as solved, changes cleared.
  void finish_solve();
  /// The max-min rate of `group` when it is a class of one flow of one copy and no other class shares its
  /// resources: its route's bottleneck, bits/s.
  double alone_rate(std::uint32_t group) const;
  /// Brings the bits left of `g`'s slowed flows from `updated` to `now` at the class's rate.
  void bring_to(Group& g, Time now);
  /// Records `rate` as `group`'s at the current flush (a changed one is projected by flush()),
  /// bringing its slowed flows to `now` at the old rate first when it changes.
  void take_rate(std::uint32_t group, double rate);
  /// Adds `group` to dirty_ once.
  void mark_dirty(std::uint32_t group);
  /// Records that a flow of `group` began or ended: its resources are re-solved at the flush.
  void touch(std::uint32_t group);
  /// Gives `token` to the queue at `at`: at once when nothing is deferred, else at the flush,
  /// after the ends decided so far.
  void log_wake(Time at, std::uint64_t token);
  /// Sorts wakes_ by (solve, time, transfer id), in O(n log runs) for n made of sorted runs.
  void sort_wakes();
  /// Ends the transmission of the flow in `slot` if `version` is still its current projection.
  void end_if_current(Time now, Slot slot, std::uint32_t version);

  const topo::Topology& topology_;
  std::vector<Flow> flows_;                         // slab of transmitting flows
  Slot free_ = kNone;                               // head of flows_' free list
  std::vector<Group> groups_;
  std::unordered_map<const topo::Route*, std::uint32_t> group_index_;  // route -> groups_
  /// What the model keeps per resource, in one place: a flush walks each changed resource several
  /// times (touch, collect, solve), and one cache line per resource instead of five arrays keeps
  /// that walk's cost low on routes of many hops (issue 18, item 4).
  /// The classes on a resource, in the order a vector with swap-removal keeps them; one class (a
  /// dedicated link's usual load) is held in place, so reading it follows no pointer. Two or more
  /// live in an array of its own (a pointer and a capacity, not a std::vector's three words, so a
  /// ResourceState fits one cache line).
  class ClassList {
   public:
    [[nodiscard]] std::uint32_t size() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::uint32_t front() const noexcept { return count_ == 1 ? first_ : many_[0]; }
    [[nodiscard]] const std::uint32_t* begin() const noexcept { return count_ <= 1 ? &first_ : many_.get(); }
    [[nodiscard]] const std::uint32_t* end() const noexcept { return begin() + count_; }
    void push_back(std::uint32_t c) {
      if (count_ == 0) {
        first_ = c;
        count_ = 1;
        return;
      }
      if (count_ + 1 > capacity_) {
        const std::uint32_t grown = std::max<std::uint32_t>(4, 2 * capacity_);
        auto bigger = std::make_unique_for_overwrite<std::uint32_t[]>(grown);
        if (count_ > 1) std::copy(many_.get(), many_.get() + count_, bigger.get());
        many_ = std::move(bigger);
        capacity_ = grown;
      }
      if (count_ == 1) many_[0] = first_;
      many_[count_++] = c;
    }
    /// Removes `c`, which it holds, moving the last class into its place.
    void erase(std::uint32_t c) {
      if (count_ == 1) {
        count_ = 0;
        return;
      }
      *std::find(many_.get(), many_.get() + count_, c) = many_[count_ - 1];
      if (--count_ == 1) first_ = many_[0];
    }

   private:
    std::uint32_t count_ = 0;
    std::uint32_t first_ = 0;                 // the class, while there is one
    std::unique_ptr<std::uint32_t[]> many_;   // all of them, while there are two or more
    std::uint32_t capacity_ = 0;              // of many_
  };
  /// Per resource, and per directed link by the same index (a resource is numbered by one of its
  /// links, and a full-duplex link is its own resource): a flow's start and end touch one entry per
  /// link of its route, not one in each of several arrays. One cache line each, aligned: a flow's
  /// start or end at 16,384 GPUs misses the cache once per link, not twice (72 bytes straddled two
  /// lines until session 28).
  struct alignas(64) ResourceState {
    ClassList classes;                   // groups with transmitting flows
    std::uint32_t link_classes = 0;      // as a link: classes with transmitting flows that cross it
    bool changed = false;                // in changed_
    Time since{0};                       // as a link, while link_classes > 0: when it became busy
    Time busy{0};                        // as a link: time it carried at least one transmitting flow
    std::uint32_t seen = 0;              // stamp_ if collect() reached it
    std::uint32_t resized = 0;           // stamp_ if a class on it changed its size
    std::uint32_t solver_index = 0;      // its index in solver_, during solve()
  };
  static_assert(sizeof(ResourceState) == 64, "one cache line per resource");
  std::vector<ResourceState> resource_;  // by resource, and by directed link
  std::unordered_map<std::uint64_t, std::uint32_t> connection_index_;  // (route, channel) -> connections_
  std::vector<Connection> connections_;
  /// By Route::index: the connection connection_of() last gave for that route, and the index in
  /// channel_tables_ of its connections by channel once it has had two (kNone before).
  struct Recent {
    const topo::Route* route = nullptr;
    std::uint32_t connection = 0;
    std::uint32_t table = kNone;
    std::uint16_t channel = 0;
  };
  std::vector<Recent> recent_;
  std::vector<std::vector<std::uint32_t>> channel_tables_;  // by channel: a connection, or kNone
  /// Records `connection` as route's on `channel` in r (connection_of()).
  void remember_connection(Recent& r, const topo::Route& route, std::uint16_t channel, std::uint32_t connection);
  std::vector<Pending> pending_;                    // slab of waiting transfers
  std::uint32_t pending_free_ = kNone;
  bool always_solve_ = false;
  bool eager_ = false;
  bool quiet_ = true;
  WakeQueue* queue_ = nullptr;  // the queue of the current start() or wake()
  // Changes and flushes are numbered by epoch_ (see the top); the changes from period_start_ on are
  // not flushed yet, all at time period_now_.
  std::uint64_t epoch_ = 0;
  std::uint64_t period_start_ = 1;
  Time period_now_{0};
  std::vector<std::uint32_t> dirty_;     // classes to project at the flush
  std::vector<Slot> alone_;              // flows begun alone since the last flush (begin())
  std::vector<std::uint32_t> touched_;   // classes a flow began or ended in since the last flush
  std::vector<std::uint32_t> changed_;   // their resources, once each
  std::vector<std::uint32_t> resized_;   // solve()'s scratch: resources of the classes whose size changed
  /// A wake-up other than a projected end (an arrival), logged after change `after`.
  struct Logged {
    std::uint64_t after;
    Time at;
    std::uint64_t token;
  };
  std::vector<Logged> log_;
  // Scratch for solve(), kept to avoid allocating per event: stamps mark what the current
  // component already holds.
  std::vector<std::uint32_t> seen_group_;  // by group
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> component_resources_;
  std::vector<std::uint32_t> component_;  // groups
  /// Where one component of component_resources_ and component_ ends.
  struct Span {
    std::uint32_t resources, classes;
  };
  std::vector<Span> component_ends_;
  /// A flow's end to wake up for, ordered by `epoch` (its join if it runs at full speed, else the
  /// flush that projected it), then time and transfer id.
  struct Wake {
    std::uint64_t epoch;
    Time at;
    TransferId id;
    Slot slot;
    std::uint32_t version;
    bool quiet = false;  // `at` is the arrival of a quiet flow (its end has no event)
  };
  /// One end in a list of ends due together (one wake-up), in the order to end them.
  struct BatchEntry {
    Slot slot = kNone;
    std::uint32_t version = 0;
    std::uint32_t next = kNone;  // into batch_
  };
  std::vector<Wake> wakes_;                 // new ends, grouped by time before scheduling
  std::vector<Wake> sorted_wakes_;          // sort_wakes' buffer
  std::vector<std::uint32_t> runs_;         // sort_wakes' sorted runs (first index)
  std::vector<std::uint32_t> merged_runs_;  // the same after one merge pass
  std::vector<BatchEntry> batch_;           // slab of the lists behind batch wake-ups
  std::uint32_t batch_free_ = kNone;
  std::vector<std::uint32_t> flow_resources_;
  std::vector<double> rates_;
  MaxMinSolver solver_;
  /// Solving by levels (solve_levels): off with set_always_solve, and for good once a route is
  /// sprayed (weighted classes, whose counts round and are not recorded).
  bool by_levels_ = true;
  bool propagate_ = true;  // set_propagate
  /// One round of the last solves that fixed flows on a resource: its share, what it left of the
  /// resource, how many flows it fixed there. A resource's levels rise.
  struct Level {
    double share;
    double left;
    std::uint64_t fixed;
  };
  /// What solving by levels keeps per resource, in one cache line: a re-solve reads all of it for
  /// each resource it reaches, in random order at scale (four arrays and the topology's link until
  /// session 28, five cache misses a resource).
  struct alignas(64) LevelState {
    std::vector<Level> history;     // its levels
    std::uint64_t solved_total = 0;  // flows on it at its levels' solve
    std::int64_t delta = 0;          // solve_levels' scratch: the change of that count
    double capacity = 0;             // bits/s: the link's bandwidth, as the solver takes it
    bool ok = true;                  // its levels are every rate's on it
  };
  static_assert(sizeof(LevelState) == 64, "one cache line per resource");
  std::vector<LevelState> level_;  // by resource
  /// A group of changes of one flush and what they re-solve (solve_levels).
  struct Region {
    std::uint32_t parent = 0;             // union-find
    double cut = 0;                       // the level it is re-solved from
    std::vector<std::uint32_t> seeds;     // its changed resources
    std::vector<std::uint32_t> resources; // what it re-solves; solver index -> resource
    std::vector<std::uint32_t> classes;
  };
  std::vector<Region> regions_;       // the first regions_used_ are this flush's
  std::uint32_t regions_used_ = 0;
  std::vector<std::uint32_t> owner_;        // by resource: the region whose walk reached it (while `seen` is this pass's)
  std::vector<std::uint32_t> seed_region_;  // by resource: the region of its change (while `resized` is resized_stamp_)
  std::uint32_t resized_stamp_ = 0;
  std::vector<std::uint32_t> walk_;         // walk_region's queue
  std::vector<std::pair<std::uint32_t, std::uint32_t>> join_;  // regions whose walks met in a pass
  std::vector<std::uint32_t> redo_, failed_;                    // regions to walk (again), to let go
  std::vector<MaxMinSolver::Settled> settled_;  // the solver's rounds, solve_levels' scratch
  LevelStats level_stats_;

 public:
  /// solve_propagate's heap entry: a resized resource's cut, a dirty resource's fair share or a
  /// followed class's old rate (kind 0, 1, 2), for id.
  struct PropEntry {
    double share;
    std::uint32_t kind;
    std::uint32_t id;
  };

 private:
  /// solve_propagate's scratch by resource; a field is this solve's while its stamp is prop_stamp_.
  struct PropResource {
    std::uint32_t dirty = 0;        // stamp: its state is kept below (from level `keep` of its levels on)
    std::uint32_t resized = 0;      // stamp: a resized class crosses it (delta, cut valid)
    std::uint32_t bottleneck = 0;   // round: a bottleneck of that round
    std::uint32_t touched = 0;      // round: a class fixed in that round crosses it
    std::uint32_t keep = 0;
    std::int64_t open = 0;          // flows not yet fixed
    std::int64_t delta = 0;         // change of its flow count
    std::uint64_t fixed_now = 0;    // flows fixed on it in the current round
    double left = 0;                // what is left of it
    double cut = 0;                 // below it the resized resource is clean
  };
  struct PropClass {
    std::uint32_t play = 0;     // stamp: followed
    std::uint32_t fixed = 0;    // stamp: fixed, at `rate`
    std::uint32_t resized = 0;  // stamp: its size changed
    std::uint32_t round = 0;    // round: to be fixed in that round
    double rate = 0;
  };
  std::vector<PropResource> prop_res_;
  std::vector<PropClass> prop_class_;
  std::vector<PropEntry> prop_heap_;
  std::vector<std::uint32_t> prop_dirty_, prop_play_, prop_resized_, prop_newly_, prop_bottlenecks_, prop_candidates_,
      prop_fix_, prop_touched_;
  std::vector<std::pair<std::uint32_t, Level>> prop_levels_;  // the new rounds on dirty resources, in order
  std::uint32_t prop_stamp_ = 0, prop_round_ = 0;
};

}  // namespace collsim::net
