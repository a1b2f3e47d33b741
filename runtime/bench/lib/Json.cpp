//===- Json.cpp - A small JSON reader and writer --------------------------===//

#include "bench/Json.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace bench;

JsonValue JsonValue::boolean(bool b) {
  JsonValue v;
  v.kind = Type::Bool;
  v.boolValue = b;
  return v;
}

JsonValue JsonValue::number(double d) {
  JsonValue v;
  v.kind = Type::Number;
  v.numberValue = d;
  return v;
}

JsonValue JsonValue::string(std::string s) {
  JsonValue v;
  v.kind = Type::String;
  v.stringValue = std::move(s);
  return v;
}

JsonValue JsonValue::array() {
  JsonValue v;
  v.kind = Type::Array;
  return v;
}

JsonValue JsonValue::object() {
  JsonValue v;
  v.kind = Type::Object;
  return v;
}

bool JsonValue::isInteger() const {
  return kind == Type::Number && std::floor(numberValue) == numberValue &&
         std::fabs(numberValue) < 9.2e18;
}

const JsonValue *JsonValue::get(const std::string &key) const {
  for (const auto &kv : fields)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

void JsonValue::set(const std::string &key, JsonValue v) {
  for (auto &kv : fields)
    if (kv.first == key) {
      kv.second = std::move(v);
      return;
    }
  fields.emplace_back(key, std::move(v));
}

std::string bench::jsonQuote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

static std::string formatNumber(double d) {
  if (!std::isfinite(d))
    return "null";
  char buf[32];
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    std::snprintf(buf, sizeof(buf), "%.0f", d);
  else
    std::snprintf(buf, sizeof(buf), "%.6g", d);
  return buf;
}

void JsonValue::dumpTo(std::string &out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent <= 0)
      return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (kind) {
  case Type::Null:
    out += "null";
    return;
  case Type::Bool:
    out += boolValue ? "true" : "false";
    return;
  case Type::Number:
    out += formatNumber(numberValue);
    return;
  case Type::String:
    out += jsonQuote(stringValue);
    return;
  case Type::Array:
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i)
        out += indent > 0 ? ", " : ",";
      items[i].dumpTo(out, 0, 0);
    }
    out += ']';
    return;
  case Type::Object:
    out += '{';
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      out += jsonQuote(fields[i].first);
      out += indent > 0 ? ": " : ":";
      fields[i].second.dumpTo(out, indent, depth + 1);
    }
    if (!fields.empty())
      newline(depth);
    out += '}';
    return;
  }
}

std::string JsonValue::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

namespace {
class Parser {
public:
  Parser(const std::string &text) : text(text) {}

  bool parseDocument(JsonValue &out, std::string &error) {
    skipSpace();
    if (!parseValue(out, 0)) {
      error = message;
      return false;
    }
    skipSpace();
    if (pos != text.size()) {
      fail("trailing characters after the JSON value");
      error = message;
      return false;
    }
    return true;
  }

private:
  bool fail(const std::string &what) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    message = "line " + std::to_string(line) + ", column " +
              std::to_string(col) + ": " + what;
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = std::string(word).size();
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }

  bool parseValue(JsonValue &out, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{')
      return parseObject(out, depth);
    if (c == '[')
      return parseArray(out, depth);
    if (c == '"') {
      std::string s;
      if (!parseString(s))
        return false;
      out = JsonValue::string(std::move(s));
      return true;
    }
    if (literal("true")) {
      out = JsonValue::boolean(true);
      return true;
    }
    if (literal("false")) {
      out = JsonValue::boolean(false);
      return true;
    }
    if (literal("null")) {
      out = JsonValue();
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(out);
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseNumber(JsonValue &out) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    while (pos < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '.' || text[pos] == 'e' || text[pos] == 'E' ||
            text[pos] == '+' || text[pos] == '-'))
      ++pos;
    std::string token = text.substr(start, pos - start);
    char *end = nullptr;
    double d = std::strtod(token.c_str(), &end);
    if (token.empty() || end != token.c_str() + token.size()) {
      pos = start;
      return fail("malformed number '" + token + "'");
    }
    out = JsonValue::number(d);
    return true;
  }

  static void appendUtf8(std::string &s, unsigned cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string &s) {
    ++pos; // opening quote
    while (pos < text.size()) {
      char c = text[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos;
        return fail("control character in string");
      }
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos >= text.size())
        break;
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        s += e;
        break;
      case 'b':
        s += '\b';
        break;
      case 'f':
        s += '\f';
        break;
      case 'n':
        s += '\n';
        break;
      case 'r':
        s += '\r';
        break;
      case 't':
        s += '\t';
        break;
      case 'u': {
        if (pos + 4 > text.size())
          return fail("truncated \\u escape");
        unsigned cp = 0;
        for (int i = 0; i < 4; ++i) {
          char h = text[pos++];
          cp <<= 4;
          if (h >= '0' && h <= '9')
            cp |= h - '0';
          else if (h >= 'a' && h <= 'f')
            cp |= h - 'a' + 10;
          else if (h >= 'A' && h <= 'F')
            cp |= h - 'A' + 10;
          else
            return fail("bad hex digit in \\u escape");
        }
        appendUtf8(s, cp);
        break;
      }
      default:
        --pos;
        return fail(std::string("unknown escape '\\") + e + "'");
      }
    }
    return fail("unterminated string");
  }

  bool parseArray(JsonValue &out, int depth) {
    ++pos;
    out = JsonValue::array();
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      JsonValue element;
      if (!parseValue(element, depth + 1))
        return false;
      out.push(std::move(element));
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  bool parseObject(JsonValue &out, int depth) {
    ++pos;
    out = JsonValue::object();
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a quoted key in object");
      std::string key;
      if (!parseString(key))
        return false;
      if (out.get(key))
        return fail("duplicate key '" + key + "'");
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':' after key '" + key + "'");
      ++pos;
      skipSpace();
      JsonValue member;
      if (!parseValue(member, depth + 1))
        return false;
      out.set(key, std::move(member));
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' in object");
    }
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};
} // namespace

bool bench::parseJson(const std::string &text, JsonValue &out,
                      std::string &error) {
  Parser parser(text);
  return parser.parseDocument(out, error);
}
