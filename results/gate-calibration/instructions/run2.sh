#!/bin/bash
# The runs of runs-2/, with counted runs that start the same server
# processes whatever the load (commits 800d906 and 1727203). The binaries,
# from one clone of main at 1727203:
#   go build -o /tmp/pgseq-cal-base ./cmd/pgseq
#   git apply slow-claim-30.patch && go build -o /tmp/pgseq-slow30 ./cmd/pgseq && git checkout migrations
#   (slow-claim-15.patch for /tmp/pgseq-slow15)
# Two of these ran at once (counts do not depend on the machine's load;
# each run has its own counted server): usage run2.sh OUT FROM TO KIND...
# (KIND: aa | slow30 | slow15), runs FROM..TO of each kind, kinds taking
# turns.
out=$1; from=$2; to=$3; shift 3
mkdir -p $out
for i in $(seq $from $to); do
  for kind in "$@"; do
    case $kind in
      aa) cand=/tmp/pgseq-cal-base ;;
      *) cand=/tmp/pgseq-$kind ;;
    esac
    start=$(date +%s)
    load0=$(cut -d' ' -f1 /proc/loadavg)
    (cd /tmp && $cand bench ab --instructions --base /tmp/pgseq-cal-base --rounds 3 --scenario baseline --out $out/$kind-$i /work/main/scenarios/instructions/ > $out/$kind-$i.log 2>&1)
    code=$?
    rm -rf $out/$kind-$i/rounds
    echo "$kind run $i: exit $code, $(( $(date +%s) - start )) s, load $load0-$(cut -d' ' -f1 /proc/loadavg): $(grep -A1 '^SCENARIO' $out/$kind-$i.log | tail -1 | tr -s ' ')" >> $out/summary.txt
  done
done
