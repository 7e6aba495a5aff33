-- pgseq schema, version 1: managed configuration, the task queue's tables and
-- the apply history. {{schema}} is replaced by the quoted schema name.

CREATE TABLE {{schema}}.queues (
    name                  text PRIMARY KEY,
    batch_size            integer NOT NULL CHECK (batch_size BETWEEN 1 AND 10000),
    max_retries           integer NOT NULL CHECK (max_retries >= 0),
    backoff_initial       interval NOT NULL,
    backoff_max           interval NOT NULL,
    backoff_factor        double precision NOT NULL CHECK (backoff_factor >= 1),
    backoff_jitter        double precision NOT NULL CHECK (backoff_jitter BETWEEN 0 AND 1),
    worker_timeout        interval NOT NULL,
    leader_lease          interval NOT NULL,
    retention_completed   interval NOT NULL,
    retention_dead_letter interval NOT NULL,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE {{schema}}.queues IS 'Queue settings, managed by pgseq apply.';

CREATE TABLE {{schema}}.task_types (
    name        text PRIMARY KEY,
    queue       text NOT NULL REFERENCES {{schema}}.queues (name),
    -- NULL: unlimited (the claim's fast path).
    concurrency integer CHECK (concurrency BETWEEN 1 AND 1000000),
    -- NULL: the queue's max_retries.
    max_retries integer CHECK (max_retries >= 0),
    priority    integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_types_queue ON {{schema}}.task_types (queue);
COMMENT ON TABLE {{schema}}.task_types IS 'Declared task types and their concurrency limits, managed by pgseq apply.';

-- Slot groups: a limited task type has at most 50 rows whose live capacities
-- sum to its limit. A group outside the current layout keeps capacity 0 while
-- tasks still hold it (draining). No foreign key: the claim and release paths
-- touch these rows constantly, and a removed type's rows go with it.
CREATE TABLE {{schema}}.concurrency_slots (
    task_type  text    NOT NULL,
    slot_group integer NOT NULL CHECK (slot_group >= 1),
    capacity   integer NOT NULL CHECK (capacity >= 0),
    used       integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (task_type, slot_group)
) WITH (fillfactor = 50);
COMMENT ON TABLE {{schema}}.concurrency_slots IS 'Concurrency slot groups; capacity is managed by pgseq apply, used by the runtime.';

CREATE TYPE {{schema}}.task_status AS ENUM (
    'pending',     -- waiting to be claimed (run_at says from when)
    'claimed',     -- claimed by a worker, handler not started
    'running',     -- handler executing
    'completed',   -- finished successfully
    'failed',      -- terminal failure (for example no handler)
    'dead_letter'  -- exceeded its retries
);

CREATE TABLE {{schema}}.tasks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue           text NOT NULL,
    type            text NOT NULL,
    payload         jsonb,
    status          {{schema}}.task_status NOT NULL DEFAULT 'pending',
    priority        integer NOT NULL DEFAULT 0,
    idempotency_key text,
    -- The worker that claimed the task; set while claimed or running.
    worker_id       text,
    -- The slot group the task holds while claimed or running (limited types).
    slot_group      integer,
    attempts        integer NOT NULL DEFAULT 0,
    -- NULL: the task type's, else the queue's max_retries.
    max_retries     integer,
    last_error      text,
    -- Due time: enqueue time, schedule time or next retry.
    run_at          timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    claimed_at      timestamptz,
    started_at      timestamptz,
    completed_at    timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- Idempotent enqueue: one task per (type, key). Partial, so the many tasks
-- without a key cost this index nothing.
CREATE UNIQUE INDEX tasks_idempotency ON {{schema}}.tasks (type, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
-- Claim order: priority (higher first), then due time, then id.
CREATE INDEX tasks_claimable ON {{schema}}.tasks (queue, priority DESC, run_at, id)
    WHERE status = 'pending';
-- Recovery of a dead worker's tasks, and live usage per type.
CREATE INDEX tasks_held ON {{schema}}.tasks (worker_id)
    WHERE status IN ('claimed', 'running');
-- Retention purge.
CREATE INDEX tasks_finished ON {{schema}}.tasks (queue, completed_at)
    WHERE status IN ('completed', 'failed', 'dead_letter');

CREATE TABLE {{schema}}.workers (
    id             text PRIMARY KEY,
    hostname       text NOT NULL,
    pool_size      integer NOT NULL CHECK (pool_size >= 1),
    version        text,
    started_at     timestamptz NOT NULL DEFAULT now(),
    last_heartbeat timestamptz NOT NULL DEFAULT now(),
    -- Set when the worker was declared dead; its heartbeat then says stop.
    dead_at        timestamptz
);
CREATE INDEX workers_heartbeat ON {{schema}}.workers (last_heartbeat) WHERE dead_at IS NULL;

-- The single leader lease row: taken by a conditional UPDATE under its row lock.
CREATE TABLE {{schema}}.leader (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    worker_id   text,
    lease_until timestamptz NOT NULL DEFAULT '-infinity',
    elected_at  timestamptz
);
INSERT INTO {{schema}}.leader DEFAULT VALUES;

CREATE TABLE {{schema}}.applies (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    applied_at        timestamptz NOT NULL DEFAULT now(),
    -- The database role that applied.
    applied_by        text NOT NULL DEFAULT current_user,
    -- The operating-system user and host of the pgseq process.
    client            text NOT NULL,
    pgseq_version     text NOT NULL,
    plan_hash         text NOT NULL,
    state_fingerprint text NOT NULL,
    summary           jsonb NOT NULL,
    -- One "action address" line per change.
    changes           text[] NOT NULL
);
COMMENT ON TABLE {{schema}}.applies IS 'History of pgseq apply runs.';
