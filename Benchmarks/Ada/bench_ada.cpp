// Ada (the WHATWG URL parser inside Node.js) on LinkParse's benchmark corpus: the peer `make bench-ada` measures
// LinkParse against, in the same run. Built at benchmark time from the amalgamated ada.cpp / ada.h of the
// `ada-url` Python package's source distribution (Benchmarks/ada.sh); none of Ada's code is committed.
//
//   bench-ada CORPUS [--rounds N]
//
// Reads the corpus once, splits it once into one std::string per line (as an app holds them), runs one warm-up
// pass, then N rounds; each round prints one line:
//
//   ada parse_ns=… params_ns=…
//
// ns per URL for one pass over the corpus:
// - parse:  ada::parse<ada::url_aggregator> and every component read (href, protocol, username, password, host,
//           hostname, port, pathname, search, hash);
// - params: ada::parse, then ada::url_search_params over the search, every name and value read.
// Every result is folded into a checksum printed to stderr, so the optimizer cannot drop the work.

#include "ada.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::vector<std::string> corpus;

static double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__attribute__((noinline)) static size_t parse_pass() {
  size_t sum = 0;
  for (const std::string& line : corpus) {
    auto url = ada::parse<ada::url_aggregator>(line);
    if (!url) continue;
    sum += url->get_href().size() + url->get_protocol().size() + url->get_username().size();
    sum += url->get_password().size() + url->get_host().size() + url->get_hostname().size();
    sum += url->get_port().size() + url->get_pathname().size() + url->get_search().size() + url->get_hash().size();
  }
  return sum;
}

__attribute__((noinline)) static size_t params_pass() {
  size_t sum = 0;
  for (const std::string& line : corpus) {
    auto url = ada::parse<ada::url_aggregator>(line);
    if (!url) continue;
    ada::url_search_params params(url->get_search());
    auto entries = params.get_entries();
    while (entries.has_next()) {
      auto entry = entries.next();
      if (entry) sum += entry->first.size() + entry->second.size();
    }
  }
  return sum;
}

int main(int argc, char** argv) {
  const char* path = nullptr;
  int rounds = 1;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      path = argv[i];
    }
  }
  if (path == nullptr) {
    std::fprintf(stderr, "usage: bench-ada CORPUS [--rounds N]\n");
    return 2;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "bench-ada: cannot read %s\n", path);
    return 2;
  }
  std::stringstream text;
  text << file.rdbuf();
  std::string all = text.str();
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    corpus.emplace_back(all, start, end - start);
    start = end + 1;
  }
  const double count = double(corpus.size());
  size_t checksum = parse_pass() + params_pass();  // warm-up
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    checksum += parse_pass();
    double t1 = now_ns();
    checksum += params_pass();
    double t2 = now_ns();
    std::printf("ada parse_ns=%.1f params_ns=%.1f\n", (t1 - t0) / count, (t2 - t1) / count);
    std::fflush(stdout);
  }
  std::fprintf(stderr, "bench-ada: %zu URLs, checksum %zu\n", corpus.size(), checksum);
  return 0;
}
