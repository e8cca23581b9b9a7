// A minimal JSON writer for the report and the trace (no dependency for one small format).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace taskbench {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(const std::string& k) {
    separate();
    quote(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(const std::string& v) { return separate(), quote(v), *this; }
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& value(bool v) { return raw(v ? "true" : "false"); }
  JsonWriter& value(long long v) { return raw(std::to_string(v)); }
  JsonWriter& value(long v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(int v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(unsigned long v) { return raw(std::to_string(v)); }
  JsonWriter& value(double v) {
    if (!std::isfinite(v)) return raw("null");
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return raw(buf);
  }
  JsonWriter& null() { return raw("null"); }
  JsonWriter& raw(const std::string& text) {
    separate();
    out_ += text;
    return *this;
  }
  template <typename T>
  JsonWriter& field(const std::string& k, const T& v) {
    return key(k).value(v);
  }
  const std::string& str() const { return out_; }

 private:
  JsonWriter& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  // Length of the valid UTF-8 sequence starting at s[k], or 0 if it is not one (overlong
  // forms, surrogates and code points above U+10FFFF included).
  static size_t utf8_length(const std::string& s, size_t k) {
    const auto byte = [&](size_t j) { return j < s.size() ? static_cast<unsigned char>(s[j]) : 0u; };
    const unsigned lead = byte(k);
    size_t n;
    unsigned low = 0x80, high = 0xbf;  // the range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) n = 2;
    else if (lead >= 0xe0 && lead <= 0xef) n = 3, low = lead == 0xe0 ? 0xa0 : 0x80, high = lead == 0xed ? 0x9f : 0xbf;
    else if (lead >= 0xf0 && lead <= 0xf4) n = 4, low = lead == 0xf0 ? 0x90 : 0x80, high = lead == 0xf4 ? 0x8f : 0xbf;
    else return 0;
    if (byte(k + 1) < low || byte(k + 1) > high) return 0;
    for (size_t j = 2; j < n; ++j)
      if (byte(k + j) < 0x80 || byte(k + j) > 0xbf) return 0;
    return n;
  }

  // JSON text is UTF-8: a byte that is not part of valid UTF-8 (a command-line argument can
  // hold any bytes) becomes U+FFFD, or the report would not parse.
  void quote(const std::string& s) {
    out_ += '"';
    for (size_t k = 0; k < s.size();) {
      const unsigned char c = static_cast<unsigned char>(s[k]);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else if (c < 0x80) {
        out_ += static_cast<char>(c);
      } else if (const size_t n = utf8_length(s, k)) {
        out_.append(s, k, n);
        k += n;
        continue;
      } else {
        out_ += "\\ufffd";
      }
      ++k;
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace taskbench
