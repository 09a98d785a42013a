package dev.parley.examples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's "outside world": every side effect the demo tools perform (a release scheduled,
 * an invoice issued, a deposit paid, a part of a venue contract written, a venue booked, a report
 * published) is one entry appended to a file in the data directory. It survives restarts, so
 * anyone can check that no effect happened twice.
 *
 * <p>Each entry is one line of JSON written by Jackson, so no field can forge a line: a line
 * break, a quote or a brace in a field is escaped. Readers look at fields, never at the text.
 * Each entry carries the idempotency key of the effect, and an entry whose key is already in the
 * ledger is not written again: the ledger holds every effect once by construction, whatever
 * re-runs after a crash. The check and the write happen under one file lock, held from before the
 * check until after the write, so the processes of a cluster on one machine share the ledger safely.
 *
 * <p>On Linux a process's file locks are POSIX record locks: closing <em>any</em> channel of the
 * process on the file releases them all. So while a lock is held, the read that checks the key goes
 * through the locked channel itself, and no other thread of this JVM opens or closes a channel on a
 * ledger file: every file access, reading included, takes the one JVM-wide {@link #FILE_ACCESS} monitor.
 */
public final class DemoLedger {
    /**
     * Held for every open-use-close of a ledger channel in this JVM. A file lock belongs to the
     * process, so threads queue here first, and a reader cannot close its channel (releasing the
     * process's lock) while a writer holds the lock.
     */
    private static final Object FILE_ACCESS = new Object();

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Logger log = LoggerFactory.getLogger(DemoLedger.class);

    /**
     * One effect.
     *
     * @param kind   what happened: release, invoice, deposit, contract, booking or report
     * @param key    the idempotency key it was performed under (unique in the ledger)
     * @param fields what it was about, in order
     */
    public record Entry(String kind, String key, List<String> fields) {
        public Entry {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(key, "key");
            fields = List.copyOf(fields);
        }

        /** The entry as "kind field field ...": for people and tests to read, never parsed. */
        public String text() {
            return fields.isEmpty() ? kind : kind + " " + String.join(" ", fields);
        }
    }

    private final Path file;
    // What has been read of the file so far, with its indexes (guarded by FILE_ACCESS): tools ask the
    // ledger on every call, so each question is a lookup instead of a scan over every entry.
    private long readSize = 0;
    private final List<Entry> read = new ArrayList<>();
    private final Set<String> keys = new HashSet<>();
    private final Map<String, Long> countByKind = new HashMap<>();
    private final Map<Field, List<Entry>> byField = new HashMap<>();

    /** Field number {@code position} of an entry of {@code kind} has {@code value}. */
    private record Field(String kind, int position, String value) {}

    public DemoLedger(Path dataDirectory) {
        this.file = dataDirectory.resolve("demo-ledger.jsonl");
    }

    public Path file() {
        return file;
    }

    /**
     * Writes one effect under {@code key}, unless an entry with that key is there already.
     * Returns whether it wrote: false means the effect had been recorded before (a re-run).
     */
    public boolean append(String kind, String key, String... fields) {
        Entry entry = new Entry(kind, key, List.of(fields));
        byte[] line;
        try {
            line = (JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a ledger entry", e);
        }
        synchronized (FILE_ACCESS) {
            try {
                Files.createDirectories(file.toAbsolutePath().getParent());
                try (FileChannel channel = FileChannel.open(
                                file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                        FileLock lock = channel.lock()) {
                    catchUp(channel); // through the locked channel: opening another would lose the lock on close
                    if (keys.contains(key)) {
                        // A step that ran again after a crash (or a deposit paid twice): the effect counts once.
                        log.info("{} under key {} is in the ledger already: not written again", kind, key);
                        return false;
                    }
                    long end = channel.size();
                    ByteBuffer out = ByteBuffer.allocate(line.length + 1);
                    if (end > 0 && !endsWithNewline(channel, end)) {
                        out.put((byte) '\n'); // a line torn by a crash stays a line of its own (and is skipped)
                    }
                    out.put(line).flip();
                    while (out.hasRemaining()) {
                        channel.write(out, end + out.position());
                    }
                    channel.force(true);
                    return true;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static boolean endsWithNewline(FileChannel channel, long size) throws IOException {
        ByteBuffer last = ByteBuffer.allocate(1);
        channel.read(last, size - 1);
        return last.get(0) == '\n';
    }

    /** Every entry, in order (a copy). */
    public List<Entry> entries() {
        return afterCatchingUp(() -> List.copyOf(read));
    }

    /** Answers {@code question} on what the file holds now. */
    private <T> T afterCatchingUp(Supplier<T> question) {
        synchronized (FILE_ACCESS) {
            try {
                if (Files.exists(file)) {
                    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                        catchUp(channel);
                    }
                } else {
                    catchUp(null);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return question.get();
        }
    }

    /**
     * Reads what the file gained since the last look (other processes of a cluster may append to
     * it), and only up to its last line break: a line still being written is read next time. A line
     * that is not a whole entry (torn by a crash mid-write, then ended by the next append) is skipped.
     * {@code channel} is null for a file that is not there. The caller holds {@link #FILE_ACCESS}.
     */
    private void catchUp(FileChannel channel) throws IOException {
        long size = channel == null ? 0 : channel.size();
        if (size < readSize) { // replaced by a shorter file: read it all again
            readSize = 0;
            read.clear();
            keys.clear();
            countByKind.clear();
            byField.clear();
        }
        if (size == readSize) {
            return;
        }
        ByteBuffer grown = ByteBuffer.allocate(Math.toIntExact(size - readSize));
        while (grown.hasRemaining() && channel.read(grown, readSize + grown.position()) >= 0) {}
        int whole = 0;
        for (int i = grown.position() - 1; i >= 0; i--) {
            if (grown.get(i) == '\n') {
                whole = i + 1;
                break;
            }
        }
        for (String line : new String(grown.array(), 0, whole, StandardCharsets.UTF_8).split("\n")) {
            Entry entry = parse(line);
            if (entry != null) {
                add(entry);
            }
        }
        readSize += whole;
    }

    private void add(Entry entry) {
        read.add(entry);
        keys.add(entry.key());
        countByKind.merge(entry.kind(), 1L, Long::sum);
        for (int position = 0; position < entry.fields().size(); position++) {
            byField.computeIfAbsent(
                            new Field(entry.kind(), position, entry.fields().get(position)), f -> new ArrayList<>())
                    .add(entry);
        }
    }

    /** The entries of {@code kind} whose field number {@code position} is {@code value}, in order (a copy). */
    public List<Entry> entriesWith(String kind, int position, String value) {
        return afterCatchingUp(() -> List.copyOf(byField.getOrDefault(new Field(kind, position, value), List.of())));
    }

    private static Entry parse(String line) {
        if (line.isBlank()) {
            return null;
        }
        try {
            return JSON.readValue(line, Entry.class);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Every entry as {@link Entry#text()}, in order. */
    public List<String> lines() {
        return entries().stream().map(Entry::text).toList();
    }

    /** Whether an entry of {@code kind} has exactly these fields. */
    public boolean contains(String kind, String... fields) {
        List<String> wanted = List.of(fields);
        return afterCatchingUp(() -> wanted.isEmpty()
                ? read.stream()
                        .anyMatch(e -> e.kind().equals(kind) && e.fields().isEmpty())
                : byField.getOrDefault(new Field(kind, 0, wanted.get(0)), List.of()).stream()
                        .anyMatch(e -> e.fields().equals(wanted)));
    }

    public long count(String kind) {
        return afterCatchingUp(() -> countByKind.getOrDefault(kind, 0L));
    }
}
