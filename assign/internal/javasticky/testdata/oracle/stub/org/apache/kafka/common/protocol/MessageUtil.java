package org.apache.kafka.common.protocol;

/**
 * Stand-in: Kafka's MessageUtil needs Jackson; Struct only reads these two
 * bounds (for UINT16 and UINT32 fields, which the sticky user data does not
 * have), copied as the values Kafka defines.
 */
public final class MessageUtil {
    private MessageUtil() {}
    public static final long UNSIGNED_INT_MAX = 4294967295L;
    public static final int UNSIGNED_SHORT_MAX = 65535;
}
