package org.apache.kafka.common.config;

/** Stand-in: referenced by Kafka's Utils in code the oracle never runs. */
public class ConfigException extends RuntimeException {
    public ConfigException(String message) { super(message); }
    public ConfigException(String name, Object value, String message) { super(message); }
}
