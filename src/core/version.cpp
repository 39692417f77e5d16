#include <vramscope/core/version.hpp>

#include <algorithm>
#include <cctype>

namespace vramscope {

int version_number(const std::string& version) {
  int number = 0;
  std::size_t pos = 0;
  for (int part = 0; part < 3; ++part) {
    int value = 0;  // each part clamped to 999, so long digit strings cannot overflow
    while (pos < version.size() && std::isdigit(static_cast<unsigned char>(version[pos])))
      value = std::min(999, value * 10 + (version[pos++] - '0'));
    number = number * 1000 + value;
    if (pos < version.size() && version[pos] == '.') ++pos;
    else pos = version.size();
  }
  return number;
}

}  // namespace vramscope
