#!/usr/bin/env bash
# Keeps tally's headers portable (issue 12). Fails, naming file and line, when a header
# under INCLUDE_DIR
#   1. spells something compiler-specific (builtins, attributes, pragmas other than
#      `#pragma once`, inline assembly, compiler or standard-library macros, CPUID
#      headers, getenv) outside the configuration header detail/config.hpp (or a
#      detail/config/ folder beside it);
#   2. calls anything named min or max directly: <windows.h> defines function-like min
#      and max macros (unless NOMINMAX), so the call must be spelled (std::min)(a, b);
#   3. prints with a length modifier the Microsoft runtime lacks (%zu, %jd, %td);
#   4. names something the Windows SDK defines as an object-like macro (near, far, small,
#      hyper, interface, pascal, cdecl): with <windows.h> first, the name vanishes.
# Comments are ignored (they may name what the code avoids).
#
#   check_include.sh INCLUDE_DIR     check the headers
#   check_include.sh --self-test     prove that each rule reports a sample violation and
#                                    that clean code passes (run by the tests too)
set -euo pipefail

compiler_tokens='__builtin|__attribute__|__declspec|__forceinline|__asm|(^|[^[:alnum:]_])asm[[:space:]]*(volatile)?[[:space:]]*\(|__GNUC__|__clang|_MSC_VER|_MSC_FULL_VER|__INTEL_COMPILER|__has_builtin|__has_attribute|__GLIBCXX|_GLIBCXX_|_LIBCPP_|__cpuid|_xgetbv|cpuid\.h|<intrin\.h>|_Pragma|__pragma|(^|[^[:alnum:]_])getenv[[:space:]]*\(|_dupenv_s|#[[:space:]]*pragma'
minmax_call='(^|[^[:alnum:]_])(min|max)[[:space:]]*\('
printf_modifiers='%[-+ #0-9.*]*[zjt][diouxXn]'
sdk_macros='(^|[^[:alnum:]_])(near|far|small|hyper|interface|pascal|cdecl)([^[:alnum:]_]|$)'

# check DIR: prints every violation as "rule: file:line: text"; returns 1 if any.
check() {
  local dir=$1 found=0 file rel
  while IFS= read -r -d '' file; do
    rel=${file#"$dir"/}
    case "$rel" in
      tally/detail/config.hpp | tally/detail/config/*) local config=1 ;;
      *) local config=0 ;;
    esac
    # awk strips // comments and lets `#pragma once` through.
    if ! awk -v rel="$rel" -v config="$config" -v tokens="$compiler_tokens" -v minmax="$minmax_call" \
             -v fmt="$printf_modifiers" -v sdk="$sdk_macros" '
      BEGIN { bad = 0 }
      {
        code = $0
        sub(/\/\/.*$/, "", code)
        if (!config && code ~ tokens && code !~ /^[[:space:]]*#[[:space:]]*pragma[[:space:]]+once[[:space:]]*$/) {
          printf "compiler-specific outside detail/config.hpp: %s:%d: %s\n", rel, NR, $0; bad = 1
        }
        if (code ~ minmax) {
          printf "min/max call that <windows.h> macros break, write (std::min)(...): %s:%d: %s\n", rel, NR, $0; bad = 1
        }
        names = code
        gsub(/"([^"\\]|\\.)*"/, "\"\"", names)  # words in string literals are not names
        if (names ~ sdk) {
          printf "name the Windows SDK defines as a macro (near, far, small, ...): %s:%d: %s\n", rel, NR, $0; bad = 1
        }
        text = code
        gsub(/%%/, "", text)  # an escaped percent sign starts no conversion
        if (text ~ fmt) {
          printf "printf length modifier the Microsoft runtime lacks (use %%llu and a cast): %s:%d: %s\n", rel, NR, $0
          bad = 1
        }
      }
      END { exit bad }' "$file"; then
      found=1
    fi
  done < <(find "$dir" -type f \( -name '*.hpp' -o -name '*.h' \) -print0 | sort -z)
  return $found
}

self_test() {
  local work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  mkdir -p "$work/tally/detail"
  # Code that must pass: config.hpp may use compiler tokens, and protected calls are fine.
  cat >"$work/tally/detail/config.hpp" <<'EOF'
#pragma once
#if defined(__GNUC__)
#define X __attribute__((always_inline))
#endif
EOF
  cat >"$work/tally/clean.hpp" <<'EOF'
#pragma once
// __builtin_add_overflow and std::min(a, b) in a comment are fine
inline int f(int a, int b) { return (std::min)(a, b) + (std::numeric_limits<int>::max)() + std::max<int>(a, b); }
inline void g(char* m, unsigned long long n) { std::snprintf(m, 9, "%llu %5.2f %-3d %%zu too small", n, 1.0, 2); }
inline int nearest_far_(int near_, int small_size) { return near_ + small_size; }
EOF
  if ! check "$work" >"$work/out"; then
    cat "$work/out"
    echo "self-test: clean headers were reported" >&2
    return 1
  fi
  # Each sample must be reported, by its rule.
  local samples=(
    'compiler-specific|  return __builtin_add_overflow(a, b, r);'
    'compiler-specific|#pragma GCC diagnostic push'
    'compiler-specific|#pragma warning(disable : 4996)'
    'compiler-specific|  #  pragma clang diagnostic ignored "-Wfoo"'
    'compiler-specific|#if defined(_MSC_VER)'
    'compiler-specific|#ifdef __clang__'
    'compiler-specific|#include <cpuid.h>'
    'compiler-specific|#include <intrin.h>'
    'compiler-specific|  asm volatile("pause");'
    'compiler-specific|  const char* v = std::getenv("X");'
    'compiler-specific|__declspec(noinline) void f();'
    'min/max call|  n = std::min(a, b);'
    'min/max call|  n = std::max({a, b, c});'
    'min/max call|  n = std::numeric_limits<T>::max();'
    'printf length modifier|  return status(code, "size %zu", n);'
    'printf length modifier|  return status(code, "size %5jd", n);'
    'name the Windows SDK|  std::uint64_t near = starts;'
    'name the Windows SDK|  x = step(x, far);'
  )
  local sample rule line n=0
  for sample in "${samples[@]}"; do
    rule=${sample%%|*}
    line=${sample#*|}
    n=$((n + 1))
    rm -f "$work/tally/bad_"*.hpp
    printf '#pragma once\n%s\n' "$line" >"$work/tally/bad_$n.hpp"
    if check "$work" >"$work/out" || ! grep -q "^$rule.*bad_$n.hpp:2:" "$work/out"; then
      cat "$work/out"
      echo "self-test: '$line' was not reported as '$rule'" >&2
      return 1
    fi
  done
  echo "self-test: all ${#samples[@]} samples reported, clean headers pass"
}

case "${1:-}" in
  --self-test) self_test ;;
  "" | -*) echo "usage: $0 INCLUDE_DIR | --self-test" >&2; exit 2 ;;
  *)
    dir=$(cd "$1" && pwd)
    if check "$dir"; then
      echo "check_include: $(find "$dir" -type f \( -name '*.hpp' -o -name '*.h' \) | wc -l) headers are portable"
    else
      exit 1
    fi
    ;;
esac
