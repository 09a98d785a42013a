package dev.parley.http.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/** The parley.auth block: off by default, and a configuration that cannot protect anything fails at start. */
class AuthSettingsTest {
    private static AuthSettings read(String auth) {
        return AuthSettings.from(
                ConfigFactory.parseString("parley.auth {" + auth + "}").withFallback(ConfigFactory.load()));
    }

    private static String refusal(String auth) {
        return assertThrows(IllegalArgumentException.class, () -> read("enabled = true\n" + auth))
                .getMessage();
    }

    @Test
    void authorizationIsOffByDefault() {
        AuthSettings settings = AuthSettings.from(ConfigFactory.load());
        assertFalse(settings.enabled());
        assertFalse(settings.limits().enabled());
        assertEquals("http://127.0.0.1:8080/mcp", settings.resource().toString());
    }

    @Test
    void theReferenceBlockIsAValidConfigurationOnceEnabled() {
        assertTrue(read("enabled = true").enabled());
    }

    @Test
    void configurationsThatCannotProtectAnythingAreRefusedWithTheKeyToFix() {
        assertTrue(refusal("authorization-servers = []").contains("authorization-servers"));
        assertTrue(refusal("issuers = []").contains("issuers"));
        assertTrue(refusal("resource = \"/mcp\"").contains("parley.auth.resource"));
        assertTrue(refusal("shared-secret = \"short\"").contains("shared-secret"));
        assertTrue(refusal("jwks { refetch-interval = 10m, cache-ttl = 5m }").contains("refetch-interval"));
    }
}
