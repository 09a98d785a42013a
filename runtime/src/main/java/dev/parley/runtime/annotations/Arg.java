package dev.parley.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One argument of an annotated tool or prompt, or one variable of a resource template. A tool
 * argument's schema comes from the parameter's type as for a record component; an
 * {@code Optional} parameter is not required.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Arg {
    /** The argument's name on the wire. */
    String value();

    String description() default "";
}
