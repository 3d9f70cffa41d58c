package org.apache.kafka.common.record;

/** Stand-in: the RECORDS type of Kafka's protocol, which the sticky user data never holds. */
public interface BaseRecords {
    int sizeInBytes();
}
