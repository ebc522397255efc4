# The two commands of the README:
#   make check   install what is missing, build, run every test
#   make demo    install what is missing, build, run the bundled example
BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
PYTHON ?= /usr/bin/python3
CMAKE_FLAGS ?=

FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
# A run count instead (the same inputs on every machine), as CI uses.
FUZZ_RUNS ?=
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined

.PHONY: all deps configure build check demo docs fuzz clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_PREFIX)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_PREFIX)/bin/clang++ \
	  -DLLVM_USE_LINKER=lld \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=$(PYTHON) \
	  $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: configure
	ninja -C $(BUILD_DIR) quant-opt quant-run quant-compile quant-translate quanta-onnx-conformance QuantaUnitTests QuantaPython

check: build
	@scripts/run-tests.sh $(BUILD_DIR)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

# libFuzzer targets in a build directory of their own, instrumented for
# coverage, AddressSanitizer and UBSan; each runs FUZZ_SECONDS (or
# FUZZ_RUNS inputs).
fuzz: deps
	@QUANTA_EXTRA_PACKAGES=libclang-rt-22-dev scripts/install-deps.sh
	cmake -G Ninja -S . -B $(FUZZ_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=$(LLVM_PREFIX)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_PREFIX)/bin/clang++ \
	  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $(SANITIZE)" \
	  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link $(SANITIZE)" \
	  -DCMAKE_EXE_LINKER_FLAGS="$(SANITIZE)" \
	  -DLLVM_USE_LINKER=lld \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=$(PYTHON) \
	  -DQUANTA_BUILD_FUZZERS=ON > /dev/null
	ninja -C $(FUZZ_DIR) quanta-numpy-fuzzer
	scripts/run-fuzzers.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_RUNS)

docs: configure
	ninja -C $(BUILD_DIR) quanta-docs
	cp $(BUILD_DIR)/docs/*.md docs/

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR)
