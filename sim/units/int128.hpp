// 128-bit unsigned arithmetic for exact rate and time computations (GCC/Clang extension).
#pragma once

namespace collsim {
/// Unsigned 128-bit integer; `__extension__` keeps -Wpedantic quiet about the GNU type.
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;
}  // namespace collsim
