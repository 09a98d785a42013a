package dev.parley.runtime.internal.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.testing.MutableClock;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestStateKeyTest {

    @TempDir
    Path dataDirectory;

    @Test
    void loadOrCreateWritesAKeyOnceAndReadsTheSameKeyBack() throws IOException {
        Path file = dataDirectory.resolve("keys").resolve("request-state.key");

        RequestStateKey created = RequestStateKey.loadOrCreate(file);
        String written = Files.readString(file);
        RequestStateKey loaded = RequestStateKey.loadOrCreate(file);

        assertEquals(created.id(), loaded.id());
        assertArrayEquals(created.secret(), loaded.secret());
        assertEquals(created, loaded);
        assertEquals(written, Files.readString(file), "the second call must not rewrite the file");
        try (var files = Files.list(file.getParent())) {
            assertEquals(List.of(file), files.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void aKeyFileIsReadableByItsOwnerOnly() throws IOException {
        Path file = dataDirectory.resolve("request-state.key");
        RequestStateKey.loadOrCreate(file);

        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
    }

    @Test
    void aStateSealedBeforeARestartOpensAfterIt() throws Exception {
        Path file = dataDirectory.resolve("request-state.key");
        MutableClock clock = new MutableClock(Instant.parse("2026-07-28T09:00:00Z"));
        PointerBinding binding = new PointerBinding("alice", "tools/call", "create_invoice", "digest");
        String token = new SealedPointers(List.of(RequestStateKey.loadOrCreate(file)), Duration.ofMinutes(5), clock)
                .seal("call-9", 1, binding);

        SealedPointers afterRestart =
                new SealedPointers(List.of(RequestStateKey.loadOrCreate(file)), Duration.ofMinutes(5), clock);

        assertEquals("call-9", afterRestart.open(token, binding).pointer());
    }

    @Test
    void aMalformedKeyFileIsAnError() throws IOException {
        Path file = dataDirectory.resolve("request-state.key");
        Files.writeString(file, "no-separator-here");

        assertThrows(IOException.class, () -> RequestStateKey.loadOrCreate(file));
    }

    @Test
    void aKeyFromConfigurationAcceptsBothBase64Alphabets() {
        byte[] secret = new byte[48];
        Arrays.fill(secret, (byte) 0xfb);

        RequestStateKey standard =
                RequestStateKey.fromBase64("cfg", Base64.getEncoder().encodeToString(secret));
        RequestStateKey url =
                RequestStateKey.fromBase64("cfg", " " + Base64.getUrlEncoder().encodeToString(secret) + "\n");

        assertArrayEquals(secret, standard.secret());
        assertArrayEquals(secret, url.secret());
    }

    @Test
    void aKeyNeedsAtLeast32BytesAndAShortPlainId() {
        assertThrows(IllegalArgumentException.class, () -> new RequestStateKey("k1", new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> new RequestStateKey("k1", null));
        assertThrows(IllegalArgumentException.class, () -> new RequestStateKey("", new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> new RequestStateKey("has space", new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> new RequestStateKey("k".repeat(33), new byte[32]));
        assertThrows(NullPointerException.class, () -> new RequestStateKey(null, new byte[32]));
    }

    @Test
    void aKeyKeepsItsOwnCopyOfTheSecret() {
        byte[] secret = new byte[32];
        RequestStateKey key = new RequestStateKey("k1", secret);

        secret[0] = 1;
        key.secret()[1] = 1;

        assertArrayEquals(new byte[32], key.secret());
    }

    @Test
    void generatedKeysDifferAndNeverPrintTheirSecret() {
        RequestStateKey one = RequestStateKey.generate();
        RequestStateKey two = RequestStateKey.generate();

        assertNotEquals(one, two);
        assertFalse(Arrays.equals(one.secret(), two.secret()));
        assertEquals(32, one.secret().length);
        assertTrue(one.toString().contains(one.id()));
        assertFalse(one.toString().contains(Base64.getEncoder().encodeToString(one.secret())));
    }

    @Test
    void keysWithTheSameIdAndSecretAreEqual() {
        RequestStateKey one = new RequestStateKey("k1", new byte[32]);
        RequestStateKey same = new RequestStateKey("k1", new byte[32]);

        assertEquals(one, same);
        assertEquals(one.hashCode(), same.hashCode());
        assertNotEquals(one, new RequestStateKey("k2", new byte[32]));
    }
}
