#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

/// The files of a zip archive, read from its bytes (PKWARE's APPNOTE: the central
/// directory, zip64 included). Entries may be stored or deflated (inflated through
/// zlib), and each is checked against its CRC-32 and its size when read. Every offset
/// and size is checked against the bytes: a damaged or hostile archive gives an
/// llm::Error that starts with `source` ("zip 'smsspamcollection.zip'"), never a read
/// outside the bytes, and an entry cannot inflate past the size its directory states
/// (no zip bomb).
class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint16_t method = 0;  // 0 stored, 8 deflated
    uint32_t crc32 = 0;
    uint64_t compressed_size = 0, size = 0;
    uint64_t data_offset = 0;  // where its (compressed) bytes start
  };

  /// `bytes` must outlive the reader.
  ZipReader(std::string_view bytes, std::string source);

  const std::vector<Entry>& entries() const { return entries_; }
  /// The entry named `name`, or nullptr.
  const Entry* find(std::string_view name) const;

  /// The entry's contents, inflated when deflated, checked against its CRC-32 and size.
  std::string read(const Entry& entry) const;
  /// The same checks without keeping the contents. A stored entry is read in pieces of
  /// at most kPieceBytes, each handed to `on_piece` once read (its place in the bytes
  /// and its length), so that a mapped file's pages can go as the check moves on.
  void verify(const Entry& entry, const std::function<void(uint64_t offset, uint64_t n)>& on_piece = {}) const;

  static constexpr uint64_t kPieceBytes = 16 << 20;

 private:
  template <typename Sink>
  void extract(const Entry& entry, Sink&& sink) const;

  std::string_view bytes_;
  std::string source_;
  std::vector<Entry> entries_;
};

}  // namespace llm
