package dev.parley.runtime;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A short human-readable label for a record component in the JSON Schema derived from its
 * record ({@code title}); a client shows it as the field's label in a form.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.PARAMETER})
public @interface Title {
    String value();
}
