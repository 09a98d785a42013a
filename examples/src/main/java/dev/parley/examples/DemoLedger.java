package dev.parley.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The demo's "outside world": every side effect the demo tools perform (a release scheduled,
 * an invoice issued, a deposit paid, a part of a venue contract written, a venue booked, a report
 * published) is one line appended to a file in the data directory. It survives restarts, so anyone can check that no effect happened twice.
 */
public final class DemoLedger {
  private final Path file;
  private long cachedSize = -1;
  private List<String> cachedLines = List.of();

  public DemoLedger(Path dataDirectory) {
    this.file = dataDirectory.resolve("demo-ledger.log");
  }

  public Path file() {
    return file;
  }

  public synchronized void append(String kind, String detail) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, kind + " " + detail + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every line, re-read only when the file grew (other processes of a cluster may append to it):
   * read-only tools look at the ledger on every call.
   */
  public synchronized List<String> lines() {
    try {
      long size = Files.exists(file) ? Files.size(file) : 0;
      if (size != cachedSize) {
        cachedLines = size == 0 ? List.of() : List.copyOf(Files.readAllLines(file, StandardCharsets.UTF_8));
        cachedSize = size;
      }
      return cachedLines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public boolean contains(String kind, String detail) {
    return lines().contains(kind + " " + detail);
  }

  public long count(String kind) {
    return lines().stream().filter(line -> line.startsWith(kind + " ")).count();
  }
}
