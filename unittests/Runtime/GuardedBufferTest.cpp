//===- GuardedBufferTest.cpp - Buffers against inaccessible pages ---------===//

#include "quanta/Runtime/GuardedBuffer.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mlir::quanta::runtime;

namespace {

volatile char sink;

TEST(GuardedBufferTest, AfterEndsAtTheGuard) {
  for (size_t size : {1, 7, 4095, 4096, 4097, 10000}) {
    auto buffer = GuardedBuffer::create(size, GuardedBuffer::Guard::After);
    ASSERT_TRUE(buffer.ok());
    ASSERT_EQ(buffer->size(), size);
    // Zeroed and writable from the first to the last byte.
    EXPECT_EQ(buffer->data()[0], 0);
    std::memset(buffer->data(), 0x5a, size);
    EXPECT_EQ(buffer->data()[size - 1], 0x5a);
    char *end = buffer->data() + size;
    EXPECT_DEATH(sink = *end, "") << size;
    EXPECT_DEATH(*end = 1, "") << size;
  }
}

TEST(GuardedBufferTest, BeforeStartsAtTheGuard) {
  for (size_t size : {1, 33, 4096, 5000}) {
    auto buffer = GuardedBuffer::create(size, GuardedBuffer::Guard::Before);
    ASSERT_TRUE(buffer.ok());
    std::memset(buffer->data(), 0x5a, size);
    char *before = buffer->data() - 1;
    EXPECT_DEATH(sink = *before, "") << size;
  }
}

TEST(GuardedBufferTest, MovedBufferStaysMapped) {
  auto buffer = GuardedBuffer::create(100, GuardedBuffer::Guard::After);
  ASSERT_TRUE(buffer.ok());
  GuardedBuffer moved = std::move(*buffer);
  moved.data()[99] = 3;
  EXPECT_EQ(moved.data()[99], 3);
}

TEST(GuardedBufferTest, ImpossibleSizeIsAnError) {
  auto buffer =
      GuardedBuffer::create(SIZE_MAX - 10, GuardedBuffer::Guard::After);
  ASSERT_FALSE(buffer.ok());
  EXPECT_NE(buffer.getStatus().getMessage().find("cannot map"),
            std::string::npos);
}

} // namespace
