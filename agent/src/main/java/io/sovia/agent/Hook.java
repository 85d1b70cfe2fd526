package io.sovia.agent;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Marks the advice parameter that Byte Buddy binds to the hook holder's static {@code factory} field. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
@interface Hook {
}
