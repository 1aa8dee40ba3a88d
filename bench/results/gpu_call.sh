# Sourced by a device call's script (bench/results/proto*/gpu_*.sh): registers
# NVIDIA's OpenCL driver (there but not registered on the lent machine), points
# fusecl and the loader at the bundle in carry/new, and writes the card and
# driver into $OUT/device.txt.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"

# old_new ROUNDS CASE...: the build before a change (carry/new/bin/probe-old)
# and after it (fusecl-axis-probe) over the cases, interleaved, each round's
# lines prefixed "r<k> old " / "r<k> new " (bench/results/proto59/table.py
# reads them), each probe limited to 60 s.
old_new() {
  local rounds=$1; shift
  for r in $(seq "$rounds"); do
    FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 carry/new/bin/probe-old "$@" | sed "s/^/r$r old /"
    FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 carry/new/bin/fusecl-axis-probe "$@" | sed "s/^/r$r new /"
  done
}

# variant ROUND LABEL SETTINGS CASE...: one probe of the bundle's build over
# the cases under SETTINGS (a word of NAME=VALUE pairs, "" for none), with a
# kernel cache of its own, its lines prefixed "r<ROUND> LABEL ", limited to
# 90 s. A call's script interleaves its variants round by round.
variant() {
  local r=$1 label=$2 settings=$3; shift 3
  env FUSECL_CACHE_DIR=/tmp/kc-$label $settings timeout 90 carry/new/bin/fusecl-axis-probe "$@" | sed "s/^/r$r $label /"
}
