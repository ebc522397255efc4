//===- NumpyFile.cpp - Strict reader of .npy and .npz files ---------------===//
//
// Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html An
// .npz file is a ZIP archive of .npy members, stored (numpy.savez) or deflated
// (numpy.savez_compressed); zlib inflates the latter.
//
//===----------------------------------------------------------------------===//

#include "quanta/Runtime/NumpyFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mlir::quanta::runtime {

static Status error(const std::string &source, const std::string &message) {
  return Status::error(source + ": " + message);
}

static int64_t countElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

int64_t TensorRef::numElements() const { return countElements(shape); }
int64_t NumpyArray::numElements() const { return countElements(shape); }

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string formatDType(const std::string &dtype) {
  static const std::pair<const char *, const char *> names[] = {
      {"<f4", "float32"}, {"<f8", "float64"}, {"<f2", "float16"},
      {"|i1", "int8"},    {"|u1", "uint8"},   {"<i2", "int16"},
      {"<u2", "uint16"},  {"<i4", "int32"},   {"<u4", "uint32"},
      {"<i8", "int64"},   {"<u8", "uint64"},  {"|b1", "bool"}};
  for (const auto &[descr, name] : names)
    if (dtype == descr)
      return name;
  return dtype;
}

std::string NumpyArray::shapeString() const { return formatShape(shape); }
std::string NumpyArray::dtypeName() const { return formatDType(dtype); }

/// The size in bytes of one element of a little-endian or byte-sized dtype.
static int64_t itemSize(const std::string &dtype) {
  if (dtype.size() < 3 || (dtype[0] != '<' && dtype[0] != '|'))
    return 0;
  if (dtype[1] != 'f' && dtype[1] != 'i' && dtype[1] != 'u' && dtype[1] != 'b')
    return 0;
  const std::string digits = dtype.substr(2);
  if (digits.empty() || digits.size() > 1 || digits[0] < '1' || digits[0] > '8')
    return 0;
  return digits[0] - '0';
}

namespace {
/// A tiny parser for the Python dict literal of the header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!consume('{'))
      return false;
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !consume(':'))
        return false;
      if (key == "descr") {
        sawDescr = parseString(descr);
        if (!sawDescr)
          return false;
      } else if (key == "fortran_order") {
        sawOrder = parseBool(fortranOrder);
        if (!sawOrder)
          return false;
      } else if (key == "shape") {
        sawShape = parseShape(shape);
        if (!sawShape)
          return false;
      } else {
        return false;
      }
      consume(',');
    }
    return sawDescr && sawOrder && sawShape;
  }

private:
  void skipSpaces() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n'))
      ++pos;
  }
  bool consume(char c) {
    skipSpaces();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    skipSpaces();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    skipSpaces();
    for (auto [word, value] : {std::pair{"True", true}, {"False", false}})
      if (text.compare(pos, std::strlen(word), word) == 0) {
        pos += std::strlen(word);
        out = value;
        return true;
      }
    return false;
  }
  bool parseShape(std::vector<int64_t> &out) {
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipSpaces();
      size_t start = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      if (pos == start || pos - start > 18)
        return false;
      out.push_back(std::stoll(text.substr(start, pos - start)));
      if (!consume(',') &&
          (skipSpaces(), pos < text.size() && text[pos] != ')'))
        return false;
    }
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};
} // namespace

StatusOr<NumpyArray> parseNpy(const std::string &contents,
                              const std::string &source) {
  static const char magic[] = "\x93NUMPY";
  if (contents.size() < 10 || contents.compare(0, 6, magic, 6) != 0)
    return error(source, "not a .npy file (the magic string \\x93NUMPY is "
                         "missing)");
  const int major = static_cast<unsigned char>(contents[6]);
  const int minor = static_cast<unsigned char>(contents[7]);
  if (!(major >= 1 && major <= 3) || minor != 0)
    return error(source, "unsupported .npy format version " +
                             std::to_string(major) + "." +
                             std::to_string(minor) +
                             " (expected 1.0, 2.0 or 3.0)");
  // Version 1.0 stores the header length in 2 bytes, later versions in 4.
  const size_t lengthBytes = major == 1 ? 2 : 4;
  if (contents.size() < 8 + lengthBytes)
    return error(source, "truncated header");
  size_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |=
        static_cast<size_t>(static_cast<unsigned char>(contents[8 + i]))
        << (8 * i);
  const size_t dataStart = 8 + lengthBytes + headerLength;
  if (dataStart > contents.size())
    return error(source, "truncated header");
  const std::string header = contents.substr(8 + lengthBytes, headerLength);

  NumpyArray array;
  array.source = source;
  bool fortranOrder = false;
  if (!HeaderParser(header).parse(array.dtype, fortranOrder, array.shape))
    return error(source, "malformed header '" + header + "'");
  if (fortranOrder)
    return error(source, "the array is in Fortran order; save a C-order copy "
                         "(numpy.ascontiguousarray)");
  if (!array.dtype.empty() && array.dtype[0] == '>')
    return error(source, "big-endian dtype '" + array.dtype +
                             "'; save it little-endian "
                             "(arr.astype(arr.dtype.newbyteorder('<')))");
  const int64_t size = itemSize(array.dtype);
  if (size == 0)
    return error(source, "unsupported dtype '" + array.dtype +
                             "' (expected a numeric little-endian dtype)");
  // The shape's byte count, which a corrupt header can make overflow.
  int64_t expected = size;
  for (int64_t dim : array.shape)
    if (__builtin_mul_overflow(expected, dim, &expected))
      return error(source, "shape " + array.shapeString() + " of " +
                               array.dtypeName() +
                               " needs more than 2^63 bytes");
  const int64_t found = static_cast<int64_t>(contents.size() - dataStart);
  if (found != expected)
    return error(source, "holds " + std::to_string(found) +
                             " data bytes but shape " + array.shapeString() +
                             " of " + array.dtypeName() + " needs " +
                             std::to_string(expected));
  array.bytes.assign(contents.begin() + dataStart, contents.end());
  return array;
}

/// The whole file. Not std::ifstream: it opens a directory and then throws
/// std::ios_failure from the first read, which ends the embedding process.
static StatusOr<std::string> readFile(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  const int statError = ::fstat(fd, &info) != 0 ? errno
                        : S_ISDIR(info.st_mode) ? EISDIR
                                                : 0;
  if (statError != 0) {
    ::close(fd);
    return error(path, std::string("cannot read: ") + std::strerror(statError));
  }
  std::string contents;
  if (S_ISREG(info.st_mode))
    contents.reserve(static_cast<size_t>(info.st_size));
  char chunk[1 << 16];
  while (true) {
    const ssize_t count = ::read(fd, chunk, sizeof(chunk));
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0) {
      const int readError = errno;
      ::close(fd);
      return error(path,
                   std::string("cannot read: ") + std::strerror(readError));
    }
    if (count == 0)
      break;
    contents.append(chunk, static_cast<size_t>(count));
  }
  ::close(fd);
  return contents;
}

StatusOr<NumpyArray> readNpy(const std::string &path) {
  StatusOr<std::string> contents = readFile(path);
  if (!contents)
    return contents.getStatus();
  return parseNpy(*contents, path);
}

static uint32_t readLE(const std::string &bytes, size_t offset, int count) {
  uint32_t value = 0;
  for (int i = 0; i < count; ++i)
    value |=
        static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i]))
        << (8 * i);
  return value;
}

static StatusOr<std::string> inflateRaw(const std::string &compressed,
                                        size_t uncompressedSize,
                                        const std::string &source) {
  std::string output(uncompressedSize, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return error(source, "cannot initialize zlib");
  stream.next_in =
      reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef *>(output.data());
  stream.avail_out = static_cast<uInt>(output.size());
  int result = inflate(&stream, Z_FINISH);
  inflateEnd(&stream);
  if (result != Z_STREAM_END || stream.total_out != uncompressedSize)
    return error(source, "corrupt deflated member");
  return output;
}

StatusOr<std::vector<NumpyArray>> readNpz(const std::string &path) {
  StatusOr<std::string> contents = readFile(path);
  if (!contents)
    return contents.getStatus();
  return parseNpz(*contents, path);
}

StatusOr<std::vector<NumpyArray>> parseNpz(const std::string &zip,
                                           const std::string &path) {
  std::vector<NumpyArray> arrays;
  size_t offset = 0;
  // Walk the local file headers ("PK\3\4") up to the central directory.
  while (offset + 30 <= zip.size() && readLE(zip, offset, 4) == 0x04034b50) {
    const uint32_t flags = readLE(zip, offset + 6, 2);
    const uint32_t method = readLE(zip, offset + 8, 2);
    uint64_t compressedSize = readLE(zip, offset + 18, 4);
    uint64_t uncompressedSize = readLE(zip, offset + 22, 4);
    const uint32_t nameLength = readLE(zip, offset + 26, 2);
    const uint32_t extraLength = readLE(zip, offset + 28, 2);
    if (offset + 30 + nameLength + extraLength > zip.size())
      return error(path, "truncated ZIP entry");
    const std::string name = zip.substr(offset + 30, nameLength);
    const std::string source = path + ":" + name;
    // numpy writes ZIP64 sizes (0xFFFFFFFF) into the extra field.
    if (compressedSize == 0xFFFFFFFFu || uncompressedSize == 0xFFFFFFFFu) {
      size_t extra = offset + 30 + nameLength;
      const size_t extraEnd = extra + extraLength;
      while (extra + 4 <= extraEnd) {
        const uint32_t id = readLE(zip, extra, 2);
        const uint32_t size = readLE(zip, extra + 2, 2);
        if (extra + 4 + size > extraEnd)
          return error(source, "truncated ZIP extra field");
        if (id == 0x0001 && size >= 16) {
          uncompressedSize = readLE(zip, extra + 4, 4) |
                             uint64_t(readLE(zip, extra + 8, 4)) << 32;
          compressedSize = readLE(zip, extra + 12, 4) |
                           uint64_t(readLE(zip, extra + 16, 4)) << 32;
        }
        extra += 4 + size;
      }
    }
    if (flags & 0x8)
      return error(source, "ZIP entries with data descriptors are not "
                           "supported (numpy does not write them)");
    // dataStart <= zip.size() (checked above); the ZIP64 sizes are 64-bit,
    // so compare without adding them.
    const size_t dataStart = offset + 30 + nameLength + extraLength;
    if (compressedSize > zip.size() - dataStart)
      return error(source, "truncated ZIP member");
    std::string member = zip.substr(dataStart, compressedSize);
    // The size the member claims is allocated before inflating: deflate
    // expands at most 1032:1, so a larger claim is corrupt, not a request
    // for gigabytes.
    if ((method == 0 && uncompressedSize != compressedSize) ||
        (method == 8 && uncompressedSize > compressedSize * 1032 + 1024))
      return error(source,
                   "corrupt ZIP member: " + std::to_string(compressedSize) +
                       " stored bytes cannot hold " +
                       std::to_string(uncompressedSize));
    if (const uint64_t memory = getMemoryLimitBytes();
        memory != 0 && uncompressedSize > memory)
      return error(
          source, "the member inflates to " + std::to_string(uncompressedSize) +
                      " bytes, more than the " + std::to_string(memory) +
                      " bytes of memory Quanta may use");
    if (method == 8) {
      StatusOr<std::string> inflated =
          inflateRaw(member, uncompressedSize, source);
      if (!inflated)
        return inflated.getStatus();
      member = std::move(*inflated);
    } else if (method != 0) {
      return error(source, "unsupported ZIP compression method " +
                               std::to_string(method));
    }
    StatusOr<NumpyArray> array = parseNpy(member, source);
    if (!array)
      return array.getStatus();
    arrays.push_back(std::move(*array));
    offset = dataStart + compressedSize;
  }
  // numpy.savez() with no arrays writes only the end of the central
  // directory ("PK\5\6"): a valid archive of nothing.
  if (arrays.empty() &&
      !(zip.size() >= 22 && offset == 0 && readLE(zip, 0, 4) == 0x06054b50))
    return error(path, "not an .npz archive (no ZIP member found)");
  return arrays;
}

Status writeNpyFloat32(const std::string &path,
                       const std::vector<int64_t> &shape, const float *data) {
  return writeNpy(path, "<f4", shape, data, sizeof(float));
}

Status writeNpy(const std::string &path, const std::string &descr,
                const std::vector<int64_t> &shape, const void *data,
                size_t elementSize) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    dict << (i ? ", " : "") << shape[i];
    count *= shape[i];
  }
  dict << (shape.size() == 1 ? ",), }" : "), }");
  std::string header = dict.str();
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return error(path, std::string("cannot create: ") + std::strerror(errno));
  out.write("\x93NUMPY\x01\x00", 8);
  const char length[2] = {static_cast<char>(header.size() & 0xff),
                          static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(static_cast<const char *>(data), count * elementSize);
  if (!out)
    return error(path, "write failed");
  return Status::success();
}

} // namespace mlir::quanta::runtime
