package dev.parley.actors.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EntityIdsTest {

    @Test
    void idsAreVersion7UuidsThatSortByCreationTime() throws Exception {
        String earlier = EntityIds.next();
        Thread.sleep(2);
        String later = EntityIds.next();

        UUID parsed = UUID.fromString(earlier);
        assertEquals(7, parsed.version());
        assertEquals(2, parsed.variant());
        assertTrue(earlier.compareTo(later) < 0, earlier + " sorts before " + later);
    }

    @Test
    void idsMadeInTheSameMillisecondDiffer() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(EntityIds.next());
        }
        assertEquals(10_000, ids.size());
    }
}
