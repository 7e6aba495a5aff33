// Package crashtest holds pgseq's crash tests: real pgseq processes against
// a real PostgreSQL server, killed at awkward moments, and the invariants
// that must hold afterwards. The package has no code of its own; everything
// is in its tests, which run in the default `go test ./...`.
//
// TestMain builds the pgseq binary once into a temporary directory; the
// tests run it as subprocesses and kill them with SIGKILL, so nothing gets
// the chance to clean up.
//
//   - TestWorkersKilled: three `pgseq worker` processes (handlers that sleep
//     a few milliseconds and log each execution with --exec-log) drain a
//     queue of unlimited and limited task types while a random one is
//     killed every 200–500 ms and replaced. The queue's worker_timeout and
//     leader_lease are short, so the leader recovers the dead workers'
//     tasks within the test. A separate connection samples, all along, that
//     no limited type runs more tasks than its limit and that every slot
//     group's used equals the tasks holding it. At the end: every task
//     completed, no task ran twice at the same time (from the execution
//     logs; running again after a crash is allowed), every slot group free.
//   - TestPostgresCrash: a throw-away cluster (internal/localdb) is stopped
//     in immediate mode (SIGQUIT to the postmaster, what pg_ctl stop -m
//     immediate sends) in the middle of a drain by worker processes, kept
//     down longer than the queue's worker_timeout, and started again (crash
//     recovery). The workers must reconnect on their own and finish the
//     drain: nothing lost, no task left running, slot groups free, no task
//     run twice at once. Two slow workers, which have no call in flight
//     when the server dies, must keep their sessions through the outage,
//     and no worker that lived through it may be declared dead for it.
//   - TestApplyKilled: `pgseq apply --auto-approve` of a large change
//     (1,000 limited task types) is killed after random delays, some before
//     its transaction and some inside it. Each time the database must be in
//     the old state or the new one, never a mix (one of the two
//     configurations plans empty), the apply lock must be free, and the next
//     apply must succeed and then plan empty.
//
// Failures name the invariant that broke. The tests kill only processes
// they started: the shared test cluster is never stopped (TestPostgresCrash
// crashes its own cluster in a temporary directory).
//
// Longer variant: PGSEQ_CRASHTEST_SCALE=N multiplies the churn of every
// test: N times the kill period of TestWorkersKilled, N server crashes in
// TestPostgresCrash and N times the kills of TestApplyKilled. For example
//
//	PGSEQ_CRASHTEST_SCALE=30 go test -count=1 -timeout 2h -v ./crashtest
package crashtest
