//===- Passes.td - target-independent code generation --------*- tablegen -*-===//

#ifndef QUANTA_CODEGEN_COMMON_PASSES_TD
#define QUANTA_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerIntrinsics : Pass<"quanta-lower-intrinsics", "ModuleOp"> {
  let summary = "Turn quanta.intrinsic into llvm.call_intrinsic";
  let description = [{
    Runs after bufferization (buffer deallocation rejects
    llvm.call_intrinsic, whose memory effects it cannot know).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StorageSignatures : Pass<"quanta-storage-signatures", "ModuleOp"> {
  let summary = "Quantized tensors cross function boundaries as storage";
  let description = [{
    Bufferization has no buffer type for `!quant.uniform` elements. Every
    defined function's quantized arguments and results become tensors of
    their (signless) storage type, with `quant.scast` at the entry, before
    each return and around each call; the scast pairs then cancel out.
    quant-run and the headers of quant-compile read the signedness from
    the signature before lowering.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

def AllocateResultShapes : Pass<"quanta-allocate-result-shapes"> {
  let summary = "Allocate returned buffers in the shape they are returned in";
  let description = [{
    Runs after one-shot bufferization. A function that computes a result
    in one shape and returns it reshaped (a convolution's GEMM output
    [N*OH*OW, F] returned as [N, OH, OW, F]) returns a
    `memref.expand_shape` or `memref.collapse_shape` of a `memref.alloc`;
    buffer-results-to-out-params then keeps the allocation and copies it
    into the caller's buffer on every call. This pass allocates the buffer
    in the returned shape instead and gives the computation a reshaped view
    of it, so that the function returns the allocation itself and
    buffer-results-to-out-params writes the result in place.
  }];
}

def Parallelize : Pass<"quanta-parallelize", "ModuleOp"> {
  let summary = "Mark the kernels' independent loops parallel";
  let description = [{
    The first of three passes that run the kernels on threads (OpenMP),
    all part of the lowering to LLVM. With the module's `quanta.threads`
    other than 1, on buffers after bufferization: every `scf.for` marked
    `quanta.parallel` (the threads' chunks of the tiled kernels) that
    carries no values and has enough work (its nest's iterations, counted
    from constant bounds or given by the attribute's value) becomes an
    `scf.parallel` (not inside another one). With one thread it does
    nothing.

    Every parallel iteration writes its own part of the output and no
    reduction is split across threads, so the results are the same bytes
    for every thread count. The code then calls the LLVM OpenMP runtime
    (`libomp`, Debian's libomp-22-dev): the JIT loads it, object files link
    it (the C header gives the link line).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def ParallelizeOpenMP : Pass<"quanta-parallelize-openmp", "ModuleOp"> {
  let summary = "Run scf.parallel loops on OpenMP threads, or sequentially";
  let description = [{
    Once linalg ops are `scf.parallel` loops
    (convert-linalg-to-parallel-loops): with the module's `quanta.threads`
    other than 1, upstream's convert-scf-to-openmp with `num_threads` =
    `quanta.threads` (no clause for 0: OMP_NUM_THREADS, else every core)
    on the outermost parallel loops with enough work, then a
    canonicalization that drops the allocation scopes it wraps around
    bodies that allocate nothing. With one thread every `scf.parallel`
    becomes sequential `scf.for` loops (an `scf.parallel` is an allocation
    scope, whose stack buffers would otherwise be allocated per
    iteration once lowered).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::omp::OpenMPDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def InlineAllocationScopes : Pass<"quanta-inline-allocation-scopes",
                                  "ModuleOp"> {
  let summary = "Hoist stack buffers to their allocation scope and inline "
                "the scopes";
  let description = [{
    For every thread count, after vector-to-scf, which puts the stack
    buffer of an unrolled transfer in the innermost loop around it (a stack
    allocation per iteration, once lowered): every static `memref.alloca`
    moves to the start of its allocation scope (the function, or a
    parallel body), then each `memref.alloca_scope` body is inlined between
    `llvm.intr.stacksave` and `llvm.intr.stackrestore`, as the LLVM
    lowering of `memref.alloca_scope` does, but before scf-to-cf, which
    would split the body into blocks a scope does not allow.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def PlanMemory : Pass<"quanta-plan-memory", "ModuleOp"> {
  let summary = "Place a function's intermediate buffers in one arena "
                "planned by liveness";
  let description = [{
    Runs after one-shot bufferization and buffer-results-to-out-params,
    before buffer deallocation. In every function, each `memref.alloc` of a
    static, identity-layout buffer becomes a `memref.view` at a planned
    offset of one arena: a private, uninitialized `memref.global`
    `@__quanta_arena_<function>` of `i8`, 64-byte aligned, allocated once
    when the code is loaded. Nothing is allocated per call.

    A buffer lives from its allocation to the last use of it or of any view
    of it (a use inside a loop, a call or any other region counts as a use
    by the function-level op that holds it). Buffers whose lifetimes do not
    overlap share bytes. The offsets come from the greedy-by-size plan
    (largest buffer first, each at the lowest offset where it overlaps no
    live buffer already placed; TFLite's arena planner does the same). A
    buffer allocated inside a loop lives for the loop's whole execution in
    one place, which is what the fresh allocation per iteration meant.

    Left to the allocator: buffers of dynamic shape or another layout,
    buffers allocated inside `scf.parallel` / `scf.forall` (one per
    thread), and buffers a view of which reaches a terminator (yielded out
    of a loop or returned), whose lifetime the function does not bound.

    The arena makes a function non-reentrant: calls of the same compiled
    function must not overlap in time (the threads inside one call are
    fine). With `report`, a remark per function gives the arena's size,
    the liveness lower bound (the largest total of simultaneously live
    bytes, which no placement can beat) and the allocations left. The
    same numbers are attributes of the arena global
    (`quanta.lower_bound_bytes`), which quant-compile and quant-run print.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "a remark per function with the arena size and its lower bound">,
  ];
}

def OutlineKernels : Pass<"quanta-outline-kernels", "ModuleOp"> {
  let summary = "Give each kernel's tensor loop nest a function of its own, "
                "to compile identical layers once";
  let description = [{
    Runs in `quanta-lower-to-llvm` once the quant casts are lowered, on
    the tensors the kernel passes (quanta-lower-x86, quanta-lower-neon)
    left: in every public function,
    each top-level op with regions holding at least `min-ops` ops (a
    layer's kernel, or part of one) whose results are tensors of static
    shapes moves into a private function marked `quanta.kernel`, as
    `quanta-outline-loops` moves loop nests (constants, among them the
    layer's packed weights and tables, are cloned inside). Then
    `quanta-merge-functions` makes one function of the kernels that differ
    only in those constants, which become its arguments, and bufferization
    and the lowering of loops and vectors run on each distinct kernel once;
    `quanta-inline-kernels` puts a copy back at every call before
    `quanta-outline-loops`, which outlines and merges them again with the
    arena buffers known.

    Why: a model's layers repeat (MobileNetV2: 53 kernels, 31 distinct; a
    BERT encoder's 12 layers are one), and the passes between the kernel
    lowering and quanta-outline-loops took most of the MLIR part of the
    compilation (MobileNetV2 int8: 1.6 of 2.1 s), proportional to the
    unrolled kernels' ops. A constant tensor a kernel shares with no other
    stays inside, where the canonicalizer folds what it can of it (an index
    table read at constant positions, the bounds of a loop); passing every
    one made MobileNetV2's LLVM dialect 1.7x larger. A nest reading a
    quantized tensor or a slice (a strided buffer, which an identity-layout
    argument would copy) stays in place.
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"64",
           "smallest number of nested ops worth a function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def InlineKernels : Pass<"quanta-inline-kernels", "ModuleOp"> {
  let summary = "Put the kernels of quanta-outline-kernels back at their "
                "calls";
  let description = [{
    Runs in `quanta-lower-to-llvm` after the loops are final (bufferized,
    with results as out-parameters, vector transfers lowered) and before
    `quanta-outline-loops`. Every call of a function marked `quanta.kernel`
    is replaced by a copy of its body (one block), with the call's
    operands for its arguments; the kernels are erased. A kernel's memory
    plan (its own arena, when its body has intermediate buffers) is added
    to each caller's plan in `quanta.memory_plan`.

    Why: at the call, the buffers a kernel reads and writes are views of
    the caller's arena, which is what quanta-outline-loops needs to mark
    them `noalias`; a kernel function's arguments say nothing of that.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def OutlineLoops : Pass<"quanta-outline-loops", "ModuleOp"> {
  let summary = "Give each large top-level loop nest a function of its own";
  let description = [{
    Runs in `quanta-lower-to-llvm` after the loops are final (bufferized,
    parallelized, vector transfers lowered) and before control flow is
    lowered. In every function, each top-level op with regions (a loop
    nest: one layer's kernel, or part of one) holding at least `min-ops`
    ops moves into a private function of its own, marked `noinline`,
    called in its place with the values it uses from outside as arguments.
    What can be recomputed for free (constants, `memref.get_global`, and
    views, casts and reshapes of them with constant operands, such as the
    arena buffers of `quanta-plan-memory`) is cloned into the new function
    instead, except a buffer of a mutable global (an arena buffer) that no
    other value the loop uses overlaps: that one is an argument, listed in
    the function's `quanta.noalias_arguments` for `quanta-apply-noalias`.
    (Views of one arena at variable indices are what LLVM cannot tell
    apart: it kept the row maximum of a softmax in memory and every
    elementwise loop scalar.) The new function inherits the LLVM function
    attributes (`passthrough`) of its parent, such as the vector widths the
    kernels asked for.

    Why: LLVM's loop passes (IndVarSimplify, LoopLoadElimination,
    LoopRotate) cost more than linearly in the size of the function they
    run on, and a whole model lowered into one function took them most of
    its compilation time (measured on MobileNetV2 in float: `opt -O3` took
    17 s on one function of 67,000 lines of LLVM IR, 4.2 s on the 413
    functions of this pass, `llc -O3` 9.5 s and 5.8 s; `quant-compile` 30 s
    and 13.8 s). The calls cost nothing next to a layer's work (the int8
    model's latency did not move).
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"8",
           "smallest number of nested ops worth a function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def MergeFunctions : Pass<"quanta-merge-functions", "ModuleOp"> {
  let summary = "One function for loop nests that differ only in constants";
  let description = [{
    Runs in `quanta-lower-to-llvm` right after `quanta-outline-kernels`
    (on tensors) and again right after `quanta-outline-loops` (on
    buffers). Private functions called once (the outlined kernels or loop
    nests) that are the same ops in the same order, on the same types, with
    the same attributes, except for the values of scalar constants,
    constant tensors of static shapes and the globals they read (a layer's
    weights, tables, scales, zero points and buffer offsets), become one: the first keeps its body and takes as arguments, appended
    to its own, the constants and globals whose values differ within the
    group; every call passes its own; the others are erased.

    Why: the layers of a transformer are the same code on other weights,
    and LLVM's optimization and code generation take most of the time of
    compiling a model (a 12-layer BERT-base encoder in int8: 585 functions,
    `opt -O3` 4.4 s and `llc -O3` 3.1 s of quant-run's 20 s).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def ProfileCalls : Pass<"quanta-profile-calls", "ModuleOp"> {
  let summary = "Time each kernel call of a module marked for profiling";
  let description = [{
    Runs in `quanta-lower-to-llvm` right after `quanta-merge-functions`, and
    does nothing unless the module has the unit attribute `quanta.profile`
    (`quant-run --profile` sets it). In each public function, every call
    of a private function in its body (the loop nests
    `quanta-outline-loops` outlined: one layer's kernel, or part of one) is
    numbered and placed between `quanta_profile_begin(id)` and
    `quanta_profile_end(id)`, external functions the JIT defines (they add
    the call's time to its site's total). The sites are listed in order on
    the module as `quanta.profile_sites`: for each, the callee and the
    call's location (an ONNX node's name), so a profile names layers, not
    functions (merged functions serve many).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def ApplyNoAlias : Pass<"quanta-apply-noalias", "ModuleOp"> {
  let summary = "Mark the arguments quanta-outline-loops listed noalias";
  let description = [{
    Runs in `quanta-lower-to-llvm` after func-to-llvm. For every `llvm.func`
    with a `quanta.noalias_arguments` attribute (LLVM argument positions,
    written by `quanta-outline-loops` for the aligned pointers of buffers
    no other argument of the function overlaps), sets `llvm.noalias` on
    those arguments and drops the attribute. Upstream's func-to-llvm drops
    `llvm.noalias` on memref arguments unless every memref of the module
    is passed as a bare pointer, hence two passes.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def OrderConstants : Pass<"quanta-order-constants", "ModuleOp"> {
  let summary = "Name and place bufferization's constant globals by their "
                "first use";
  let description = [{
    Runs in `quanta-lower-to-llvm` right after one-shot bufferization. The
    private constant `memref.global`s it made for constant tensors (named
    `__constant_<type>`, with a suffix where names repeat) are renamed
    `__quanta_constant_<n>` and placed at the start of the module in the
    order their first `memref.get_global` comes in a walk of the module
    (functions in module order, ops in order); one nothing reads is erased.

    Why: one-shot bufferization visits the functions of a module in an
    order that varies from run to run (it keeps them in a map keyed by
    address) and names and places these globals as it meets them; with the
    kernels of `quanta-outline-kernels` in functions of their own, the same
    model gave other object bytes on every compilation.
  }];
}

def ConstantsAsBytes : Pass<"quanta-constants-as-bytes", "ModuleOp"> {
  let summary = "Store large constant buffers as bytes";
  let description = [{
    Runs after one-shot bufferization. Every `memref.global` constant of
    at least `min-bytes` bytes with a dense, non-splat initializer of
    integers, floats or indices becomes a global of `i8` holding the same
    bytes (little-endian, as on every target Quanta lowers for), aligned to
    64 bytes, and each `memref.get_global` of it a `memref.view` of the byte
    global in the original type.

    Why: LLVM's AsmPrinter writes an `i8` array as one block of bytes but
    any other constant array one element at a time through APFloat/APInt;
    ResNet-18's 47 MB of packed float weights took seconds of every
    compilation, JIT included.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4096",
           "smallest constant to store as bytes">,
  ];
}

def ExpandStridedCopies : Pass<"quanta-expand-strided-copies"> {
  let summary = "Turn memref.copy between non-contiguous buffers into loops";
  let description = [{
    The LLVM lowering of memref.copy calls MLIR's runtime function
    `memrefCopy` unless both buffers are contiguous (for instance the copy
    into a padded subview that tensor.pad bufferizes to). Where the trailing
    dimensions of both buffers are contiguous (a padded NHWC interior: one
    W x C row per (n, h)), the copy becomes a loop nest over the leading
    dimensions copying one contiguous block each, which lowers to memcpy;
    otherwise linalg.copy, lowered to a loop per element. Either way the
    object files of quant-compile link with the C library alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def DecomposeAggregates : Pass<"quanta-decompose-aggregates"> {
  let summary = "Decompose linalg's aggregated ops (linalg.softmax)";
  let description = [{
    Each op of upstream's AggregatedOpInterface becomes the linalg ops its
    `decomposeOperation` gives (linalg.softmax: a max reduction,
    exp(x - max), a sum, a division), which upstream offers only as a
    transform-dialect op. Front ends may emit `linalg.softmax`
    (quanta-insert-observers treats it as PyTorch's softmax; the ONNX
    importer writes the same decomposition itself); the lowering to LLVM
    runs this first.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"quanta-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise linalg ops left by the kernels";
  let description = [{
    Runs in `quanta-lower-to-llvm` before bufferization, after the kernel
    lowerings have turned the products, convolutions and windows into
    vector code. What is left as linalg ops is elementwise work and
    reductions; an elementwise op whose result has one use is fused into
    the linalg op using it (upstream's populateElementwiseOpsFusionPatterns),
    so that a chain (ConvInteger's cast, the scales' Mul, the bias Add, a
    Clip) is one loop over memory instead of one loop each. Each element's
    arithmetic is the same ops in the same order: the results are the same
    bits. Unlike upstream's linalg-fuse-elementwise-ops it does not move
    reshapes, which the kernels' tensors go through.

    Measured: MobileNetV2 quantized by ONNX Runtime's quantize_dynamic (u8
    weights), whose depthwise ConvInteger chains are such elementwise
    loops: see docs/Benchmarks.md.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ApproximateMath : Pass<"quanta-approximate-math"> {
  let summary = "Replace math functions by MLIR's polynomial approximations";
  let description = [{
    The math functions named in `functions` (MLIR's names: erf, exp, tanh,
    ...) become upstream's polynomial approximations
    (populateMathPolynomialApproximationPatterns): arithmetic LLVM
    vectorizes, where a libm call (erff, expf, tanhf) keeps the loop around
    it scalar. GELU's erf was 10% of a BERT-shaped encoder's int8 time on
    AVX2 as an erff call per element; softmax's exp and the recurrent
    gates' tanh are the same kind of loop. Functions not named, and every
    function with an empty `functions`, stay libm calls (convert-math-to-
    libm), the choice of a user who wants glibc's results.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "the math functions to approximate (MLIR's names)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // QUANTA_CODEGEN_COMMON_PASSES_TD
