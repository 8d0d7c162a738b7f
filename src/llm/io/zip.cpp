#include "llm/io/zip.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <utility>

#include "llm/util/error.h"
#include "llm/util/memory.h"

namespace llm {
namespace {

// Little-endian fields of the zip structures.
uint64_t read_le(std::string_view bytes, uint64_t at, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

// Sizes and offsets too large for 32 bits are in the zip64 extra field (id 1) among
// the extra fields in [begin, end), in the order of `values`, each only when its 32-bit
// field says 0xFFFFFFFF. False when an extra field runs past `end`.
bool read_zip64_extra(std::string_view bytes, uint64_t begin, uint64_t end, std::initializer_list<uint64_t*> values) {
  for (uint64_t e = begin; e + 4 <= end;) {
    const uint64_t id = read_le(bytes, e, 2), size = read_le(bytes, e + 2, 2);
    if (e + 4 + size > end) return false;
    if (id == 0x0001) {
      uint64_t field = e + 4;
      for (uint64_t* value : values) {
        if (*value == 0xFFFFFFFF && field + 8 <= e + 4 + size) {
          *value = read_le(bytes, field, 8);
          field += 8;
        }
      }
    }
    e += 4 + size;
  }
  return true;
}

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50, kZip64End = 0x06064b50,
                   kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;

}  // namespace

ZipReader::ZipReader(std::string_view bytes, std::string source) : bytes_(bytes), source_(std::move(source)) {
  const auto damaged = [&](const std::string& what) {
    return Error(fmt::format("{}: damaged ({})", source_, what));
  };
  const auto need = [&](uint64_t at, uint64_t size) {
    if (at > bytes_.size() || size > bytes_.size() - at) throw damaged("a record points past the end of the file");
  };
  // The end-of-central-directory record: its signature, searched from the end (a
  // comment of up to 64 KiB may follow it).
  if (bytes_.size() < 22) throw damaged("too short for a zip file");
  uint64_t eocd = bytes_.size() - 22;
  while (read_le(bytes_, eocd, 4) != kEndOfDirectory) {
    if (eocd == 0 || bytes_.size() - eocd > 22 + 0xFFFF) throw damaged("no zip directory at the end");
    --eocd;
  }
  uint64_t count = read_le(bytes_, eocd + 10, 2), offset = read_le(bytes_, eocd + 16, 4);
  if ((count == 0xFFFF || offset == 0xFFFFFFFF) && eocd >= 20 && read_le(bytes_, eocd - 20, 4) == kZip64Locator) {
    const uint64_t zip64 = read_le(bytes_, eocd - 20 + 8, 8);
    need(zip64, 56);
    if (read_le(bytes_, zip64, 4) != kZip64End) throw damaged("bad zip64 directory record");
    count = read_le(bytes_, zip64 + 32, 8);
    offset = read_le(bytes_, zip64 + 48, 8);
  }
  if (count > bytes_.size() / 46) throw damaged("more directory entries than the file can hold");
  entries_.reserve(count);
  for (uint64_t i = 0, at = offset; i < count; ++i) {
    need(at, 46);
    if (read_le(bytes_, at, 4) != kDirectoryEntry) throw damaged("bad directory entry");
    Entry entry;
    entry.method = static_cast<uint16_t>(read_le(bytes_, at + 10, 2));
    entry.crc32 = static_cast<uint32_t>(read_le(bytes_, at + 16, 4));
    entry.compressed_size = read_le(bytes_, at + 20, 4);
    entry.size = read_le(bytes_, at + 24, 4);
    uint64_t local = read_le(bytes_, at + 42, 4);
    const uint64_t name_size = read_le(bytes_, at + 28, 2), extra_size = read_le(bytes_, at + 30, 2);
    const uint64_t comment_size = read_le(bytes_, at + 32, 2);
    need(at + 46, name_size + extra_size + comment_size);
    entry.name = std::string(bytes_.substr(at + 46, name_size));
    const uint64_t extra = at + 46 + name_size;
    if (!read_zip64_extra(bytes_, extra, extra + extra_size, {&entry.size, &entry.compressed_size, &local})) {
      throw damaged("bad extra field");
    }
    need(local, 30);
    if (read_le(bytes_, local, 4) != kLocalHeader) throw damaged(fmt::format("bad header of entry '{}'", entry.name));
    entry.data_offset = local + 30 + read_le(bytes_, local + 26, 2) + read_le(bytes_, local + 28, 2);
    need(entry.data_offset, entry.compressed_size);
    entries_.push_back(std::move(entry));
    at += 46 + name_size + extra_size + comment_size;
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

// Hands `sink` the entry's contents piece by piece, then checks the CRC-32 and size.
template <typename Sink>
void ZipReader::extract(const Entry& entry, Sink&& sink) const {
  const auto damaged = [&](const std::string& what) {
    return Error(fmt::format("{}: damaged (entry '{}' {})", source_, entry.name, what));
  };
  const auto* in = reinterpret_cast<const Bytef*>(bytes_.data() + entry.data_offset);
  uLong crc = crc32(0L, Z_NULL, 0);
  uint64_t produced = 0;
  const auto emit = [&](const Bytef* data, uint64_t n) {
    if (n > entry.size - produced) throw damaged(fmt::format("inflates past the {} bytes its directory states", entry.size));
    for (uint64_t done = 0; done < n;) {  // zlib takes at most 4 GiB at a time
      const auto chunk = static_cast<uInt>(std::min<uint64_t>(n - done, 1u << 30));
      crc = crc32(crc, data + done, chunk);
      done += chunk;
    }
    sink(reinterpret_cast<const char*>(data), n);
    produced += n;
  };
  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) throw damaged("is stored, with two different sizes");
    for (uint64_t done = 0; done < entry.size; done += kPieceBytes) {
      emit(in + done, std::min(kPieceBytes, entry.size - done));
    }
  } else if (entry.method == 8) {
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) throw Error("zlib: inflateInit2 failed");
    std::array<Bytef, 1 << 16> buffer;
    uint64_t consumed = 0;
    int status = Z_OK;
    try {
      while (status != Z_STREAM_END) {
        const auto available = static_cast<uInt>(std::min<uint64_t>(entry.compressed_size - consumed, 1u << 30));
        stream.next_in = const_cast<Bytef*>(in + consumed);
        stream.avail_in = available;
        stream.next_out = buffer.data();
        stream.avail_out = static_cast<uInt>(buffer.size());
        status = inflate(&stream, Z_NO_FLUSH);
        consumed += available - stream.avail_in;
        if (status != Z_OK && status != Z_STREAM_END) {
          throw damaged(status == Z_BUF_ERROR
                            ? "has a deflate stream that ends early"
                            : fmt::format("is not a valid deflate stream ({})", stream.msg ? stream.msg : "?"));
        }
        emit(buffer.data(), buffer.size() - stream.avail_out);
      }
    } catch (...) {
      inflateEnd(&stream);
      throw;
    }
    inflateEnd(&stream);
  } else {
    throw Error(fmt::format("{}: entry '{}' uses compression method {}; expected stored (0) or deflated (8)",
                            source_, entry.name, entry.method));
  }
  if (produced != entry.size) throw damaged(fmt::format("holds {} bytes where its directory states {}", produced, entry.size));
  if (crc != entry.crc32) throw damaged("fails its CRC-32 check");
}

std::string ZipReader::read(const Entry& entry) const {
  check_fits_in_memory(static_cast<double>(entry.size), fmt::format("{}: entry '{}'", source_, entry.name));
  std::string out;
  out.reserve(entry.size);
  extract(entry, [&](const char* data, uint64_t n) { out.append(data, n); });
  return out;
}

void ZipReader::verify(const Entry& entry, const std::function<void(uint64_t offset, uint64_t n)>& on_piece) const {
  extract(entry, [&](const char* data, uint64_t n) {
    // Deflated pieces are inflated into a buffer of the reader's own, not the bytes.
    if (on_piece && entry.method == 0) on_piece(static_cast<uint64_t>(data - bytes_.data()), n);
  });
}

}  // namespace llm
