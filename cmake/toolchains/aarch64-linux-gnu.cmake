# Cross-compiling tally's tests and examples for 64-bit Arm Linux with Debian's cross
# toolchain, running them under qemu-user (apt-get install g++-aarch64-linux-gnu
# libc6-dev-arm64-cross qemu-user). Used by .ci/cross-aarch64.sh:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(TALLY_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${TALLY_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${TALLY_CROSS_TRIPLE}-g++)

# Debian installs the target's libraries and headers under /usr/aarch64-linux-gnu.
set(TALLY_CROSS_ROOT /usr/${TALLY_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH ${TALLY_CROSS_ROOT})
# Programs (python3, mpiexec...) come from the host; libraries, headers and CMake
# packages only from the target root, so that no x86-64 library is linked by mistake.
# Header-only host packages are passed explicitly (e.g. -DCatch2_DIR=...).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and add_custom_command) run target programs through qemu; -L points the
# emulator at the target's dynamic loader and libraries.
find_program(TALLY_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(TALLY_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TALLY_QEMU_AARCH64} -L ${TALLY_CROSS_ROOT})
endif()
