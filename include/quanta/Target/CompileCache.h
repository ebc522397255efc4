//===- CompileCache.h - Compiled objects on disk ----------------*- C++ -*-===//
//
// The JIT compiles a module once per machine: its object code is kept in a
// directory, keyed by the module (its bytecode before lowering), the
// target, and the compiler that generated it (the contents of the binary
// holding Quanta's code, LLVM's and MLIR's libraries), so that a rebuilt or
// upgraded compiler never reuses an entry. Entries are written whole
// (temporary file, then rename), carry a checksum that is verified on every
// read, and are pruned by LLVM's cache pruning (least recently used first).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_COMPILECACHE_H
#define QUANTA_TARGET_COMPILECACHE_H

#include "quanta/Support/TargetDescription.h"

#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::quanta {

/// What a cache entry holds: the text of an attribute describing the
/// lowering (the memory plan) and the object files.
struct CompiledObjects {
  std::string metadata;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
};

/// Hashes what is written to it without keeping it: a module's key is taken
/// on its bytecode, which holds the weights (megabytes copied into a string
/// cost a sixth of ResNet-18's cached start).
class KeyHashStream : public llvm::raw_ostream {
public:
  ~KeyHashStream() override { flush(); }

  /// The hash of everything written, as hexadecimal digits.
  std::string getDigest();

private:
  void write_impl(const char *bytes, size_t size) override;
  uint64_t current_pos() const override { return written; }

  llvm::BLAKE3 hasher;
  uint64_t written = 0;
};

class CompileCache {
public:
  /// The cache of this process: the directory of the tools' option
  /// `--compile-cache=<dir>`, else of $QUANTA_CACHE_DIR, else
  /// $XDG_CACHE_HOME/quanta, else ~/.cache/quanta; none when that is
  /// "off", or when the compiler's identity cannot be read.
  static std::optional<CompileCache> getDefault();

  explicit CompileCache(llvm::StringRef directory);

  llvm::StringRef getDirectory() const { return directory; }

  /// The key of a module compiled for `target` by this compiler:
  /// `moduleDigest` is the KeyHashStream digest of its bytecode.
  std::string getKey(llvm::StringRef moduleDigest,
                     const TargetDescription &target) const;

  /// The path of the entry of `key`.
  std::string getPath(llvm::StringRef key) const;

  /// The entry of `key`, or std::nullopt if there is none. An entry that
  /// fails its checks (truncated, wrong checksum, unreadable) is an error
  /// naming it; it is removed, so the next store replaces it.
  llvm::Expected<std::optional<CompiledObjects>> load(llvm::StringRef key);

  /// Writes the entry of `key` (atomically) and prunes the directory.
  llvm::Error store(llvm::StringRef key, const CompiledObjects &entry);

private:
  std::string directory;
};

} // namespace mlir::quanta

#endif // QUANTA_TARGET_COMPILECACHE_H
