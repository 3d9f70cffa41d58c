package org.slf4j;

/** Hands out a Logger that says nothing. */
public final class LoggerFactory {
    private LoggerFactory() {}
    public static Logger getLogger(Class<?> c) { return new Logger() {}; }
    public static Logger getLogger(String name) { return new Logger() {}; }
}
