package org.slf4j.event;

/** Referenced by Kafka's Utils.swallow, which the oracle never calls. */
public enum Level { ERROR, WARN, INFO, DEBUG, TRACE }
