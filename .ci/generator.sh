# Sourced by the .ci scripts: pick_generator BUILD_DIR SOURCE_DIR sets the array
# `generator` to the CMake generator to configure BUILD_DIR with: the one an existing
# build folder was configured with (CMake refuses to switch generators in place), else
# Ninja when installed. A folder configured from another source directory or with a
# generator that is no longer installed gets a fresh cache instead.
pick_generator() {
  local build=$1 source_dir cache cached_generator cached_source generator_tool
  source_dir=$(cd "$2" && pwd -P)
  cache="$build/CMakeCache.txt"
  generator=()
  if [ -f "$cache" ]; then
    cached_generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
    cached_source=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
    case "$cached_generator" in
      Ninja*) generator_tool=ninja ;;
      *Makefiles) generator_tool=make ;;
      *) generator_tool=cmake ;;
    esac
    if [ -n "$cached_generator" ] && [ "$(realpath -m "$cached_source")" = "$source_dir" ] &&
       command -v "$generator_tool" >/dev/null; then
      generator=(-G "$cached_generator")
      return
    fi
    echo "$build was configured from ${cached_source:-?} with ${cached_generator:-?}; starting its cache afresh"
    rm -rf "$cache" "$build/CMakeFiles"
  fi
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
}
