package dev.parley.persistence.internal;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Marker for everything Parley writes to the journal. Bound to {@link JournalEventSerializer},
 * which stores each event under a stable type name, never its class name.
 *
 * <p>The journal's vocabulary is declared once, in the {@code Type} enum of each journal
 * ({@link CallEvent.Type}, {@link TaskEvent.Type}, {@link SessionEvent.Type}): which record each
 * stored name reads as and, for calls and tasks, the entity's status after it. The serializer and
 * every reader of raw journal rows (gauges, task resumer, console) take names and statuses from
 * there; {@code JournalVocabularyTest} checks each enum against its sealed interface's permitted
 * records.
 */
public interface JournalEvent {

    /** One stored event type: its record and the name its rows carry. */
    interface Type {
        Class<? extends JournalEvent> eventClass();

        String storedName();
    }

    /** Every event type of every journal. */
    static List<Type> types() {
        return Stream.of(CallEvent.Type.values(), TaskEvent.Type.values(), SessionEvent.Type.values())
                .flatMap(Stream::of)
                .map(Type.class::cast)
                .toList();
    }

    /** The stored names of those of {@code types} that {@code which} selects. */
    static <T extends Type> Set<String> storedNames(T[] types, Predicate<? super T> which) {
        return Stream.of(types).filter(which).map(Type::storedName).collect(Collectors.toUnmodifiableSet());
    }

    /** The one of {@code types} whose record {@code event} is. */
    static <T extends Type> T typeOf(T[] types, JournalEvent event) {
        return Stream.of(types)
                .filter(type -> type.eventClass() == event.getClass())
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no type lists " + event.getClass()));
    }

    /** The one of {@code types} stored under {@code storedName}, if any. */
    static <T extends Type> Optional<T> typeNamed(T[] types, String storedName) {
        return Stream.of(types)
                .filter(type -> type.storedName().equals(storedName))
                .findFirst();
    }
}
