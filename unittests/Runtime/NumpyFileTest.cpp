//===- NumpyFileTest.cpp - .npy/.npz reader against numpy's files ---------===//
//
// The fixtures in data/ were written by the real numpy
// (scripts/goldens/gen_numpy_fixtures.py), except claims_4gb.npz and
// zip64_extra_overrun.npz: inputs fuzz/NumpyFuzzer.cpp found.
//
//===----------------------------------------------------------------------===//

#include "quanta/Runtime/NumpyFile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir::quanta::runtime;

namespace {

std::string fixture(const std::string &name) {
  return std::string(QUANTA_RUNTIME_DATA_DIR) + "/" + name;
}

void expectValues(const NumpyArray &array) {
  ASSERT_EQ(array.dtype, "<f4");
  ASSERT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(array.asFloat32()[i], static_cast<float>(i) - 2.5f);
}

std::string errorOf(const StatusOr<NumpyArray> &result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.getStatus().getMessage();
}

TEST(NumpyFile, ReadsEveryFormatVersion) {
  for (const char *name : {"f32_v1.npy", "f32_v2.npy", "f32_v3.npy"}) {
    StatusOr<NumpyArray> array = readNpy(fixture(name));
    ASSERT_TRUE(array.ok()) << array.getStatus().getMessage();
    expectValues(*array);
  }
}

TEST(NumpyFile, ScalarsEmptyArraysAndOtherDTypes) {
  StatusOr<NumpyArray> scalar = readNpy(fixture("f32_scalar.npy"));
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->asFloat32()[0], 7.5f);
  EXPECT_EQ(scalar->shapeString(), "()");

  StatusOr<NumpyArray> empty = readNpy(fixture("f32_empty.npy"));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->numElements(), 0);
  EXPECT_EQ(empty->shapeString(), "(0, 4)");

  StatusOr<NumpyArray> f64 = readNpy(fixture("f64.npy"));
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(f64->dtypeName(), "float64");
  StatusOr<NumpyArray> u8 = readNpy(fixture("u8.npy"));
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(u8->dtypeName(), "uint8");
  EXPECT_EQ(u8->shapeString(), "(5,)");
}

TEST(NumpyFile, RejectsWhatItCannotRead) {
  EXPECT_NE(errorOf(readNpy(fixture("fortran.npy"))).find("Fortran order"),
            std::string::npos);
  EXPECT_NE(errorOf(readNpy(fixture("big_endian.npy"))).find("big-endian"),
            std::string::npos);
  EXPECT_NE(errorOf(readNpy(fixture("truncated.npy")))
                .find("holds 20 data bytes but shape (2, 3) of float32 "
                      "needs 24"),
            std::string::npos);
  EXPECT_NE(errorOf(readNpy(fixture("bad_magic.npy"))).find("magic"),
            std::string::npos);
  EXPECT_NE(errorOf(readNpy(fixture("bad_version.npy")))
                .find("unsupported .npy format version 4.0"),
            std::string::npos);
  std::string missing = errorOf(readNpy(fixture("no_such_file.npy")));
  EXPECT_NE(missing.find("no_such_file.npy: cannot open"), std::string::npos);
  EXPECT_NE(errorOf(parseNpy("{'descr': '<f4'}", "text")).find("text: "),
            std::string::npos);
}

TEST(NumpyFile, ReadsStoredAndCompressedArchives) {
  auto stored = readNpz(fixture("stored.npz"));
  ASSERT_TRUE(stored.ok()) << stored.getStatus().getMessage();
  ASSERT_EQ(stored->size(), 2u);
  expectValues((*stored)[0]);
  EXPECT_EQ((*stored)[0].source, fixture("stored.npz") + ":x.npy");
  EXPECT_EQ((*stored)[1].shape, (std::vector<int64_t>{3}));

  auto compressed = readNpz(fixture("compressed.npz"));
  ASSERT_TRUE(compressed.ok()) << compressed.getStatus().getMessage();
  ASSERT_EQ(compressed->size(), 2u);
  expectValues((*compressed)[0]);
  EXPECT_EQ((*compressed)[1].asFloat32()[5], 5.0f);

  auto notZip = readNpz(fixture("f32_v1.npy"));
  ASSERT_FALSE(notZip.ok());
  EXPECT_NE(notZip.getStatus().getMessage().find("not an .npz archive"),
            std::string::npos);

  // numpy.savez() with no arrays writes a valid archive of nothing.
  auto empty = readNpz(fixture("empty.npz"));
  ASSERT_TRUE(empty.ok()) << empty.getStatus().getMessage();
  EXPECT_TRUE(empty->empty());
}

// Inputs the fuzzer (fuzz/NumpyFuzzer.cpp) found, kept as regressions:
// a member whose header claims 4 GB (the reader allocated it before
// inflating) and a ZIP64 extra field that runs past the archive (read out
// of bounds); and two the reader is checked against by construction: a
// header length cut short and a shape whose byte count overflows.
TEST(NumpyFile, RejectsCorruptHeadersWithoutTrustingThem) {
  auto claims = readNpz(fixture("claims_4gb.npz"));
  ASSERT_FALSE(claims.ok());
  EXPECT_NE(claims.getStatus().getMessage().find("corrupt ZIP member"),
            std::string::npos)
      << claims.getStatus().getMessage();
  auto overrun = readNpz(fixture("zip64_extra_overrun.npz"));
  ASSERT_FALSE(overrun.ok());
  EXPECT_NE(overrun.getStatus().getMessage().find("truncated ZIP"),
            std::string::npos)
      << overrun.getStatus().getMessage();

  // A ZIP64 compressed size near 2^64, which wrapped the bounds check
  // around (found by the fuzzer in CI): the member is truncated.
  auto le = [](uint64_t value, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i)
      out += static_cast<char>((value >> (8 * i)) & 0xff);
    return out;
  };
  std::string zip64 = le(0x04034b50, 4) + le(45, 2) + le(0, 2) + le(8, 2) +
                      le(0, 4) + le(0, 4) + le(0xFFFFFFFF, 4) +
                      le(0xFFFFFFFF, 4) + le(5, 2) + le(20, 2) + "x.npy" +
                      le(1, 2) + le(16, 2) + le(0x2b2000a5ff67, 8) +
                      le(0xFFFFFFFFFFFFFFF0, 8) + std::string(64, 'z');
  auto wrapped = parseNpz(zip64, "zip64");
  ASSERT_FALSE(wrapped.ok());
  EXPECT_NE(wrapped.getStatus().getMessage().find("truncated ZIP member"),
            std::string::npos)
      << wrapped.getStatus().getMessage();

  // Version 2.0 keeps the header length in 4 bytes; only 2 follow.
  std::string cut("\x93NUMPY\x02\x00\x10\x00", 10);
  EXPECT_NE(errorOf(parseNpy(cut, "cut")).find("truncated header"),
            std::string::npos);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(999999999999999999, 999999999999999999), }";
  std::string huge = std::string("\x93NUMPY\x01\x00", 8) +
                     static_cast<char>(header.size()) + '\0' + header;
  EXPECT_NE(errorOf(parseNpy(huge, "huge")).find("needs more than 2^63 bytes"),
            std::string::npos);
}

// A directory opens as a stream but fails on the first read, which
// std::ifstream reports by throwing: an error here, whatever the name.
TEST(NumpyFile, RejectsDirectories) {
  std::string npy = errorOf(readNpy(std::string(QUANTA_RUNTIME_DATA_DIR)));
  EXPECT_NE(npy.find("cannot read: Is a directory"), std::string::npos) << npy;
  auto npz = readNpz(std::string(QUANTA_RUNTIME_DATA_DIR));
  ASSERT_FALSE(npz.ok());
  EXPECT_NE(npz.getStatus().getMessage().find("cannot read: Is a directory"),
            std::string::npos);
}

TEST(NumpyFile, WritesWhatItReads) {
  const std::string path = ::testing::TempDir() + "/quanta_roundtrip.npy";
  const float values[] = {1.5f, -0.0f, 3.25f, 1e-30f};
  ASSERT_TRUE(writeNpyFloat32(path, {2, 2}, values).ok());
  StatusOr<NumpyArray> array = readNpy(path);
  ASSERT_TRUE(array.ok()) << array.getStatus().getMessage();
  EXPECT_EQ(array->shapeString(), "(2, 2)");
  EXPECT_EQ(std::memcmp(array->asFloat32(), values, sizeof(values)), 0);
  std::remove(path.c_str());
}

} // namespace
