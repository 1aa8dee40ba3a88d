#!/usr/bin/env bash
# Installs the Debian packages fusecl needs to build and test (Debian 12).
#
#   scripts/setup.sh           compiler, CMake, OpenCL (loader, headers, PoCL CPU
#                              device, clinfo), Boost, xxHash, Catch2, Google Benchmark
#   scripts/setup.sh --bench   the same, plus gnuplot-nox for the benchmark plots and
#                              python3-numpy, python3-numexpr: the NumPy and numexpr
#                              columns the benchmark compares fusecl against
#   scripts/setup.sh --numpy   the same, plus python3-numpy and python3-numexpr only
#                              (what quickstart.sh demo's short comparison needs)
#   scripts/setup.sh --test    the same as without options, plus oclgrind (the OpenCL
#                              simulator the Oclgrind test runs kernels under;
#                              registered only privately by that test, never in
#                              /etc/OpenCL/vendors) and python3-numpy, python3-numexpr
#                              (the test that NumPy's results agree with fusecl's),
#                              and the --python packages (the Python module's pytest tests)
#   scripts/setup.sh --python  the same as without options, plus python3-dev, pybind11-dev,
#                              python3-numpy and python3-pytest: the `import fusecl` module,
#                              its examples and its tests
#
# Only packages that are not installed yet are installed, and `apt-get update`
# runs only when something is missing, so running it again is quick and changes
# nothing. Runs apt-get directly as root, otherwise through sudo.
set -euo pipefail

packages=(ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libboost-dev
          libxxhash-dev catch2 libbenchmark-dev cmake g++)

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,23s/^# \{0,1\}//p' "$0"
}

for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(gnuplot-nox python3-numpy python3-numexpr) ;;
    --numpy) packages+=(python3-numpy python3-numexpr) ;;
    --test) packages+=(oclgrind python3-numpy python3-numexpr python3-dev pybind11-dev python3-pytest) ;;
    --python) packages+=(python3-dev pybind11-dev python3-numpy python3-pytest) ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$arg'" ;;
  esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  die "dpkg-query/apt-get not found: this script installs Debian packages (Debian 12).
       On another system install the equivalents of: ${packages[*]}"
fi

if [[ -r /etc/os-release ]]; then
  # shellcheck disable=SC1091
  os_id=$(. /etc/os-release && echo "${ID:-?} ${VERSION_ID:-?}")
  [[ "$os_id" == "debian 12" ]] ||
    log "note: this is '$os_id'; the package names are those of Debian 12 and may differ here"
fi

# "ii" = desired state install, current state installed. Anything else (not
# known, removed with config files left, half-installed) counts as missing.
# A multi-arch package may print one line per architecture, hence the loop.
is_installed() {
  local status line
  status=$(dpkg-query -W -f='${db:Status-Abbrev}\n' "$1" 2>/dev/null) || return 1
  while IFS= read -r line; do
    [[ "$line" == ii* ]] && return 0
  done <<<"$status"
  return 1
}

missing=()
for pkg in "${packages[@]}"; do
  if is_installed "$pkg"; then
    log "checked $pkg: installed"
  else
    log "checked $pkg: MISSING"
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  log "all ${#packages[@]} packages are installed; nothing to do"
  exit 0
fi

# apt-get needs root. sudo resets the environment, so DEBIAN_FRONTEND goes
# through env(1) rather than being exported.
if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  # Without a terminal (CI, piped input) a password prompt cannot be answered;
  # find out now with -n instead of letting apt-get fail halfway.
  if ! sudo -n true 2>/dev/null && [[ ! -t 0 ]]; then
    die "need root to install: ${missing[*]}
       sudo wants a password and there is no terminal to type it. Run this script
       as root, or install them yourself: sudo apt-get install ${missing[*]}"
  fi
  as_root=(sudo)
  log "not root: using sudo for apt-get"
else
  die "need root to install: ${missing[*]}
       and sudo is not installed. Run this script as root, or as root run:
       apt-get update && apt-get install ${missing[*]}"
fi

# Recommends stay on: cmake gets make through them. The lock timeout lets a
# concurrent apt/dpkg run (unattended-upgrades, another setup) finish first
# instead of failing at once.
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)

log "installing ${#missing[@]} missing package(s): ${missing[*]}"
log "running: apt-get update"
"${apt[@]}" update
log "running: apt-get install -y ${missing[*]}"
"${apt[@]}" install -y "${missing[@]}"

still_missing=()
for pkg in "${missing[@]}"; do
  is_installed "$pkg" || still_missing+=("$pkg")
done
((${#still_missing[@]} == 0)) ||
  die "apt-get finished but these are still not installed: ${still_missing[*]}"
log "installed: ${missing[*]}"
