// gpu_runtime.hpp on the CUDA runtime (linked statically; never libcuda directly) and NCCL
// (dlopen, only when asked). Built as C++17 without fmt or CLI11, which nvcc rejects.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "validation/cuda/gpu_runtime.hpp"

namespace collsim::cuda {
namespace {

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw GpuError(std::string(call) + ": " + cudaGetErrorString(e));
}
#define COLLSIM_CUDA_CHECK(call) check((call), #call)

std::uint32_t elem_bytes(Elem e) { return e == Elem::F16 || e == Elem::BF16 ? 2 : 4; }

// dst[i] += src[i]; integers wrap (added as unsigned, which C++ defines).
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline int add(int a, int b) {
  return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
}
__device__ inline __half add(__half a, __half b) { return __hadd(a, b); }
__device__ inline __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }

template <class T>
__global__ void add_into(T* dst, const T* src, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = add(dst[i], src[i]);
}

void launch_add(Elem e, void* dst, const void* src, std::uint64_t bytes, cudaStream_t s) {
  const std::uint64_t n = bytes / elem_bytes(e);
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((n + kThreads - 1) / kThreads, 4096));
  switch (e) {
    case Elem::F32: add_into<<<blocks, kThreads, 0, s>>>(static_cast<float*>(dst), static_cast<const float*>(src), n); break;
    case Elem::I32: add_into<<<blocks, kThreads, 0, s>>>(static_cast<int*>(dst), static_cast<const int*>(src), n); break;
    case Elem::F16:
      add_into<<<blocks, kThreads, 0, s>>>(static_cast<__half*>(dst), static_cast<const __half*>(src), n);
      break;
    case Elem::BF16:
      add_into<<<blocks, kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(dst), static_cast<const __nv_bfloat16*>(src), n);
      break;
  }
  COLLSIM_CUDA_CHECK(cudaGetLastError());
}

void enable_peer_access(int devices) {
  for (int a = 0; a < devices; ++a)
    for (int b = 0; b < devices; ++b) {
      int can = 0;
      if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || can == 0) continue;
      COLLSIM_CUDA_CHECK(cudaSetDevice(a));
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // clears the sticky-free error state
      } else {
        check(e, "cudaDeviceEnablePeerAccess");
      }
    }
}

// Streams that start together after one event and end together in another (a GPU-side barrier).
struct Fence {
  std::vector<cudaStream_t> streams;
  std::vector<int> devices;
  std::vector<cudaEvent_t> done;  // per stream
  cudaEvent_t begin = nullptr, start = nullptr, stop = nullptr;

  void create() {
    done.resize(streams.size());
    for (std::size_t i = 0; i < streams.size(); ++i) {
      COLLSIM_CUDA_CHECK(cudaSetDevice(devices[i]));
      COLLSIM_CUDA_CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    }
    COLLSIM_CUDA_CHECK(cudaSetDevice(devices[0]));
    COLLSIM_CUDA_CHECK(cudaEventCreateWithFlags(&begin, cudaEventDisableTiming));
    COLLSIM_CUDA_CHECK(cudaEventCreate(&start));
    COLLSIM_CUDA_CHECK(cudaEventCreate(&stop));
  }
  void destroy() noexcept {
    for (auto e : done) (void)cudaEventDestroy(e);
    for (auto e : {begin, start, stop})
      if (e != nullptr) (void)cudaEventDestroy(e);
  }
  // Stream 0 is the main stream: every other stream waits for it, then it waits for them all.
  void open() {
    COLLSIM_CUDA_CHECK(cudaEventRecord(begin, streams[0]));
    for (std::size_t i = 1; i < streams.size(); ++i) COLLSIM_CUDA_CHECK(cudaStreamWaitEvent(streams[i], begin, 0));
  }
  void close() {
    for (std::size_t i = 1; i < streams.size(); ++i) {
      COLLSIM_CUDA_CHECK(cudaEventRecord(done[i], streams[i]));
      COLLSIM_CUDA_CHECK(cudaStreamWaitEvent(streams[0], done[i], 0));
    }
  }
  template <class Run>
  double time(int warmup, int iters, Run run) {
    for (int i = 0; i < warmup; ++i) run();
    COLLSIM_CUDA_CHECK(cudaEventRecord(start, streams[0]));
    for (int i = 0; i < iters; ++i) run();
    COLLSIM_CUDA_CHECK(cudaEventRecord(stop, streams[0]));
    COLLSIM_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    COLLSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return iters > 0 ? static_cast<double>(ms) * 1e-3 / iters : 0.0;
  }
};

}  // namespace

Probe probe() {
  Probe p;
  p.built = true;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    p.problem = std::string("no GPU: cudaGetDeviceCount: ") + cudaGetErrorString(e);
    return p;
  }
  if (count == 0) {
    p.problem = "no GPU: cudaGetDeviceCount found none";
    return p;
  }
  p.peer_access.assign(count, std::vector<int>(count, 0));
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    p.devices.push_back(DeviceInfo{prop.name, prop.major, prop.minor, prop.totalGlobalMem});
    for (int q = 0; q < count; ++q) {
      int can = d == q ? 1 : 0;
      if (d != q && cudaDeviceCanAccessPeer(&can, d, q) != cudaSuccess) can = 0;
      p.peer_access[d][q] = can;
    }
  }
  if (p.devices.size() != static_cast<std::size_t>(count)) p.problem = "no GPU: cudaGetDeviceProperties failed";
  return p;
}

CopyMeasure measure_copy(int device, int concurrent, std::uint64_t bytes) {
  COLLSIM_CUDA_CHECK(cudaSetDevice(device));
  const int k = std::max(concurrent, 1);
  std::vector<void*> src(k, nullptr), dst(k, nullptr);
  Fence f;
  f.streams.resize(k);
  f.devices.assign(k, device);
  CopyMeasure m;
  try {
    for (int i = 0; i < k; ++i) {
      COLLSIM_CUDA_CHECK(cudaMalloc(&src[i], bytes));
      COLLSIM_CUDA_CHECK(cudaMalloc(&dst[i], bytes));
      COLLSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&f.streams[i], cudaStreamNonBlocking));
    }
    f.create();
    const double all = f.time(2, 10, [&] {
      f.open();
      for (int i = 0; i < k; ++i)
        COLLSIM_CUDA_CHECK(cudaMemcpyAsync(dst[i], src[i], bytes, cudaMemcpyDeviceToDevice, f.streams[i]));
      f.close();
    });
    m.bytes_per_s = static_cast<double>(bytes) / all;
    m.latency_s = f.time(10, 100, [&] {
      COLLSIM_CUDA_CHECK(cudaMemcpyAsync(dst[0], src[0], 4, cudaMemcpyDeviceToDevice, f.streams[0]));
    });
  } catch (...) {
    f.destroy();
    for (auto s : f.streams) if (s != nullptr) (void)cudaStreamDestroy(s);
    for (auto p : src) (void)cudaFree(p);
    for (auto p : dst) (void)cudaFree(p);
    throw;
  }
  f.destroy();
  for (auto s : f.streams) (void)cudaStreamDestroy(s);
  for (auto p : src) (void)cudaFree(p);
  for (auto p : dst) (void)cudaFree(p);
  return m;
}

struct Replay::Impl {
  const StreamPlan& plan;
  Elem elem;
  std::vector<std::array<void*, 3>> buffers;  // per rank: Data, Output, Scratch
  std::vector<void*> staging;                  // per stream
  std::vector<cudaEvent_t> events;             // the plan's events
  Fence fence;                                  // the plan's streams, then a main stream

  Impl(const StreamPlan& p, Elem e) : plan(p), elem(e) {}

  void* at(const Region& r) const {
    void* base = r.area == Area::Staging ? staging[r.owner] : buffers[r.owner][static_cast<int>(r.area)];
    return static_cast<char*>(base) + r.offset;
  }
  int device_of_rank(std::uint32_t rank) const { return static_cast<int>(rank / plan.ranks_per_gpu); }
  int device_of(const Region& r) const {
    return r.area == Area::Staging ? static_cast<int>(plan.streams[r.owner].device) : device_of_rank(r.owner);
  }

  void release() noexcept {
    fence.destroy();
    for (auto e : events) (void)cudaEventDestroy(e);
    for (auto s : fence.streams) if (s != nullptr) (void)cudaStreamDestroy(s);
    for (auto p : staging) (void)cudaFree(p);
    for (auto& b : buffers)
      for (auto p : b) (void)cudaFree(p);
  }

  void issue() {
    fence.open();
    for (const StreamOp& op : plan.ops) {
      cudaStream_t s = fence.streams[op.stream + 1];  // fence stream 0 is the main stream
      COLLSIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(plan.streams[op.stream].device)));
      for (auto w : op.waits) COLLSIM_CUDA_CHECK(cudaStreamWaitEvent(s, events[w], 0));
      if (op.copy && op.copy_from.bytes > 0) {
        if (op.peer)
          COLLSIM_CUDA_CHECK(cudaMemcpyPeerAsync(at(op.copy_to), device_of(op.copy_to), at(op.copy_from),
                                                 device_of(op.copy_from), op.copy_from.bytes, s));
        else
          COLLSIM_CUDA_CHECK(cudaMemcpyAsync(at(op.copy_to), at(op.copy_from), op.copy_from.bytes,
                                             cudaMemcpyDeviceToDevice, s));
      }
      if (op.reduce) launch_add(elem, at(op.reduce_into), at(op.reduce_from), op.reduce_into.bytes, s);
      if (op.record != kNoEvent) COLLSIM_CUDA_CHECK(cudaEventRecord(events[op.record], s));
    }
    fence.close();
  }
};

Replay::Replay(const StreamPlan& plan, Elem elem) : impl_(std::make_unique<Impl>(plan, elem)) {
  Impl& r = *impl_;
  int count = 0;
  COLLSIM_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (plan.devices > static_cast<std::uint32_t>(count))
    throw GpuError("the replay needs " + std::to_string(plan.devices) + " GPUs, found " + std::to_string(count));
  try {
    enable_peer_access(static_cast<int>(plan.devices));
    r.buffers.assign(plan.ranks, {nullptr, nullptr, nullptr});
    for (std::uint32_t k = 0; k < plan.ranks; ++k) {
      COLLSIM_CUDA_CHECK(cudaSetDevice(r.device_of_rank(k)));
      for (int a = 0; a < 3; ++a)
        if (plan.buffer_bytes[a] > 0) COLLSIM_CUDA_CHECK(cudaMalloc(&r.buffers[k][a], plan.buffer_bytes[a]));
    }
    r.staging.assign(plan.streams.size(), nullptr);
    r.fence.streams.assign(plan.streams.size() + 1, nullptr);
    r.fence.devices.assign(plan.streams.size() + 1, 0);
    // The main stream goes first in the fence (index 0); the plan's stream i is fence stream i + 1.
    COLLSIM_CUDA_CHECK(cudaSetDevice(0));
    COLLSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&r.fence.streams[0], cudaStreamNonBlocking));
    for (std::size_t i = 0; i < plan.streams.size(); ++i) {
      const int dev = static_cast<int>(plan.streams[i].device);
      COLLSIM_CUDA_CHECK(cudaSetDevice(dev));
      r.fence.devices[i + 1] = dev;
      COLLSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&r.fence.streams[i + 1], cudaStreamNonBlocking));
      if (plan.streams[i].staging_bytes > 0) COLLSIM_CUDA_CHECK(cudaMalloc(&r.staging[i], plan.streams[i].staging_bytes));
    }
    r.events.assign(plan.events, nullptr);
    for (const StreamOp& op : plan.ops)
      if (op.record != kNoEvent) {
        COLLSIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(plan.streams[op.stream].device)));
        COLLSIM_CUDA_CHECK(cudaEventCreateWithFlags(&r.events[op.record], cudaEventDisableTiming));
      }
    r.fence.create();
  } catch (...) {
    r.release();
    throw;
  }
}

Replay::~Replay() { impl_->release(); }

void Replay::upload(std::uint32_t rank, Area area, std::uint64_t offset, const void* host, std::uint64_t bytes) {
  if (bytes == 0) return;
  COLLSIM_CUDA_CHECK(cudaMemcpy(impl_->at(Region{rank, area, offset, bytes}), host, bytes, cudaMemcpyHostToDevice));
}

void Replay::download(std::uint32_t rank, Area area, std::uint64_t offset, void* host, std::uint64_t bytes) const {
  if (bytes == 0) return;
  COLLSIM_CUDA_CHECK(cudaMemcpy(host, impl_->at(Region{rank, area, offset, bytes}), bytes, cudaMemcpyDeviceToHost));
}

void Replay::run_once() {
  impl_->issue();
  for (std::uint32_t d = 0; d < impl_->plan.devices; ++d) {
    COLLSIM_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
    COLLSIM_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

double Replay::time_per_run(int warmup, int iters) {
  return impl_->fence.time(warmup, iters, [this] { impl_->issue(); });
}

// ---- NCCL, loaded at run time ------------------------------------------------------------------
namespace {

struct Nccl {
  void* lib = nullptr;
  ncclResult_t (*comm_init_all)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;
  const char* (*error_string)(ncclResult_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t) = nullptr;

  template <class F>
  void bind(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (f == nullptr) throw GpuError(std::string("--nccl: libnccl has no ") + name);
  }
  Nccl() {
    lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      throw GpuError(std::string("--nccl: cannot load libnccl.so.2 (install NCCL or set LD_LIBRARY_PATH): ") +
                     (why != nullptr ? why : "not found"));
    }
    bind(comm_init_all, "ncclCommInitAll");
    bind(comm_destroy, "ncclCommDestroy");
    bind(group_start, "ncclGroupStart");
    bind(group_end, "ncclGroupEnd");
    bind(error_string, "ncclGetErrorString");
    bind(all_reduce, "ncclAllReduce");
    bind(all_gather, "ncclAllGather");
    bind(reduce_scatter, "ncclReduceScatter");
    bind(broadcast, "ncclBroadcast");
    bind(reduce, "ncclReduce");
  }
  ~Nccl() { dlclose(lib); }
  void check(ncclResult_t r, const char* call) const {
    if (r != ncclSuccess) throw GpuError(std::string(call) + ": " + error_string(r));
  }
};

ncclDataType_t nccl_type(Elem e) {
  switch (e) {
    case Elem::F32: return ncclFloat32;
    case Elem::F16: return ncclFloat16;
    case Elem::BF16: return ncclBfloat16;
    case Elem::I32: return ncclInt32;
  }
  return ncclFloat32;
}

}  // namespace

double nccl_time_per_run(NcclColl coll, Elem elem, std::uint64_t bytes, int devices, int root, int warmup, int iters) {
  const Nccl nccl;
  const std::uint64_t count = bytes / elem_bytes(elem);  // nccl-tests' count for S
  const auto n = static_cast<std::uint64_t>(devices);
  // Send and receive buffers as nccl-tests sizes them: S is the larger of the two.
  const bool gather = coll == NcclColl::AllGather, scatter = coll == NcclColl::ReduceScatter;
  const std::uint64_t part = count / n;
  const std::uint64_t send_count = gather ? part : count, recv_count = scatter ? part : count;
  std::vector<ncclComm_t> comms(devices, nullptr);
  std::vector<int> ids(devices);
  for (int d = 0; d < devices; ++d) ids[d] = d;
  std::vector<void*> send(devices, nullptr), recv(devices, nullptr);
  Fence f;
  f.streams.assign(devices, nullptr);
  f.devices = ids;
  auto cleanup = [&]() noexcept {
    f.destroy();
    for (auto c : comms) if (c != nullptr) (void)nccl.comm_destroy(c);
    for (auto s : f.streams) if (s != nullptr) (void)cudaStreamDestroy(s);
    for (auto p : send) (void)cudaFree(p);
    for (auto p : recv) (void)cudaFree(p);
  };
  try {
    nccl.check(nccl.comm_init_all(comms.data(), devices, ids.data()), "ncclCommInitAll");
    const std::uint32_t eb = elem_bytes(elem);
    for (int d = 0; d < devices; ++d) {
      COLLSIM_CUDA_CHECK(cudaSetDevice(d));
      COLLSIM_CUDA_CHECK(cudaMalloc(&send[d], std::max<std::uint64_t>(send_count * eb, 1)));
      COLLSIM_CUDA_CHECK(cudaMalloc(&recv[d], std::max<std::uint64_t>(recv_count * eb, 1)));
      COLLSIM_CUDA_CHECK(cudaMemset(send[d], 0, send_count * eb));
      COLLSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&f.streams[d], cudaStreamNonBlocking));
    }
    f.create();
    const ncclDataType_t t = nccl_type(elem);
    const double s = f.time(warmup, iters, [&] {
      f.open();
      nccl.check(nccl.group_start(), "ncclGroupStart");
      for (int d = 0; d < devices; ++d) {
        ncclResult_t r = ncclSuccess;
        switch (coll) {
          case NcclColl::AllReduce: r = nccl.all_reduce(send[d], recv[d], count, t, ncclSum, comms[d], f.streams[d]); break;
          case NcclColl::AllGather: r = nccl.all_gather(send[d], recv[d], part, t, comms[d], f.streams[d]); break;
          case NcclColl::ReduceScatter:
            r = nccl.reduce_scatter(send[d], recv[d], part, t, ncclSum, comms[d], f.streams[d]);
            break;
          case NcclColl::Broadcast: r = nccl.broadcast(send[d], recv[d], count, t, root, comms[d], f.streams[d]); break;
          case NcclColl::Reduce: r = nccl.reduce(send[d], recv[d], count, t, ncclSum, root, comms[d], f.streams[d]); break;
        }
        nccl.check(r, "NCCL collective");
      }
      nccl.check(nccl.group_end(), "ncclGroupEnd");
      f.close();
    });
    cleanup();
    return s;
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace collsim::cuda
