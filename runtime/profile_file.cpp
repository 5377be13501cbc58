// profile_file.cpp - the profile file: a small JSON reader and writer.
//
// The runtime has no dependencies, so it reads JSON itself: a strict
// recursive-descent parser of the whole grammar (nesting limited, so a
// hostile file cannot exhaust the stack), then a check of the profile's
// schema. Anything unexpected is an error that names where it is.
#include "profile_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace cgp {
namespace rt {
namespace {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;                          // Array
  std::vector<std::pair<std::string, JsonValue>> fields; // Object

  const JsonValue *field(const std::string &name) const {
    for (const auto &f : fields)
      if (f.first == name)
        return &f.second;
    return nullptr;
  }
};

class JsonReader {
public:
  explicit JsonReader(const std::string &text) : s_(text) {}

  bool read(JsonValue &out, std::string &error) {
    skipSpace();
    if (!value(out, 0)) {
      error = error_ + " at byte " + std::to_string(pos_);
      return false;
    }
    skipSpace();
    if (pos_ != s_.size()) {
      error = "unexpected text after the JSON value at byte " + std::to_string(pos_);
      return false;
    }
    return true;
  }

private:
  bool fail(const char *why) {
    error_ = why;
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0)
      return fail("unknown literal");
    pos_ += n;
    return true;
  }
  bool value(JsonValue &out, int depth) {
    if (depth > 32)
      return fail("nesting too deep");
    if (pos_ >= s_.size())
      return fail("unexpected end");
    char c = s_[pos_];
    if (c == '{')
      return object(out, depth);
    if (c == '[')
      return array(out, depth);
    if (c == '"') {
      out.kind = JsonValue::String;
      return string(out.text);
    }
    if (c == 't' || c == 'f') {
      out.kind = JsonValue::Bool;
      out.boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out.kind = JsonValue::Null;
      return literal("null");
    }
    return number(out);
  }
  bool number(JsonValue &out) {
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-')
      ++pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
        ++pos_;
      return pos_ > from;
    };
    if (!digits())
      return fail("expected a value");
    if (pos_ < s_.size() && s_[pos_] == '.' && (++pos_, !digits()))
      return fail("malformed number");
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'))
        ++pos_;
      if (!digits())
        return fail("malformed number");
    }
    std::string token = s_.substr(start, pos_ - start);
    out.kind = JsonValue::Number;
    out.number = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(out.number))
      return fail("number out of range");
    return true;
  }
  bool string(std::string &out) {
    ++pos_; // the opening quote
    while (pos_ < s_.size() && s_[pos_] != '"') {
      unsigned char c = static_cast<unsigned char>(s_[pos_++]);
      if (c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= s_.size())
        return fail("unterminated string");
      char e = s_[pos_++];
      switch (e) {
      case '"': case '\\': case '/': out += e; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        if (pos_ + 4 > s_.size())
          return fail("malformed \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          char h = s_[pos_++];
          code <<= 4;
          if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
          else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
          else return fail("malformed \\u escape");
        }
        out += code < 0x80 ? static_cast<char>(code) : '?'; // names are ASCII
        break;
      }
      default:
        return fail("unknown escape in a string");
      }
    }
    if (pos_ >= s_.size())
      return fail("unterminated string");
    ++pos_;
    return true;
  }
  bool array(JsonValue &out, int depth) {
    out.kind = JsonValue::Array;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']')
      return ++pos_, true;
    for (;;) {
      out.items.emplace_back();
      skipSpace();
      if (!value(out.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']')
        return ++pos_, true;
      return fail("expected ',' or ']'");
    }
  }
  bool object(JsonValue &out, int depth) {
    out.kind = JsonValue::Object;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}')
      return ++pos_, true;
    for (;;) {
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"')
        return fail("expected a field name");
      std::string name;
      if (!string(name))
        return false;
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':')
        return fail("expected ':'");
      ++pos_;
      skipSpace();
      out.fields.emplace_back(name, JsonValue());
      if (!value(out.fields.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}')
        return ++pos_, true;
      return fail("expected ',' or '}'");
    }
  }

  const std::string &s_;
  size_t pos_ = 0;
  std::string error_;
};

/// Schema checks: each names the place ("kernels[2].loops[0].starts").
struct SchemaReader {
  std::string error;

  const JsonValue *need(const JsonValue &object, const std::string &where, const char *name,
                        JsonValue::Kind kind, const char *what) {
    const JsonValue *v = object.field(name);
    if (!v || v->kind != kind) {
      error = where + "." + name + ": expected " + what;
      return nullptr;
    }
    return v;
  }
  bool count(const JsonValue &object, const std::string &where, const char *name,
             std::uint64_t &out) {
    const JsonValue *v = need(object, where, name, JsonValue::Number, "a count (an integer >= 0)");
    if (!v)
      return false;
    if (v->number < 0 || v->number > 9007199254740992.0 || std::floor(v->number) != v->number) {
      error = where + "." + name + ": expected a count (an integer >= 0)";
      return false;
    }
    out = static_cast<std::uint64_t>(v->number);
    return true;
  }
  bool position(const JsonValue &object, const std::string &where, SitePosition &out) {
    std::uint64_t line = 0, column = 0;
    if (!count(object, where, "line", line) || !count(object, where, "column", column))
      return false;
    if (line == 0 || line > 100000000 || column > 100000000) {
      error = where + ": line and column out of range";
      return false;
    }
    out = {static_cast<int>(line), static_cast<int>(column)};
    return true;
  }
};

void appendEscaped(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

} // namespace

bool parseProfile(const std::string &text, ProfileData &out, std::string &error) {
  JsonValue doc;
  if (!JsonReader(text).read(doc, error))
    return false;
  SchemaReader r;
  auto done = [&](bool ok) {
    if (!ok)
      error = r.error;
    return ok;
  };
  if (doc.kind != JsonValue::Object)
    return r.error = "expected an object", done(false);
  const JsonValue *format = r.need(doc, "profile", "format", JsonValue::String, "\"cgp-ad profile\"");
  if (!format || format->text != "cgp-ad profile")
    return r.error = "profile.format: expected \"cgp-ad profile\"", done(false);
  std::uint64_t version = 0;
  if (!r.count(doc, "profile", "version", version))
    return done(false);
  if (version != 1)
    return r.error = "profile.version: version " + std::to_string(version) +
                     " is not known (this runtime reads version 1)",
           done(false);
  const JsonValue *kernels = r.need(doc, "profile", "kernels", JsonValue::Array, "an array");
  if (!kernels)
    return done(false);
  ProfileData data;
  for (size_t k = 0; k < kernels->items.size(); ++k) {
    const JsonValue &kv = kernels->items[k];
    std::string where = "kernels[" + std::to_string(k) + "]";
    if (kv.kind != JsonValue::Object)
      return r.error = where + ": expected an object", done(false);
    const JsonValue *name = r.need(kv, where, "kernel", JsonValue::String, "a name");
    const JsonValue *file = name ? r.need(kv, where, "file", JsonValue::String, "a file name") : nullptr;
    if (!file)
      return done(false);
    KernelStats stats;
    if (!r.count(kv, where, "calls", stats.calls))
      return done(false);
    const JsonValue *loops = r.need(kv, where, "loops", JsonValue::Array, "an array");
    const JsonValue *branches = loops ? r.need(kv, where, "branches", JsonValue::Array, "an array") : nullptr;
    if (!branches)
      return done(false);
    for (size_t i = 0; i < loops->items.size(); ++i) {
      const JsonValue &lv = loops->items[i];
      std::string at = where + ".loops[" + std::to_string(i) + "]";
      if (lv.kind != JsonValue::Object)
        return r.error = at + ": expected an object", done(false);
      SitePosition pos;
      LoopStats l;
      const JsonValue *seconds = nullptr;
      if (!r.position(lv, at, pos) || !r.count(lv, at, "starts", l.starts) ||
          !r.count(lv, at, "iterations", l.iterations) ||
          !r.count(lv, at, "min_trips", l.minTrips) || !r.count(lv, at, "max_trips", l.maxTrips) ||
          !r.count(lv, at, "tape_bytes", l.tapeBytes) ||
          !(seconds = r.need(lv, at, "seconds", JsonValue::Number, "a number >= 0")))
        return done(false);
      if (seconds->number < 0)
        return r.error = at + ".seconds: expected a number >= 0", done(false);
      l.seconds = seconds->number;
      double starts = static_cast<double>(l.starts), iterations = static_cast<double>(l.iterations);
      if (l.starts > 0 && (l.minTrips > l.maxTrips ||
                           static_cast<double>(l.minTrips) * starts > iterations ||
                           iterations > static_cast<double>(l.maxTrips) * starts))
        return r.error = at + ": min_trips, max_trips and iterations disagree", done(false);
      if (!stats.loops.emplace(pos, l).second)
        return r.error = at + ": a second loop at the same line and column", done(false);
    }
    for (size_t i = 0; i < branches->items.size(); ++i) {
      const JsonValue &bv = branches->items[i];
      std::string at = where + ".branches[" + std::to_string(i) + "]";
      if (bv.kind != JsonValue::Object)
        return r.error = at + ": expected an object", done(false);
      SitePosition pos;
      BranchStats b;
      if (!r.position(bv, at, pos) || !r.count(bv, at, "then", b.thenCount) ||
          !r.count(bv, at, "else", b.elseCount))
        return done(false);
      if (!stats.branches.emplace(pos, b).second)
        return r.error = at + ": a second branch at the same line and column", done(false);
    }
    ProfileData one;
    one[{name->text, file->text}] = stats;
    mergeProfile(data, one);
  }
  out = std::move(data);
  return true;
}

void mergeProfile(ProfileData &into, const ProfileData &from) {
  for (const auto &[key, k] : from) {
    KernelStats &to = into[key];
    to.calls += k.calls;
    for (const auto &[pos, l] : k.loops) {
      auto found = to.loops.find(pos);
      if (found == to.loops.end()) {
        to.loops[pos] = l;
        continue;
      }
      LoopStats &t = found->second;
      if (l.starts > 0) {
        t.minTrips = t.starts > 0 ? std::min(t.minTrips, l.minTrips) : l.minTrips;
        t.maxTrips = t.starts > 0 ? std::max(t.maxTrips, l.maxTrips) : l.maxTrips;
      }
      t.starts += l.starts;
      t.iterations += l.iterations;
      t.seconds += l.seconds;
      t.tapeBytes += l.tapeBytes;
    }
    for (const auto &[pos, b] : k.branches) {
      BranchStats &t = to.branches[pos];
      t.thenCount += b.thenCount;
      t.elseCount += b.elseCount;
    }
  }
}

std::string printProfile(const ProfileData &data) {
  auto u = [](std::uint64_t v) { return std::to_string(v); };
  std::string out = "{\n  \"format\": \"cgp-ad profile\",\n  \"version\": 1,\n  \"kernels\": [";
  bool firstKernel = true;
  for (const auto &[key, k] : data) {
    out += firstKernel ? "\n" : ",\n";
    firstKernel = false;
    out += "    {\"kernel\": ";
    appendEscaped(out, key.first);
    out += ", \"file\": ";
    appendEscaped(out, key.second);
    out += ", \"calls\": " + u(k.calls) + ",\n     \"loops\": [";
    bool first = true;
    for (const auto &[pos, l] : k.loops) {
      char seconds[40];
      std::snprintf(seconds, sizeof seconds, "%.9g", l.seconds);
      out += std::string(first ? "\n" : ",\n") + "       {\"line\": " + std::to_string(pos.first) +
             ", \"column\": " + std::to_string(pos.second) + ", \"starts\": " + u(l.starts) +
             ", \"iterations\": " + u(l.iterations) + ", \"min_trips\": " + u(l.minTrips) +
             ", \"max_trips\": " + u(l.maxTrips) + ", \"seconds\": " + seconds +
             ", \"tape_bytes\": " + u(l.tapeBytes) + "}";
      first = false;
    }
    out += first ? "],\n" : "\n     ],\n";
    out += "     \"branches\": [";
    first = true;
    for (const auto &[pos, b] : k.branches) {
      out += std::string(first ? "\n" : ",\n") + "       {\"line\": " + std::to_string(pos.first) +
             ", \"column\": " + std::to_string(pos.second) + ", \"then\": " + u(b.thenCount) +
             ", \"else\": " + u(b.elseCount) + "}";
      first = false;
    }
    out += first ? "]}" : "\n     ]}";
  }
  out += firstKernel ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

} // namespace rt
} // namespace cgp
