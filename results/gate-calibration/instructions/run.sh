#!/bin/bash
# The runs of this directory. The binaries, from one checkout of main:
#   go build -o /tmp/pgseq-cal-base ./cmd/pgseq
#   git apply slow-claim-30.patch && go build -o /tmp/pgseq-slow30 ./cmd/pgseq && git checkout migrations
#   (and slow-claim-100.patch for /tmp/pgseq-slow100)
# A/A and detection runs of bench ab --instructions on the baseline scenario,
# taking turns: usage gatecal.sh OUT N KIND... (KIND: aa | slow30 | slow100)
out=$1; n=$2; shift 2
mkdir -p $out
cd $out
for i in $(seq 1 $n); do
  for kind in "$@"; do
    case $kind in
      aa) cand=/tmp/pgseq-cal-base ;;
      *) cand=/tmp/pgseq-$kind ;;
    esac
    start=$(date +%s)
    $cand bench ab --instructions --base /tmp/pgseq-cal-base --rounds 3 --scenario baseline --out $out/$kind-$i /work/main/scenarios/instructions/ > $out/$kind-$i.log 2>&1
    code=$?
    echo "$kind run $i: exit $code, $(( $(date +%s) - start )) s, load $(cut -d' ' -f1 /proc/loadavg): $(grep Verdict $out/$kind-$i.log)" >> $out/summary.txt
  done
done
