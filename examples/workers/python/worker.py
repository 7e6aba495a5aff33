#!/usr/bin/env python3
"""A pgseq worker in Python (psycopg 3), following docs/sql-api.md,
"Writing a worker in another language": the loop, one transaction per call,
the heartbeat and maintenance cadence, retries, and a clean exit.

    PGSEQ_DSN=postgresql://app_worker@localhost/app python3 worker.py --queue default

The handler in main() does nothing but sleep (--handler-sleep); put yours
there (it gets the task's type and payload). The connection string comes from the environment, never the
command line (where ps shows it).
"""

import argparse
import os
import signal
import socket
import sys
import time
import uuid

import psycopg
from psycopg import sql

# Serialization failures and deadlocks: the call rolled back, run it again.
RETRYABLE = {"40001", "40P01"}


def new_worker_id():
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class Worker:
    def __init__(self, conn, schema, queue, batch, handler):
        self.conn, self.queue, self.batch, self.handler = conn, queue, batch, handler
        self.schema = sql.Identifier(schema)
        self.id = new_worker_id()
        self.stopping = False

    def call(self, query, *args):
        """One runtime function call, in a transaction of its own (the
        connection is in autocommit mode), retried on 40001 and 40P01."""
        stmt = sql.SQL(query).format(s=self.schema)
        for attempt in range(5):
            try:
                return self.conn.execute(stmt, args).fetchall()
            except psycopg.errors.Error as e:
                if e.sqlstate not in RETRYABLE or attempt == 4:
                    raise
                time.sleep(0.01 * 2**attempt)

    def settings(self):
        (timeout, lease), = self.call(
            "SELECT extract(epoch FROM worker_timeout), extract(epoch FROM leader_lease) "
            "FROM {s}.queues WHERE name = %s", self.queue)
        return float(timeout), float(lease)

    def register(self):
        self.call("SELECT {s}.register_worker(%s, %s, %s, %s)", self.id, socket.gethostname(), 1, "python-example")

    def claim(self, n):
        # max_limited = n: this worker starts everything it claims at once.
        # A worker that queues tasks should pass what it can start now, so
        # that units of limited types are not held by tasks nobody runs.
        return self.call("SELECT id, type, payload FROM {s}.claim(%s, %s, %s, %s)", self.queue, self.id, n, n)

    def complete_and_take(self, ids, n):
        rows = self.call("SELECT id, type, payload FROM {s}.complete_and_take(%s, %s, %s)", ids, self.id, n)
        return [r for r in rows if r[0] is not None]  # one row of NULLs when nothing was taken

    def run(self, poll=0.1, exit_when_idle=None):
        worker_timeout, lease = self.settings()
        self.register()
        next_beat = next_maintenance = 0.0
        idle_since = None
        batch = self.claim(self.batch)
        while not self.stopping:
            now = time.monotonic()
            if now >= next_beat:
                next_beat = now + worker_timeout / 3
                (alive,), = self.call("SELECT {s}.heartbeat(%s)", self.id)
                if not alive:  # declared dead: its tasks were recovered
                    self.id = new_worker_id()
                    self.register()
                    batch = []
            if now >= next_maintenance:
                next_maintenance = now + lease / 3
                (leader,), = self.call("SELECT {s}.elect_leader(%s)", self.id)
                if leader:
                    self.call("SELECT {s}.run_maintenance(%s)", self.id)
            done = []
            for i, (task_id, task_type, payload) in enumerate(batch):
                if self.stopping:  # not started: handed back below
                    self.call("SELECT {s}.release(%s, %s)", [t[0] for t in batch[i:]], self.id)
                    break
                try:
                    self.handler(task_type, payload)
                    done.append(task_id)
                except Exception as e:  # the task's unit passes on too
                    self.call("SELECT {s}.fail(%s, %s, %s)", task_id, self.id, repr(e))
            batch = self.complete_and_take(done, self.batch) if done else []
            if len(batch) < self.batch and not self.stopping:
                batch += self.claim(self.batch - len(batch))
            if batch:
                idle_since = None
                continue
            idle_since = idle_since or now
            if exit_when_idle is not None and now - idle_since >= exit_when_idle:
                break
            time.sleep(poll)
        # Leave cleanly: anything still held goes back, the lease is given
        # up, and the worker is not shown dead later.
        self.call("SELECT {s}.unregister_worker(%s)", self.id)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--schema", default="pgseq")
    p.add_argument("--queue", default="default")
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--handler-sleep", type=float, default=0.0, help="seconds each handler takes")
    p.add_argument("--exit-when-idle", type=float, default=None, help="stop after this many seconds with nothing to do")
    args = p.parse_args()
    dsn = os.environ.get("PGSEQ_DSN")
    if not dsn:
        sys.exit("worker.py: set PGSEQ_DSN to the database's connection string")

    def handler(task_type, payload):
        time.sleep(args.handler_sleep)

    with psycopg.connect(dsn, autocommit=True) as conn:
        # pgseq's calls are written for READ COMMITTED, whatever the role's default.
        conn.execute("SET default_transaction_isolation = 'read committed'")
        w = Worker(conn, args.schema, args.queue, args.batch, handler)
        signal.signal(signal.SIGTERM, lambda *_: setattr(w, "stopping", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(w, "stopping", True))
        w.run(exit_when_idle=args.exit_when_idle)


if __name__ == "__main__":
    main()
