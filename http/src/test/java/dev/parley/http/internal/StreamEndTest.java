package dev.parley.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamEndTest {
    @Test
    void runsWhatWasAddedInOrderOnceAndWhatComesLaterAtOnce() {
        List<String> ran = new ArrayList<>();
        StreamEnd end = new StreamEnd();
        end.onEnd(() -> ran.add("feed"));
        end.onEnd(() -> ran.add("observer"));
        end.onEnd(() -> ran.add("guard"));
        assertEquals(List.of(), ran);

        end.ended();
        end.ended();
        assertEquals(List.of("feed", "observer", "guard"), ran);

        end.onEnd(() -> ran.add("late"));
        assertEquals(List.of("feed", "observer", "guard", "late"), ran);
    }
}
