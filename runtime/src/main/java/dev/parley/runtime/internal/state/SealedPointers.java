package dev.parley.runtime.internal.state;

import dev.parley.runtime.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens pointers into durable calls: opaque, authenticated, expiring tokens that hold
 * a short pointer (a call's id, or a stream cursor naming one) and a round, never a payload. Three
 * things are sealed this way, each with its own {@link PointerBinding}: a {@code requestState}, a
 * 2025-11-25 server→client request's id, and a 2025-11-25 call stream's event id.
 *
 * <p>Layout (then base64url, no padding): {@code version(1) | keyId | pointer | round(int) |
 * expiresAt(long, epoch s) | binding digest(32) | HMAC-SHA256(32)} over everything before the
 * MAC. The binding digest covers the binding's principal, purpose, scope and arguments' digest.
 * The first key ({@code parley.request-state.keys}) seals; every key opens, so keys rotate by
 * putting a new one first.
 */
public final class SealedPointers {
    private static final byte VERSION = 1;
    private static final int MAC_LENGTH = 32;
    /** States longer than this are refused before any decoding work. */
    public static final int MAX_TOKEN_LENGTH = 1024;

    private final RequestStateKey sealingKey;
    private final Map<String, RequestStateKey> keysById = new LinkedHashMap<>();
    private final Duration lifetime;
    private final Clock clock;

    /** What an opened token points to: the pointer that was sealed, and its round. */
    public record Opened(String pointer, int round) {}

    public SealedPointers(List<RequestStateKey> keys, Duration lifetime, Clock clock) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("at least one requestState key is needed");
        }
        this.sealingKey = keys.get(0);
        keys.forEach(key -> {
            if (keysById.putIfAbsent(key.id(), key) != null) {
                throw new IllegalArgumentException("duplicate requestState key id " + key.id());
            }
        });
        this.lifetime = lifetime;
        this.clock = clock;
    }

    public String seal(String pointer, int round, PointerBinding binding) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeUTF(sealingKey.id());
            out.writeUTF(pointer);
            out.writeInt(round);
            out.writeLong(clock.instant().plus(lifetime).getEpochSecond());
            out.write(bindingDigest(binding));
            out.flush();
            byte[] payload = bytes.toByteArray();
            byte[] mac = mac(sealingKey, payload);
            byte[] token = Arrays.copyOf(payload, payload.length + MAC_LENGTH);
            System.arraycopy(mac, 0, token, payload.length, MAC_LENGTH);
            String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(token);
            if (encoded.length() > MAX_TOKEN_LENGTH) {
                throw new IllegalArgumentException("call id too long: the requestState would exceed " + MAX_TOKEN_LENGTH
                        + " characters and could never be opened");
            }
            return encoded;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Verifies MAC, expiry and binding; any failure is an {@link InvalidRequestStateException}. */
    public Opened open(String token, PointerBinding binding) throws InvalidRequestStateException {
        if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
            throw new InvalidRequestStateException("missing or oversized requestState");
        }
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestStateException("requestState is not base64url");
        }
        // Only the exact text seal() wrote is accepted: padding, and stray bits in the last
        // character, would otherwise give several texts for one sealed state.
        if (!Base64.getUrlEncoder().withoutPadding().encodeToString(raw).equals(token)) {
            throw new InvalidRequestStateException("requestState is not in canonical base64url");
        }
        if (raw.length <= MAC_LENGTH + 1) {
            throw new InvalidRequestStateException("requestState too short");
        }
        byte[] payload = Arrays.copyOf(raw, raw.length - MAC_LENGTH);
        byte[] presentedMac = Arrays.copyOfRange(raw, raw.length - MAC_LENGTH, raw.length);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
            if (in.readByte() != VERSION) {
                throw new InvalidRequestStateException("unknown requestState version");
            }
            RequestStateKey key = keysById.get(in.readUTF());
            if (key == null) {
                throw new InvalidRequestStateException("requestState sealed with an unknown key");
            }
            if (!MessageDigest.isEqual(mac(key, payload), presentedMac)) {
                throw new InvalidRequestStateException("requestState MAC does not verify");
            }
            String pointer = in.readUTF();
            int round = in.readInt();
            long expiresAt = in.readLong();
            byte[] boundTo = in.readNBytes(32);
            if (in.available() != 0) {
                throw new InvalidRequestStateException("trailing bytes in requestState");
            }
            if (clock.instant().isAfter(Instant.ofEpochSecond(expiresAt))) {
                throw new InvalidRequestStateException("requestState expired at " + Instant.ofEpochSecond(expiresAt));
            }
            if (!MessageDigest.isEqual(boundTo, bindingDigest(binding))) {
                throw new InvalidRequestStateException(
                        "requestState presented for another principal, method, name or arguments");
            }
            return new Opened(pointer, round);
        } catch (IOException e) {
            throw new InvalidRequestStateException("truncated requestState");
        }
    }

    private static byte[] bindingDigest(PointerBinding binding) {
        String joined = String.join(
                "\u0000", binding.principal(), binding.purpose(), binding.scope(), binding.argumentsDigest());
        return Json.sha256(joined.getBytes(StandardCharsets.UTF_8));
    }

    /** One Mac per thread: {@code Mac.getInstance} looks the provider up reflectively each time. */
    private static final ThreadLocal<Mac> HMAC_SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    });

    private static byte[] mac(RequestStateKey key, byte[] payload) {
        try {
            Mac mac = HMAC_SHA256.get();
            mac.init(new SecretKeySpec(key.secret(), "HmacSHA256"));
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
