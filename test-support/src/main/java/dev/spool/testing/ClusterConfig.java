package dev.spool.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Node config for one test method of a {@link SpoolClusterTest} class, {@code "key=value"}, on top
 * of the class's. The method gets a cluster of its own (started for it, stopped after it); the
 * class's cluster is left alone.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ClusterConfig {
  String[] value();
}
