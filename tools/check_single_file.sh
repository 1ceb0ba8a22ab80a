#!/usr/bin/env bash
# Checks that a collsim binary runs as a single file on a machine without Debian packages (issue 6):
# its shared libraries must all be glibc's (libc, libm, libpthread, libdl, librt, ld-linux, the vDSO),
# so fmt, libstdc++, libgcc_s and the CUDA runtime are linked in. Exit 77 (skipped) without ldd.
set -euo pipefail
binary=${1:?usage: check_single_file.sh COLLSIM_BINARY}
command -v ldd >/dev/null || { echo "ldd not found: skipped"; exit 77; }
libs=$(ldd "$binary" | awk '{print $1}')
bad=$(grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|/lib(64)?/ld-linux[-a-z0-9_]*\.so\.[0-9]+|ld-linux[-a-z0-9_]*\.so\.[0-9]+)$' <<<"$libs" || true)
if [ -n "$bad" ]; then
  echo "$binary needs shared libraries beyond glibc: $(tr '\n' ' ' <<<"$bad")"
  exit 1
fi
echo "$binary: only glibc ($(tr '\n' ' ' <<<"$libs"))"
