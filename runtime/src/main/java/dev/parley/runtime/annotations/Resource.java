package dev.parley.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a resource: a fixed URI, or a URI template whose variables arrive as
 * {@link Arg} parameters ({@code String}). It may take the
 * {@link dev.parley.runtime.ResourceDefinition.ReadRequest} and a
 * {@link dev.parley.runtime.CallContext}; it returns a list of
 * {@link dev.parley.runtime.ResourceContents}, one of them, or a {@code String} (text contents
 * of the URI read, with {@link #mimeType()}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Resource {
    /** The URI, or a template such as {@code demo://reports/{id}}. */
    String uri();

    /** The resource's name; the method's name when empty. */
    String name() default "";

    String title() default "";

    String description() default "";

    String mimeType() default "";

    String[] scopes() default {};
}
