#pragma once
// Test support: builds pickles the way CPython's pickler writes them (Lib/pickle.py, _Pickler):
// PROTO, then FRAME-d data for protocols 4-5; MEMOIZE (4-5) or BINPUT (2-3) after every
// string, list, dict and tuple; repeated strings and shared containers as BINGET; dicts as
// EMPTY_DICT + MARK ... SETITEMS batches of up to 1000 items (SETITEM for one); lists likewise
// with APPENDS/APPEND; ints as BININT1/BININT2/BININT/LONG1. Lets tests describe a snapshot as
// a tree and get exact bytes, without Python at test time.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace vramscope::observe::testing {

struct py;
using py_list = std::vector<py>;
using py_dict = std::vector<std::pair<std::string, py>>;

struct py_tuple {
  std::vector<py> items;
};

/// A Python value. Lists, dicts and tuples are held by shared_ptr: the same pointer written
/// twice becomes a memo reference, as a shared object does in CPython.
struct py {
  std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string,
               std::shared_ptr<py_list>, std::shared_ptr<py_dict>, std::shared_ptr<py_tuple>>
      v;

  py() = default;
  py(bool b) : v(b) {}                                        // NOLINT
  py(int i) : v(static_cast<std::int64_t>(i)) {}               // NOLINT
  py(std::int64_t i) : v(i) {}                                 // NOLINT
  py(std::uint64_t u) : v(u) {}                                // NOLINT
  py(double d) : v(d) {}                                       // NOLINT
  py(const char* s) : v(std::string(s)) {}                     // NOLINT
  py(std::string s) : v(std::move(s)) {}                       // NOLINT
  py(std::shared_ptr<py_list> l) : v(std::move(l)) {}          // NOLINT
  py(std::shared_ptr<py_dict> d) : v(std::move(d)) {}          // NOLINT
  py(std::shared_ptr<py_tuple> t) : v(std::move(t)) {}         // NOLINT
};

inline std::shared_ptr<py_list> list(py_list items = {}) { return std::make_shared<py_list>(std::move(items)); }
inline std::shared_ptr<py_dict> dict(py_dict items = {}) { return std::make_shared<py_dict>(std::move(items)); }
inline std::shared_ptr<py_tuple> tuple(std::vector<py> items) {
  return std::make_shared<py_tuple>(py_tuple{std::move(items)});
}

class pickle_writer {
 public:
  explicit pickle_writer(int protocol = 4) : protocol_(protocol) {}

  std::string dump(const py& root) {
    out_.clear();
    frame_.clear();
    out_ += '\x80';
    out_ += static_cast<char>(protocol_);
    save(root);
    frame_ += '.';
    commit_frame(true);
    return out_;
  }

 private:
  void byte(std::uint8_t b) { frame_ += static_cast<char>(b); }
  void le(std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }

  // Protocol 4+ groups opcodes into frames of about 64 KiB, each led by FRAME and its length.
  void commit_frame(bool force) {
    if (protocol_ < 4) {
      out_ += frame_;
      frame_.clear();
      return;
    }
    if (frame_.empty() || (!force && frame_.size() < 64 * 1024)) return;
    out_ += '\x95';
    for (int i = 0; i < 8; ++i) out_ += static_cast<char>(static_cast<std::uint64_t>(frame_.size()) >> (8 * i));
    out_ += frame_;
    frame_.clear();
  }

  void memoize() {
    const std::uint32_t index = memo_count_++;
    if (protocol_ >= 4) {
      byte(0x94);
    } else if (index < 256) {
      byte('q');
      byte(static_cast<std::uint8_t>(index));
    } else {
      byte('r');
      le(index, 4);
    }
  }

  bool get(std::uint32_t index) {
    if (index < 256) {
      byte('h');
      byte(static_cast<std::uint8_t>(index));
    } else {
      byte('j');
      le(index, 4);
    }
    return true;
  }

  void save_int(std::int64_t i) {
    if (i >= 0 && i < 256) {
      byte('K');
      byte(static_cast<std::uint8_t>(i));
    } else if (i >= 0 && i < 65536) {
      byte('M');
      le(static_cast<std::uint64_t>(i), 2);
    } else if (i >= INT32_MIN && i <= INT32_MAX) {
      byte('J');
      le(static_cast<std::uint32_t>(static_cast<std::int32_t>(i)), 4);
    } else {
      save_long(static_cast<std::uint64_t>(i), i < 0);
    }
  }

  // LONG1 with the fewest bytes that keep the sign (a ninth byte for values >= 2^63).
  void save_long(std::uint64_t u, bool negative) {
    std::string bytes;
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>(u >> (8 * i));
    while (bytes.size() > 1) {
      const auto last = static_cast<std::uint8_t>(bytes.back());
      const auto prev = static_cast<std::uint8_t>(bytes[bytes.size() - 2]);
      if ((last == 0x00 && !(prev & 0x80)) || (last == 0xFF && (prev & 0x80))) bytes.pop_back();
      else break;
    }
    if (!negative && (static_cast<std::uint8_t>(bytes.back()) & 0x80)) bytes += '\0';
    byte(0x8a);
    byte(static_cast<std::uint8_t>(bytes.size()));
    frame_ += bytes;
  }

  void save_string(const std::string& s) {
    if (auto it = strings_.find(s); it != strings_.end()) {
      get(it->second);
      return;
    }
    if (s.size() < 256 && protocol_ >= 4) {
      byte(0x8c);
      byte(static_cast<std::uint8_t>(s.size()));
    } else {
      byte('X');
      le(s.size(), 4);
    }
    frame_ += s;
    strings_[s] = memo_count_;
    memoize();
  }

  template <typename Items, typename SaveOne>
  void batches(const Items& items, char single, char many, SaveOne save_one) {
    for (std::size_t start = 0; start < items.size(); start += 1000) {
      const std::size_t end = std::min(items.size(), start + 1000);
      if (end - start == 1) {
        save_one(items[start]);
        byte(static_cast<std::uint8_t>(single));
        continue;
      }
      byte('(');
      for (std::size_t i = start; i < end; ++i) save_one(items[i]);
      byte(static_cast<std::uint8_t>(many));
    }
  }

  void save(const py& value) {
    commit_frame(false);
    std::visit([this](const auto& x) { save_one(x); }, value.v);
  }

  void save_one(std::monostate) { byte('N'); }
  void save_one(bool b) { byte(b ? 0x88 : 0x89); }
  void save_one(std::int64_t i) { save_int(i); }
  void save_one(std::uint64_t u) {
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) save_int(static_cast<std::int64_t>(u));
    else save_long(u, false);
  }
  void save_one(double d) {
    byte('G');
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, 8);
    for (int i = 7; i >= 0; --i) byte(static_cast<std::uint8_t>(bits >> (8 * i)));
  }
  void save_one(const std::string& s) { save_string(s); }
  void save_one(const std::shared_ptr<py_list>& l) {
    if (auto it = objects_.find(l.get()); it != objects_.end()) {
      get(it->second);
      return;
    }
    byte(']');
    objects_[l.get()] = memo_count_;
    memoize();
    batches(*l, 'a', 'e', [this](const py& item) { save(item); });
  }
  void save_one(const std::shared_ptr<py_dict>& d) {
    if (auto it = objects_.find(d.get()); it != objects_.end()) {
      get(it->second);
      return;
    }
    byte('}');
    objects_[d.get()] = memo_count_;
    memoize();
    batches(*d, 's', 'u', [this](const std::pair<std::string, py>& kv) {
      save_string(kv.first);
      save(kv.second);
    });
  }
  void save_one(const std::shared_ptr<py_tuple>& t) {
    if (auto it = objects_.find(t.get()); it != objects_.end()) {
      get(it->second);
      return;
    }
    const std::size_t n = t->items.size();
    if (n == 0) {
      byte(')');
      return;
    }
    if (n > 3) byte('(');
    for (const auto& item : t->items) save(item);
    byte(n > 3 ? static_cast<std::uint8_t>('t') : static_cast<std::uint8_t>(0x85 + n - 1));
    objects_[t.get()] = memo_count_;
    memoize();
  }

  int protocol_;
  std::string out_;
  std::string frame_;
  std::uint32_t memo_count_ = 0;
  std::map<std::string, std::uint32_t> strings_;
  std::map<const void*, std::uint32_t> objects_;
};

}  // namespace vramscope::observe::testing
