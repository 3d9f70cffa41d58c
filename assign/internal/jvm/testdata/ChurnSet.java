// ChurnSet replays add/remove sequences on a java.util.HashSet made by
// new HashSet<>() and prints its iteration order after every step. It
// produced churnset.golden (see README.md):
//
//	java ChurnSet.java < sequences > orders
//
// Each input line is one sequence of space-separated steps: "+ID:HASH" adds
// the key ID whose hashCode() is HASH (a key added again must bring the
// same HASH), "-ID" removes key ID. Keys are not Comparable, as Kafka's
// TopicPartition is not, and a sequence must not put two keys of equal
// hash into one tree bin (Java would order them by identity hash code).
// Each output line is the orders after each step, space separated, each
// order the IDs in iteration order joined by commas ("_" for empty).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.StringJoiner;

public class ChurnSet {
    static final class Key {
        final int id, hash;

        Key(int id, int hash) {
            this.id = id;
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).id == id;
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) continue;
            HashSet<Key> set = new HashSet<>();
            HashMap<Integer, Integer> hashes = new HashMap<>();
            StringJoiner steps = new StringJoiner(" ");
            for (String step : line.split(" ")) {
                if (step.charAt(0) == '+') {
                    String[] f = step.substring(1).split(":");
                    int id = Integer.parseInt(f[0]), hash = Integer.parseInt(f[1]);
                    hashes.put(id, hash);
                    set.add(new Key(id, hash));
                } else {
                    int id = Integer.parseInt(step.substring(1));
                    set.remove(new Key(id, hashes.getOrDefault(id, 0)));
                }
                StringJoiner order = new StringJoiner(",");
                for (Key k : set) order.add(Integer.toString(k.id));
                steps.add(set.isEmpty() ? "_" : order.toString());
            }
            out.write(steps.toString());
            out.write('\n');
        }
        out.flush();
    }
}
