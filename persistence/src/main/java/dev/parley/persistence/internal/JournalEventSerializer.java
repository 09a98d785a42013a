package dev.parley.persistence.internal;

import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * JSON serializer for journal events with stable type names as manifests (declared in each
 * journal's {@code TYPES}). Renaming or moving an event class changes nothing stored; changing
 * an event's meaning needs a new name.
 */
public final class JournalEventSerializer extends SerializerWithStringManifest {
    /** Registered in reference.conf; never change it, stored rows refer to it. */
    public static final int IDENTIFIER = 7_210_001;

    /** Record class to stored name, from the vocabulary ({@link JournalEvent#types()}). */
    private static final Map<Class<?>, String> NAMES = JournalEvent.types().stream()
            .collect(Collectors.toUnmodifiableMap(JournalEvent.Type::eventClass, JournalEvent.Type::storedName));

    private static final Map<String, Class<?>> TYPES =
            NAMES.entrySet().stream().collect(Collectors.toUnmodifiableMap(Map.Entry::getValue, Map.Entry::getKey));

    @Override
    public int identifier() {
        return IDENTIFIER;
    }

    @Override
    public String manifest(Object event) {
        String name = NAMES.get(event.getClass());
        if (name == null) {
            throw new IllegalArgumentException(
                    "no stable type name for " + event.getClass().getName());
        }
        return name;
    }

    @Override
    public byte[] toBinary(Object event) {
        manifest(event);
        try {
            return Json.MAPPER.writeValueAsBytes(event);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot serialize " + event.getClass().getName(), e);
        }
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        Class<?> type = TYPES.get(manifest);
        if (type == null) {
            throw new NotSerializableException("unknown journal event type '" + manifest + "'");
        }
        try {
            return Json.MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            NotSerializableException failure =
                    new NotSerializableException("corrupt '" + manifest + "' event: " + e.getMessage());
            failure.initCause(e);
            throw failure;
        }
    }
}
