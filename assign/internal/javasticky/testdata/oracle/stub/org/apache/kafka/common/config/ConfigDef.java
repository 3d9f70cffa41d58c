package org.apache.kafka.common.config;

import java.util.Map;

/** Stand-in: referenced by Kafka's Utils.mergeConfigs, which the oracle never runs. */
public class ConfigDef {
    public static class ConfigKey {}
    public Map<String, ConfigKey> configKeys() { throw new UnsupportedOperationException(); }
    public ConfigDef define(ConfigKey key) { throw new UnsupportedOperationException(); }
}
