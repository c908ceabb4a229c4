#!/usr/bin/env bash
# Remake the generated Hashi set (every puzzle unique by construction, proved by the sat back
# end; the measures of difficulty and the repairs made are in each record). Same seeds, same
# puzzles, whatever -j.
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.jsonl
g() { puzzleproof generate hashi -q -j 2 "$@"; }
g --size 7x7 -n 10 --seed 1 -o 7x7.jsonl
g --size 10x10 -n 10 --seed 1 -o 10x10.jsonl
g --size 15x15 -n 10 --seed 1 -o 15x15.jsonl
g --size 20x20 --density 0.2 --loops 0.05 -n 5 --seed 1 -o 20x20.jsonl
g --size 30x30 --density 0.2 --loops 0 -n 3 --seed 1 -o 30x30.jsonl
# the hard tier: the article's solver needs at least 10 assumptions
g --size 15x15 --density 0.3 --loops 0.2 --min-assumptions 10 -n 3 --seed 7 -o hard-15x15.jsonl
g --size 30x30 --min-assumptions 10 -n 5 --seed 7 -o hard-30x30.jsonl
# the grade above: at least 30 assumptions, nested at least 6 deep
g --size 30x30 --density 0.3 --loops 0 --min-assumptions 30 --min-depth 6 -n 5 --seed 7 \
  -o hard-30x30-a30d6.jsonl
