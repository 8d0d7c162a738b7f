#include "llm/io/torch_pickle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <variant>

#include "llm/io/zip.h"
#include "llm/util/error.h"
#include "llm/util/files.h"

namespace llm {
namespace {

struct Value;
using Ref = std::shared_ptr<Value>;

// The Python objects a state-dict pickle builds. Lists, tuples and dicts hold
// references because memoised objects are shared and filled in place.
struct Value {
  enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Tensor, Mark } kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  std::string s;            // Str, and Global as "module.name"
  std::vector<Ref> items;   // Tuple, List; Dict as key, value, key, value, ...
  torch::Tensor tensor;
};

Ref make(Value::Kind kind) {
  auto v = std::make_shared<Value>();
  v->kind = kind;
  return v;
}

// Drops the references of `values` and of everything they hold one level at a time.
// A hostile pickle can nest a million lists, or make a list that holds itself; the
// default destructors would recurse once per level and overflow the stack, or leak.
void release(std::vector<Ref> values) {
  while (!values.empty()) {
    Ref v = std::move(values.back());
    values.pop_back();
    if (!v) continue;
    for (auto& item : v->items) values.push_back(std::move(item));
    v->items.clear();
  }
}

// Containers nested deeper than this are refused: a state dict nests two levels, a
// checkpoint or an optimizer's state dict four.
constexpr int kMaxDepth = 32;

// The records of a torch.save archive: zip entries in one top folder ("archive/data.pkl",
// "archive/data/0", ...), as LibTorch's writer lays them out. Opening it checks every
// entry against the CRC-32 the writer stored for it (LibTorch's reader skips this, so a
// flipped byte inside a tensor would load as a silently different number). Its entries
// are stored, never deflated.
//
// Read from a mapped file, each storage is a view of the file's bytes: the file is
// never held whole, and a storage's pages go when its last tensor does, as
// load_safetensors' do. Read from bytes, each storage is a copy.
class ArchiveRecords {
 public:
  ArchiveRecords(std::string_view bytes, std::shared_ptr<const MappedFile> mapping, const std::string& source)
      : zip_(bytes, fmt::format("archive '{}'", source)), bytes_(bytes), mapping_(std::move(mapping)), source_(source) {
    if (zip_.entries().empty()) fail("it holds no entries");
    const auto& first = zip_.entries().front().name;
    const auto slash = first.find('/');
    if (slash == std::string::npos || slash == 0) fail("its first entry is not in a folder");
    folder_ = first.substr(0, slash + 1);
    for (const auto& entry : zip_.entries()) {
      if (entry.method != 0) {
        throw Error(fmt::format("archive '{}': damaged (entry '{}' is compressed)", source, entry.name));
      }
      // Read once for the check: a mapped file's pages go again, piece by piece, until
      // a tensor needs them.
      zip_.verify(entry, [&](uint64_t offset, uint64_t n) {
        if (mapping_) mapping_->release(offset, n);
      });
      if (mapping_) mapping_->release(entry.data_offset, entry.size);  // and the pages across pieces
    }
  }

  const ZipReader::Entry* find(const std::string& record) const { return zip_.find(folder_ + record); }

  std::string pickle() const {
    const auto* entry = find("data.pkl");
    if (entry == nullptr) fail("no data.pkl");
    return zip_.read(*entry);
  }

  // The storage in `entry`, of `numel` elements of `type`; the caller has checked
  // that the entry holds that many.
  torch::Tensor storage(const ZipReader::Entry& entry, torch::ScalarType type, int64_t numel) const {
    const auto options = torch::TensorOptions(type);
    const auto element = static_cast<uintptr_t>(c10::elementSize(type));
    if (mapping_ && numel > 0 && reinterpret_cast<uintptr_t>(mapping_->data() + entry.data_offset) % element == 0) {
      const auto give_back = [mapping = mapping_, offset = entry.data_offset, bytes = entry.size](void*) {
        mapping->release(offset, bytes);
      };
      return torch::from_blob(mapping_->data() + entry.data_offset, {numel}, give_back, options);
    }
    auto copy = torch::empty({numel}, options);
    if (numel > 0) std::memcpy(copy.data_ptr(), bytes_.data() + entry.data_offset, copy.nbytes());
    return copy;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("archive '{}': not a torch.save archive ({})", source_, what));
  }

  ZipReader zip_;
  std::string_view bytes_;
  std::shared_ptr<const MappedFile> mapping_;  // the file `bytes_` views, when it is mapped
  const std::string& source_;
  std::string folder_;  // "archive/"
};

class Unpickler {
 public:
  Unpickler(const std::string& source, const ArchiveRecords& records) : source_(source), records_(records) {}
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;
  ~Unpickler() {
    std::vector<Ref> held = std::move(stack_);
    held.push_back(std::move(root_));
    for (auto& [key, value] : memo_) held.push_back(std::move(value));
    release(std::move(held));
  }

  Ref load(const char* data, size_t size) {
    data_ = data;
    size_ = size;
    pos_ = 0;
    for (;;) {
      const auto op = static_cast<uint8_t>(byte());
      if (op == '.') {  // STOP
        root_ = pop();
        return root_;
      }
      if (!memo_op(op) && !container_op(op) && !scalar_op(op) && !object_op(op)) {
        fail(fmt::format("pickle opcode 0x{:02x} at byte {}", op, pos_ - 1));
      }
    }
  }

 private:
  // Each returns whether `op` is one of its opcodes, which it then carries out.

  // The memo: values stored and fetched again by number.
  bool memo_op(uint8_t op) {
    switch (op) {
      case 'q': memo_[static_cast<uint8_t>(byte())] = top(); return true;   // BINPUT
      case 'r': memo_[uint(4)] = top(); return true;                          // LONG_BINPUT
      case 'h': stack_.push_back(memo(static_cast<uint8_t>(byte()))); return true;  // BINGET
      case 'j': stack_.push_back(memo(uint(4))); return true;                        // LONG_BINGET
      default: return false;
    }
  }

  // Marks, tuples, dicts and lists, and what fills them.
  bool container_op(uint8_t op) {
    switch (op) {
      case '(': stack_.push_back(make(Value::Kind::Mark)); return true;
      case ')': stack_.push_back(make(Value::Kind::Tuple)); return true;
      case '}': stack_.push_back(make(Value::Kind::Dict)); return true;
      case ']': stack_.push_back(make(Value::Kind::List)); return true;
      case 't': {
        auto t = make(Value::Kind::Tuple);
        t->items = pop_to_mark();
        stack_.push_back(t);
        return true;
      }
      case 0x85: case 0x86: case 0x87: {  // TUPLE1..3
        auto t = make(Value::Kind::Tuple);
        t->items.resize(op - 0x84);
        for (auto it = t->items.rbegin(); it != t->items.rend(); ++it) *it = pop();
        stack_.push_back(t);
        return true;
      }
      case 's': {  // SETITEM
        auto value = pop();
        auto key = pop();
        auto& dict = expect(top(), Value::Kind::Dict, "SETITEM")->items;
        dict.insert(dict.end(), {key, value});
        return true;
      }
      case 'a': {  // APPEND
        auto value = pop();
        expect(top(), Value::Kind::List, "APPEND")->items.push_back(value);
        return true;
      }
      case 'u': case 'e': {  // SETITEMS, APPENDS
        auto items = pop_to_mark();
        auto& into = op == 'u' ? expect(top(), Value::Kind::Dict, "SETITEMS")->items
                               : expect(top(), Value::Kind::List, "APPENDS")->items;
        into.insert(into.end(), items.begin(), items.end());
        return true;
      }
      default: return false;
    }
  }

  // Integers, floats, strings, None and booleans.
  bool scalar_op(uint8_t op) {
    switch (op) {
      case 'K': push_int(static_cast<uint8_t>(byte())); return true;   // BININT1
      case 'M': push_int(static_cast<int64_t>(uint(2))); return true;  // BININT2
      case 'J': push_int(static_cast<int32_t>(uint(4))); return true;  // BININT
      case 0x8a: push_int(long1()); return true;                       // LONG1
      case 'G': {  // BINFLOAT, big-endian
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(byte());
        auto v = make(Value::Kind::Float);
        std::memcpy(&v->f, &bits, sizeof bits);
        stack_.push_back(v);
        return true;
      }
      case 'X': case 0x8c: {  // BINUNICODE, SHORT_BINUNICODE
        const size_t n = op == 'X' ? uint(4) : static_cast<uint8_t>(byte());
        auto v = make(Value::Kind::Str);
        v->s = bytes(n);
        stack_.push_back(v);
        return true;
      }
      case 'N': stack_.push_back(make(Value::Kind::None)); return true;
      case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE
        auto v = make(Value::Kind::Bool);
        v->i = op == 0x88;
        stack_.push_back(v);
        return true;
      }
      default: return false;
    }
  }

  // The protocol, globals, storages, calls and object state.
  bool object_op(uint8_t op) {
    switch (op) {
      case 0x80: byte(); return true;  // PROTO
      case 'c': {                      // GLOBAL
        auto g = make(Value::Kind::Global);
        g->s = line();  // the module, then the name: two statements, as operands may run in any order
        g->s += "." + line();
        stack_.push_back(g);
        return true;
      }
      case 'Q': stack_.push_back(persistent_load(pop())); return true;  // BINPERSID
      case 'R': {                                                       // REDUCE
        auto args = pop();
        auto callable = pop();
        stack_.push_back(reduce(callable, args));
        return true;
      }
      case 'b':  // BUILD: the state of an OrderedDict is its _metadata, which is not needed
        pop();
        if (top()->kind != Value::Kind::Dict) fail("BUILD of an object other than a dict");
        return true;
      default: return false;
    }
  }

  // LONG1: a little-endian two's-complement integer of up to 8 bytes.
  int64_t long1() {
    const auto n = static_cast<uint8_t>(byte());
    if (n > 8) fail("an integer wider than 64 bits");
    uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(byte())) << (8 * k);
    if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    return static_cast<int64_t>(v);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("archive '{}': unsupported content ({})", source_, what));
  }
  char byte() {
    if (pos_ >= size_) fail("the pickle ends early");
    return data_[pos_++];
  }
  std::string bytes(size_t n) {
    if (n > size_ - pos_) fail("the pickle ends early");
    std::string out(data_ + pos_, n);
    pos_ += n;
    return out;
  }
  uint32_t uint(int n) {
    uint32_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<uint32_t>(static_cast<uint8_t>(byte())) << (8 * k);
    return v;
  }
  std::string line() {
    std::string out;
    for (char c; (c = byte()) != '\n';) out += c;
    return out;
  }
  void push_int(int64_t i) {
    auto v = make(Value::Kind::Int);
    v->i = i;
    stack_.push_back(v);
  }
  const Ref& top() const {
    if (stack_.empty()) fail("the pickle's stack is empty");
    return stack_.back();
  }
  Ref pop() {
    if (stack_.empty()) fail("the pickle's stack is empty");
    auto v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::vector<Ref> pop_to_mark() {
    std::vector<Ref> items;
    while (pop_kind_not(Value::Kind::Mark)) items.push_back(pop());
    pop();
    return {items.rbegin(), items.rend()};
  }
  bool pop_kind_not(Value::Kind kind) {
    if (stack_.empty()) fail("a MARK is missing");
    return stack_.back()->kind != kind;
  }
  Ref memo(uint32_t key) {
    const auto it = memo_.find(key);
    if (it == memo_.end()) fail(fmt::format("memo {} is not set", key));
    return it->second;
  }
  Ref expect(const Ref& v, Value::Kind kind, const char* op) {
    if (v->kind != kind) fail(fmt::format("{} on the wrong kind of object", op));
    return v;
  }
  const Ref& arg(const Ref& args, size_t i, Value::Kind kind) {
    if (args->kind != Value::Kind::Tuple || i >= args->items.size() || args->items[i]->kind != kind) {
      fail("unexpected arguments when rebuilding a tensor");
    }
    return args->items[i];
  }
  std::vector<int64_t> ints(const Ref& tuple) {
    std::vector<int64_t> out;
    for (const auto& item : tuple->items) {
      if (item->kind != Value::Kind::Int) fail("a tensor size or stride that is not an integer");
      out.push_back(item->i);
    }
    return out;
  }

  Ref persistent_load(const Ref& pid) {
    // ('storage', torch.<Type>Storage, key, location, numel)
    if (pid->kind != Value::Kind::Tuple || pid->items.size() < 5) fail("a persistent id that is not a storage");
    static const std::map<std::string, torch::ScalarType> kTypes = {
        {"torch.FloatStorage", torch::kFloat},   {"torch.DoubleStorage", torch::kDouble},
        {"torch.HalfStorage", torch::kHalf},     {"torch.BFloat16Storage", torch::kBFloat16},
        {"torch.LongStorage", torch::kLong},     {"torch.IntStorage", torch::kInt},
        {"torch.ShortStorage", torch::kShort},   {"torch.CharStorage", torch::kChar},
        {"torch.ByteStorage", torch::kByte},     {"torch.BoolStorage", torch::kBool}};
    const auto& type = pid->items[1];
    const auto it = type->kind == Value::Kind::Global ? kTypes.find(type->s) : kTypes.end();
    if (it == kTypes.end()) fail("a storage of an unknown type");
    const std::string key = arg(pid, 2, Value::Kind::Str)->s;
    const int64_t numel = arg(pid, 4, Value::Kind::Int)->i;
    const std::string record = "data/" + key;
    // Every tensor on one storage shares it, as in PyTorch: the record is read once,
    // however many views name it.
    auto& storage = storages_[key];
    if (!storage.defined()) {
      const auto* entry = records_.find(record);
      if (entry == nullptr) fail(fmt::format("storage '{}' is missing", record));
      const auto element = static_cast<int64_t>(c10::elementSize(it->second));
      if (numel < 0 || static_cast<uint64_t>(numel) > entry->size / static_cast<uint64_t>(element)) {
        fail(fmt::format("storage '{}' is short", record));
      }
      storage = records_.storage(*entry, it->second, numel);
    } else if (storage.scalar_type() != it->second || storage.numel() != numel) {
      fail(fmt::format("storage '{}' is named with two types or sizes", record));
    }
    auto v = make(Value::Kind::Tensor);
    v->tensor = storage;
    return v;
  }

  Ref reduce(const Ref& callable, const Ref& args) {
    if (callable->kind != Value::Kind::Global) fail("a call of something other than a known function");
    if (callable->s == "collections.OrderedDict") return make(Value::Kind::Dict);
    // torch::pickle_save tags typed containers: restore_type_tag(obj, "Dict[str, Tensor]").
    if (callable->s == "torch.jit._pickle.restore_type_tag") {
      if (args->kind != Value::Kind::Tuple || args->items.empty()) fail("restore_type_tag without an object");
      return args->items[0];
    }
    if (callable->s == "torch._utils._rebuild_tensor_v2") {
      const auto& storage = arg(args, 0, Value::Kind::Tensor)->tensor;
      const int64_t offset = arg(args, 1, Value::Kind::Int)->i;
      const auto size = ints(arg(args, 2, Value::Kind::Tuple));
      const auto stride = ints(arg(args, 3, Value::Kind::Tuple));
      int64_t extent = offset;  // the last element the view reaches
      for (size_t d = 0; d < size.size() && d < stride.size(); ++d) {
        if (size[d] < 0 || stride[d] < 0) fail("a negative size or stride");
        if (size[d] == 0) extent = -1;
        if (extent >= 0) extent += (size[d] - 1) * stride[d];
      }
      if (size.size() != stride.size() || offset < 0 || extent >= storage.numel()) {
        fail("a tensor view outside its storage");
      }
      auto v = make(Value::Kind::Tensor);
      v->tensor = storage.as_strided(size, stride, offset);
      return v;
    }
    if (callable->s == "torch._utils._rebuild_parameter") {
      auto v = make(Value::Kind::Tensor);
      v->tensor = arg(args, 0, Value::Kind::Tensor)->tensor;
      return v;
    }
    fail(fmt::format("a call of {}", callable->s));
  }

  const std::string& source_;
  const ArchiveRecords& records_;
  const char* data_ = nullptr;
  size_t size_ = 0, pos_ = 0;
  std::vector<Ref> stack_;
  std::map<std::string, torch::Tensor> storages_;  // by key: each record read once
  Ref root_;  // what STOP returned
  std::map<uint32_t, Ref> memo_;
};

// The entries of a dict, list or tuple under `prefix`, depth first: a nested dict's
// entries are named "outer/inner" (torch.save({"model_state_dict": ...}) gives
// "model_state_dict/tok_emb.weight"), list and tuple items and integer keys by their
// number; integers, floats and booleans become scalar tensors, and None is left out.
void flatten(const Value& container, const std::string& prefix, int depth, const std::string& source,
             NamedTensors& out) {
  if (depth >= kMaxDepth) {
    throw Error(fmt::format("archive '{}': containers nested more than {} deep", source, kMaxDepth));
  }
  const bool dict = container.kind == Value::Kind::Dict;
  const size_t step = dict ? 2 : 1;
  for (size_t k = 0; k + step - 1 < container.items.size(); k += step) {
    std::string name = std::to_string(k);
    if (dict) {
      const auto& key = *container.items[k];
      if (key.kind == Value::Kind::Str) {
        name = key.s;
      } else if (key.kind == Value::Kind::Int) {
        name = std::to_string(key.i);
      } else {
        throw Error(fmt::format("archive '{}': a key under '{}' is not a string or an integer", source, prefix));
      }
    }
    name = prefix + name;
    const auto& value = *container.items[k + step - 1];
    switch (value.kind) {
      case Value::Kind::Tensor: out.emplace_back(name, value.tensor); break;
      case Value::Kind::Dict: case Value::Kind::List: case Value::Kind::Tuple:
        flatten(value, name + "/", depth + 1, source, out);
        break;
      case Value::Kind::Int: out.emplace_back(name, torch::tensor(value.i, torch::kLong)); break;
      case Value::Kind::Float: out.emplace_back(name, torch::tensor(value.f, torch::kDouble)); break;
      case Value::Kind::Bool: out.emplace_back(name, torch::tensor(value.i != 0)); break;
      case Value::Kind::Str: out.emplace_back(name, string_to_tensor(value.s)); break;
      case Value::Kind::None: break;
      default: throw Error(fmt::format("archive '{}': '{}' is not a tensor, a number or a container", source, name));
    }
  }
}

NamedTensors read_archive(std::string_view bytes, std::shared_ptr<const MappedFile> mapping,
                          const std::string& source) {
  // A torch.save archive is a zip file that starts with its first entry's header.
  if (bytes.rfind("PK\x03\x04", 0) != 0) {
    throw Error(fmt::format("archive '{}': not a torch.save archive (not a zip file)", source));
  }
  const ArchiveRecords records(bytes, std::move(mapping), source);
  const std::string pickle = records.pickle();
  NamedTensors tensors;
  try {
    Unpickler unpickler(source, records);  // frees what it built when it goes, however deep
    const Ref root = unpickler.load(pickle.data(), pickle.size());
    if (root->kind != Value::Kind::Dict) throw Error(fmt::format("archive '{}': expected a dict of tensors", source));
    flatten(*root, "", 0, source, tensors);
  } catch (const c10::Error& e) {  // a tensor LibTorch refuses to build
    const std::string what = e.what_without_backtrace();
    throw Error(fmt::format("archive '{}': damaged ({})", source, what.substr(0, what.find('\n'))));
  }
  return tensors;
}

}  // namespace

NamedTensors read_torch_archive(std::string_view bytes, const std::string& source) {
  return read_archive(bytes, nullptr, source);
}

NamedTensors load_torch_archive(const std::filesystem::path& path) {
  // Copy-on-write: a loaded tensor may be written in place without touching the file.
  auto mapping = std::make_shared<const MappedFile>(path, MappedFile::Access::kCopyOnWrite);
  const auto bytes = mapping->bytes();
  return read_archive(bytes, std::move(mapping), path.string());
}

}  // namespace llm
