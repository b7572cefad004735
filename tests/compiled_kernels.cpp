// tally's built-in kernels, compiled once for the whole test suite: the test programs are
// built with TALLY_SEPARATE_KERNELS (tests/CMakeLists.txt), so each would otherwise
// compile them again (docs/compile-time.md).
#include <tally/compiled_kernels.hpp>
