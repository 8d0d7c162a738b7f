#include "llm/io/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>

#include <nlohmann/json.hpp>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/json.h"

namespace llm {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the format's own limit

struct DType {
  std::string_view name;
  torch::ScalarType type;
  int64_t bytes;
};

constexpr DType kDTypes[] = {
    {"F64", torch::kDouble, 8}, {"F32", torch::kFloat, 4}, {"F16", torch::kHalf, 2}, {"BF16", torch::kBFloat16, 2},
    {"I64", torch::kLong, 8},   {"I32", torch::kInt, 4},   {"I16", torch::kShort, 2}, {"I8", torch::kChar, 1},
    {"U8", torch::kByte, 1},    {"BOOL", torch::kBool, 1},
};

uint64_t header_length(std::string_view bytes) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return n;
}

// One tensor of the header, checked against the data's size.
struct Entry {
  std::string name;
  const DType* dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

Entry parse_entry(const std::string& name, const nlohmann::json& info, uint64_t data_size, const std::string& what) {
  const auto fail = [&](const std::string& message) {
    throw Error(fmt::format("{}: tensor '{}': {}", what, name, message));
  };
  if (!info.is_object()) fail("expected an object with dtype, shape and data_offsets");
  for (const auto& item : info.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets") {
      fail(fmt::format("unknown field '{}'", item.key()));
    }
  }
  if (!info.contains("dtype") || !info["dtype"].is_string()) fail("dtype must be a string");
  const auto dtype_name = info["dtype"].get<std::string>();
  const auto* dtype = std::find_if(std::begin(kDTypes), std::end(kDTypes), [&](const DType& d) { return d.name == dtype_name; });
  if (dtype == std::end(kDTypes)) fail(fmt::format("dtype '{}' is not one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL", dtype_name));

  if (!info.contains("shape") || !info["shape"].is_array()) fail("shape must be an array of sizes");
  std::vector<int64_t> shape;
  uint64_t numel = 1;
  for (const auto& size : info["shape"]) {
    if (!size.is_number_unsigned()) fail(fmt::format("shape must hold sizes of 0 or more, got {}", json_excerpt(info["shape"])));
    const auto n = size.get<uint64_t>();
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) || __builtin_mul_overflow(numel, n, &numel)) {
      fail(fmt::format("shape {} is too large", json_excerpt(info["shape"])));
    }
    shape.push_back(static_cast<int64_t>(n));
  }
  if (shape.size() > 64) fail(fmt::format("{} dimensions; at most 64", shape.size()));

  const auto& offsets = info.value("data_offsets", nlohmann::json());
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
    fail("data_offsets must be [begin, end]");
  }
  const auto begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  if (begin > end || end > data_size) {
    fail(fmt::format("data_offsets [{}, {}] lie outside the {} bytes of data", begin, end, data_size));
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<uint64_t>(dtype->bytes), &bytes) || bytes != end - begin) {
    fail(fmt::format("shape {} of {} takes {} bytes, but data_offsets [{}, {}] hold {}", json_excerpt(info["shape"]),
                     dtype_name, numel * static_cast<uint64_t>(dtype->bytes), begin, end, end - begin));
  }
  return {name, dtype, std::move(shape), begin, end};
}

// The header's entries in the order of their data, checked to tile the data exactly.
std::vector<Entry> parse_header(std::string_view bytes, const std::string& source, uint64_t* data_start) {
  const auto what = fmt::format("safetensors '{}'", source);
  if (bytes.size() < 8) throw Error(fmt::format("{}: {} bytes; a safetensors file starts with 8", what, bytes.size()));
  const uint64_t n = header_length(bytes);
  if (n > kMaxHeaderBytes || n > bytes.size() - 8) {
    throw Error(fmt::format("{}: a header of {} bytes does not fit (the file has {} after the length; at most {})", what,
                            n, bytes.size() - 8, kMaxHeaderBytes));
  }
  const auto header = parse_json_object(bytes.substr(8, n), "safetensors header", source);
  *data_start = 8 + n;
  const uint64_t data_size = bytes.size() - *data_start;
  std::vector<Entry> entries;
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      const auto& metadata = item.value();
      const bool strings = metadata.is_object() && std::all_of(metadata.begin(), metadata.end(),
                                                                [](const auto& value) { return value.is_string(); });
      if (!strings) throw Error(fmt::format("{}: __metadata__ must map names to strings", what));
      continue;
    }
    entries.push_back(parse_entry(item.key(), item.value(), data_size, what));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  uint64_t covered = 0;
  for (const auto& entry : entries) {
    if (entry.begin != covered) {
      throw Error(fmt::format("{}: tensor '{}' starts at byte {} of the data, where {} was expected ({})", what,
                              entry.name, entry.begin, covered, entry.begin < covered ? "it overlaps another" : "a gap"));
    }
    covered = entry.end;
  }
  if (covered != data_size) {
    throw Error(fmt::format("{}: the tensors cover {} of the {} bytes of data", what, covered, data_size));
  }
  return entries;
}

void check_bools(const Entry& entry, const char* data, const std::string& source) {
  if (entry.dtype->type != torch::kBool) return;
  for (uint64_t i = entry.begin; i < entry.end; ++i) {
    if (static_cast<unsigned char>(data[i]) > 1) {
      throw Error(fmt::format("safetensors '{}': tensor '{}': a BOOL byte of value {}", source, entry.name,
                              static_cast<int>(static_cast<unsigned char>(data[i]))));
    }
  }
}

torch::Tensor copy_of(const Entry& entry, const char* data) {
  auto tensor = torch::empty(entry.shape, torch::TensorOptions().dtype(entry.dtype->type));
  if (entry.end > entry.begin) std::memcpy(tensor.data_ptr(), data + entry.begin, entry.end - entry.begin);
  return tensor;
}

}  // namespace

bool looks_like_safetensors(std::string_view bytes) {
  // A torch.save zip has its compression method there, never '{'. The length is
  // checked when the file is read, so that a bad one is named as such.
  return bytes.size() >= 9 && bytes[8] == '{';
}

NamedTensors read_safetensors(std::string_view bytes, const std::string& source) {
  uint64_t data_start = 0;
  const auto entries = parse_header(bytes, source, &data_start);
  const char* data = bytes.data() + data_start;
  NamedTensors tensors;
  for (const auto& entry : entries) {
    check_bools(entry, data, source);
    tensors.emplace_back(entry.name, copy_of(entry, data));
  }
  return tensors;
}

NamedTensors load_safetensors(const std::filesystem::path& path) {
  // Copy-on-write, unmapped when the last tensor viewing it goes.
  const auto mapping = std::make_shared<MappedFile>(path, MappedFile::Access::kCopyOnWrite);
  uint64_t data_start = 0;
  const auto entries = parse_header(mapping->bytes(), path.string(), &data_start);
  char* data = mapping->data() + data_start;
  NamedTensors tensors;
  for (const auto& entry : entries) {
    check_bools(entry, data, path.string());
    char* start = data + entry.begin;
    const bool aligned = reinterpret_cast<uintptr_t>(start) % static_cast<uintptr_t>(entry.dtype->bytes) == 0;
    if (!aligned || entry.end == entry.begin) {
      tensors.emplace_back(entry.name, copy_of(entry, data));
      continue;
    }
    // When the tensor goes, so do its pages: a model loaded tensor by tensor holds one
    // tensor's bytes of the file at a time, not the whole file.
    const auto offset = data_start + entry.begin, bytes = entry.end - entry.begin;
    const auto release = [mapping, offset, bytes](void*) { mapping->release(offset, bytes); };
    tensors.emplace_back(entry.name,
                         torch::from_blob(start, entry.shape, release, torch::TensorOptions().dtype(entry.dtype->type)));
  }
  return tensors;
}

std::string safetensors_bytes(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<torch::Tensor> contiguous;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == "__metadata__" || header.contains(name)) {
      throw Error(fmt::format("safetensors: the name '{}' is used twice or reserved", name));
    }
    const auto t = tensor.detach().cpu().contiguous();
    const auto* dtype = std::find_if(std::begin(kDTypes), std::end(kDTypes),
                                     [&](const DType& d) { return d.type == t.scalar_type(); });
    if (dtype == std::end(kDTypes)) {
      throw Error(fmt::format("safetensors: tensor '{}' has dtype {}, which the format does not hold", name,
                              c10::toString(t.scalar_type())));
    }
    const uint64_t bytes = static_cast<uint64_t>(t.numel()) * static_cast<uint64_t>(dtype->bytes);
    header[name] = {{"dtype", dtype->name}, {"shape", t.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    contiguous.push_back(t);
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception&) {
    throw Error("safetensors: tensor names and metadata must be UTF-8");
  }
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as Hugging Face writes it
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((json.size() >> (8 * i)) & 0xff);
  out += json;
  out.reserve(out.size() + offset);
  for (const auto& t : contiguous) {
    if (t.nbytes() > 0) out.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  }
  return out;
}

void save_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, safetensors_bytes(tensors, metadata));
}

}  // namespace llm
