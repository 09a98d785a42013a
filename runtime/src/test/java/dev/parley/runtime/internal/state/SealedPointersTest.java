package dev.parley.runtime.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.Json;
import dev.parley.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class SealedPointersTest {
    private static final String BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    private static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final RequestStateKey OLD_KEY = key("k1", 1);
    private static final RequestStateKey NEW_KEY = key("k2", 2);
    private static final PointerBinding BINDING = new PointerBinding(
            "alice", "tools/call", "schedule_release", Json.digest(Json.parse("{\"service\":\"billing\"}")));

    private final MutableClock clock = new MutableClock(Instant.parse("2026-07-28T09:00:00Z"));
    private final SealedPointers codec = new SealedPointers(List.of(OLD_KEY), LIFETIME, clock);

    private static RequestStateKey key(String id, int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return new RequestStateKey(id, secret);
    }

    private void assertRejected(SealedPointers codec, String token, PointerBinding binding) {
        assertThrows(InvalidRequestStateException.class, () -> codec.open(token, binding), () -> "opened: " + token);
    }

    @Test
    void aSealedStateOpensToTheCallAndRoundItPointsTo() throws Exception {
        String token = codec.seal("call-1", 3, BINDING);

        SealedPointers.Opened opened = codec.open(token, BINDING);

        assertEquals(new SealedPointers.Opened("call-1", 3), opened);
    }

    @Test
    void aSealedStateIsUrlSafeTextWithinTheSizeBound() {
        String token = codec.seal("0f8fad5b-d9cb-469f-a165-70867728950e", 12, BINDING);

        assertTrue(token.matches("[A-Za-z0-9_-]+"), token);
        assertTrue(token.length() <= SealedPointers.MAX_TOKEN_LENGTH);
    }

    @Test
    void aStateWithAnyCharacterChangedIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);
        for (int i = 0; i < token.length(); i++) {
            for (char replacement : BASE64URL.toCharArray()) {
                if (replacement == token.charAt(i)) {
                    continue;
                }
                String tampered = token.substring(0, i) + replacement + token.substring(i + 1);
                assertRejected(codec, tampered, BINDING);
            }
        }
    }

    @Test
    void aStateWithAnyBitFlippedIsRejected() {
        byte[] raw = Base64.getUrlDecoder().decode(codec.seal("call-1", 1, BINDING));
        for (int i = 0; i < raw.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] tampered = raw.clone();
                tampered[i] ^= (byte) (1 << bit);
                assertRejected(codec, Base64.getUrlEncoder().withoutPadding().encodeToString(tampered), BINDING);
            }
        }
    }

    @Test
    void aStateWithBytesAddedOrRemovedIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);
        byte[] raw = Base64.getUrlDecoder().decode(token);
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();

        assertRejected(codec, encoder.encodeToString(Arrays.copyOf(raw, raw.length - 1)), BINDING);
        assertRejected(codec, encoder.encodeToString(Arrays.copyOf(raw, raw.length + 1)), BINDING);
        assertRejected(codec, encoder.encodeToString(Arrays.copyOfRange(raw, 1, raw.length)), BINDING);
        assertRejected(codec, token + "A", BINDING);
        assertRejected(codec, token.substring(0, token.length() - 1), BINDING);
    }

    @Test
    void aStateInAnotherEncodingOfTheSameBytesIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);
        String padded =
                Base64.getUrlEncoder().encodeToString(Base64.getUrlDecoder().decode(token));
        assertNotEquals(token, padded, "the sealed token is expected to need padding");

        assertRejected(codec, padded, BINDING);
        assertRejected(codec, " " + token, BINDING);
        assertRejected(codec, token + "\n", BINDING);
        String standardAlphabet = token.replace('-', '+').replace('_', '/');
        if (!standardAlphabet.equals(token)) {
            assertRejected(codec, standardAlphabet, BINDING);
        }
    }

    @Test
    void aStateSealedByAnotherServerWithTheSameKeyIdButAnotherSecretIsRejected() {
        SealedPointers impostor = new SealedPointers(List.of(key("k1", 9)), LIFETIME, clock);

        assertRejected(codec, impostor.seal("call-1", 1, BINDING), BINDING);
    }

    @Test
    void aStateOpensUntilItsExpiryAndNotAfter() throws Exception {
        String token = codec.seal("call-1", 1, BINDING);

        clock.advance(LIFETIME);
        assertEquals("call-1", codec.open(token, BINDING).pointer());

        clock.advance(Duration.ofSeconds(1));
        assertRejected(codec, token, BINDING);
    }

    @Test
    void anExpiredStateIsRejectedEvenByANewCodecInstance() {
        String token = codec.seal("call-1", 1, BINDING);
        clock.advance(Duration.ofHours(1));

        assertRejected(new SealedPointers(List.of(OLD_KEY), Duration.ofDays(1), clock), token, BINDING);
    }

    @Test
    void aStatePresentedByAnotherPrincipalIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);

        assertRejected(
                codec,
                token,
                new PointerBinding("mallory", BINDING.purpose(), BINDING.scope(), BINDING.argumentsDigest()));
    }

    @Test
    void aStatePresentedForAnotherMethodIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);

        assertRejected(
                codec,
                token,
                new PointerBinding(BINDING.principal(), "prompts/get", BINDING.scope(), BINDING.argumentsDigest()));
    }

    @Test
    void aStatePresentedForAnotherToolNameIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);

        assertRejected(
                codec,
                token,
                new PointerBinding(BINDING.principal(), BINDING.purpose(), "book_venue", BINDING.argumentsDigest()));
    }

    @Test
    void aStatePresentedWithOtherArgumentsIsRejected() {
        String token = codec.seal("call-1", 1, BINDING);

        assertRejected(
                codec,
                token,
                new PointerBinding(
                        BINDING.principal(),
                        BINDING.purpose(),
                        BINDING.scope(),
                        Json.digest(Json.parse("{\"service\":\"payments\"}"))));
    }

    @Test
    void argumentsThatDifferOnlyInKeyOrderHaveTheSameDigest() throws Exception {
        String token = codec.seal(
                "call-1",
                1,
                new PointerBinding(
                        "alice",
                        "tools/call",
                        "book_venue",
                        Json.digest(Json.parse("{\"date\":\"2026-08-01\",\"guests\":40}"))));

        SealedPointers.Opened opened = codec.open(
                token,
                new PointerBinding(
                        "alice",
                        "tools/call",
                        "book_venue",
                        Json.digest(Json.parse("{ \"guests\": 40, \"date\": \"2026-08-01\" }"))));

        assertEquals("call-1", opened.pointer());
    }

    @Test
    void bindingFieldsCannotBeShiftedIntoEachOther() {
        String token = codec.seal("call-1", 1, new PointerBinding("alice", "tools/call", "ab", "cd"));

        assertRejected(codec, token, new PointerBinding("alice", "tools/call", "a", "bcd"));
        assertRejected(codec, token, new PointerBinding("alice", "tools/call", "abc", "d"));
    }

    @Test
    void aStateSealedWithTheOldKeyStillOpensAfterTheKeyRotates() throws Exception {
        String sealedBeforeRotation = codec.seal("call-1", 2, BINDING);
        SealedPointers rotated = new SealedPointers(List.of(NEW_KEY, OLD_KEY), LIFETIME, clock);

        assertEquals(new SealedPointers.Opened("call-1", 2), rotated.open(sealedBeforeRotation, BINDING));
    }

    @Test
    void aRotatedCodecSealsWithItsFirstKey() throws Exception {
        SealedPointers rotated = new SealedPointers(List.of(NEW_KEY, OLD_KEY), LIFETIME, clock);
        String sealedAfterRotation = rotated.seal("call-2", 1, BINDING);

        assertRejected(codec, sealedAfterRotation, BINDING);
        SealedPointers newKeyOnly = new SealedPointers(List.of(NEW_KEY), LIFETIME, clock);
        assertEquals("call-2", newKeyOnly.open(sealedAfterRotation, BINDING).pointer());
    }

    @Test
    void aCodecThatDroppedTheOldKeyRejectsStatesSealedWithIt() {
        String sealedWithOldKey = codec.seal("call-1", 1, BINDING);

        assertRejected(new SealedPointers(List.of(NEW_KEY), LIFETIME, clock), sealedWithOldKey, BINDING);
    }

    @Test
    void aStateNamingAnUnknownKeyIdIsRejected() {
        SealedPointers other = new SealedPointers(List.of(key("elsewhere", 1)), LIFETIME, clock);

        assertRejected(codec, other.seal("call-1", 1, BINDING), BINDING);
    }

    @Test
    void missingEmptyOversizedAndGarbageStatesAreRejected() {
        String oversized = "A".repeat(SealedPointers.MAX_TOKEN_LENGTH + 1);
        for (String token : new String[] {
            null,
            "",
            " ",
            "A",
            "AAAA",
            oversized,
            "not base64!",
            "%%%%",
            "eyJhbGciOiJub25lIn0",
            "{\"callId\":\"call-1\",\"round\":1}",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0-P0BBQkNERUZH"
        }) {
            assertRejected(codec, token, BINDING);
        }
    }

    @Test
    void aStateOfAnUnknownVersionIsRejected() {
        byte[] raw = Base64.getUrlDecoder().decode(codec.seal("call-1", 1, BINDING));
        raw[0] = 2;

        assertRejected(codec, Base64.getUrlEncoder().withoutPadding().encodeToString(raw), BINDING);
    }

    @Test
    void theRejectionReasonNamesTheCauseForTheLog() {
        String token = codec.seal("call-1", 1, BINDING);
        clock.advance(Duration.ofHours(1));

        InvalidRequestStateException expired =
                assertThrows(InvalidRequestStateException.class, () -> codec.open(token, BINDING));

        assertTrue(expired.getMessage().contains("expired"), expired.getMessage());
    }

    @Test
    void aCodecNeedsAtLeastOneKeyAndDistinctKeyIds() {
        assertThrows(IllegalArgumentException.class, () -> new SealedPointers(List.of(), LIFETIME, clock));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SealedPointers(List.of(OLD_KEY, key("k1", 5)), LIFETIME, clock));
    }

    @Test
    void aBindingNeedsEveryField() {
        assertThrows(NullPointerException.class, () -> new PointerBinding(null, "tools/call", "t", "d"));
        assertThrows(NullPointerException.class, () -> new PointerBinding("p", null, "t", "d"));
        assertThrows(NullPointerException.class, () -> new PointerBinding("p", "tools/call", null, "d"));
        assertThrows(NullPointerException.class, () -> new PointerBinding("p", "tools/call", "t", null));
    }

    @Test
    void aStateForANonAsciiCallIdRoundTrips() throws Exception {
        String callId = "appel-\u00e9t\u00e9-\uD83D\uDE80";

        assertEquals(callId, codec.open(codec.seal(callId, 1, BINDING), BINDING).pointer());
    }

    @Test
    void aCallIdTooLongForAStateThatCouldBeOpenedIsRefusedWhenSealing() {
        assertThrows(
                IllegalArgumentException.class,
                () -> codec.seal("c".repeat(SealedPointers.MAX_TOKEN_LENGTH), 1, BINDING));
    }

    @Test
    void aPointerOpensOnlyForThePurposeItWasSealedFor() throws Exception {
        String serverRequestId = codec.seal("call-1", 2, PointerBinding.serverRequestId("alice", "s1"));

        assertEquals(
                new SealedPointers.Opened("call-1", 2),
                codec.open(serverRequestId, PointerBinding.serverRequestId("alice", "s1")));
        assertRejected(codec, serverRequestId, PointerBinding.streamEventId("alice", "s1"));
        assertRejected(codec, serverRequestId, PointerBinding.requestState("alice", "server-request", "s1", "x"));
    }

    /** Tokens in clients' hands outlive a release: this one was sealed by the build before the rename to SealedPointers. */
    @Test
    void theTokenFormatIsPinned() throws Exception {
        String sealedEarlier =
                "AQACazEABmNhbGwtMQAAAAMAAAAAamhx6MtrMhDKq-jF0GlUgH4TWpx2lN5smWFA3b5GOHUrwCyExS7tWgu_K8GbnTX17xOulkYuuRX3wxq_n5aMGLUB0Xo";

        assertEquals(new SealedPointers.Opened("call-1", 3), codec.open(sealedEarlier, BINDING));
    }
}
