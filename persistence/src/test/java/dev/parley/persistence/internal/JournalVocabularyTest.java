package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The journal's vocabulary is complete: each journal's {@code Type} enum names every record its
 * sealed interface permits, once, and no stored name is used twice. (That every reader handles
 * every type is the compiler's job: each record must implement {@code accept}, which only compiles
 * with a {@code visit} method for it in every visitor.)
 */
class JournalVocabularyTest {

    @Test
    void eachTypeEnumListsEveryPermittedRecordOnce() {
        assertListsEveryRecordOnce(CallEvent.class, CallEvent.Type.values());
        assertListsEveryRecordOnce(TaskEvent.class, TaskEvent.Type.values());
        assertListsEveryRecordOnce(SessionEvent.class, SessionEvent.Type.values());
    }

    @Test
    void everyStoredNameIsUsedOnceAndTheSerializerStoresEachRecordUnderIt() {
        List<JournalEvent.Type> types = JournalEvent.types();
        Set<String> names = types.stream().map(JournalEvent.Type::storedName).collect(Collectors.toSet());
        assertEquals(types.size(), names.size(), () -> "a stored name is used twice: " + types);
        assertEquals(
                CallEvent.Type.values().length + TaskEvent.Type.values().length + SessionEvent.Type.values().length,
                types.size());
        JournalEventSerializer serializer = new JournalEventSerializer();
        Map<Class<?>, JournalEvent> samples = GoldenEventFixtures.samples().values().stream()
                .collect(Collectors.toMap(Object::getClass, event -> event, (first, second) -> first));
        for (JournalEvent.Type type : types) {
            JournalEvent sample = samples.get(type.eventClass());
            assertEquals(type.storedName(), serializer.manifest(sample), type.toString());
        }
    }

    @Test
    void namesAreLookedUpAndSelectedByStatus() {
        assertEquals(
                CallEvent.Type.INPUT_REQUESTED,
                JournalEvent.typeNamed(CallEvent.Type.values(), "parley.call.input-requested.v1")
                        .orElseThrow());
        assertEquals(
                Set.of(),
                JournalEvent.typeNamed(CallEvent.Type.values(), "parley.task.created.v1").stream()
                        .collect(Collectors.toSet()),
                "a task's name is not a call's");
        assertEquals(
                Set.of("parley.task.input-requested.v1"),
                JournalEvent.storedNames(
                        TaskEvent.Type.values(), type -> type.statusAfter() == TaskEvent.Status.INPUT_REQUIRED));
    }

    private static void assertListsEveryRecordOnce(Class<?> sealedRoot, JournalEvent.Type[] types) {
        Set<Class<?>> permitted = Set.of(sealedRoot.getPermittedSubclasses());
        List<Class<?>> listed =
                Stream.of(types).<Class<?>>map(JournalEvent.Type::eventClass).toList();
        assertEquals(permitted.size(), listed.size(), () -> sealedRoot.getSimpleName() + ".Type lists " + listed);
        assertEquals(permitted, Set.copyOf(listed), sealedRoot.getSimpleName() + ".Type against its permitted records");
    }
}
