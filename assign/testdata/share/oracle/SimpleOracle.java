import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;

/**
 * Runs Kafka's share-group SimpleAssignor on groups read from stdin, in
 * assigncalc's JSON contract, under the conventions of assign/simple.go
 * (the same GroupSpec as kip848/oracle/Oracle.java builds), one answer a
 * line on stdout.
 */
public final class SimpleOracle {
    public static void main(String[] args) throws Exception {
        Oracle.run(new SimpleAssignor());
    }
}
