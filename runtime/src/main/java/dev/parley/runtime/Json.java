package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/** The one Jackson configuration Parley uses on the wire and in its journal. */
public final class Json {

    /** Shared, thread-safe mapper: unknown fields ignored, absent optionals omitted. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .addModule(new Jdk8Module())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .serializationInclusion(JsonInclude.Include.NON_ABSENT)
            .build();

    private Json() {}

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    public static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("not serializable as JSON: " + value.getClass(), e);
        }
    }

    /** Writes {@code value}'s JSON to {@code out} in UTF-8, with no string of it made first. */
    public static void write(OutputStream out, Object value) {
        try {
            MAPPER.writeValue(out, value);
        } catch (IOException e) {
            throw new IllegalStateException("not serializable as JSON: " + value.getClass(), e);
        }
    }

    /**
     * How many bytes {@code value}'s JSON takes as {@link #MAPPER} writes it in UTF-8 (as the journal
     * stores an event), counted as it is written: no copy of it is made.
     */
    public static long size(Object value) {
        ByteCount count = new ByteCount();
        write(count, value);
        return count.bytes;
    }

    private static final class ByteCount extends OutputStream {
        private long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }

    public static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** JSON text with object keys sorted at every level, so equal values give equal text. */
    public static String canonical(JsonNode node) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = MAPPER.getFactory().createGenerator(text)) {
            writeCanonical(generator, node == null ? MAPPER.nullNode() : node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return text.toString();
    }

    /**
     * Writes the tree itself, keys sorted: the same text the mapper writes for the tree read as
     * plain maps and lists with its entries ordered by key (a digest in a stored requestState or a
     * journaled fingerprint must not change), without building those maps first. As the mapper's
     * {@code NON_ABSENT} inclusion does for map entries, a null member is left out.
     */
    private static void writeCanonical(JsonGenerator generator, JsonNode node) throws IOException {
        if (node.isObject()) {
            List<String> names = new ArrayList<>(node.size());
            node.fieldNames().forEachRemaining(names::add);
            Collections.sort(names);
            generator.writeStartObject();
            for (String name : names) {
                JsonNode value = node.get(name);
                if (!value.isNull()) {
                    generator.writeFieldName(name);
                    writeCanonical(generator, value);
                }
            }
            generator.writeEndObject();
        } else if (node.isArray()) {
            generator.writeStartArray();
            for (JsonNode element : node) {
                writeCanonical(generator, element);
            }
            generator.writeEndArray();
        } else {
            MAPPER.writeTree(generator, node);
        }
    }

    /** Hex SHA-256 of the canonical form: the digest requestState binds arguments with. */
    public static String digest(JsonNode node) {
        return sha256Hex(canonical(node));
    }

    public static String sha256Hex(String text) {
        return HexFormat.of().formatHex(sha256(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** One digest per thread: {@code MessageDigest.getInstance} looks the provider up reflectively each time. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    public static byte[] sha256(byte[] bytes) {
        return SHA256.get().digest(bytes);
    }
}
