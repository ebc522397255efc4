//===- Golden.h - Reader for golden files generated from PyTorch -*- C++ -*-=//
//
// Golden files are produced once by scripts/goldens/*.py with the real
// PyTorch 1.13 and committed, so the tests do not need torch. Format, one
// record per line, '#' starts a comment line:
//
//   case <name>
//   <key> <value> <value> ...
//   end
//
// Floats are written with Python's float.hex() (exact: the float32 value
// widened to double), or as inf/-inf/nan; integers in decimal.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_UNITTESTS_NUMERICS_GOLDEN_H
#define QUANTA_UNITTESTS_NUMERICS_GOLDEN_H

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace quanta_test {

struct GoldenCase {
  std::string name;
  std::map<std::string, std::vector<std::string>> fields;

  bool has(const std::string &key) const { return fields.count(key) != 0; }

  const std::vector<std::string> &raw(const std::string &key) const {
    auto it = fields.find(key);
    if (it == fields.end())
      throw std::runtime_error("golden case '" + name + "' has no key '" + key +
                               "'");
    return it->second;
  }

  std::vector<float> floats(const std::string &key) const {
    std::vector<float> result;
    for (const std::string &token : raw(key))
      result.push_back(parseFloat(token));
    return result;
  }
  float getFloat(const std::string &key) const { return single(floats(key)); }

  std::vector<double> doubles(const std::string &key) const {
    std::vector<double> result;
    for (const std::string &token : raw(key))
      result.push_back(std::strtod(token.c_str(), nullptr));
    return result;
  }
  double getDouble(const std::string &key) const {
    return single(doubles(key));
  }

  std::vector<int64_t> ints(const std::string &key) const {
    std::vector<int64_t> result;
    for (const std::string &token : raw(key))
      result.push_back(std::strtoll(token.c_str(), nullptr, 10));
    return result;
  }
  int64_t getInt(const std::string &key) const { return single(ints(key)); }

  std::string str(const std::string &key) const { return single(raw(key)); }

private:
  static float parseFloat(const std::string &token) {
    // strtod, then narrow: the token is a float32 value written as a double.
    return static_cast<float>(std::strtod(token.c_str(), nullptr));
  }
  template <typename T> T single(const std::vector<T> &values) const {
    if (values.size() != 1)
      throw std::runtime_error("golden case '" + name +
                               "': expected one value");
    return values.front();
  }
};

inline std::vector<GoldenCase> readGoldenFile(const std::string &fileName) {
  std::string path = std::string(QUANTA_GOLDEN_DIR) + "/" + fileName;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open golden file " + path);
  std::vector<GoldenCase> cases;
  std::string line;
  GoldenCase *current = nullptr;
  while (std::getline(in, line)) {
    std::istringstream tokens(line);
    std::string key;
    if (!(tokens >> key) || key[0] == '#')
      continue;
    if (key == "case") {
      cases.emplace_back();
      current = &cases.back();
      tokens >> current->name;
      continue;
    }
    if (key == "end") {
      current = nullptr;
      continue;
    }
    if (!current)
      throw std::runtime_error(path + ": field outside a case: " + line);
    std::vector<std::string> &values = current->fields[key];
    for (std::string value; tokens >> value;)
      values.push_back(value);
  }
  if (cases.empty())
    throw std::runtime_error(path + " holds no cases");
  return cases;
}

} // namespace quanta_test

#endif // QUANTA_UNITTESTS_NUMERICS_GOLDEN_H
