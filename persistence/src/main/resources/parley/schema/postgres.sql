-- Journal tables in the layout pekko-persistence-jdbc 1.1.x reads and writes (PostgreSQL).
-- Every statement is idempotent and runs outside a transaction block without CONCURRENTLY,
-- so JournalSchema can run it at every start and report any error as a real one.
CREATE TABLE IF NOT EXISTS public.event_journal (
  ordering BIGSERIAL,
  persistence_id VARCHAR(255) NOT NULL,
  sequence_number BIGINT NOT NULL,
  deleted BOOLEAN DEFAULT FALSE NOT NULL,
  writer VARCHAR(255) NOT NULL,
  write_timestamp BIGINT,
  adapter_manifest VARCHAR(255),
  event_ser_id INTEGER NOT NULL,
  event_ser_manifest VARCHAR(255) NOT NULL,
  event_payload BYTEA NOT NULL,
  meta_ser_id INTEGER,
  meta_ser_manifest VARCHAR(255),
  meta_payload BYTEA,
  PRIMARY KEY (persistence_id, sequence_number)
);
CREATE UNIQUE INDEX IF NOT EXISTS event_journal_ordering_idx ON public.event_journal (ordering);
CREATE TABLE IF NOT EXISTS public.event_tag (
  event_id BIGINT,
  tag VARCHAR(256),
  PRIMARY KEY (event_id, tag),
  CONSTRAINT fk_event_journal FOREIGN KEY (event_id) REFERENCES public.event_journal (ordering) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS public.snapshot (
  persistence_id VARCHAR(255) NOT NULL,
  sequence_number BIGINT NOT NULL,
  created BIGINT NOT NULL,
  snapshot_ser_id INTEGER NOT NULL,
  snapshot_ser_manifest VARCHAR(255) NOT NULL,
  snapshot_payload BYTEA NOT NULL,
  meta_ser_id INTEGER,
  meta_ser_manifest VARCHAR(255),
  meta_payload BYTEA,
  PRIMARY KEY (persistence_id, sequence_number)
);
