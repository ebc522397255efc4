# The two commands of the README:
#   make check   install what is missing, build, run every test
#   make demo    install what is missing, build, run the bundled example
BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
PYTHON ?= /usr/bin/python3
CMAKE_FLAGS ?=

# make check-sanitize and make fuzz share one build directory: everything
# compiled with AddressSanitizer, UBSan and libFuzzer's coverage hooks, with
# line tables only as debug information (what the sanitizers' reports
# print; full -g made the build and its links, CI's largest cost, slower).
SANITIZE_DIR ?= build-sanitize
# Per target; FUZZ_SECONDS=ci: the fixed input counts CI runs (the same
# inputs on every machine, see scripts/run-fuzzers.sh).
FUZZ_SECONDS ?= 60

# ONNX Runtime's CPU build for the benchmarks (optional; from the npm
# registry; its install script only fetches GPU parts, and fails offline).
ORT_VERSION ?= 1.30.0

.PHONY: all deps configure build check demo docs fuzz check-sanitize clean ort

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

# What make check runs.
TEST_TARGETS = quant-opt quant-run quant-compile quant-translate quanta quanta-capi-test \
  quanta-onnx-conformance QuantaUnitTests QuantaPython

build: configure
	ninja -C $(BUILD_DIR) $(TEST_TARGETS)

check: build
	@scripts/run-tests.sh $(BUILD_DIR)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

$(SANITIZE_DIR)/build.ninja: | deps
	@QUANTA_EXTRA_PACKAGES=libclang-rt-22-dev scripts/install-deps.sh
	cmake -G Ninja -S . -B $(SANITIZE_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
	  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
	  -DCMAKE_C_COMPILER=$(LLVM_PREFIX)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_PREFIX)/bin/clang++ \
	  -DLLVM_USE_LINKER=lld \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=$(PYTHON) \
	  -DQUANTA_SANITIZE=ON -DQUANTA_BUILD_FUZZERS=ON > /dev/null

# The libFuzzer targets, each for FUZZ_SECONDS.
fuzz: $(SANITIZE_DIR)/build.ninja
	ninja -C $(SANITIZE_DIR) quanta-fuzzers
	scripts/run-fuzzers.sh $(SANITIZE_DIR) $(if $(filter ci,$(FUZZ_SECONDS)),--ci,$(FUZZ_SECONDS))

# The whole test suite on the sanitizer build.
check-sanitize: $(SANITIZE_DIR)/build.ninja
	ninja -C $(SANITIZE_DIR) $(TEST_TARGETS)
	@scripts/run-tests.sh $(SANITIZE_DIR)

ort:
	@QUANTA_EXTRA_PACKAGES=python3-onnx scripts/install-deps.sh
	@command -v npm >/dev/null || QUANTA_EXTRA_PACKAGES="nodejs npm" scripts/install-deps.sh
	npm install --ignore-scripts --no-audit --no-fund --prefix $(BUILD_DIR)/ort \
	  onnxruntime-node@$(ORT_VERSION)

docs: configure
	ninja -C $(BUILD_DIR) quanta-docs
	cp $(BUILD_DIR)/docs/*.md docs/

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
