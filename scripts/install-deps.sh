#!/usr/bin/env bash
# Installs the Debian packages Quanta needs to build and test, and nothing
# when they are all present (so `make` stays fast on a set-up machine).
# LLVM/MLIR 22 come from bookworm-security; see ../shared/MLIR22-ON-DEBIAN.md.
set -euo pipefail

packages=(
  cmake ninja-build make
  clang-22 lld-22 llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev zlib1g-dev
  python3 python3-dev python3-numpy pybind11-dev
  # The Python package's tests, distributed calibration (Dask) and reports.
  python3-pytest python3-distributed python3-matplotlib
  # ONNX import (onnx.proto's C++ classes) and ONNX's own backend tests.
  libonnx-dev libprotobuf-dev libonnx-testdata
  # AArch64 code is cross-linked and run under qemu (quant-run
  # --target-triple=aarch64-linux-gnu); llvm-22 has llvm-objdump and
  # llvm-mca.
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # The OpenMP runtime that code lowered with quanta.threads != 1 calls.
  libomp-22-dev
)
# Extra packages only some targets need, e.g. QUANTA_EXTRA_PACKAGES=python3-torch
# for regenerating golden files.
read -r -a extra <<< "${QUANTA_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
