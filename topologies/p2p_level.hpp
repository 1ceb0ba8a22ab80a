// How far apart two GPUs may be for NCCL to move data between them peer to peer (P2P), and the
// transports it then uses: NCCL's path types and NCCL_P2P_LEVEL / NCCL_P2P_DISABLE, as values a
// topology file, a flag and a report share.
#pragma once

#include <cstdint>

#include "sim/units/enum_names.hpp"

namespace collsim::topo {

/// The kind of path between two GPUs of one host, closest first, as NCCL's path types
/// (PATH_NVL .. PATH_SYS, src/graph/topo.h, NCCL 2.30.7; nvidia-smi topo -m's legend): NVLink only;
/// through one PCIe switch; through several PCIe switches but no CPU; through one CPU (its root
/// complex, NCCL's PHB, nvidia-smi's PHB and NODE); across CPU sockets. Net: through a NIC.
enum class PathType : std::uint8_t { Nvl, Pix, Pxb, Phb, Sys, Net };

/// The farthest path type over which GPUs use P2P (NCCL_P2P_LEVEL); Off is NCCL_P2P_DISABLE=1
/// (no P2P at all, NCCL's PATH_LOC). Levels compare as their PathType: P2P when path <= level.
enum class P2pLevel : std::uint8_t { Off, Nvl, Pix, Pxb, Phb, Sys };

/// NCCL's transports between two ranks (src/transport/): P2P (the sender writes into the receiver's
/// GPU memory over NVLink or PCIe), SHM (through a buffer in the receiver's host memory: over the
/// sender's PCIe link to the CPU and the receiver's link from it), NET (through NICs).
enum class Transport : std::uint8_t { P2p, Shm, Net };

/// NCCL_P2P_LEVEL's spellings, read ignoring case ("PXB", "pxb"); "off" also as "loc" and
/// "disable" (NCCL_P2P_DISABLE=1 sets PATH_LOC).
inline constexpr auto kP2pLevelNames = make_enum_names<P2pLevel>({{P2pLevel::Off, "off", {"loc", "disable"}},
                                                                  {P2pLevel::Nvl, "nvl"},
                                                                  {P2pLevel::Pix, "pix"},
                                                                  {P2pLevel::Pxb, "pxb"},
                                                                  {P2pLevel::Phb, "phb", {"node"}},
                                                                  {P2pLevel::Sys, "sys"}},
                                                                 NameMatch::IgnoreCase);
/// "NVL", "PIX", "PXB", "PHB", "SYS", "NET": NCCL's and nvidia-smi's names.
inline constexpr auto kPathTypeNames = make_enum_names<PathType>({{PathType::Nvl, "NVL"},
                                                                  {PathType::Pix, "PIX"},
                                                                  {PathType::Pxb, "PXB"},
                                                                  {PathType::Phb, "PHB"},
                                                                  {PathType::Sys, "SYS"},
                                                                  {PathType::Net, "NET"}});
/// "P2P", "SHM", "NET": NCCL's transport names as its INFO logs print them.
inline constexpr auto kTransportNames =
    make_enum_names<Transport>({{Transport::P2p, "P2P"}, {Transport::Shm, "SHM"}, {Transport::Net, "NET"}});

/// Whether a path of type `path` is close enough for P2P at `level` (NCCL's ncclTopoCheckP2p:
/// path->type <= p2pLevel). Net paths never are.
[[nodiscard]] constexpr bool p2p_allowed(PathType path, P2pLevel level) noexcept {
  return path != PathType::Net && level != P2pLevel::Off &&
         static_cast<std::uint8_t>(path) + 1 <= static_cast<std::uint8_t>(level);
}

}  // namespace collsim::topo
