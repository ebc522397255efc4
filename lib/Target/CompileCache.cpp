//===- CompileCache.cpp - Compiled objects on disk -----------------------===//

#include "quanta/Target/CompileCache.h"

#include "mlir/Support/LLVM.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <dlfcn.h>

using namespace mlir;
using namespace mlir::quanta;

static llvm::cl::opt<std::string> compileCacheOption(
    "compile-cache",
    llvm::cl::desc("Directory of the JIT's compiled-object cache, or 'off' "
                   "(default: $QUANTA_CACHE_DIR, else $XDG_CACHE_HOME/quanta, "
                   "else ~/.cache/quanta)"));

/// "QNTCACH" and the format's version.
static constexpr llvm::StringLiteral kMagic("QNTCACH\x02");
/// Magic, payload size, payload checksum.
static constexpr size_t kHeaderBytes = 8 + 8 + 16;
/// Where each chunk of the payload starts, from the start of the file (a
/// multiple of it, as kHeaderBytes is): objects are loaded from the mapped
/// entry in place, and object file readers want aligned buffers.
static constexpr size_t kChunkAlignment = 16;

static std::string toHex(llvm::XXH128_hash_t hash) {
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, /*Width=*/16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, /*Width=*/16);
}

static llvm::XXH128_hash_t hashBytes(llvm::StringRef bytes) {
  return llvm::xxh3_128bits(llvm::arrayRefFromStringRef(bytes));
}

/// The file holding the code at `address`: Quanta's (an executable or the
/// Python extension), LLVM's or MLIR's library.
static std::optional<std::string> getObjectFileOf(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname)
    return std::nullopt;
  return std::string(info.dli_fname);
}

/// What generated an entry: the contents of the binary holding this code
/// (any rebuild of Quanta changes it), and the path, size and modification
/// time of LLVM's and MLIR's libraries (hashing hundreds of megabytes at
/// each start would cost more than a cached compile saves), with LLVM's
/// version. Empty if one cannot be read.
static const std::string &getCompilerIdentity() {
  static const std::string identity = []() -> std::string {
    std::optional<std::string> quanta =
        getObjectFileOf(reinterpret_cast<const void *>(&getCompilerIdentity));
    if (!quanta)
      return "";
    // dladdr names the main program as it was started, maybe relative to a
    // directory it has left: the kernel's link names the file itself.
    if (!llvm::sys::path::is_absolute(*quanta))
      quanta = "/proc/self/exe";
    auto contents =
        llvm::MemoryBuffer::getFile(*quanta, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!contents)
      return "";
    std::string text = "quanta " + toHex(hashBytes((*contents)->getBuffer())) +
                       "\nllvm " LLVM_VERSION_STRING "\n";
    const void *libraries[] = {
        reinterpret_cast<const void *>(
            static_cast<uint64_t (*)(llvm::ArrayRef<uint8_t>)>(
                &llvm::xxh3_64bits)),
        reinterpret_cast<const void *>(
            static_cast<std::unique_ptr<llvm::Module> (*)(
                Operation *, llvm::LLVMContext &, StringRef, bool)>(
                &translateModuleToLLVMIR))};
    for (const void *address : libraries) {
      std::optional<std::string> path = getObjectFileOf(address);
      llvm::sys::fs::file_status status;
      if (!path || llvm::sys::fs::status(*path, status))
        return "";
      text +=
          *path + " " + std::to_string(status.getSize()) + " " +
          std::to_string(llvm::sys::toTimeT(status.getLastModificationTime())) +
          "\n";
    }
    return text;
  }();
  return identity;
}

std::optional<CompileCache> quanta::CompileCache::getDefault() {
  std::string directory = compileCacheOption;
  if (directory.empty())
    if (std::optional<std::string> value =
            llvm::sys::Process::GetEnv("QUANTA_CACHE_DIR"))
      directory = *value;
  if (directory.empty()) {
    llvm::SmallString<256> path;
    if (!llvm::sys::path::cache_directory(path))
      return std::nullopt;
    llvm::sys::path::append(path, "quanta");
    directory = std::string(path);
  }
  if (directory == "off" || getCompilerIdentity().empty())
    return std::nullopt;
  return CompileCache(directory);
}

quanta::CompileCache::CompileCache(StringRef directory)
    : directory(directory.str()) {}

void quanta::KeyHashStream::write_impl(const char *bytes, size_t size) {
  hasher.update(StringRef(bytes, size));
  written += size;
}

std::string quanta::KeyHashStream::getDigest() {
  flush();
  return llvm::toHex(hasher.result(), /*LowerCase=*/true);
}

std::string
quanta::CompileCache::getKey(StringRef moduleDigest,
                             const TargetDescription &target) const {
  std::string text = getCompilerIdentity() + target.getTriple().str() + " " +
                     target.getCpu().str() + " " +
                     target.getLLVMFeatures().str() + "\n" + moduleDigest.str();
  return toHex(hashBytes(text));
}

std::string quanta::CompileCache::getPath(StringRef key) const {
  // LLVM's cache pruning only considers files named "llvmcache-*".
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "llvmcache-quanta-" + key);
  return std::string(path);
}

/// The zeros before a chunk's bytes when `written` bytes of the payload
/// precede them.
static size_t getChunkPadding(size_t written) {
  return llvm::offsetToAlignment(written, llvm::Align(kChunkAlignment));
}

/// The chunks of a payload: a count, then each chunk's size, padding to
/// kChunkAlignment and bytes.
static std::optional<std::vector<StringRef>> splitPayload(StringRef payload) {
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  if (payload.size() < 4)
    return std::nullopt;
  const size_t total = payload.size();
  uint32_t count = read32le(payload.data());
  payload = payload.drop_front(4);
  std::vector<StringRef> chunks;
  for (uint32_t index = 0; index < count; ++index) {
    if (payload.size() < 8)
      return std::nullopt;
    uint64_t size = read64le(payload.data());
    payload = payload.drop_front(8);
    size_t padding = getChunkPadding(total - payload.size());
    if (padding > payload.size() || size > payload.size() - padding)
      return std::nullopt;
    payload = payload.drop_front(padding);
    chunks.push_back(payload.take_front(size));
    payload = payload.drop_front(size);
  }
  if (!payload.empty())
    return std::nullopt;
  return chunks;
}

namespace {
/// An object inside a mapped cache entry, loaded in place: the entry stays
/// mapped while one of its objects lives. Copying the objects out cost a
/// tenth of ResNet-18's cached start (its weights are in them).
class EntryObject : public llvm::MemoryBuffer {
public:
  EntryObject(std::shared_ptr<llvm::MemoryBuffer> entry, StringRef bytes)
      : entry(std::move(entry)) {
    init(bytes.begin(), bytes.end(), /*RequiresNullTerminator=*/false);
  }
  StringRef getBufferIdentifier() const override {
    return entry->getBufferIdentifier();
  }
  BufferKind getBufferKind() const override { return entry->getBufferKind(); }

private:
  std::shared_ptr<llvm::MemoryBuffer> entry;
};
} // namespace

llvm::Expected<std::optional<CompiledObjects>>
quanta::CompileCache::load(StringRef key) {
  const std::string path = getPath(key);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    if (file.getError() == std::errc::no_such_file_or_directory)
      return std::nullopt;
    return llvm::createStringError(
        file.getError(), "cannot read the compile cache entry '" + path +
                             "': " + file.getError().message());
  }
  std::shared_ptr<llvm::MemoryBuffer> mapped = std::move(*file);
  StringRef bytes = mapped->getBuffer();
  auto damaged = [&](StringRef why) -> llvm::Error {
    llvm::sys::fs::remove(path);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the compile cache entry '" + path +
                                       "' is damaged (" + why +
                                       "); it was removed");
  };
  if (bytes.size() < kHeaderBytes || !bytes.starts_with(kMagic))
    return damaged("not an entry of this format");
  const uint64_t payloadSize =
      llvm::support::endian::read64le(bytes.data() + 8);
  StringRef payload = bytes.drop_front(kHeaderBytes);
  if (payload.size() != payloadSize)
    return damaged("its size is wrong");
  llvm::XXH128_hash_t checksum = hashBytes(payload);
  if (llvm::support::endian::read64le(bytes.data() + 16) != checksum.low64 ||
      llvm::support::endian::read64le(bytes.data() + 24) != checksum.high64)
    return damaged("its checksum does not match its contents");
  std::optional<std::vector<StringRef>> chunks = splitPayload(payload);
  if (!chunks || chunks->empty())
    return damaged("its contents are malformed");
  CompiledObjects entry;
  entry.metadata = chunks->front().str();
  for (StringRef object : llvm::drop_begin(*chunks))
    entry.objects.push_back(std::make_unique<EntryObject>(mapped, object));
  // Recently used entries are the last ones pruning removes.
  int fd;
  if (!llvm::sys::fs::openFileForWrite(path, fd, llvm::sys::fs::CD_OpenExisting,
                                       llvm::sys::fs::OF_Append)) {
    (void)llvm::sys::fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  return entry;
}

llvm::Error quanta::CompileCache::store(StringRef key,
                                        const CompiledObjects &entry) {
  using llvm::support::endian::write32le;
  using llvm::support::endian::write64le;
  std::string payload;
  auto appendSized = [&](StringRef bytes) {
    char size[8];
    write64le(size, bytes.size());
    payload.append(size, 8);
    payload.append(getChunkPadding(payload.size()), '\0');
    payload.append(bytes.begin(), bytes.end());
  };
  char count[4];
  write32le(count, static_cast<uint32_t>(entry.objects.size() + 1));
  payload.append(count, 4);
  appendSized(entry.metadata);
  for (const std::unique_ptr<llvm::MemoryBuffer> &object : entry.objects)
    appendSized(object->getBuffer());

  char header[kHeaderBytes];
  std::memcpy(header, kMagic.data(), 8);
  write64le(header + 8, payload.size());
  llvm::XXH128_hash_t checksum = hashBytes(payload);
  write64le(header + 16, checksum.low64);
  write64le(header + 24, checksum.high64);

  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError(error, "cannot create the compile cache "
                                          "directory '" +
                                              directory +
                                              "': " + error.message());
  // Written under a unique name and renamed: a reader (another process
  // compiling the same module) sees the whole entry or none.
  const std::string path = getPath(key);
  int fd;
  llvm::SmallString<256> temporary;
  llvm::SmallString<256> model(directory);
  llvm::sys::path::append(model, "tmp-" + key + "-%%%%%%%%");
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return llvm::createStringError(error, "cannot write to the compile cache "
                                          "directory '" +
                                              directory +
                                              "': " + error.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(header, kHeaderBytes);
    os << payload;
    os.close();
    if (os.has_error()) {
      std::error_code error = os.error();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return llvm::createStringError(error, "cannot write the compile cache "
                                            "entry '" +
                                                path + "': " + error.message());
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError(error, "cannot write the compile cache "
                                          "entry '" +
                                              path + "': " + error.message());
  }
  // At most every hour: entries unused for 30 days go, then the least
  // recently used ones beyond 4 GB.
  llvm::pruneCache(
      directory,
      llvm::cantFail(llvm::parseCachePruningPolicy(
          "prune_interval=1h:prune_after=720h:cache_size_bytes=4g")));
  return llvm::Error::success();
}
