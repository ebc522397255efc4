//===- ConstantData.cpp - Data movement on constants ----------------------===//

#include "quanta/Support/ConstantData.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <cstring>
#include <vector>

using namespace mlir;

DenseElementsAttr quanta::remapConstant(
    ArrayRef<DenseElementsAttr> sources, RankedTensorType resultType,
    function_ref<std::pair<unsigned, int64_t>(ArrayRef<int64_t>)> source) {
  const int64_t count = resultType.getNumElements();
  Type element = resultType.getElementType();
  // i1 is stored bit-packed: through bools. Other elements are copied as
  // bytes (a splat holds one element).
  const bool isBool = element.isInteger(1);
  const size_t width =
      isBool ? 1 : llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  SmallVector<SmallVector<char>> boolBytes;
  if (isBool)
    for (DenseElementsAttr attr : sources) {
      SmallVector<char> bytes;
      for (bool value : attr.getValues<bool>())
        bytes.push_back(value);
      boolBytes.push_back(std::move(bytes));
    }
  std::vector<char> result(size_t(count) * width);
  SmallVector<int64_t> index(resultType.getRank(), 0);
  for (int64_t offset = 0; offset < count; ++offset) {
    auto [which, at] = source(index);
    DenseElementsAttr attr = sources[which];
    ArrayRef<char> bytes =
        isBool ? ArrayRef<char>(boolBytes[which]) : attr.getRawData();
    const int64_t element = attr.isSplat() ? 0 : at;
    std::memcpy(&result[offset * width], &bytes[element * width], width);
    // The next index of the result, in row-major order.
    for (int64_t dim = resultType.getRank() - 1; dim >= 0; --dim) {
      if (++index[dim] < resultType.getDimSize(dim))
        break;
      index[dim] = 0;
    }
  }
  if (isBool)
    return DenseElementsAttr::get(
        resultType,
        ArrayRef<bool>(reinterpret_cast<bool *>(result.data()), result.size()));
  return DenseElementsAttr::getFromRawBuffer(resultType, result);
}

DenseElementsAttr quanta::transposeConstant(DenseElementsAttr values,
                                            ArrayRef<int64_t> permutation,
                                            RankedTensorType resultType) {
  SmallVector<int64_t> sourceStrides =
      computeStrides(cast<RankedTensorType>(values.getType()).getShape());
  return remapConstant(values, resultType, [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (auto [dim, position] : llvm::enumerate(index))
      offset += position * sourceStrides[permutation[dim]];
    return std::make_pair(0u, offset);
  });
}
