//===- OptionValues.cpp - values of cgp-ad's own options ------------------===//
#include "driver/OptionValues.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace cgp {

bool parseWeights(const std::string &text, double &alpha, double &beta, double &gamma) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ',')
      parts.emplace_back();
    else
      parts.back() += c;
  }
  if (parts.size() != 3)
    return false;
  double w[3];
  for (int i = 0; i < 3; ++i) {
    std::string &part = parts[static_cast<size_t>(i)];
    size_t first = part.find_first_not_of(" \t"), last = part.find_last_not_of(" \t");
    if (first == std::string::npos)
      return false;
    part = part.substr(first, last - first + 1);
    // strtod would also take "inf", "nan" and hexadecimal: only decimals here.
    for (char c : part)
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' &&
          c != '+' && c != '-')
        return false;
    char *end = nullptr;
    w[i] = std::strtod(part.c_str(), &end);
    if (*end != '\0' || !(w[i] >= 0) || w[i] > 1e6)
      return false;
  }
  alpha = w[0];
  beta = w[1];
  gamma = w[2];
  return true;
}

} // namespace cgp
