package dev.parley.examples.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The effects file all {@link ClusterTestNode}s append to: {@code <epoch ms> <node> <kind> <id> [detail]}. */
final class Effects {
    private final Path file;

    Effects(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    record Line(long at, String node, String kind, String id, String detail) {
        static Line parse(String text) {
            String[] parts = text.split(" ", 5);
            return new Line(Long.parseLong(parts[0]), parts[1], parts[2], parts[3], parts.length > 4 ? parts[4] : "");
        }
    }

    /** Every complete line so far. */
    List<Line> lines() {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            if (end < 0) {
                return List.of();
            }
            return text.substring(0, end)
                    .lines()
                    .filter(line -> !line.isBlank())
                    .map(Line::parse)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Line> of(String kind, String id) {
        return lines().stream()
                .filter(line -> line.kind().equals(kind) && line.id().equals(id))
                .toList();
    }

    Optional<Line> first(String kind, String id) {
        return of(kind, id).stream().findFirst();
    }
}
