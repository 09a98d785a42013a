package dev.parley.runtime;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a typed form's record component whose name, title or description names a sensitive
 * term (see {@link ElicitationSafety#SENSITIVE_TERMS}) but which asks for no secret, e.g. a
 * customer's "account number" that is printed on every invoice. {@link #value()} says why;
 * it stays in code and in the test kit's report, and is never sent to the client.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface NotASecret {
    /** Why this field is no secret. */
    String value();
}
