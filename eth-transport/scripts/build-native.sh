#!/usr/bin/env bash
# Compiles the native test tools (src/test/native/*.c: ethbridge, ringpong) into OUTDIR with gcc -O2 -Wall -Wextra;
# a binary newer than its source is kept. CC overrides the compiler. Exit status 77 (skip) if there is no compiler.
#
#   eth-transport/scripts/build-native.sh OUTDIR
set -euo pipefail
(( $# == 1 )) || { echo "usage: $0 OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../src/test/native" && pwd)
out=$1
cc=${CC:-gcc}
command -v "$cc" >/dev/null || { echo "build-native.sh: SKIP: no C compiler ($cc)" >&2; exit 77; }
mkdir -p "$out"
for name in ethbridge ringpong; do
  bin=$out/$name
  [[ -x $bin && $bin -nt $src/$name.c ]] && continue
  "$cc" -O2 -Wall -Wextra -o "$bin.tmp.$$" "$src/$name.c"
  mv -f "$bin.tmp.$$" "$bin"
  echo "build-native.sh: built $bin" >&2
done
