package dev.parley.persistence.internal;

import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Marker for everything Parley writes to the journal. Bound to {@link JournalEventSerializer},
 * which stores each event under a stable type name, never its class name.
 *
 * <p>The journal's vocabulary is declared once, in the {@code TYPES} list of each journal
 * ({@link CallEvent#TYPES}, {@link TaskEvent#TYPES}, {@link SessionEvent#TYPES}): which record each
 * stored name reads as, and the entity's status after it. The serializer and every reader of raw
 * journal rows (gauges, task resumer, console) take names and statuses from there;
 * {@code JournalVocabularyTest} checks each list against its sealed interface's permitted records.
 */
public interface JournalEvent {

    /**
     * One stored event type: its record, the name its rows carry (never changed: journals hold it),
     * and the entity's status once it is the latest event.
     */
    record Type<S extends Enum<S>>(Class<? extends JournalEvent> eventClass, String storedName, S statusAfter) {}

    /** Every event type of every journal. */
    static List<Type<?>> types() {
        return Stream.<List<? extends Type<?>>>of(CallEvent.TYPES, TaskEvent.TYPES, SessionEvent.TYPES)
                .flatMap(List::stream)
                .collect(Collectors.toUnmodifiableList());
    }

    /** The stored names of those of {@code types} whose status after them {@code which} selects. */
    static <S extends Enum<S>> Set<String> storedNames(List<Type<S>> types, Predicate<S> which) {
        return types.stream()
                .filter(type -> which.test(type.statusAfter()))
                .map(Type::storedName)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** The status after {@code event}, one of {@code types}. */
    static <S extends Enum<S>> S statusAfter(List<Type<S>> types, JournalEvent event) {
        return types.stream()
                .filter(type -> type.eventClass() == event.getClass())
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no type lists " + event.getClass()))
                .statusAfter();
    }
}
