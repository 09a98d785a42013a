package dev.parley.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a prompt. Its {@link Arg} parameters are {@code String} (required) or
 * {@code Optional<String>}; it may take a {@link dev.parley.runtime.CallContext} and returns a
 * {@link dev.parley.runtime.PromptDefinition.Result}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Prompt {
    /** The prompt's name; the method's name when empty. */
    String name() default "";

    String title() default "";

    String description() default "";

    String[] scopes() default {};
}
