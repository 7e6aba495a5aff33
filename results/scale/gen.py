import os, sys
n = int(sys.argv[1]); limit = int(sys.argv[2]); out = sys.argv[3]
os.makedirs(out, exist_ok=True)
for f in os.listdir(out): os.remove(os.path.join(out, f))
per = 10000
with open(os.path.join(out, "queue.hcl"), "w") as q:
    q.write('queue "default" {\n  batch_size = 100\n}\n')
for start in range(0, n, per):
    with open(os.path.join(out, "types_%06d.hcl" % start), "w") as f:
        for i in range(start, min(n, start+per)):
            f.write('task "t%06d" {\n  queue       = "default"\n  concurrency = %d\n}\n' % (i, limit))
