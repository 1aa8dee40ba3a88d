#!/usr/bin/env bash
# Call 3 (session 48): call 2 left the short rows' stores cleared (staged
# stores, whole sectors, no faster over rows of 20 or 44). Each case's kernel
# (a) against variants.py's --nostore (b: loads and arithmetic alone; its
# output mostly unwritten, "differing" expected) and --stagein (c: the
# group's rows read as one span into local memory; must be bit-identical).
# Two rounds.
CASES="${CASES:-softmax:20 softmax:24 softmax:40 softmax:44 layer_norm:20 layer_norm:24 layer_norm:40 layer_norm:44}"
source bench/results/proto47/common.sh
one_case() {
  python3 bench/results/proto48/variants.py --nostore $k $K/$name-nostore.cl || return
  python3 bench/results/proto48/variants.py --stagein $k $K/$name-stagein.cl || return
  echo "### $name rows/group $rpg scalars $ns: a, nostore, stagein"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-nostore.cl $K/$name-stagein.cl 2>&1
}
rounds one_case
