// Distributed scan with MPI: a rows x cols array is cut into slices of rows, one slice per
// rank, and scanned along the rows (axis 0, the sliced axis) as if it were one array.
//
// Each rank:
//   1. scans its slice from the identity with tally, keeping only the carry_out: the
//      slice's per-column totals;
//   2. combines the totals of the ranks before it with MPI_Exscan (MPI_SUM for sums,
//      MPI_PROD for products; for double, whose carry is a tally::double_double, an
//      MPI_Op of its own that keeps the pair's low part): its offset;
//   3. scans its slice again with the offset as carry_in (rank 0 has no offset).
//
// Why rescan with carry_in rather than add the offset to each element of step 1's output:
// both read the slice twice, but the rescan applies the offset exactly where a chunk
// boundary of a single-process chunked scan would, so integer results are identical to one
// call and float results get one rounding per element instead of two.
// (Step 1 only needs the totals; a reduction would do, but tally's scan is the tool at hand
// and its carry_out is the running value a chunked scan hands on.)
//
// Rank 0 gathers the result and compares it with one single-process tally call:
//   integers (int64 sums, uint64 products): bitwise equal; both wrap around identically;
//   floating point: not bitwise, because each rank's total is summed from its own slice
//   start and MPI_Exscan may combine totals in any order; within
//   |y_mpi - y_one| <= 2 * (i + 1) * eps * sum_{k <= i} |x_k| for row i (sums) and
//   |y_mpi - y_one| <= 2 * (i + 1) * eps * |y_one| (products of positive values).
//
//   mpiexec -np 4 example_mpi_scan [ROWS [COLS]]
#include <mpi.h>
#include <tally/tally.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

/// The MPI type of an element.
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else return MPI_DOUBLE;
}

enum class operation { sum, product };

// A carry (tally::carry_type<T>) is the running value of the finest mode: T for integers,
// double for float, tally::double_double (an unevaluated sum of two doubles) for double.

/// a * b of two double-doubles, about 106 bits (the product's rounding error from an FMA,
/// plus the cross terms).
tally::double_double times(tally::double_double a, tally::double_double b) {
  const double high = a.high * b.high;
  return {high, std::fma(a.high, b.high, -high) + (a.high * b.low + a.low * b.high)};
}

/// a + b of two double-doubles (TwoSum of the high parts, plus the low parts).
tally::double_double plus(tally::double_double a, tally::double_double b) {
  const double high = a.high + b.high;
  const double b_part = high - a.high;
  return {high, (a.high - (high - b_part)) + (b.high - b_part) + (a.low + b.low)};
}

void double_double_product(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const tally::double_double*>(in);
  auto* b = static_cast<tally::double_double*>(inout);
  for (int i = 0; i < *count; ++i) b[i] = times(a[i], b[i]);
}

void double_double_sum(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const tally::double_double*>(in);
  auto* b = static_cast<tally::double_double*>(inout);
  for (int i = 0; i < *count; ++i) b[i] = plus(a[i], b[i]);
}

/// The MPI type and operation that combine carries of C.
template <class C>
struct mpi_carry {
  MPI_Datatype type = MPI_DOUBLE;
  MPI_Op op = MPI_OP_NULL;
  bool owned = false;  // type and op were created here
  explicit mpi_carry(operation which) {
    if constexpr (std::is_same_v<C, tally::double_double>) {
      MPI_Type_contiguous(2, MPI_DOUBLE, &type);
      MPI_Type_commit(&type);
      MPI_Op_create(which == operation::sum ? &double_double_sum : &double_double_product, 1, &op);
      owned = true;
    } else {
      type = mpi_type<C>();
      op = which == operation::sum ? MPI_SUM : MPI_PROD;
    }
  }
  ~mpi_carry() {
    if (!owned) return;
    MPI_Op_free(&op);
    MPI_Type_free(&type);
  }
  mpi_carry(const mpi_carry&) = delete;
  mpi_carry& operator=(const mpi_carry&) = delete;
};

/// The identity of the operation as a carry.
template <class C>
C identity(operation op) {
  if constexpr (std::is_same_v<C, tally::double_double>)
    return {op == operation::sum ? 0.0 : 1.0, -0.0};
  else
    return C(op == operation::sum ? 0 : 1);
}

template <class T>
void scan(operation op, tally::tensor_view<const T> in, tally::tensor_view<T> out,
          tally::tensor_view<const tally::carry_type<T>> carry_in, tally::tensor_view<tally::carry_type<T>> carry_out) {
  if (op == operation::sum)
    tally::cumsum(in, out, 0, {}, carry_in, carry_out);
  else
    tally::cumprod(in, out, 0, {}, carry_in, carry_out);
}

/// The distributed scan of one slice along axis 0. Every rank calls it (MPI_Exscan is
/// collective); `in` and `out` are this rank's rows (possibly none).
template <class T>
void distributed_scan(operation op, tally::tensor_view<const T> in, tally::tensor_view<T> out, MPI_Comm comm) {
  using C = tally::carry_type<T>;
  const std::size_t cols = in.extent(1);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);

  // 1. This slice's totals (a rank without rows keeps the identity: tally writes no carry
  //    for an empty tensor).
  std::vector<C> totals(cols, identity<C>(op)), offsets(cols);
  scan<T>(op, in, out, {}, tally::tensor_view<C>(totals.data(), {cols}));

  // 2. The combination of the totals of ranks 0 .. rank-1.
  const mpi_carry<C> combine(op);
  MPI_Exscan(totals.data(), offsets.data(), static_cast<int>(cols), combine.type, combine.op, comm);

  // 3. Rescan from the offset. MPI_Exscan leaves rank 0's result undefined: it starts
  //    from the identity, which step 1 already computed.
  if (rank > 0) scan<T>(op, in, out, tally::tensor_view<const C>(offsets.data(), {cols}), {});
}

// The global array's values, computable by any rank from the global index alone.
std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
T value_at(operation op, std::size_t index) {
  const std::uint64_t bits = mix(index);
  if constexpr (std::is_integral_v<T>) {
    // Products of odd numbers never become 0, so every wrapped bit stays meaningful.
    return static_cast<T>(op == operation::product ? bits | 1 : bits);
  } else {
    const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
    return static_cast<T>(op == operation::sum ? 2 * unit - 1 : 1 + (unit - 0.5) * 1e-3);
  }
}

template <class T>
bool run_case(const char* name, operation op, std::size_t rows, std::size_t cols, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // This rank's slice: rows [first, last), as evenly as possible.
  const std::size_t first = rows * static_cast<std::size_t>(rank) / static_cast<std::size_t>(size);
  const std::size_t last = rows * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(size);
  std::vector<T> in((last - first) * cols), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = value_at<T>(op, first * cols + i);

  distributed_scan<T>(op, tally::tensor_view<const T>(in.data(), {last - first, cols}),
                      tally::tensor_view<T>(out.data(), {last - first, cols}), comm);

  // Gather on rank 0.
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const std::size_t b = rows * static_cast<std::size_t>(r) / static_cast<std::size_t>(size);
    const std::size_t e = rows * static_cast<std::size_t>(r + 1) / static_cast<std::size_t>(size);
    counts[static_cast<std::size_t>(r)] = static_cast<int>((e - b) * cols);
    displacements[static_cast<std::size_t>(r)] = static_cast<int>(b * cols);
  }
  std::vector<T> gathered(rank == 0 ? rows * cols : 0);
  MPI_Gatherv(out.data(), static_cast<int>(out.size()), mpi_type<T>(), gathered.data(), counts.data(),
              displacements.data(), mpi_type<T>(), 0, comm);

  bool ok = true;
  if (rank == 0) {
    std::vector<T> all(rows * cols), one(rows * cols);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = value_at<T>(op, i);
    scan<T>(op, tally::tensor_view<const T>(all.data(), {rows, cols}), tally::tensor_view<T>(one.data(), {rows, cols}),
            {}, {});
    std::size_t bad = 0;
    double worst = 0;  // floats: the largest error as a fraction of its bound
    std::vector<double> magnitude(cols, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t k = i * cols + j;
        if constexpr (std::is_integral_v<T>) {
          if (gathered[k] != one[k]) ++bad;
        } else {
          const double eps = std::numeric_limits<T>::epsilon();
          magnitude[j] += std::fabs(static_cast<double>(all[k]));
          const double scale = op == operation::sum ? magnitude[j] : std::fabs(static_cast<double>(one[k]));
          const double bound = 2.0 * static_cast<double>(i + 1) * eps * scale;
          const double error = std::fabs(static_cast<double>(gathered[k]) - static_cast<double>(one[k]));
          if (!(error <= bound)) ++bad;  // also catches NaN
          if (bound > 0) worst = std::max(worst, error / bound);
        }
      }
    }
    ok = bad == 0;
    if constexpr (std::is_integral_v<T>)
      std::printf("%-14s %zux%zu on %d ranks: %s (%zu of %zu differ from one call; bitwise required)\n", name, rows,
                  cols, size, ok ? "ok" : "FAILED", bad, rows * cols);
    else
      std::printf("%-14s %zux%zu on %d ranks: %s (%zu outside the bound; largest error %.3g of the bound)\n", name,
                  rows, cols, size, ok ? "ok" : "FAILED", bad, worst);
  }
  int ok_int = ok ? 1 : 0;
  MPI_Bcast(&ok_int, 1, MPI_INT, 0, comm);
  return ok_int != 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100003;
  const std::size_t cols = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3;
  bool ok = rows > 0 && cols > 0;
  if (ok) {
    ok &= run_case<std::int64_t>("int64 sum", operation::sum, rows, cols, MPI_COMM_WORLD);
    ok &= run_case<std::uint64_t>("uint64 product", operation::product, rows, cols, MPI_COMM_WORLD);
    ok &= run_case<float>("float sum", operation::sum, rows, cols, MPI_COMM_WORLD);
    ok &= run_case<double>("double product", operation::product, rows, cols, MPI_COMM_WORLD);
    // One column: a 1-D array sliced across the ranks.
    ok &= run_case<std::int64_t>("int64 sum 1-D", operation::sum, rows, 1, MPI_COMM_WORLD);
    ok &= run_case<float>("float sum 1-D", operation::sum, rows, 1, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
