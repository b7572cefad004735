// Streaming scan: the running sum of a binary file larger than the buffer, read and
// written in fixed chunks. The carry (the running total) links each chunk to the next, so
// the result equals one in-memory call bitwise, as long as every chunk but the last is a
// multiple of tally::scan_block_elements (for integers any chunk length works).
//
//   example_streaming [--type float32|int64] [--chunk ELEMENTS] [--generate COUNT] [--verify] INPUT OUTPUT
//
//   --generate COUNT  first write COUNT random values to INPUT
//   --chunk ELEMENTS  elements per chunk (default 4 * tally::scan_block_elements)
//   --verify          also scan INPUT in one call in memory and compare with OUTPUT bitwise
#include <tally/tally.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open(const std::string& path, const char* mode) {
  file_ptr f(std::fopen(path.c_str(), mode));
  if (!f) std::fprintf(stderr, "cannot open %s\n", path.c_str());
  return f;
}

// The scan itself: one buffer of `chunk` elements in, one out, and the carry between them.
template <class T>
bool scan_file(const std::string& input, const std::string& output, std::size_t chunk) {
  file_ptr in = open(input, "rb"), out = open(output, "wb");
  if (!in || !out) return false;
  std::vector<T> in_buffer(chunk), out_buffer(chunk);

  // A 1-D scan's carry is one value: a view of shape {1} (the axis kept at size 1).
  // Starting from the identity (0 for a sum) is the same as passing no carry_in.
  tally::carry_type<T> carry{};
  const tally::tensor_view<tally::carry_type<T>> carry_view(&carry, {1});

  std::size_t total = 0;
  for (;;) {
    const std::size_t n = std::fread(in_buffer.data(), sizeof(T), chunk, in.get());
    if (n == 0) break;
    const tally::tensor_view<const T> in_view(in_buffer.data(), {n});
    const tally::tensor_view<T> out_view(out_buffer.data(), {n});
    // carry_in and carry_out may be the same view: the carry is read before it is written.
    tally::cumsum(in_view, out_view, 0, tally::scan_options{}, carry_view, carry_view);
    if (std::fwrite(out_buffer.data(), sizeof(T), n, out.get()) != n) {
      std::fprintf(stderr, "cannot write %s\n", output.c_str());
      return false;
    }
    total += n;
  }
  if (std::ferror(in.get())) {
    std::fprintf(stderr, "cannot read %s\n", input.c_str());
    return false;
  }
  std::printf("scanned %zu values in chunks of %zu\n", total, chunk);
  return true;
}

std::vector<unsigned char> read_all(const std::string& path) {
  std::vector<unsigned char> bytes;
  file_ptr f = open(path, "rb");
  if (!f) return bytes;
  unsigned char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0;) bytes.insert(bytes.end(), buffer, buffer + n);
  return bytes;
}

// The check: the whole file in memory, one call, compared bit for bit with the output.
template <class T>
bool verify(const std::string& input, const std::string& output) {
  const std::vector<unsigned char> in_bytes = read_all(input), out_bytes = read_all(output);
  const std::size_t n = in_bytes.size() / sizeof(T);
  if (out_bytes.size() != n * sizeof(T)) {
    std::fprintf(stderr, "verify: %s has %zu bytes, expected %zu\n", output.c_str(), out_bytes.size(), n * sizeof(T));
    return false;
  }
  std::vector<T> values(n), expected(n);
  std::memcpy(values.data(), in_bytes.data(), n * sizeof(T));
  tally::cumsum(tally::tensor_view<const T>(values.data(), {n}), tally::tensor_view<T>(expected.data(), {n}), 0);
  if (std::memcmp(expected.data(), out_bytes.data(), n * sizeof(T)) != 0) {
    std::size_t i = 0;
    while (std::memcmp(&expected[i], &out_bytes[i * sizeof(T)], sizeof(T)) == 0) ++i;
    std::fprintf(stderr, "verify: FAILED, first difference at element %zu\n", i);
    return false;
  }
  std::printf("verify: the chunked result equals one in-memory call bitwise (%zu values)\n", n);
  return true;
}

template <class T>
bool generate(const std::string& path, std::size_t count) {
  file_ptr f = open(path, "wb");
  if (!f) return false;
  std::mt19937_64 random(42);
  std::vector<T> block(65536);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(block.size(), count - done);
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        block[i] = static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(random));
      else
        block[i] = static_cast<T>(random());  // the sums wrap around: tally's integers are modular
    }
    if (std::fwrite(block.data(), sizeof(T), n, f.get()) != n) return false;
    done += n;
  }
  std::printf("generated %zu values in %s\n", count, path.c_str());
  return true;
}

template <class T>
int run(const std::string& input, const std::string& output, std::size_t chunk, std::size_t generate_count,
        bool check) {
  if (generate_count > 0 && !generate<T>(input, generate_count)) return 1;
  if (!scan_file<T>(input, output, chunk)) return 1;
  if (check && !verify<T>(input, output)) return 1;
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: example_streaming [--type float32|int64] [--chunk ELEMENTS] [--generate COUNT] [--verify] "
               "INPUT OUTPUT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string type = "float32", input, output;
  std::size_t chunk = 4 * tally::scan_block_elements, generate_count = 0;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--verify") {
      check = true;
    } else if ((arg == "--type" || arg == "--chunk" || arg == "--generate") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--type") type = value;
      else if (arg == "--chunk") chunk = std::strtoull(value.c_str(), nullptr, 10);
      else generate_count = std::strtoull(value.c_str(), nullptr, 10);
    } else if (input.empty()) {
      input = arg;
    } else if (output.empty()) {
      output = arg;
    } else {
      return usage();
    }
  }
  if (input.empty() || output.empty() || chunk == 0) return usage();
  if (type == "float32" && chunk % tally::scan_block_elements != 0)
    std::fprintf(stderr, "note: a float chunk that is not a multiple of %zu may differ from one call in the last bits\n",
                 tally::scan_block_elements);
  if (type == "float32") return run<float>(input, output, chunk, generate_count, check);
  if (type == "int64") return run<std::int64_t>(input, output, chunk, generate_count, check);
  return usage();
}
