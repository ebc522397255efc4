# The two commands of the README:
#   make check   install what is missing, build, run every test
#   make demo    install what is missing, build, run the bundled example
BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
PYTHON ?= /usr/bin/python3
CMAKE_FLAGS ?=

.PHONY: all deps configure build check demo docs clean

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

docs: configure
	ninja -C $(BUILD_DIR) quanta-docs
	cp $(BUILD_DIR)/docs/*.md docs/

clean:
	rm -rf $(BUILD_DIR)
