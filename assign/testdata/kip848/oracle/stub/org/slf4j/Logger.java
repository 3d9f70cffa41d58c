package org.slf4j;

/** Just enough of SLF4J for the assignors to compile; every call is a no-op. */
public interface Logger {
    default void debug(String msg) {}
    default void debug(String format, Object arg) {}
    default void debug(String format, Object... args) {}
    default void info(String msg) {}
    default void warn(String msg) {}
    default void error(String msg) {}
    default boolean isDebugEnabled() { return false; }
}
