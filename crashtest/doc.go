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
//   - TestPostgresRestartWithANewLeader: the same outage with a leader that
//     has no guard of its own (migration 013). Three `pgseq worker`
//     processes (worker_timeout 2s, leader_lease 1s, handlers of 6s) each
//     run a task and hold another when the throw-away cluster is crashed;
//     one is SIGKILLed while the server is down, which stays down for 3s.
//     The two survivors, once they have noticed the outage, are paused
//     (SIGSTOP) until the first maintenance after the restart, so that it
//     judges them before they heartbeat, for certain. Right after the
//     restart a maintenance caller in plain SQL, on a connection of its
//     own, registers a new id, wins the lease with elect_leader and runs
//     run_maintenance at once and then every ~300 ms; a brand-new worker
//     starts too. No survivor may be declared dead or change its id
//     (their output, the workers table, the maintenance reports: exactly
//     one worker declared dead and the killed one's tasks the only ones
//     recovered); the killed worker must be declared dead between one and
//     two worker_timeouts after the server started (it gets a fresh
//     worker_timeout from the restart, no more), its tasks run to the end
//     by another worker, and no task may run twice at once. Before
//     migration 013 the first maintenance declared every worker dead.
//   - TestApplyKilled: `pgseq apply --auto-approve` of a large change
//     (1,000 limited task types) is killed after random delays, some before
//     its transaction and some inside it. Each time the database must be in
//     the old state or the new one, never a mix (one of the two
//     configurations plans empty), the apply lock must be free, and the next
//     apply must succeed and then plan empty.
//   - TestStorm: every runtime call at once, through the SQL API on
//     connections of its own (not the Go worker), against one schema whose
//     queue has worker_timeout and leader_lease of 1s: enqueuers (single,
//     enqueue_batch, in transactions committed or rolled back on purpose,
//     idempotency keys from a small set so that they conflict, some tasks
//     due a few hundred ms later); claimers (registered workers heartbeating
//     on their own) that claim 1–5 tasks and complete, complete_and_take,
//     fail (retry or not) or release each, sometimes in a transaction of
//     several calls, that die (stop heartbeating, abandon their tasks, and
//     sometimes come back as zombies to complete them) and whose connections
//     are terminated mid-call or mid-transaction (pg_terminate_backend, only
//     on backends the test opened), coming back under new worker ids; two
//     leader contenders running maintenance every ~200 ms; an applier
//     raising and lowering the limits (3 → 1 → 5, 5 → 2 → 4, 3 ↔ 100)
//     every 0.5–1 s through reconcile.PlanAndApply. A sampler checks, in one
//     REPEATABLE READ snapshot every 20–50 ms, the limits model of migration
//     005 as internal/pgseqtest/invariants.sql checks it (the other tests'
//     checks too): each slot group's used equals the tasks holding it
//     (running, or pending with gate open); no limited task running or open
//     without a unit, no finished task holding one; running ≤ limit and
//     holders ≤ capacity for types not draining; capacities sum to the
//     limit; and, over time, (5) no due waiting task beside a free unit of
//     its type for more than 1s (reported apart when an apply ran
//     meanwhile); and (9) each apply converges (the
//     next plan is empty but for groups that drained meanwhile). At the end: (6) no task owned by two
//     workers at once (the claimers' holdings whose finish the runtime
//     accepted must not overlap), and, once drained, every used 0 and no
//     type draining. A deadlock (40P01) anywhere, or any error but a
//     terminated connection, PS002, PS003 or the applier's lock timeout,
//     fails the test. It does not run in parallel with the other tests
//     (its 1s deadlines need the CPU): 20s of storm, then the drain.
//     TestStormSampler checks the checker: states broken on purpose, each
//     found as its kind (pgseqtest's tests break every shared invariant).
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
//
// PGSEQ_STORM=<duration> sets the length of TestStorm's storm (20s by
// default), for a long storm on its own:
//
//	PGSEQ_STORM=10m go test -count=1 -timeout 30m -v -run TestStorm ./crashtest
package crashtest
