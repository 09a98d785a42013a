-- Journal tables in the layout pekko-persistence-jdbc 1.1.x reads and writes (H2).
-- Every statement is idempotent: JournalSchema runs this script at every start.
-- Unlike the plugin's own script, payloads are VARBINARY (H2 moves BLOBs over 256 bytes to
-- separate storage), "ordering" has no second unique index, and "ordering" is the primary key
-- (H2 keeps rows under a single BIGINT primary key, so each insert updates two B-trees instead
-- of three), and ("persistence_id", "sequence_number") stays unique.
CREATE TABLE IF NOT EXISTS PUBLIC."event_journal" (
  "ordering" BIGINT AUTO_INCREMENT PRIMARY KEY,
  "deleted" BOOLEAN DEFAULT false NOT NULL,
  "persistence_id" VARCHAR(255) NOT NULL,
  "sequence_number" BIGINT NOT NULL,
  "writer" VARCHAR NOT NULL,
  "write_timestamp" BIGINT NOT NULL,
  "adapter_manifest" VARCHAR NOT NULL,
  "event_payload" VARBINARY NOT NULL,
  "event_ser_id" INTEGER NOT NULL,
  "event_ser_manifest" VARCHAR NOT NULL,
  "meta_payload" VARBINARY,
  "meta_ser_id" INTEGER,
  "meta_ser_manifest" VARCHAR,
  CONSTRAINT "event_journal_persistence_id_sequence_number" UNIQUE ("persistence_id", "sequence_number")
);
CREATE TABLE IF NOT EXISTS PUBLIC."event_tag" (
  "event_id" BIGINT NOT NULL,
  "tag" VARCHAR NOT NULL,
  PRIMARY KEY ("event_id", "tag"),
  CONSTRAINT "fk_event_journal" FOREIGN KEY ("event_id") REFERENCES "event_journal" ("ordering") ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS PUBLIC."snapshot" (
  "persistence_id" VARCHAR(255) NOT NULL,
  "sequence_number" BIGINT NOT NULL,
  "created" BIGINT NOT NULL,
  "snapshot_ser_id" INTEGER NOT NULL,
  "snapshot_ser_manifest" VARCHAR NOT NULL,
  "snapshot_payload" BLOB NOT NULL,
  "meta_ser_id" INTEGER,
  "meta_ser_manifest" VARCHAR,
  "meta_payload" BLOB,
  PRIMARY KEY ("persistence_id", "sequence_number")
);
