package org.slf4j;

/** Just enough of SLF4J for the assignors and their helpers to compile; every call is a no-op. */
public interface Logger {
    default void trace(String format, Object... args) {}
    default void debug(String msg) {}
    default void debug(String format, Object... args) {}
    default void info(String msg) {}
    default void info(String format, Object... args) {}
    default void warn(String msg) {}
    default void warn(String format, Object... args) {}
    default void error(String msg) {}
    default void error(String format, Object... args) {}
    default boolean isDebugEnabled() { return false; }
    default boolean isTraceEnabled() { return false; }
}
