// A C++ program (libc++, no exceptions) that reads files through the runner's --dir mount and writes one back.
// STDOUT: "hello.txt: hello|nested.txt: nested|lines: 2\n"
// FILE: "summary.txt" "2 files, 13 bytes\n"
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot open " << path << "\n";
    std::exit(1);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main() {
  std::vector<std::pair<std::string, std::string>> files = {
      {"nested.txt", slurp("/workspace/sub/nested.txt")},
      {"hello.txt", slurp("/workspace/hello.txt")},
  };
  std::sort(files.begin(), files.end());
  std::size_t bytes = 0, lines = 0;
  std::string out;
  for (const auto& [name, text] : files) {
    bytes += text.size();
    lines += std::count(text.begin(), text.end(), '\n');
    if (!out.empty()) out += "|";
    out += name + ": " + text.substr(0, text.find('\n'));
  }
  std::cout << out << "|lines: " << lines << std::endl;
  std::ofstream summary("/workspace/summary.txt");
  summary << files.size() << " files, " << bytes << " bytes\n";
  return summary.good() ? 0 : 2;
}
