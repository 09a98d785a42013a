package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The journal's vocabulary is complete: each journal's {@code TYPES} names every record its sealed
 * interface permits, once, and no stored name is used twice. (That every reader handles every
 * type is the compiler's job: each record must implement {@code accept}, which only compiles with
 * a {@code visit} method for it, and every visitor must implement them all.)
 */
class JournalVocabularyTest {

    @Test
    void eachJournalListsEveryPermittedRecordOnce() {
        assertListsEveryRecordOnce(CallEvent.class, CallEvent.TYPES);
        assertListsEveryRecordOnce(TaskEvent.class, TaskEvent.TYPES);
        assertListsEveryRecordOnce(SessionEvent.class, SessionEvent.TYPES);
    }

    @Test
    void everyStoredNameIsUsedOnceAndTheSerializerStoresEachRecordUnderIt() {
        List<JournalEvent.Type<?>> types = JournalEvent.types();
        Set<String> names = types.stream().map(JournalEvent.Type::storedName).collect(Collectors.toSet());
        assertEquals(types.size(), names.size(), () -> "a stored name is used twice: " + types);
        assertEquals(CallEvent.TYPES.size() + TaskEvent.TYPES.size() + SessionEvent.TYPES.size(), types.size());
        JournalEventSerializer serializer = new JournalEventSerializer();
        Map<Class<?>, JournalEvent> samples = GoldenEventFixtures.samples().values().stream()
                .collect(Collectors.toMap(Object::getClass, event -> event, (first, second) -> first));
        for (JournalEvent.Type<?> type : types) {
            JournalEvent sample = samples.get(type.eventClass());
            assertEquals(type.storedName(), serializer.manifest(sample), type.toString());
        }
    }

    @Test
    void namesAreSelectedAndEventsReadByTheStatusAfterThem() {
        assertEquals(
                Set.of("parley.call.started.v1", "parley.call.input-requested.v1"),
                JournalEvent.storedNames(CallEvent.TYPES, status -> status == CallEvent.Status.WAITING));
        assertEquals(
                Set.of("parley.task.input-requested.v1"),
                JournalEvent.storedNames(TaskEvent.TYPES, status -> status == TaskEvent.Status.INPUT_REQUIRED));
        for (JournalEvent event : GoldenEventFixtures.samples().values()) {
            if (event instanceof TaskEvent.TaskCancelled) {
                assertEquals(TaskEvent.Status.CANCELLED, JournalEvent.statusAfter(TaskEvent.TYPES, event));
            }
        }
        assertEquals("became_task", CallEvent.Status.BECAME_TASK.label());
        assertEquals("input_required", TaskEvent.Status.INPUT_REQUIRED.label());
    }

    private static void assertListsEveryRecordOnce(Class<?> sealedRoot, List<? extends JournalEvent.Type<?>> types) {
        Set<Class<?>> permitted = Set.of(sealedRoot.getPermittedSubclasses());
        List<Class<?>> listed =
                types.stream().<Class<?>>map(JournalEvent.Type::eventClass).toList();
        assertEquals(permitted.size(), listed.size(), () -> sealedRoot.getSimpleName() + ".TYPES lists " + listed);
        assertEquals(
                permitted, Set.copyOf(listed), sealedRoot.getSimpleName() + ".TYPES against its permitted records");
    }
}
