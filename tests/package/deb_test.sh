#!/usr/bin/env bash
# The Debian package of this build (issue 19): CPack makes the .deb from the build folder as a user
# would (`cpack`, which installs and never builds: CMAKE_SKIP_INSTALL_ALL_DEPENDENCY), `dpkg -x`
# unpacks it into a scratch root, and the collsim found there must run: `simulate --size 1G` prints
# exactly what this build's collsim prints, the topologies and schemas are where Debian keeps data,
# and the Python module (when built) imports from dist-packages and gives the program's time.
#
# usage: deb_test.sh BUILD_DIR COLLSIM_BINARY CPACK [PYTHON]
# PYTHON: the interpreter the module is built for (empty without the module); the environment
# variable COLLSIM_DEB_PYTHON_PRELOAD, when set, is its LD_PRELOAD (sanitizer builds).
# Exit 77 (skipped) without dpkg-deb, dpkg-shlibdeps (dpkg-dev) or file: CPack needs the last two to
# compute the package's dependencies.
set -euo pipefail
build=${1:?usage: deb_test.sh BUILD_DIR COLLSIM_BINARY CPACK [PYTHON]}
binary=${2:?usage: deb_test.sh BUILD_DIR COLLSIM_BINARY CPACK [PYTHON]}
cpack=${3:?usage: deb_test.sh BUILD_DIR COLLSIM_BINARY CPACK [PYTHON]}
python=${4:-}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

for tool in dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev file:file; do
  command -v "${tool%%:*}" >/dev/null ||
    { echo "${tool%%:*} not found (Debian: apt-get install ${tool#*:}): skipped"; exit 77; }
done

fail() { echo "FAIL: $*"; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/collsim-deb.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Into the scratch folder (-B), so the build folder gets no _CPack_Packages or .deb from a test.
"$cpack" --config "$build/CPackConfig.cmake" -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log"; fail "cpack failed"; }
shopt -s nullglob
debs=("$scratch"/out/collsim_*.deb)
[ ${#debs[@]} -eq 1 ] || { cat "$scratch/cpack.log"; fail "expected one collsim_*.deb, found ${#debs[@]}"; }
deb=${debs[0]}
echo "built $(basename "$deb")"

# The control fields: dpkg's architecture, and dependencies dpkg-shlibdeps found (glibc at least).
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$arch" = "$(dpkg --print-architecture)" ] || fail "Architecture is '$arch', dpkg's is $(dpkg --print-architecture)"
[ "$(dpkg-deb -f "$deb" Package)" = collsim ] || fail "Package is '$(dpkg-deb -f "$deb" Package)', not collsim"
depends=$(dpkg-deb -f "$deb" Depends)
grep -Eq '(^|, )libc6( |,|$)' <<<"$depends" || fail "Depends '$depends' lacks libc6"
echo "Depends: $depends"

root=$scratch/root
dpkg-deb -x "$deb" "$root"
[ -x "$root/usr/bin/collsim" ] || fail "no executable usr/bin/collsim in the package"
# Every bundled topology and the schemas, as in the source tree.
for f in "$source_dir"/topologies/data/*.json "$source_dir"/topologies/topology.schema.json \
         "$source_dir"/topologies/params.schema.json; do
  cmp -s "$f" "$root/usr/share/collsim/topologies/$(basename "$f")" ||
    fail "usr/share/collsim/topologies/$(basename "$f") is missing or differs from the source tree's"
done
cmp -s "$source_dir/sim/schedule/schedule.schema.json" "$root/usr/share/collsim/schedules/schedule.schema.json" ||
  fail "usr/share/collsim/schedules/schedule.schema.json is missing or differs from the source tree's"

# The packaged program, run from a folder outside the build and source trees, prints what this
# build's program prints, byte for byte (stdout and stderr), with the busbw line among it.
mkdir "$scratch/cwd"
(cd "$scratch/cwd" && "$root/usr/bin/collsim" simulate --size 1G) >"$scratch/packaged.txt" 2>&1 ||
  { cat "$scratch/packaged.txt"; fail "the packaged collsim simulate --size 1G failed"; }
"$binary" simulate --size 1G >"$scratch/built.txt" 2>&1 || { cat "$scratch/built.txt"; fail "$binary failed"; }
grep -Eq '^  busbw +[0-9]+\.[0-9]+ GB/s' "$scratch/packaged.txt" ||
  { cat "$scratch/packaged.txt"; fail "no busbw line in the packaged collsim's output"; }
cmp "$scratch/packaged.txt" "$scratch/built.txt" ||
  { diff "$scratch/packaged.txt" "$scratch/built.txt" || true; fail "the packaged and the built collsim print differently"; }
grep -E '^  (time|busbw) ' "$scratch/packaged.txt"

# The Python module: in dist-packages, importable from there, and giving the program's time.
if [ -n "$python" ]; then
  site=$root/usr/lib/python3/dist-packages
  modules=("$site"/collsim/_collsim*.so)
  [ -f "$site/collsim/__init__.py" ] && [ ${#modules[@]} -eq 1 ] ||
    fail "usr/lib/python3/dist-packages/collsim/ lacks __init__.py or one _collsim*.so"
  "$root/usr/bin/collsim" simulate dgx-a100 --size 1G --format json >"$scratch/packaged.json"
  # A sanitizer build's module needs the ASan runtime first in the interpreter (tests/CMakeLists.txt,
  # python_module), without leak checks: CPython keeps its objects until exit by design.
  python_env=(PYTHONDONTWRITEBYTECODE=1)
  if [ -n "${COLLSIM_DEB_PYTHON_PRELOAD:-}" ]; then
    python_env+=("LD_PRELOAD=$COLLSIM_DEB_PYTHON_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1)
  fi
  env "${python_env[@]}" "$python" -I -c '
import json, os, sys
site, document = sys.argv[1], sys.argv[2]
sys.path.insert(0, site)  # -I: no PYTHONPATH, user site or current folder to find another collsim
import collsim
assert os.path.realpath(collsim.__file__).startswith(os.path.realpath(site) + os.sep), collsim.__file__
expected = json.load(open(document))["time_us"]
got = collsim.simulate("dgx-a100", size="1G").time_us
assert got == expected, (got, expected)
print(f"python module from {os.path.dirname(collsim.__file__)}: time_us {got}")
' "$site" "$scratch/packaged.json" || fail "the packaged Python module did not give the program's time"
else
  echo "collsim was built without the Python module; its check is left out"
fi
echo "PASS"
