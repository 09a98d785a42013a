-- Journal tables in the layout pekko-persistence-jdbc 1.1.x reads and writes (SQLite), for
-- JournalDatabase.SqliteFile. Every statement is idempotent: JournalSchema runs this script at
-- every start. "ordering" is an INTEGER PRIMARY KEY, SQLite's rowid: rows are kept in one B-tree
-- by it, and ("persistence_id", "sequence_number") is a unique index beside it, as in h2.sql.
-- AUTOINCREMENT: an ordering is never reused, even after the newest rows are deleted (retention),
-- as H2's identity and PostgreSQL's bigserial never reuse theirs.
CREATE TABLE IF NOT EXISTS "event_journal" (
  "ordering" INTEGER PRIMARY KEY AUTOINCREMENT,
  "deleted" BOOLEAN DEFAULT FALSE NOT NULL,
  "persistence_id" VARCHAR(255) NOT NULL,
  "sequence_number" BIGINT NOT NULL,
  "writer" VARCHAR(255) NOT NULL,
  "write_timestamp" BIGINT NOT NULL,
  "adapter_manifest" VARCHAR(255) NOT NULL,
  "event_payload" BLOB NOT NULL,
  "event_ser_id" INTEGER NOT NULL,
  "event_ser_manifest" VARCHAR(255) NOT NULL,
  "meta_payload" BLOB,
  "meta_ser_id" INTEGER,
  "meta_ser_manifest" VARCHAR(255),
  CONSTRAINT "event_journal_persistence_id_sequence_number" UNIQUE ("persistence_id", "sequence_number")
);
CREATE TABLE IF NOT EXISTS "event_tag" (
  "event_id" BIGINT NOT NULL,
  "tag" VARCHAR(256) NOT NULL,
  PRIMARY KEY ("event_id", "tag"),
  CONSTRAINT "fk_event_journal" FOREIGN KEY ("event_id") REFERENCES "event_journal" ("ordering") ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS "snapshot" (
  "persistence_id" VARCHAR(255) NOT NULL,
  "sequence_number" BIGINT NOT NULL,
  "created" BIGINT NOT NULL,
  "snapshot_ser_id" INTEGER NOT NULL,
  "snapshot_ser_manifest" VARCHAR(255) NOT NULL,
  "snapshot_payload" BLOB NOT NULL,
  "meta_ser_id" INTEGER,
  "meta_ser_manifest" VARCHAR(255),
  "meta_payload" BLOB,
  PRIMARY KEY ("persistence_id", "sequence_number")
);
