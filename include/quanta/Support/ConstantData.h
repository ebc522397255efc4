//===- ConstantData.h - Data movement on constants ------------*- C++ -*-===//
//
// Transposes, slices and gathers of constant tensors done at compile time
// (the ONNX importer's data movement on weights, the float kernels' filter
// layouts), on the constants' raw bytes: any element type, exactly.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_SUPPORT_CONSTANTDATA_H
#define QUANTA_SUPPORT_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quanta {

/// A constant of `resultType` whose element at each index is element
/// `source(index).second` (a row-major offset) of
/// `sources[source(index).first]`: data movement (transpose, slice, concat,
/// gather) done on constants.
DenseElementsAttr remapConstant(
    ArrayRef<DenseElementsAttr> sources, RankedTensorType resultType,
    function_ref<std::pair<unsigned, int64_t>(ArrayRef<int64_t>)> source);

/// `values` transposed by `permutation` (result dim k is dim
/// permutation[k] of `values`) into `resultType`.
DenseElementsAttr transposeConstant(DenseElementsAttr values,
                                    ArrayRef<int64_t> permutation,
                                    RankedTensorType resultType);

} // namespace mlir::quanta

#endif // QUANTA_SUPPORT_CONSTANTDATA_H
