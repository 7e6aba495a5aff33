#!/bin/bash
# Calibration of the gate with go_cpu_per_task gated: A/A runs of the shipped
# quick gate and detection runs of a 3 us/task slower worker on baseline.
cd /work/main
DB=/tmp/pgseq-benchdb
t() { local name=$1; shift; local t0=$(date +%s); "$@" > /tmp/gc/$name.log 2>&1; echo "$name rc=$? wall=$(( $(date +%s) - t0 ))s" >> /tmp/gc/summary.txt; }
t aa-1 /tmp/pgseq-g --local-dir $DB bench ab --base /tmp/pgseq-g --quick --out /tmp/gc/aa-1 scenarios/drain.hcl scenarios/explain.hcl
for i in 1 2 3 4 5; do
  t det-$i /tmp/pgseq-g-slow3 --local-dir $DB bench ab --base /tmp/pgseq-g --quick --scenario baseline --out /tmp/gc/det-$i scenarios/drain.hcl
done
t aa-2 /tmp/pgseq-g --local-dir $DB bench ab --base /tmp/pgseq-g --quick --out /tmp/gc/aa-2 scenarios/drain.hcl scenarios/explain.hcl
for i in 6 7 8 9 10; do
  t det-$i /tmp/pgseq-g-slow3 --local-dir $DB bench ab --base /tmp/pgseq-g --quick --scenario baseline --out /tmp/gc/det-$i scenarios/drain.hcl
done
t aa-3 /tmp/pgseq-g --local-dir $DB bench ab --base /tmp/pgseq-g --quick --out /tmp/gc/aa-3 scenarios/drain.hcl scenarios/explain.hcl
echo all done >> /tmp/gc/summary.txt
#!/bin/bash
cd /work/main
while ! grep -q "all done" /tmp/gc/summary.txt; do sleep 5; done
t0=$(date +%s)
/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb bench ab --base /tmp/pgseq-main --quick --out /tmp/gc/aa-before-once scenarios/drain.hcl scenarios/explain.hcl > /tmp/gc/aa-before-once.log 2>&1
echo "aa-before-once (main at ec7b9f7: explain every round) rc=$? wall=$(( $(date +%s) - t0 ))s" >> /tmp/gc/summary.txt
#!/bin/bash
cd /work/main
while ! grep -q "aa-before-once" /tmp/gc/summary.txt; do sleep 5; done
for i in 1 2 3 4 5; do
  t0=$(date +%s)
  /tmp/pgseq-g-slow15 --local-dir /tmp/pgseq-benchdb bench ab --base /tmp/pgseq-g --quick --scenario baseline --out /tmp/gc/det15-$i scenarios/drain.hcl > /tmp/gc/det15-$i.log 2>&1
  echo "det15-$i rc=$? wall=$(( $(date +%s) - t0 ))s" >> /tmp/gc/summary.txt
done
echo "all15 done" >> /tmp/gc/summary.txt
#!/bin/bash
cd /work/main
DB=/tmp/pgseq-benchdb
for n in 4 5; do
  t0=$(date +%s)
  /tmp/pgseq-g --local-dir $DB bench ab --base /tmp/pgseq-g --quick --out /tmp/gc/aa-$n scenarios/drain.hcl scenarios/explain.hcl > /tmp/gc/aa-$n.log 2>&1
  echo "aa-$n rc=$? wall=$(( $(date +%s) - t0 ))s" >> /tmp/gc/summary.txt
done
echo "aa45 done" >> /tmp/gc/summary.txt
# 2026-11-29: five more A/A runs of the quick gate (another AMD EPYC machine)
for n in 6 7 8 9 10; do
  t0=$(date +%s)
  /tmp/pgseq-g --local-dir $DB bench ab --base /tmp/pgseq-g --quick --out /tmp/gc/aa-$n scenarios/drain.hcl scenarios/explain.hcl > /tmp/gc/aa-$n.log 2>&1
  echo "aa-$n rc=$? wall=$(( $(date +%s) - t0 ))s start=$(date -d @$t0 +%H:%M:%S)" >> /tmp/gc/summary.txt
done
