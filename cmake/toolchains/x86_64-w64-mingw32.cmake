# Cross-compiling tally's tests and examples for 64-bit Windows with Debian's MinGW-w64
# (GCC, posix thread model) and running them under wine (apt-get install
# g++-mingw-w64-x86-64 wine64). Used by .ci/mingw-wine.sh:
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
# The posix thread model, because tally's tests use std::thread, which GCC 12's win32
# model lacks (tally itself builds there without threads; .ci/mingw-wine.sh checks it).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

set(TALLY_CROSS_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${TALLY_CROSS_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${TALLY_CROSS_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${TALLY_CROSS_TRIPLE}-windres)

# Debian installs the target's headers and libraries under /usr/x86_64-w64-mingw32.
# Appended, so that -DCMAKE_FIND_ROOT_PATH=<an install prefix> adds a root (this is how
# tests/packaging finds an installed tally from a MinGW consumer).
list(APPEND CMAKE_FIND_ROOT_PATH /usr/${TALLY_CROSS_TRIPLE})
# Programs (python3, bash...) come from the host; libraries, headers and CMake packages
# only from the target root. Header-only host packages are passed explicitly
# (-DCatch2_DIR=..., -DTALLY_DIRECTML_INCLUDE_DIR=...).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Link libstdc++, libgcc and winpthread statically: the programs then run under wine
# (or on a Windows machine) without any MinGW DLL beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")

# ctest (and add_custom_command) run the programs through wine. Debian's wine64 package
# installs the loader as /usr/lib/wine/wine64 (the `wine` package adds /usr/bin/wine).
# The caller sets WINEPREFIX (a folder in the build tree) and WINEDEBUG=-all.
find_program(TALLY_WINE NAMES wine64 wine PATHS /usr/lib/wine)
if(TALLY_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TALLY_WINE})
endif()
