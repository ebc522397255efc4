// RUN: quant-opt %s --quanta-parallelize -split-input-file | FileCheck %s
// RUN: quant-opt %s --quanta-parallelize-openmp -split-input-file | FileCheck %s --check-prefix=OPENMP
// RUN: quant-opt %s --quanta-inline-allocation-scopes -split-input-file | FileCheck %s --check-prefix=SCOPES

// With quanta.threads, a marked loop carrying no values becomes an
// scf.parallel; an unmarked one, a marked one inside it, and one with too
// little work to share (under 2^14 iterations of its bodies) stay.
// CHECK-LABEL: func.func @rows
// CHECK: scf.parallel (%[[ROW:.*]]) = (%c0) to (%c65536) step (%c8) {
// CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NOT: scf.parallel
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[ROW]]]
// CHECK: scf.reduce
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8 {
// CHECK: } {quanta.parallel}
// OPENMP-LABEL: func.func @rows
// OPENMP: } {quanta.parallel}
module attributes {quanta.threads = 2 : i64} {
  func.func @rows(%out: memref<65536xf32>, %value: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    scf.for %row = %c0 to %c65536 step %c8 {
      scf.for %inner = %c0 to %c8 step %c1 {
        memref.store %value, %out[%row] : memref<65536xf32>
      } {quanta.parallel}
    } {quanta.parallel}
    scf.for %row = %c0 to %c65536 step %c8 {
      memref.store %value, %out[%row] : memref<65536xf32>
    }
    scf.for %row = %c0 to %c64 step %c8 {
      memref.store %value, %out[%row] : memref<65536xf32>
    } {quanta.parallel}
    return
  }
}

// -----

// A loop whose bounds are not constants (a tiled kernel's chunks read
// theirs from tables) counts as 64 iterations of each: the count its mark
// carries decides instead (100000: threads; 100: none), and its
// scf.parallel keeps the mark, which quanta-parallelize-openmp reads again
// (an unmarked scf.parallel of the same body stays sequential there).
// CHECK-LABEL: func.func @counted
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c2) step (%c1) {
// CHECK: } {quanta.parallel = 100000 : i64}
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: } {quanta.parallel = 100 : i64}
module attributes {quanta.threads = 2 : i64} {
  func.func @counted(%out: memref<65536xf32>, %bounds: memref<2xindex>,
                     %value: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %chunk = %c0 to %c2 step %c1 {
      %begin = memref.load %bounds[%chunk] : memref<2xindex>
      scf.for %row = %begin to %c2 step %c1 {
        memref.store %value, %out[%row] : memref<65536xf32>
      }
    } {quanta.parallel = 100000 : i64}
    scf.for %chunk = %c0 to %c2 step %c1 {
      %begin = memref.load %bounds[%chunk] : memref<2xindex>
      scf.for %row = %begin to %c2 step %c1 {
        memref.store %value, %out[%row] : memref<65536xf32>
      }
    } {quanta.parallel = 100 : i64}
    return
  }
}

// -----

// CHECK-LABEL: func.func @counted_parallel
// OPENMP-LABEL: func.func @counted_parallel
// OPENMP: omp.parallel num_threads
// OPENMP: omp.loop_nest (%{{.*}}) : index = (%c0) to (%c2) step (%c1) {
// OPENMP: omp.terminator
// OPENMP-NOT: omp.parallel
// OPENMP: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// OPENMP-NOT: omp.parallel
// OPENMP: return
module attributes {quanta.threads = 2 : i64} {
  func.func @counted_parallel(%out: memref<65536xf32>,
                              %bounds: memref<2xindex>, %value: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.parallel (%chunk) = (%c0) to (%c2) step (%c1) {
      %begin = memref.load %bounds[%chunk] : memref<2xindex>
      scf.for %row = %begin to %c2 step %c1 {
        memref.store %value, %out[%row] : memref<65536xf32>
      }
      scf.reduce
    } {quanta.parallel = 100000 : i64}
    scf.parallel (%chunk) = (%c0) to (%c2) step (%c1) {
      %begin = memref.load %bounds[%chunk] : memref<2xindex>
      scf.for %row = %begin to %c2 step %c1 {
        memref.store %value, %out[%row] : memref<65536xf32>
      }
      scf.reduce
    }
    return
  }
}

// -----

// One thread (no attribute): nothing changes.
// CHECK-LABEL: func.func @sequential
// CHECK: scf.for
// CHECK: } {quanta.parallel}
// OPENMP-LABEL: func.func @sequential
// OPENMP-NOT: omp.
func.func @sequential(%out: memref<64xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %row = %c0 to %c64 step %c8 {
    memref.store %value, %out[%row] : memref<64xf32>
  } {quanta.parallel}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c8, %c8) {
    memref.store %value, %out[%i] : memref<64xf32>
  }
  return
}

// -----

// Phase openmp: a linalg-style parallel nest stays parallel over its
// leading dimensions up to the first that iterates more than once (here
// the batch of 1 and the rows), the rest become sequential loops inside,
// then OpenMP with num_threads.
// OPENMP-LABEL: func.func @image
// OPENMP: omp.parallel num_threads(%{{.*}} : i32) {
// OPENMP: omp.wsloop {
// OPENMP-NEXT: omp.loop_nest (%{{.*}}, %{{.*}}) : index = (%c0, %c0) to (%c1, %c56) step (%c1, %c1) collapse(2) {
// OPENMP: scf.for %{{.*}} = %c0 to %c56 step %c1 {
// OPENMP-NEXT: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// OPENMP-NEXT: memref.load
module attributes {quanta.threads = 3 : i64} {
  func.func @image(%in: memref<1x56x56x64xf32>, %out: memref<1x56x56x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c56 = arith.constant 56 : index
    %c64 = arith.constant 64 : index
    scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c1, %c56, %c56, %c64) step (%c1, %c1, %c1, %c1) {
      %v = memref.load %in[%n, %h, %w, %c] : memref<1x56x56x64xf32>
      memref.store %v, %out[%n, %h, %w, %c] : memref<1x56x56x64xf32>
      scf.reduce
    }
    return
  }
}

// -----

// Too little work for threads: the nest becomes sequential loops.
// OPENMP-LABEL: func.func @small
// OPENMP-NOT: omp.
// OPENMP: scf.for
// OPENMP-NEXT: scf.for
// OPENMP-NOT: omp.
module attributes {quanta.threads = 2 : i64} {
  func.func @small(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      %v = memref.load %in[%i, %j] : memref<8x8xf32>
      memref.store %v, %out[%i, %j] : memref<8x8xf32>
      scf.reduce
    }
    return
  }
}

// -----

// Phase scopes, for any thread count: a static stack buffer that
// vector-to-scf put inside a loop moves to the start of the function, so
// that it is allocated once, not once per iteration.
// SCOPES-LABEL: func.func @tile_buffer
// SCOPES-NEXT: memref.alloca() : memref<vector<16x16xf32>>
// SCOPES: scf.for
// SCOPES-NOT: memref.alloca
// SCOPES: return
func.func @tile_buffer(%out: memref<64xf32>, %value: vector<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %buffer = memref.alloca() : memref<vector<16x16xf32>>
    memref.store %value, %buffer[] : memref<vector<16x16xf32>>
  }
  return
}
